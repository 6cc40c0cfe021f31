// SPDX-License-Identifier: GPL-2.0
/* wblab run --repro DIR (run-repro.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/kernel.h"
#include "cmd/run-repro.h"
#include "results/reader.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/log.h"

#define SPEC_MAX (1u << 20)

/* The lab's spec file at lab_path holds what the bundle's copy holds. */
static int same_spec(const char *dir, const char *copy, const char *lab_path,
		     struct strbuf *err)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	char *p = xasprintf("%s/%s", dir, copy);
	int ret = 0;

	if (read_file_capped(&a, p, SPEC_MAX)) {
		strbuf_addf(err, "%s: %s", p, open_regular_strerror(errno));
		ret = -1;
	} else if (read_file_capped(&b, lab_path, SPEC_MAX) || a.len != b.len ||
		   memcmp(a.buf, b.buf, a.len)) {
		strbuf_addf(
			err,
			"%s differs from the bundle's %s: this lab would not run the same cell",
			lab_path, p);
		ret = -1;
	}
	strbuf_release(&a);
	strbuf_release(&b);
	free(p);
	return ret;
}

static int check_kernel(const struct repro_spec *s, struct strbuf *err)
{
	struct kernel_spec ks;
	char hex[HASH_HEX_LEN + 1];
	int ret = -1;

	if (kernel_spec_find(s->kernel, &ks)) {
		strbuf_addf(err, "kernel %s: not in this lab", s->kernel);
		return -1;
	}
	if (kernel_cache_key(&ks, hex))
		strbuf_addf(err, "kernel %s: cannot compute its cache key",
			    s->kernel);
	else if (strcmp(hex, s->kernel_hash))
		strbuf_addf(
			err,
			"kernel %s here has cache key %.12s, the bundle's %.12s: not the same kernel (its spec, patches, config or toolchain differ)",
			s->kernel, hex, s->kernel_hash);
	else
		ret = 0;
	kernel_spec_free(&ks);
	return ret;
}

int run_repro_load(const char *dir, struct repro_spec *s, struct strbuf *err)
{
	struct topology_spec t;
	struct workload_spec w;
	int ret;

	if (repro_load(dir, s, err))
		return -1;
	if (topology_spec_find(s->topology, &t)) {
		strbuf_addf(err, "topology %s: not in this lab", s->topology);
		goto fail;
	}
	ret = same_spec(dir, "topology.yaml", t.path, err);
	topology_spec_free(&t);
	if (ret)
		goto fail;
	if (workload_spec_find(s->workload, &w)) {
		strbuf_addf(err, "workload %s: not in this lab", s->workload);
		goto fail;
	}
	ret = same_spec(dir, "workload.yaml", w.path, err);
	workload_spec_free(&w);
	if (ret || check_kernel(s, err))
		goto fail;
	return 0;
fail:
	repro_spec_free(s);
	return -1;
}

struct tally {
	json_object *sig;
	int n, hits;
};

static int tally_cell(const struct results_run *run,
		      const struct results_cell *c, void *data)
{
	struct tally *t = data;
	struct strbuf why = STRBUF_INIT;
	const char *id = c->rel ? c->rel : "?";

	if (!c->res || !c->counts) {
		printf("  %-50s %s\n", id,
		       c->res ? "infra-error: not counted" : c->why);
		return 0;
	}
	t->n++;
	if (repro_signature_match(t->sig, c->res, &why)) {
		t->hits++;
		printf("  %-50s signature\n", id);
	} else {
		printf("  %-50s not it: %s\n", id, why.buf);
	}
	strbuf_release(&why);
	return 0;
}

int run_repro_tally(const char *run_dir, json_object *sig)
{
	struct results_run run;
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	struct tally t = { .sig = sig };

	repro_signature_line(sig, &line);
	if (results_open_run(run_dir, &run, &err)) {
		error("%s", err.buf);
		goto out;
	}
	printf("signature: %s\n", line.buf);
	results_for_each_cell(&run, tally_cell, &t);
	printf("the signature came back in %d of %d cells\n", t.hits, t.n);
	results_close_run(&run);
out:
	strbuf_release(&err);
	strbuf_release(&line);
	return t.hits;
}
