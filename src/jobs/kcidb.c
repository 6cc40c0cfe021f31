// SPDX-License-Identifier: GPL-2.0
/*
 * Runs as KCIDB I/O v5.3 (jobs/kcidb.h): checkouts and builds per kernel,
 * a test per cell and per decision.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/procedure.h"
#include "jobs/family.h"
#include "jobs/kcidb.h"
#include "results/metric.h"
#include "results/outcome.h"
#include "results/reader.h"
#include "util/json.h"
#include "util/log.h"
#include "util/str.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/utf8.h"

/* KCIDB v5.3: a log_excerpt's maxLength. */
#define KCIDB_EXCERPT_MAX 16384

/*
 * Path components: KCIDB allows [a-zA-Z0-9_-]+ between dots; '/' in s
 * starts a new component, any other byte becomes '_', and an empty
 * component (a cell.json without a topology name) is "_".
 */
static void path_add(struct strbuf *sb, const char *s)
{
	do {
		size_t n = strcspn(s, "/");

		if (sb->len)
			strbuf_addch(sb, '.');
		if (!n)
			strbuf_addch(sb, '_');
		for (size_t i = 0; i < n; i++)
			strbuf_addch(sb, isalnum((unsigned char)s[i]) ||
							 s[i] == '_' ||
							 s[i] == '-' ?
						 s[i] :
						 '_');
		s += n;
	} while (*s++);
}

/*
 * log_excerpt: KCIDB v5.3 holds at most 16384 characters; a reason from
 * a results directory may be longer, or not UTF-8. Repaired, then cut
 * between characters (so at most 16384 bytes, fewer characters).
 */
static void put_excerpt(json_object *o, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_utf8(&sb, s, strlen(s));
	json_object_object_add(
		o, "log_excerpt",
		json_object_new_string_len(
			sb.buf, utf8_cut(sb.buf, sb.len, KCIDB_EXCERPT_MAX)));
	strbuf_release(&sb);
}

static char *build_id(const char *origin, const struct cell_result *cell)
{
	return xasprintf("%s:%s", origin, str_or(cell->kernel.hash, "unknown"));
}

static void add_kernel(json_object *doc, const char *origin,
		       const struct cell_result *cell)
{
	const struct cell_kernel *k = &cell->kernel;
	json_object *co = json_object_new_object(),
		    *b = json_object_new_object(), *misc;
	const char *hash, *name;
	char *cid, *bid = build_id(origin, cell);

	hash = str_or(k->hash, "unknown");
	name = str_or(k->name, "unknown");
	cid = xasprintf("%s:src-%s-%.12s", origin, name, hash);
	json_put_str(co, "id", cid);
	json_put_str(co, "origin", origin);
	json_put_str(co, "comment", str_or(k->source, name));
	misc = json_object_new_object();
	json_put_str(misc, "kernel", name);
	json_put_str(misc, "patches", str_or(k->patches, ""));
	json_put(co, "misc", misc);
	json_object_array_add(json_object_object_get(doc, "checkouts"), co);

	json_put_str(b, "id", bid);
	json_put_str(b, "checkout_id", cid);
	json_put_str(b, "origin", origin);
	json_put_str(b, "architecture", "x86_64");
	json_put_str(b, "config_name", name);
	json_put_str(b, "status", "PASS");
	misc = json_object_new_object();
	json_put_str(misc, "version", str_or(k->version, ""));
	json_put_str(misc, "cmdline", str_or(k->cmdline, ""));
	json_put(b, "misc", misc);
	json_object_array_add(json_object_object_get(doc, "builds"), b);
	free(cid);
	free(bid);
}

static json_object *number(double v, const struct metric *m)
{
	json_object *o = json_object_new_object();

	json_put_num(o, "value", v);
	json_put_str(o, "unit", m->unit);
	return o;
}

static const char *cell_status(const char *outcome)
{
	if (outcome_is(outcome, OUTCOME_OK))
		return "PASS";
	/* a host fault: the test harness failed, the kernel is unknown */
	if (outcome_is(outcome, OUTCOME_INFRA_ERROR))
		return "MISS";
	return "FAIL";
}

