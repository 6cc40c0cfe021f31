// SPDX-License-Identifier: GPL-2.0
/*
 * wblab decide RUN... --baseline K: the jobs' decisions (validate,
 * bisect, nightly: decide/procedure.h) on any runs, so that a user can
 * check a job's verdict, or reach one from runs made by hand.
 *
 * What is decided: each --metric ROW[:PCT[:up|down|any]], else the
 * thresholds of --matrix, else the primary rows the cells' workloads name
 * (10%, either way); and every event kind either side showed, tested
 * for a rise against the baseline (one-sided Fisher). Exit 0 no regression (every row and event
 * same, or different in the good direction), 1 a regression, 2 bad input,
 * 4 unknown: a row or event neither (family_exit()).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "jobs/family.h"
#include "results/metric.h"
#include "util/json.h"
#include "util/log.h"
#include "util/parse-options.h"
#include "util/strvec.h"

static const char *const by_names[] = { "kernel", "topology", NULL };

struct decide_args {
	const char *baseline, *matrix, *boundary, *by;
	struct strvec metrics;
	int first, step, max;
	bool json, mixed;
};

struct thresholds {
	struct matrix_threshold *t;
	size_t n;
	struct matrix_spec m; /* --matrix, when given */
	bool from_matrix;
};

static struct matrix_threshold *add(struct thresholds *th)
{
	th->t = xrealloc(th->t, (th->n + 1) * sizeof(*th->t));
	memset(&th->t[th->n], 0, sizeof(*th->t));
	return &th->t[th->n++];
}

/* ROW[:PCT[:up|down|any]] */
static int parse_metric(const char *s, struct thresholds *th)
{
	struct strbuf err = STRBUF_INIT;
	char *name = xstrdup(s), *pct = strchr(name, ':'), *bad = NULL, *end;
	const struct metric *m;
	struct matrix_threshold *t;
	double v = 10;

	if (pct) {
		*pct++ = '\0';
		bad = strchr(pct, ':');
		if (bad)
			*bad++ = '\0';
		errno = 0;
		v = strtod(pct, &end);
		if (errno || end == pct || *end || !(v > 0 && v <= 1000)) {
			usage_error("wblab decide",
				    "--metric %s: '%s' is not a percentage in "
				    "(0, 1000]",
				    s, pct);
			goto fail;
		}
	}
	if (bad && strcmp(bad, "up") && strcmp(bad, "down") &&
	    strcmp(bad, "any")) {
		usage_error("wblab decide",
			    "--metric %s: '%s' is not up, down or any", s, bad);
		goto fail;
	}
	m = metric_lookup(name, &err);
	if (!m) {
		usage_error("wblab decide", "--metric: %s", err.buf);
		goto fail;
	}
	t = add(th);
	t->row = m;
	t->metric = xstrdup(m->name);
	t->change_pct = v;
	t->bad = xstrdup(bad ? bad : "any");
	free(name);
	strbuf_release(&err);
	return 0;
fail:
	free(name);
	strbuf_release(&err);
	return -1;
}

static void thresholds_free(struct thresholds *th)
{
	if (th->from_matrix) {
		matrix_spec_free(&th->m);
		return;
	}
	for (size_t i = 0; i < th->n; i++) {
		free(th->t[i].metric);
		free(th->t[i].bad);
	}
	free(th->t);
}

