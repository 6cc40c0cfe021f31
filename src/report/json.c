// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON report: everything the mail and HTML reports show, as data.
 * Schema: docs/report.md. Numbers that are not finite (a % change from 0,
 * a mean that does not exist) are null.
 */
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "util/json.h"
#include "util/log.h"

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static void add(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *str(const char *s)
{
	return json_object_new_string(s ? s : "");
}

static json_object *desc_json(const struct stats_desc *d)
{
	json_object *o = json_object_new_object();

	add(o, "n", json_object_new_int64(d->n));
	if (!d->n)
		return o;
	add(o, "amean", num(d->amean));
	add(o, "hmean", num(d->hmean));
	add(o, "gmean", num(d->gmean));
	add(o, "min", num(d->min));
	add(o, "median", num(d->median));
	add(o, "max", num(d->max));
	add(o, "stddev", num(d->stddev));
	add(o, "coeffvar", num(d->coeffvar));
	return o;
}

static json_object *cmp_json(const struct rpt_cmp *c)
{
	json_object *o = json_object_new_object();

	add(o, "pct", num(c->pct));
	add(o, "tested", json_object_new_boolean(c->tested));
	add(o, "star", json_object_new_boolean(c->star));
	if (c->welch.valid) {
		add(o, "welch_t", num(c->welch.stat));
		add(o, "welch_df", num(c->welch.df));
		add(o, "welch_p", num(c->welch.p));
	}
	add(o, "test", str(metric_test_name(c->test)));
	if (c->t.valid)
		add(o, "p", num(c->t.p));
	add(o, "bh_q", num(c->q));
	add(o, "bands_apart", json_object_new_boolean(c->bands_apart));
	add(o, "mde", num(c->mde));
	add(o, "mde_pct", num(c->mde_pct));
	return o;
}

static json_object *row_json(const struct rpt_group *g, size_t m)
{
	const struct metric *mt = &metric_rows[m];
	json_object *o = json_object_new_object();
	json_object *sides = json_object_new_object();

	add(o, "name", str(mt->name));
	add(o, "table", str(mt->table == MT_METRIC ? "metric" : "ops"));
	add(o, "path", str(mt->path));
	add(o, "unit", str(mt->unit));
	add(o, "better", str(mt->better == BETTER_HIGHER ? "higher" : "lower"));
	add(o, "stat", str(metric_mean_name(mt)));
	add(o, "family", str(mt->family));
	for (size_t s = 0; s < g->nr_sides; s++) {
		json_object *k = desc_json(&g->sides[s].desc[m]);

		add(k, "value", num(rpt_side_stat(&g->sides[s], m)));
		if (s)
			add(k, "compare", cmp_json(&g->cmp[s][m]));
		add(sides, g->sides[s].name, k);
	}
	add(o, "kernels", sides);
	return o;
}

static json_object *outcomes_json(const struct rpt_group *g)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < g->nr_outcomes; i++) {
		const struct rpt_outcome_row *r = &g->outcomes[i];
		json_object *o = json_object_new_object();
		json_object *k = json_object_new_object();

		add(o, "kind", str(r->kind));
		add(o, "is_outcome", json_object_new_boolean(r->is_outcome));
		add(o, "is_figure", json_object_new_boolean(r->is_figure));
		for (size_t s = 0; s < g->nr_sides; s++) {
			json_object *c = json_object_new_object();

			add(c, "fail", json_object_new_int(r->fail[s]));
			add(c, "runs", json_object_new_int(r->runs[s]));
			if (s) {
				add(c, "fisher_p", num(r->p[s]));
				/* The exact power sums over every pair of
				 * outcomes, cubic in n: only up to 50 runs. */
				if (r->runs[0] <= 50 && r->runs[s] <= 50)
					add(c, "mde_rate",
					    num(stats_mde_fisher(
						    r->runs[0] ?
							    (double)r->fail[0] /
								    r->runs[0] :
							    0,
						    r->runs[0], r->runs[s],
						    STATS_ALPHA, STATS_POWER)));
			}
			add(k, g->sides[s].name, c);
		}
		add(o, "kernels", k);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *cell_ref(const struct rpt_cell *c)
{
	json_object *o = json_object_new_object();
	json_object *ev = json_object_new_array();

	add(o, "run", str(c->run->id));
	add(o, "cell", str(c->id));
	add(o, "kernel", str(c->kernel));
	add(o, "side", str(c->side));
	add(o, "rep", json_object_new_int(c->rep));
	add(o, "outcome", str(c->outcome));
	add(o, "reason", str(c->reason));
	for (size_t e = 0; e < c->nr_events; e++) {
		json_object *x = json_object_new_object();

		add(x, "kind", str(c->events[e].kind));
		add(x, "title", str(c->events[e].title));
		if (*c->events[e].victim)
			add(x, "victim", str(c->events[e].victim));
		if (c->events[e].ended_s >= 0) {
			add(x, "ended_after_s",
			    json_object_new_int(c->events[e].ended_s));
			add(x, "io_errors_before_end",
			    json_object_new_int(c->events[e].io_errors));
		}
		json_object_array_add(ev, x);
	}
	add(o, "events", ev);
	add(o, "stack_max_bytes", num(c->stack_bytes));
	return o;
}

static json_object *stack_json(const struct rpt_group *g)
{
	json_object *o = json_object_new_object();
	json_object *k = json_object_new_object();
	const struct rpt_cell *worst = NULL;

	for (size_t s = 0; s < g->nr_sides; s++) {
		const struct rpt_side *sd = &g->sides[s];
		double *b = xmalloc((sd->n + 1) * sizeof(*b));
		double *f = xmalloc((sd->n + 1) * sizeof(*f));
		json_object *x = json_object_new_object();
		struct stats_desc db, df;
		size_t n = 0;

		for (size_t i = 0; i < sd->n; i++) {
			if (isnan(sd->cells[i]->stack_bytes))
				continue;
			b[n] = sd->cells[i]->stack_bytes;
			f[n++] = sd->cells[i]->stack_fraction;
			if (!worst ||
			    sd->cells[i]->stack_bytes > worst->stack_bytes)
				worst = sd->cells[i];
		}
		stats_describe(b, n, &db);
		stats_describe(f, n, &df);
		add(x, "n", json_object_new_int64(n));
		if (n) {
			add(x, "max_bytes", num(db.max));
			add(x, "median_bytes", num(db.median));
			add(x, "max_fraction", num(df.max));
			add(x, "median_fraction", num(df.median));
		}
		add(k, sd->name, x);
		free(b);
		free(f);
	}
	add(o, "kernels", k);
	if (worst) {
		json_object *w = json_object_new_object();
		json_object *ch = json_object_new_array();

		add(w, "cell", str(worst->id));
		add(w, "kernel", str(worst->side));
		add(w, "max_bytes", num(worst->stack_bytes));
		for (size_t i = 0; i < worst->chain_len; i++) {
			json_object *fr = json_object_new_object();

			add(fr, "depth",
			    json_object_new_int(worst->chain[i].depth));
			add(fr, "size",
			    json_object_new_int(worst->chain[i].size));
			add(fr, "location", str(worst->chain[i].location));
			json_object_array_add(ch, fr);
		}
		add(w, "chain", ch);
		add(o, "deepest", w);
	}
	return o;
}

/* The Verdict block: one entry per non-base kernel and primary row. */
static json_object *verdicts_json(const struct rpt_group *g)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < g->nr_verdicts; i++) {
		const struct rpt_verdict *v = &g->verdicts[i];
		const struct vdecision *d = &v->d;
		json_object *o = json_object_new_object();

		add(o, "kernel", str(g->sides[v->side].name));
		add(o, "row", str(metric_rows[v->metric].name));
		add(o, "unit", str(metric_rows[v->metric].unit));
		add(o, "verdict", str(verdict_name(d->verdict)));
		add(o, "test", str(metric_test_name(d->test)));
		add(o, "n", json_object_new_int(d->na));
		add(o, "n_kernel", json_object_new_int(d->nb));
		add(o, "mean_baseline", num(d->a));
		add(o, "mean", num(d->b));
		add(o, "diff", num(d->diff));
		add(o, "pct", num(d->pct));
		add(o, "p", num(d->p));
		add(o, "p_same", num(d->p_same));
		add(o, "sdc", num(d->sdc_abs));
		add(o, "sdc_pct", num(d->sdc_pct));
		add(o, "why", str(d->why));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *group_json(const struct rpt_group *g)
{
	json_object *o = json_object_new_object();
	json_object *rows = json_object_new_array();
	json_object *n = json_object_new_object();
	json_object *cells = json_object_new_array();

	add(o, "topology", str(g->topology));
	add(o, "workload", str(g->workload));
	add(o, "memory_mib", json_object_new_int(g->memory_mib));
	add(o, "levers", str(g->levers));
	add(o, "baseline", str(g->sides[0].name));
	for (size_t s = 0; s < g->nr_sides; s++) {
		add(n, g->sides[s].name, json_object_new_int64(g->sides[s].n));
		for (size_t i = 0; i < g->sides[s].n; i++)
			json_object_array_add(cells,
					      cell_ref(g->sides[s].cells[i]));
	}
	add(o, "n", n);
	add(o, "verdicts", verdicts_json(g));
	add(o, "unequal_work_cells", json_object_new_int64(g->unfinished));
	add(o, "rows_tested", json_object_new_int64(g->tested));
	add(o, "rows_starred", json_object_new_int64(g->starred));
	add(o, "outcomes", outcomes_json(g));
	for (size_t m = 0; m < metric_nr_rows; m++)
		if (rpt_row_shown(g, m))
			json_object_array_add(rows, row_json(g, m));
	add(o, "rows", rows);
	add(o, "stack", stack_json(g));
	add(o, "cells", cells);
	return o;
}

static json_object *kernel_json(const struct rpt_cell *c)
{
	json_object *o = json_object_new_object();
	json_object *subj = json_object_new_array();
	struct strvec sv = STRVEC_INIT;

	add(o, "name", str(c->kernel));
	add(o, "release", str(*c->release ? c->release : c->version));
	add(o, "hash", str(c->hash));
	add(o, "origin", str(c->origin));
	add(o, "source", str(c->source));
	add(o, "patches", str(c->patches));
	rpt_patch_subjects(c->patches, &sv);
	for (size_t i = 0; i < sv.nr; i++)
		json_object_array_add(subj, str(sv.v[i]));
	strvec_clear(&sv);
	add(o, "patch_subjects", subj);
	add(o, "cmdline", str(c->cmdline));
	return o;
}

json_object *report_json(const struct report *r)
{
	json_object *o = json_object_new_object();
	json_object *kernels = json_object_new_object();
	json_object *runs = json_object_new_array();
	json_object *groups = json_object_new_array();
	json_object *infra = json_object_new_array();
	json_object *warn = json_object_new_array();

	add(o, "report", json_object_new_int(1));
	add(o, "test", str(rpt_test_names[r->o.test]));
	add(o, "alpha", num(r->o.alpha));
	add(o, "power", num(r->o.power));
	add(o, "min_n", json_object_new_int(STATS_MIN_N));
	for (size_t i = 0; i < r->nr_cells; i++) {
		const struct rpt_cell *c = r->cells[i];

		if (!json_object_object_get_ex(kernels, c->side, NULL))
			add(kernels, c->side, kernel_json(c));
	}
	add(o, "kernels", kernels);
	for (size_t i = 0; i < r->nr_runs; i++) {
		json_object *x = json_object_new_object();

		add(x, "run", str(r->runs[i]->id));
		add(x, "dir", str(r->runs[i]->dir));
		add(x, "host", json_object_get(r->runs[i]->host));
		json_object_array_add(runs, x);
	}
	add(o, "runs", runs);
	add(o, "claims", rpt_claims_json(r));
	for (size_t i = 0; i < r->nr_groups; i++)
		json_object_array_add(groups, group_json(&r->groups[i]));
	add(o, "groups", groups);
	for (size_t i = 0; i < r->nr_infra; i++)
		json_object_array_add(infra, cell_ref(r->infra[i]));
	add(o, "infra_errors", infra);
	for (size_t i = 0; i < r->warnings.nr; i++)
		json_object_array_add(warn, str(r->warnings.v[i]));
	add(o, "warnings", warn);
	warn = json_object_new_array();
	for (size_t i = 0; i < r->mixed.nr; i++)
		json_object_array_add(warn, str(r->mixed.v[i]));
	add(o, "mixed_builds", warn);
	/* cell.json strings from elsewhere may not be UTF-8: JSON must be */
	json_make_strict(o);
	return o;
}