static json_object *cell_test(const char *origin, const struct pool_cell *c)
{
	const struct cell_result *cr = c->cell;
	json_object *t = json_object_new_object(), *misc, *env;
	const char *outcome = str_or(cr->outcome_name, "unknown");
	struct strbuf path = STRBUF_INIT;
	char *id = xasprintf("%s:%s/%s", origin, str_or(cr->run, "-"),
			     str_or(cr->id, "-"));
	char *bid = build_id(origin, c->cell);

	path_add(&path, "wblab");
	path_add(&path, c->group);
	json_put_str(t, "id", id);
	json_put_str(t, "build_id", bid);
	json_put_str(t, "origin", origin);
	json_put_str(t, "path", path.buf);
	json_put_str(t, "status", cell_status(outcome));
	put_excerpt(t, str_or(cr->reason, ""));
	if (cr->primary.nr) {
		const struct metric *m = metric_by_name(cr->primary.v[0]);
		double v = m ? cell_metric(cr, m) : NAN;

		if (isfinite(v))
			json_put(t, "number", number(v, m));
	}
	env = json_object_new_object();
	json_put_str(env, "comment", str_or(cr->accel, "unknown accelerator"));
	json_put(t, "environment", env);
	misc = json_object_new_object();
	json_put_str(misc, "run", str_or(cr->run, ""));
	json_put_str(misc, "cell", str_or(cr->id, ""));
	json_put_str(misc, "outcome", outcome);
	json_put_str(misc, "host", str_or(cr->host, ""));
	json_put_str(misc, "group", c->group);
	json_put(t, "misc", misc);
	strbuf_release(&path);
	free(id);
	free(bid);
	return t;
}

static const char *hyp_status(const struct dhyp *h)
{
	if (h->regression)
		return "FAIL";
	if (h->d.verdict == VERDICT_UNKNOWN)
		return "DONE";
	return "PASS";
}

static json_object *hyp_misc(const struct dhyp *h, const char *baseline)
{
	json_object *m = json_object_new_object();

	json_put_str(m, "baseline", baseline);
	json_put_str(m, "verdict", verdict_name(h->d.verdict));
	json_put_str(m, "test", metric_test_name(h->d.test));
	json_put_int(m, "n", h->d.na);
	json_put_int(m, "n_b", h->d.nb);
	json_put_num(m, "mean", h->d.a);
	json_put_num(m, "mean_b", h->d.b);
	json_put_num(m, "diff", h->d.diff);
	if (isfinite(h->d.pct))
		json_put_num(m, "pct", h->d.pct);
	json_put_num(m, "p", h->d.p);
	if (isfinite(h->d.p_same))
		json_put_num(m, "p_same", h->d.p_same);
	json_put_num(m, "level", h->level);
	json_put_num(m, "threshold", h->threshold);
	return m;
}

static json_object *hyp_test(const char *origin, const char *runs,
			     const char *bid, const char *kernel,
			     const char *baseline, const struct dhyp *h)
{
	json_object *t = json_object_new_object();
	struct strbuf path = STRBUF_INIT, line = STRBUF_INIT;
	const struct metric *m = h->event ? NULL : metric_by_name(h->what);
	char *id = xasprintf("%s:%s/decide/%s/%s/%s", origin, runs, kernel,
			     h->group, h->what);

	path_add(&path, "wblab");
	path_add(&path, h->group);
	path_add(&path, m ? m->name : "event");
	dhyp_format(h, &line);
	json_put_str(t, "id", id);
	json_put_str(t, "build_id", bid);
	json_put_str(t, "origin", origin);
	json_put_str(t, "path", path.buf);
	json_put_str(t, "status", hyp_status(h));
	put_excerpt(t, line.buf);
	if (m && isfinite(h->d.b))
		json_put(t, "number", number(h->d.b, m));
	json_put(t, "misc", hyp_misc(h, baseline));
	strbuf_release(&path);
	strbuf_release(&line);
	free(id);
	return t;
}