/* A figure, or null where there is none (JSON has no NaN). */
static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *hyp_json(const struct dhyp *h)
{
	json_object *o = json_object_new_object();
	const struct vdecision *d = &h->d;

#define ADD(k, v) json_object_object_add(o, k, v)
	ADD("group", json_object_new_string(h->group));
	ADD("what", json_object_new_string(h->what));
	ADD("event", json_object_new_boolean(h->event));
	ADD("verdict", json_object_new_string(verdict_name(d->verdict)));
	ADD("regression", json_object_new_boolean(h->regression));
	ADD("test", json_object_new_string(metric_test_name(d->test)));
	ADD("n", json_object_new_int(d->na));
	ADD("n_b", json_object_new_int(d->nb));
	ADD("mean", num(d->a));
	ADD("mean_b", num(d->b));
	ADD("diff", num(d->diff));
	ADD("pct", num(d->pct));
	ADD("p", num(d->p));
	ADD("p_same", num(d->p_same));
	ADD("level", num(h->level));
	ADD("holm", json_object_new_string(h->holm));
	ADD("unsettled", json_object_new_boolean(h->unsettled));
	ADD("constant", json_object_new_boolean(d->constant));
	/* rates and constant rows: the rise still allowed, in pp */
	ADD("bound", num(d->bound));
	ADD("p_up", num(d->p_up));
	ADD("p_down", num(d->p_down));
	ADD("threshold", num(h->threshold));
	ADD("why", json_object_new_string(d->why));
#undef ADD
	return o;
}

