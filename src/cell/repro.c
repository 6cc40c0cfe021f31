// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer bundles (repro.h): what one cell ran and saw, read from its
 * results through the one results reader, written as a directory of
 * plain files. The signature a rerun is checked against lives here too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "cell/repro.h"
#include "cell/repro-int.h"
#include "cell/reprosh.h"
#include "results/levers.h"
#include "results/outcome.h"
#include "results/reader.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"

/*
 * RUN/cells/CELL, checked by the results reader: run_dir and the cell's
 * directory, or -1 with why.
 */
static int locate_cell(const char *arg, char **run_dir, char **cell_dir,
		       struct strbuf *err)
{
	size_t len = strlen(arg);
	const char *slash, *name;
	char *copy, *rel;

	while (len > 1 && arg[len - 1] == '/')
		len--;
	copy = xstrndup(arg, len);
	slash = strrchr(copy, '/');
	name = slash ? slash + 1 : copy;
	if (!slash || slash - copy < 5 || memcmp(slash - 5, "cells", 5) ||
	    (slash - copy > 5 && slash[-6] != '/')) {
		strbuf_addf(err,
			    "%s: not a cell directory (RUN_DIR/cells/CELL)",
			    arg);
		free(copy);
		return -1;
	}
	*run_dir = slash - copy > 6 ? xstrndup(copy, slash - copy - 6) :
				      xstrdup(".");
	rel = xasprintf("cells/%s", name);
	*cell_dir = results_cell_dir(*run_dir, rel, err);
	free(rel);
	free(copy);
	if (!*cell_dir) {
		free(*run_dir);
		*run_dir = NULL;
		return -1;
	}
	return 0;
}

/* plan.txt and plan-target.txt, kept and rendered as shell. */
static int plans(struct repro_ctx *x)
{
	static const char *const names[][2] = {
		{ "plan.txt", "plan.sh" },
		{ "plan-target.txt", "plan-target.sh" },
	};

	for (size_t i = 0; i < 2; i++) {
		struct strbuf plan = STRBUF_INIT, sh = STRBUF_INIT;
		int r = repro_read_cell_file(x->cell_dir, names[i][0],
					     REPRO_PLAN_MAX, &plan, x->err);

		if (r == 1 && i == 0)
			strbuf_addf(
				x->err,
				"%s/plan.txt: missing: the cell's files were not kept",
				x->cell_dir);
		if (!r)
			r = repro_plan_sh(plan.buf, plan.len, names[i][0], &sh,
					  x->err) ||
			    repro_write(x->out, names[i][0], &plan, 0644,
					x->err) ||
			    repro_write(x->out, names[i][1], &sh, 0755, x->err);
		x->has_target |= i == 1 && !r;
		strbuf_release(&plan);
		strbuf_release(&sh);
		if (r < 0 || (r == 1 && i == 0))
			return -1;
	}
	return 0;
}