/* Every kernel against the baseline, one test per hypothesis. */
static void add_decisions(json_object *doc, const struct pool *p,
			  const char *origin, const char *baseline,
			  const struct strvec *kernels, const char *runs)
{
	struct matrix_threshold *t = NULL;
	size_t nt = 0;
	struct dlooks l = DLOOKS_INIT;

	pool_primary_rows(p, &t, &nt);
	for (size_t k = 0; k < kernels->nr; k++) {
		const char *kb = kernels->v[k];
		struct family f;
		char *bid = NULL;

		if (!strcmp(kb, baseline))
			continue;
		for (size_t i = 0; i < p->n && !bid; i++)
			if (!strcmp(p->v[i].kernel, kb))
				bid = build_id(origin, p->v[i].cell);
		family_decide(&f, p, baseline, kb, t, nt, &l);
		for (size_t h = 0; h < f.n; h++)
			json_object_array_add(json_object_object_get(doc,
								     "tests"),
					      hyp_test(origin, runs, bid, kb,
						       baseline, &f.h[h]));
		family_release(&f);
		free(bid);
	}
	for (size_t i = 0; i < nt; i++) {
		free(t[i].metric);
		free(t[i].bad);
	}
	free(t);
}

const char *kcidb_baseline(const struct pool *p)
{
	struct results_run run = { 0 };
	struct strbuf err = STRBUF_INIT;
	const char *found = NULL;

	if (!p->n)
		return NULL;
	/* a run.json the pool read a moment ago: no error to report here */
	if (p->runs.nr)
		results_open_run(p->runs.v[0], &run, &err);
	for (size_t i = 0; i < run.info.kernels.nr && !found; i++) {
		const char *k = run.info.kernels.v[i];

		/* the pool's own copy: run.json is closed below */
		for (size_t c = 0; k && c < p->n && !found; c++)
			if (!strcmp(p->v[c].kernel, k))
				found = p->v[c].kernel;
	}
	results_close_run(&run);
	strbuf_release(&err);
	return found ? found : p->v[0].kernel;
}

json_object *kcidb_export(const struct pool *p, const char *origin,
			  const char *baseline)
{
	json_object *doc = json_object_new_object(),
		    *v = json_object_new_object();
	struct strvec kernels = STRVEC_INIT;
	struct strbuf runs = STRBUF_INIT;

	if (!baseline)
		baseline = kcidb_baseline(p);
	if (!baseline || !pool_count(p, baseline, NULL)) {
		error("kcidb: the baseline %s has no cell in the runs",
		      baseline ? baseline : "(none)");
		json_object_put(doc);
		json_object_put(v);
		return NULL;
	}
	json_put_int(v, "major", 5);
	json_put_int(v, "minor", 3);
	json_put(doc, "version", v);
	json_put(doc, "checkouts", json_object_new_array());
	json_put(doc, "builds", json_object_new_array());
	json_put(doc, "tests", json_object_new_array());
	for (size_t i = 0; i < p->n; i++) {
		const char *k = p->v[i].kernel;
		bool seen = false;

		for (size_t j = 0; j < kernels.nr; j++)
			seen |= !strcmp(kernels.v[j], k);
		if (!seen) {
			strvec_push(&kernels, k);
			add_kernel(doc, origin, p->v[i].cell);
		}
		json_object_array_add(json_object_object_get(doc, "tests"),
				      cell_test(origin, &p->v[i]));
	}
	for (size_t i = 0; i < p->n; i++) {
		const char *r = str_or(p->v[i].cell->run, "-");

		if (!strstr(runs.buf, r)) {
			if (runs.len)
				strbuf_addch(&runs, '+');
			strbuf_addstr(&runs, r);
		}
	}
	add_decisions(doc, p, origin, baseline, &kernels, runs.buf);
	/* strings from results directories: UTF-8, as the schema wants */
	json_make_strict(doc);
	strvec_clear(&kernels);
	strbuf_release(&runs);
	return doc;
}