static int decide_kernels(const struct decide_args *a, const struct pool *p,
			  const struct thresholds *th)
{
	struct dlooks l = DLOOKS_INIT;
	json_object *all = json_object_new_array();
	struct strvec seen = STRVEC_INIT;
	size_t regressions = 0;
	int ret = FAMILY_EXIT_OK;

	l.first = a->first;
	l.step = a->step;
	l.max = a->max;
	l.boundary = dboundary_parse(a->boundary);
	for (size_t i = 0; i < p->n; i++) {
		const char *k = p->v[i].kernel;
		struct family f;
		bool dup = !strcmp(k, a->baseline);

		for (size_t j = 0; j < seen.nr; j++)
			dup |= !strcmp(seen.v[j], k);
		if (dup)
			continue;
		strvec_push(&seen, k);
		family_decide(&f, p, a->baseline, k, th->t, th->n, &l);
		regressions += family_regressions(&f);
		if (family_exit(&f) == FAMILY_EXIT_UNKNOWN)
			ret = FAMILY_EXIT_UNKNOWN;
		if (a->json) {
			for (size_t h = 0; h < f.n; h++) {
				json_object *o = hyp_json(&f.h[h]);

				json_object_object_add(
					o, "kernel", json_object_new_string(k));
				json_object_array_add(all, o);
			}
		} else {
			printf("%s against %s: look n=%d, level %.3g (%s over "
			       "n = %d, %d, ... %d), Holm over %zu rows\n",
			       k, a->baseline, f.look, dlooks_level(&l, f.look),
			       a->boundary, l.first, l.first + l.step, l.max,
			       f.n);
			family_print(stdout, &f);
			printf("\n");
		}
		family_release(&f);
	}
	if (a->json)
		printf("%s\n",
		       json_object_to_json_string_ext(
			       all, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		printf("Verdict: %s\n",
		       regressions ? "REGRESSION" :
		       ret	   ? "UNKNOWN: no regression found, none "
				     "ruled out (rows or events unknown)" :
				     "no regression");
	json_object_put(all);
	strvec_clear(&seen);
	return regressions ? FAMILY_EXIT_REGRESSION : ret;
}

/* "build 4d25614212a5, host local, tcg": what a side must not mix. */
static char *cell_setup(const struct cell_result *cell)
{
	const char *hash = cell->kernel.hash;
	const char *host = cell->host;
	const char *accel = cell->accel;

	return xasprintf("build %.12s, host %s, %s", hash ? hash : "?",
			 host && *host ? host : "?", accel ? accel : "?");
}

/*
 * Cells of one kernel name from two builds (a rebuilt kernel keeps its
 * name), two hosts or two accelerators are not one population: a side
 * that mixes them is refused (exit 2), unless --mixed.
 */
static int check_mixed(const struct pool *p)
{
	for (size_t i = 0; i < p->n; i++) {
		char *first = cell_setup(p->v[i].cell);
		int bad = 0;

		for (size_t j = i + 1; j < p->n && !bad; j++) {
			char *other;

			if (strcmp(p->v[i].kernel, p->v[j].kernel))
				continue;
			other = cell_setup(p->v[j].cell);
			if (strcmp(first, other))
				bad = error("wblab decide: kernel %s mixes %s "
					    "(%s) and %s (%s): give --mixed to "
					    "pool them",
					    p->v[i].kernel, first,
					    p->v[i].run_dir, other,
					    p->v[j].run_dir);
			free(other);
		}
		free(first);
		if (bad)
			return -1;
	}
	return 0;
}

static int load_pool(struct pool *p, int n, char **dirs, const char *baseline,
		     bool by_topology)
{
	for (int i = 0; i < n; i++)
		if (pool_load_run(p, dirs[i]))
			return -1;
	if (by_topology)
		pool_by_topology(p);
	if (!pool_count(p, baseline, NULL))
		return error("wblab decide: --baseline %s: no cells of it in "
			     "the runs",
			     baseline);
	return 0;
}

int cmd_decide(int argc, char **argv)
{
	struct decide_args a = { .metrics = STRVEC_INIT,
				 .boundary = "obrien-fleming",
				 .by = "kernel",
				 .first = 3,
				 .step = 2,
				 .max = 9 };
	const struct option opts[] = {
		OPT_STRING(0, "baseline", &a.baseline, "KERNEL",
			   "the reference kernel (required)"),
		OPT_STRLIST(0, "metric", &a.metrics, "ROW[:PCT[:up|down|any]]",
			    "a row to decide, its threshold (default 10) and "
			    "bad direction (default any); repeatable"),
		OPT_STRING(0, "matrix", &a.matrix, "NAME|FILE",
			   "decide the thresholds of this matrix"),
		OPT_INT(0, "first", &a.first, "N", 2, 1000,
			"the jobs' first look, cells a side"),
		OPT_INT(0, "step", &a.step, "N", 1, 1000,
			"cells a side added between looks"),
		OPT_INT(0, "max", &a.max, "N", 2, 1000,
			"the last look (validate's --max-reps)"),
		OPT_CHOICE(0, "boundary", &a.boundary, "B", dboundary_names,
			   "how alpha is spent over the looks"),
		OPT_BOOL(0, "json", &a.json, "print the decisions as JSON"),
		OPT_CHOICE(0, "by", &a.by, "SIDE", by_names,
			   "what the sides are: kernel (default), or "
			   "topology (one kernel on two topologies; "
			   "--baseline names a topology)"),
		OPT_BOOL(0, "mixed", &a.mixed,
			 "pool cells of one kernel name from different builds, "
			 "hosts or accelerators"),
		OPT_END(),
	};
	const char *const usage[] = {
		"wblab decide RUN_DIR... --baseline KERNEL [--by topology] [--metric ROW[:PCT[:DIR]]]... [--matrix M] [--json]",
		NULL
	};
	struct thresholds th = { 0 };
	struct pool p = POOL_INIT;
	int n = parse_options(argc, argv, "wblab decide", opts, usage, 0);
	int ret = 2;

	if (n < 1)
		return usage_error("wblab decide", "no run directory given");
	if (!a.baseline)
		return usage_error("wblab decide", "--baseline is required");
	if (a.max < a.first)
		return usage_error("wblab decide",
				   "--max %d is below --first %d", a.max,
				   a.first);
	for (size_t i = 0; i < a.metrics.nr; i++)
		if (parse_metric(a.metrics.v[i], &th))
			goto out;
	if (a.matrix && a.metrics.nr) {
		usage_error("wblab decide", "--matrix and --metric: give one");
		goto out;
	}
	if (a.matrix) {
		if (matrix_spec_find(a.matrix, &th.m))
			goto out;
		th.from_matrix = true;
		th.t = th.m.thresholds;
		th.n = th.m.nr_thresholds;
	}
	if (load_pool(&p, n, argv, a.baseline, !strcmp(a.by, "topology")))
		goto out;
	if (!a.mixed && check_mixed(&p))
		goto out;
	if (!a.matrix && !a.metrics.nr)
		pool_primary_rows(&p, &th.t, &th.n);
	ret = decide_kernels(&a, &p, &th);
out:
	thresholds_free(&th);
	pool_free(&p);
	strvec_clear(&a.metrics);
	return ret;
}