/* domain.xml and domain-target.xml as the cell saved them, when it did. */
static int domains(struct repro_ctx *x)
{
	static const char *const names[] = { "domain.xml",
					     "domain-target.xml" };

	for (size_t i = 0; i < 2; i++) {
		struct strbuf sb = STRBUF_INIT;
		int r = repro_read_cell_file(x->cell_dir, names[i],
					     REPRO_XML_MAX, &sb, x->err);

		if (!r)
			r = repro_write(x->out, names[i], &sb, 0644, x->err);
		if (!r && !i)
			x->has_domain_xml = true;
		strbuf_release(&sb);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* A name from cell.json (at path) that will name a spec or a cache entry. */
static const char *safe_name(struct repro_ctx *x, const char *s,
			     const char *path)
{
	if (s && is_one_component(s))
		return s;
	strbuf_addf(x->err, "%s/cell.json: %s: %s", x->cell_dir, path,
		    s ? "not a plain name" : "missing");
	return NULL;
}

static int copy_spec(struct repro_ctx *x, const char *src, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	if (read_file_capped(&sb, src, REPRO_XML_MAX)) {
		strbuf_addf(x->err, "%s: %s", src,
			    open_regular_strerror(errno));
		ret = -1;
	} else {
		ret = repro_write(x->out, name, &sb, 0644, x->err);
	}
	strbuf_release(&sb);
	return ret;
}

/*
 * The patches the kernel was built with (cell.json's kernel.patches, in
 * order), so that the bundle carries what "by hand" needs besides the
 * Debian packages. A patch no longer in lab/patches is named, not fatal:
 * kernel.txt still has its name and the cache key.
 */
static int copy_patches(struct repro_ctx *x)
{
	const char *list = x->cell->kernel.patches;
	char *names = xstrdup(list ? list : ""), *name, *save;
	int ret = 0;

	for (name = strtok_r(names, ",", &save); name && !ret;
	     name = strtok_r(NULL, ",", &save)) {
		char *src = xasprintf("%s/lab/patches/%s", wblab_home(), name);

		if (!is_one_component(name)) {
			strbuf_addf(
				x->err,
				"%s/cell.json: kernel.patches: '%s' is not a plain name",
				x->cell_dir, name);
			ret = -1;
		} else if (!path_exists(src)) {
			warn("repro: patch %s is not in lab/patches; the bundle names it only",
			     name);
		} else {
			ret = copy_spec(x, src, name);
		}
		free(src);
	}
	free(names);
	return ret;
}

/* The lab's topology, workload and kernel specs of the cell's names. */
static int specs(struct repro_ctx *x)
{
	const char *t = safe_name(x, x->cell->topology, "topology.name");
	const char *w = safe_name(x, x->cell->workload, "workload");
	const char *k = safe_name(x, x->cell->kernel.name, "kernel.name");
	struct workload_spec ws;
	struct kernel_spec ks;
	int ret = -1;

	if (!t || !w || !k)
		return -1;
	if (topology_spec_find(t, &x->topo)) {
		strbuf_addf(x->err, "topology %s: not in this lab", t);
		return -1;
	}
	x->have_topo = true;
	if (copy_spec(x, x->topo.path, "topology.yaml"))
		return -1;
	if (workload_spec_find(w, &ws)) {
		strbuf_addf(x->err, "workload %s: not in this lab", w);
		return -1;
	}
	ret = copy_spec(x, ws.path, "workload.yaml");
	workload_spec_free(&ws);
	if (ret)
		return -1;
	if (copy_patches(x))
		return -1;
	/* A kernel made in code (a bisect commit) has no file. */
	if (kernel_spec_find(k, &ks))
		return 0;
	ret = ks.path ? copy_spec(x, ks.path, "kernel.yaml") : 0;
	kernel_spec_free(&ks);
	return ret;
}

int repro_bundle(const char *cell_arg, const char *out_dir, struct strbuf *err)
{
	struct repro_ctx x = { .out = NULL, .err = err };
	struct results_run run = { 0 };
	char *cell_json = NULL;
	json_object *o;
	int ret = -1;

	if (path_exists(out_dir)) {
		strbuf_addf(err, "%s: exists; give another -o DIR", out_dir);
		return -1;
	}
	if (locate_cell(cell_arg, &x.run_dir, &x.cell_dir, err))
		return -1;
	cell_json = xasprintf("%s/cell.json", x.cell_dir);
	o = results_read_json(cell_json, err);
	if (!o)
		goto out;
	x.cell = cell_result_decode(o);
	json_object_put(o);
	if (!x.cell->outcome_name) {
		strbuf_addf(err, "%s: no outcome", cell_json);
		goto out;
	}
	if (x.cell->outcome == OUTCOME_INFRA_ERROR) {
		strbuf_addf(
			err,
			"%s: infra-error: a host fault, not the kernel's; nothing to reproduce",
			cell_json);
		goto out;
	}
	if (results_open_run(x.run_dir, &run, err))
		goto out;
	x.run = &run.info;
	x.out = xasprintf("%s.tmp.%d", out_dir, (int)getpid());
	rm_rf(x.out);
	if (mkdir_p(x.out, 0755)) {
		strbuf_addf(err, "cannot create %s: %s", x.out,
			    strerror(errno));
		goto out;
	}
	if (plans(&x) || domains(&x) || specs(&x) || repro_kernel(&x) ||
	    repro_qemu(&x) || repro_by_hand(&x) || repro_texts(&x))
		goto out;
	if (rename(x.out, out_dir)) {
		strbuf_addf(err, "cannot rename %s to %s: %s", x.out, out_dir,
			    strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (ret && x.out)
		rm_rf(x.out);
	if (x.have_topo)
		topology_spec_free(&x.topo);
	results_close_run(&run);
	cell_result_put(x.cell);
	json_object_put(x.bundle);
	free(cell_json);
	free(x.out);
	free(x.run_dir);
	free(x.cell_dir);
	return ret;
}

int repro_load(const char *dir, struct repro_spec *s, struct strbuf *err)
{
	char *path = xasprintf("%s/bundle.json", dir);
	/* a few KiB as wblab writes it; its signature is kept for the run */
	json_object *o = json_from_file_capped(path, REPRO_BUNDLE_MAX), *sig;
	static const char *const need[] = { "kernel.name", "kernel.hash",
					    "topology", "workload", "image" };
	int ret = -1;

	memset(s, 0, sizeof(*s));
	if (!o) {
		strbuf_addf(err, "%s: %s", path, json_strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(need); i++) {
		const char *v = json_str_at(o, need[i]);

		if (!v || !is_one_component(v)) {
			strbuf_addf(err, "%s: %s: %s", path, need[i],
				    v ? "not a plain name" : "missing");
			goto out;
		}
	}
	sig = json_path(o, "signature");
	if (!sig || !json_object_is_type(sig, json_type_object)) {
		strbuf_addf(err, "%s: signature: missing", path);
		goto out;
	}
	s->kernel = xstrdup(json_str_at(o, "kernel.name"));
	s->kernel_hash = xstrdup(json_str_at(o, "kernel.hash"));
	s->topology = xstrdup(json_str_at(o, "topology"));
	s->workload = xstrdup(json_str_at(o, "workload"));
	s->image = xstrdup(json_str_at(o, "image"));
	s->cmdline_extra = json_str_at(o, "cmdline_extra") &&
					   *json_str_at(o, "cmdline_extra") ?
				   xstrdup(json_str_at(o, "cmdline_extra")) :
				   NULL;
	if (json_str_at(o, "levers")) {
		struct levers lv;
		struct strbuf why = STRBUF_INIT;

		if (levers_parse(json_str_at(o, "levers"), &lv, &why)) {
			strbuf_addf(err, "%s: levers: %s", path, why.buf);
			strbuf_release(&why);
			goto out;
		}
		strbuf_release(&why);
		s->levers = xstrdup(json_str_at(o, "levers"));
	}
	s->memory_mib = (int)json_int_at(o, "memory_mib", 0);
	s->vcpus = (int)json_int_at(o, "vcpus", 0);
	if (s->memory_mib < 0 || s->memory_mib > (1 << 20) || s->vcpus < 0 ||
	    s->vcpus > 64) {
		strbuf_addf(err, "%s: memory_mib or vcpus out of range", path);
		repro_spec_free(s);
		goto out;
	}
	s->signature = json_object_get(sig);
	ret = 0;
out:
	json_object_put(o);
	free(path);
	return ret;
}

void repro_spec_free(struct repro_spec *s)
{
	free(s->kernel);
	free(s->kernel_hash);
	free(s->topology);
	free(s->workload);
	free(s->image);
	free(s->cmdline_extra);
	free(s->levers);
	json_object_put(s->signature);
	memset(s, 0, sizeof(*s));
}
