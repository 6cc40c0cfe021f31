// SPDX-License-Identifier: GPL-2.0
/*
 * The Verdict block: the question a workload asks (its primary: rows,
 * recorded in each cell, plus --primary), answered per group and kernel
 * with same / different / unknown (decide/verdict.h). A primary row is
 * tested at alpha with the test that fits it and no family penalty: it
 * is the one question the cells were run for, so it does not share alpha
 * with the exploratory rows of the metric table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/procedure.h"
#include "report/report.h"
#include "util/log.h"

/* The undone-work flag: (dirty + writeback) above this % of what was written. */
#define UNFINISHED_PCT 1.0

static void mark_primary(struct report *r, struct rpt_group *g,
			 const char *name)
{
	const struct metric *m = metric_by_name(name);

	if (!m) {
		/* A cell of an older registry: say so once, go on. */
		for (size_t i = 0; i < r->warnings.nr; i++)
			if (strstr(r->warnings.v[i], name))
				return;
		strvec_pushf(&r->warnings,
			     "workload primary row '%s' is not a metric "
			     "(wblab metrics lists them): left out",
			     name);
		return;
	}
	g->primary[metric_index(m)] = true;
}

/* The union of the cells' primary: rows and the report's --primary. */
void rpt_mark_primary(struct report *r, struct rpt_group *g)
{
	g->primary = xzalloc(metric_nr_rows * sizeof(*g->primary));
	for (size_t s = 0; s < g->nr_sides; s++)
		for (size_t i = 0; i < g->sides[s].n; i++) {
			const struct strvec *p = &g->sides[s].cells[i]->primary;

			for (size_t k = 0; k < p->nr; k++)
				mark_primary(r, g, p->v[k]);
		}
	for (size_t k = 0; r->o.primary && k < r->o.primary->nr; k++)
		mark_primary(r, g, r->o.primary->v[k]);
}

/*
 * A primary row in no table (oom-kills: the outcome table's) has no
 * summary values on the sides: read them from the cells (before, n 0/0,
 * "0:0 -> 0:0 (+nanpp)").
 */
static void verdict_of_untabled(const struct rpt_side *a,
				const struct rpt_side *b, size_t m,
				const struct verdict_opts *o,
				struct vdecision *d)
{
	double *va = xmalloc((a->n + 1) * sizeof(*va));
	double *vb = xmalloc((b->n + 1) * sizeof(*vb));
	size_t na = rpt_side_row_values(a, m, va);
	size_t nb = rpt_side_row_values(b, m, vb);

	verdict_row(&metric_rows[m], va, na, vb, nb, o, d);
	free(va);
	free(vb);
}

static void add_verdict(const struct report *r, struct rpt_group *g, size_t s,
			size_t m)
{
	const struct rpt_side *a = &g->sides[0], *b = &g->sides[s];
	struct verdict_opts o = VERDICT_OPTS_INIT;
	struct rpt_verdict *v;

	o.alpha = r->o.alpha;
	o.power = r->o.power;
	o.threshold = r->o.threshold;
	o.min_n = STATS_MIN_N;
	g->verdicts = xrealloc(g->verdicts,
			       (g->nr_verdicts + 1) * sizeof(*g->verdicts));
	v = &g->verdicts[g->nr_verdicts++];
	v->side = s;
	v->metric = m;
	if (metric_rows[m].table == MT_NONE) {
		verdict_of_untabled(a, b, m, &o, &v->d);
		return;
	}
	verdict_row(&metric_rows[m], a->vals[m], a->desc[m].n, b->vals[m],
		    b->desc[m].n, &o, &v->d);
}

static size_t count_unfinished(const struct rpt_group *g)
{
	size_t n = 0;

	for (size_t s = 0; s < g->nr_sides; s++)
		for (size_t i = 0; i < g->sides[s].n; i++)
			n += rpt_cell_unfinished(g->sides[s].cells[i]);
	return n;
}

/*
 * The jobs' verdicts of side s's primary rows (struct rpt_verdict.job):
 * decide_family() on the same decisions, at the look the fewer cells of
 * a side are at, with `wblab decide`'s default looks (3, 5, ... 9).
 */
static void add_job_verdicts(const struct report *r, struct rpt_group *g,
			     size_t s)
{
	struct dlooks l = DLOOKS_INIT;
	struct dhyp *h = xzalloc((g->nr_verdicts + 1) * sizeof(*h));
	size_t nh = 0;
	int n = -1;

	for (size_t i = 0; i < g->nr_verdicts; i++) {
		const struct vdecision *d = &g->verdicts[i].d;

		if (g->verdicts[i].side != s)
			continue;
		h[nh].d = *d;
		h[nh].threshold = r->o.threshold;
		nh++;
		if (n < 0 || d->na < n)
			n = d->na;
		if (d->nb < n)
			n = d->nb;
	}
	decide_family(h, nh, &l, n < 0 ? 0 : n);
	for (size_t i = 0, k = 0; i < g->nr_verdicts; i++) {
		if (g->verdicts[i].side != s)
			continue;
		g->verdicts[i].job = h[k].d.verdict;
		g->verdicts[i].job_level = h[k].level;
		g->verdicts[i].job_n = n;
		k++;
	}
	free(h);
}

/* After summarise_side(): the verdicts of every primary row. */
void rpt_build_verdicts(const struct report *r, struct rpt_group *g)
{
	for (size_t s = 1; s < g->nr_sides; s++) {
		for (size_t m = 0; m < metric_nr_rows; m++)
			if (g->primary[m])
				add_verdict(r, g, s, m);
		add_job_verdicts(r, g, s);
	}
	g->unfinished = count_unfinished(g);
}

const char *rpt_default_baseline(const struct report *r,
				 const struct rpt_group *g)
{
	for (size_t k = 0; k < r->declared.nr; k++)
		for (size_t i = 0; i < g->nr_sides; i++)
			if (!strcmp(g->sides[i].name, r->declared.v[k]))
				return g->sides[i].name;
	return NULL;
}

bool rpt_cell_unfinished(const struct rpt_cell *c)
{
	const struct metric *m = METRIC(END_DIRTY);

	return m && c->val[metric_index(m)] > UNFINISHED_PCT;
}
