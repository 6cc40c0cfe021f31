// SPDX-License-Identifier: GPL-2.0
/*
 * What the report reads off one side's cells, shared by the groups'
 * tables (model.c) and the claims section (claims.c); a row's smallest
 * detectable change.
 */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "results/outcome.h"
#include "util/log.h"

/* Cells of a side with an event of kind, each cell counted once. */
unsigned rpt_side_cells_with(const struct rpt_side *s, const char *kind)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->n; i++)
		for (size_t e = 0; e < s->cells[i]->nr_events; e++)
			if (!strcmp(s->cells[i]->events[e].kind, kind)) {
				n++;
				break;
			}
	return n;
}

/* Figures of finished workloads only: a failed cell's partial numbers
 * would mix two populations. out holds s->n values. */
size_t rpt_side_row_values(const struct rpt_side *s, size_t m, double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		if (!isnan(s->cells[i]->val[m]) &&
		    outcome_is(s->cells[i]->outcome, OUTCOME_OK))
			out[k++] = s->cells[i]->val[m];
	return k;
}

void rpt_verdict_effect(const struct metric *m, const struct vdecision *d,
			struct strbuf *out)
{
	if (d->test != MTEST_FISHER)
		strbuf_addf(out, "%s ", metric_mean_name(m));
	vdecision_effect(d, m->unit, 1, out);
}

/*
 * The 95% half-width of side s's change of row m against side 0, in % of
 * the row's mean: Welch's interval of the difference of the arithmetic
 * means for an Amean row; for a Gmean row (log1p-welch) Welch's on
 * log(1 + x / c), 100 (e^h - 1), the interval of the ratio that row's
 * test compares, so the table's +- belongs to its mean. NAN when there is
 * none (fewer than 2 values, a mean of 0).
 */
double rpt_row_halfwidth_pct(const struct rpt_group *g, size_t s, size_t m)
{
	const struct metric *mt = &metric_rows[m];
	const struct rpt_side *a = &g->sides[0], *b = &g->sides[s];
	size_t na = a->desc[m].n, nb = b->desc[m].n;
	double ma = na ? metric_mean(mt, a->vals[m], na) : NAN;
	double c = metric_log_offset(mt), h;
	struct stats_desc la, lb;
	double *x;

	if (mt->test != MTEST_LOG1P_WELCH) {
		h = stats_welch_halfwidth(&a->desc[m], &b->desc[m], 0.95);
		return ma != 0 ? 100 * h / fabs(ma) : NAN;
	}
	x = xmalloc((na + nb + 1) * sizeof(*x));
	for (size_t i = 0; i < na; i++)
		x[i] = log1p(a->vals[m][i] / c);
	for (size_t i = 0; i < nb; i++)
		x[na + i] = log1p(b->vals[m][i] / c);
	stats_describe(x, na, &la);
	stats_describe(x + na, nb, &lb);
	h = na && nb ? stats_welch_halfwidth(&la, &lb, 0.95) : NAN;
	free(x);
	return ma != 0 ? 100 * expm1(h) : NAN;
}

/*
 * The smallest change the chosen test would see with probability power.
 * div is what alpha is divided by: the rows of the family tested
 * (Bonferroni within a family), times the families tested for BH, the
 * threshold a row faces when its family holds the only real change (each
 * further real change relaxes BH's towards alpha / rows). For the bands
 * rule: the gap 1.96 (sd_a + sd_b) plus the normal quantile of the power
 * times the standard error.
 */
double rpt_row_mde(const struct report *r, const struct rpt_group *g, size_t s,
		   size_t m, size_t div)
{
	const struct stats_desc *a = &g->sides[0].desc[m];
	const struct stats_desc *b = &g->sides[s].desc[m];
	double se;

	switch (r->o.test) {
	case RTEST_FIT:
		return verdict_sdc(metric_rows[m].test,
				   metric_log_offset(&metric_rows[m]),
				   g->sides[0].vals[m], a->n,
				   g->sides[s].vals[m], b->n, r->o.alpha / div,
				   r->o.power);
	case RTEST_WELCH_BH:
	case RTEST_WELCH:
		return stats_mde_t(a->stddev, a->n, b->stddev, b->n,
				   r->o.alpha / div, r->o.power);
	case RTEST_BANDS:
		if (a->n < 2 || b->n < 2)
			return NAN;
		se = sqrt(a->stddev * a->stddev / a->n +
			  b->stddev * b->stddev / b->n);
		return STATS_BAND_Z * (a->stddev + b->stddev) +
		       gsl_cdf_ugaussian_Pinv(r->o.power) * se;
	default:
		return stats_mde_t(a->stddev, a->n, b->stddev, b->n, r->o.alpha,
				   r->o.power);
	}
}
