// SPDX-License-Identifier: GPL-2.0
/*
 * Multiplicity: many p-values read at once. Benjamini-Hochberg across
 * exploratory rows, Simes within a family of rows that carry one
 * quantity, Holm across the rows x groups a job decides on.
 */
#include <math.h>
#include <stdlib.h>

#include "stats/stats-int.h"

struct pidx {
	double p;
	size_t i;
};

static int pidx_cmp(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p;
}

/* The non-NaN p-values with their indexes, smallest first; *m of them. */
static struct pidx *sorted_p(const double *p, size_t n, size_t *m)
{
	struct pidx *v = stats_alloc(n * sizeof(*v));

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			v[(*m)++] = (struct pidx){ p[i], i };
	qsort(v, *m, sizeof(*v), pidx_cmp);
	return v;
}

void stats_bh(const double *p, size_t n, double *q)
{
	size_t m;
	struct pidx *v = sorted_p(p, n, &m);
	double run = 1;

	for (size_t i = 0; i < n; i++)
		q[i] = NAN;
	/* From the largest p down: q = min over j >= rank of p_j * m / j. */
	for (size_t k = m; k > 0; k--) {
		double adj = v[k - 1].p * m / k;

		if (adj < run)
			run = adj;
		q[v[k - 1].i] = run;
	}
	free(v);
}

void stats_holm(const double *p, size_t n, double *q)
{
	size_t m;
	struct pidx *v = sorted_p(p, n, &m);
	double run = 0;

	for (size_t i = 0; i < n; i++)
		q[i] = NAN;
	/* From the smallest p up: q = max over j <= rank of (m - j + 1) p_j. */
	for (size_t k = 1; k <= m; k++) {
		double adj = fmin(1, (m - k + 1) * v[k - 1].p);

		if (adj > run)
			run = adj;
		q[v[k - 1].i] = run;
	}
	free(v);
}

double stats_simes(const double *p, size_t n)
{
	size_t m;
	struct pidx *v = sorted_p(p, n, &m);
	double s = NAN;

	for (size_t k = 1; k <= m; k++) {
		double adj = v[k - 1].p * m / k;

		if (isnan(s) || adj < s)
			s = adj;
	}
	free(v);
	return s > 1 ? 1 : s;
}
