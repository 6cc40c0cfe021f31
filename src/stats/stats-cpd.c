// SPDX-License-Identifier: GPL-2.0
/*
 * Change points of a series: E-divisive means (Matteson and James 2014,
 * "A nonparametric approach for multiple change point analysis of
 * multivariate data", JASA 109:505), in the form Apache Otava
 * (change_point_divisive/calculator.py, significance_test.py) runs it over
 * performance histories: the divergence Q(X, Y) of two adjacent stretches,
 * maximised over the split tau and the end kappa of the right stretch, a
 * permutation test within the current segments, and a minimum segment
 * length. The reference is tests/ref/edivisive_ref.py.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/*
 * Two values of Q closer than this (relative) are the same value: the
 * sums are accumulated in a different order here than in a direct
 * computation, and ties (flat stretches) must break the same way in both.
 */
#define Q_EPS 1e-9

static bool q_greater(double a, double b)
{
	if (isinf(b))
		return a > b;
	return a > b + Q_EPS * fmax(1.0, fabs(b));
}

/* splitmix64 (Steele, Lea, Flood 2014): a fixed seed, the same shuffles. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fisher-Yates over x[0..n-1]. */
static void shuffle(double *x, size_t n, uint64_t *s)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = next_rand(s) % i;
		double t = x[i - 1];

		x[i - 1] = x[j];
		x[j] = t;
	}
}

/*
 * cs[k * (n + 1) + i] = sum over i' < i of |x[i'] - x[k]|: every sum of
 * distances from x[k] to a stretch before it is a difference of two.
 */
static double *col_sums(const double *x, size_t n)
{
	double *cs = malloc((n + 1) * n * sizeof(*cs));

	if (!cs)
		return NULL;
	for (size_t k = 0; k < n; k++) {
		double *c = cs + k * (n + 1);

		c[0] = 0;
		for (size_t i = 0; i < n; i++)
			c[i + 1] = c[i] + fabs(x[i] - x[k]);
	}
	return cs;
}

/*
 * The best split of [a, b): tau and kappa with a + m <= tau,
 * tau + m <= kappa <= b, maximising
 *   Q = 2/(n1+n2) S_xy - 2 n2/((n1+n2)(n1-1)) S_xx - 2 n1/((n1+n2)(n2-1)) S_yy
 * (X = x[a..tau), Y = x[tau..kappa), S over pairs i < j), which is
 * n1 n2/(n1+n2) times the energy distance estimate of the paper.
 */
static double best_split(const double *cs, size_t n, size_t a, size_t b,
			 size_t m, size_t *tau_out)
{
	double best = -INFINITY, sxx = 0;

	*tau_out = 0;
	if (b - a < 2 * m)
		return -INFINITY;
	/* S_xx of x[a..a+m) */
	for (size_t k = a + 1; k < a + m; k++)
		sxx += cs[k * (n + 1) + k] - cs[k * (n + 1) + a];
	for (size_t tau = a + m; tau + m <= b; tau++) {
		double n1 = (double)(tau - a), sxy = 0, syy = 0;

		for (size_t k = tau; k < b; k++) {
			const double *c = cs + k * (n + 1);
			double n2 = (double)(k + 1 - tau), q;

			sxy += c[tau] - c[a];
			syy += c[k] - c[tau];
			if (k + 1 - tau < m)
				continue;
			q = 2 / (n1 + n2) * sxy -
			    2 * n2 / ((n1 + n2) * (n1 - 1)) * sxx -
			    2 * n1 / ((n1 + n2) * (n2 - 1)) * syy;
			if (q_greater(q, best)) {
				best = q;
				*tau_out = tau;
			}
		}
		/* x[tau] joins X */
		sxx += cs[tau * (n + 1) + tau] - cs[tau * (n + 1) + a];
	}
	return best;
}

/* The best split over the segments bounded by cuts (sorted, 0 and n). */
static double best_over(const double *x, size_t n, const size_t *cuts,
			size_t ncuts, size_t m, size_t *tau)
{
	double *cs = col_sums(x, n), best = -INFINITY;

	*tau = 0;
	if (!cs)
		return NAN;
	for (size_t s = 0; s + 1 < ncuts; s++) {
		size_t t;
		double q = best_split(cs, n, cuts[s], cuts[s + 1], m, &t);

		if (q_greater(q, best)) {
			best = q;
			*tau = t;
		}
	}
	free(cs);
	return best;
}

double stats_edivisive_q(const double *x, size_t n, size_t min_size,
			 size_t *tau)
{
	size_t cuts[2] = { 0, n };

	if (min_size < 2)
		return NAN;
	return best_over(x, n, cuts, 2, min_size, tau);
}

/* Permutations within the segments whose best split reaches q. */
static int perm_count(const double *x, size_t n, const size_t *cuts,
		      size_t ncuts, const struct stats_cpd_opts *o, double q,
		      uint64_t *seed)
{
	double *y = malloc(n * sizeof(*y));
	int extreme = 0;

	if (!y)
		return -1;
	for (unsigned r = 0; r < o->permutations; r++) {
		size_t t;
		double qr;

		memcpy(y, x, n * sizeof(*y));
		for (size_t s = 0; s + 1 < ncuts; s++)
			shuffle(y + cuts[s], cuts[s + 1] - cuts[s], seed);
		qr = best_over(y, n, cuts, ncuts, o->min_size, &t);
		if (!q_greater(q, qr))
			extreme++;
	}
	free(y);
	return extreme;
}

static void insert_cut(size_t *cuts, size_t *ncuts, size_t tau)
{
	size_t i = *ncuts;

	while (i > 0 && cuts[i - 1] > tau) {
		cuts[i] = cuts[i - 1];
		i--;
	}
	cuts[i] = tau;
	(*ncuts)++;
}

static void mean_sd(const double *x, size_t n, double *mean, double *sd)
{
	struct stats_desc d;

	stats_describe(x, n, &d);
	*mean = d.amean;
	*sd = d.stddev;
}

/* The segments either side of each change point, once all are found. */
static void describe_sides(const double *x, const size_t *cuts, size_t ncuts,
			   struct stats_cp *cp, size_t ncp)
{
	for (size_t c = 0; c < ncp; c++) {
		size_t i = 1;

		while (cuts[i] != cp[c].index)
			i++;
		cp[c].before = cuts[i - 1];
		cp[c].after = cuts[i + 1];
		mean_sd(x + cuts[i - 1], cuts[i] - cuts[i - 1],
			&cp[c].mean_before, &cp[c].sd_before);
		mean_sd(x + cuts[i], cuts[i + 1] - cuts[i], &cp[c].mean_after,
			&cp[c].sd_after);
	}
}

static int cmp_cp(const void *a, const void *b)
{
	const struct stats_cp *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

int stats_cpd(const double *x, size_t n, const struct stats_cpd_opts *o,
	      struct stats_cp *cp, size_t max)
{
	size_t *cuts, ncuts = 2, ncp = 0;
	uint64_t seed = o->seed;

	if (o->min_size < 2 || !o->permutations || !(o->alpha > 0))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -1;
	cuts = malloc((n + 2) * sizeof(*cuts));
	if (!cuts)
		return -1;
	cuts[0] = 0;
	cuts[1] = n;
	while (ncp < max) {
		size_t tau;
		double q = best_over(x, n, cuts, ncuts, o->min_size, &tau);
		int extreme;
		double p;

		if (!isfinite(q))
			break;
		extreme = perm_count(x, n, cuts, ncuts, o, q, &seed);
		if (extreme < 0) {
			free(cuts);
			return -1;
		}
		/*
		 * The observed split counts as one of the permutations
		 * (Phipson and Smyth 2010): (k + 1) / (R + 1), never 0.
		 * Otava's k / (R + 1) rejected at 0.05 with probability
		 * 0.055 when nothing changed, and printed p < 0.005 for
		 * p >= 0.005.
		 */
		p = (double)(extreme + 1) / (o->permutations + 1);
		if (p > o->alpha)
			break;
		cp[ncp++] = (struct stats_cp){ .index = tau, .q = q, .p = p };
		insert_cut(cuts, &ncuts, tau);
	}
	qsort(cp, ncp, sizeof(*cp), cmp_cp);
	describe_sides(x, cuts, ncuts, cp, ncp);
	free(cuts);
	return (int)ncp;
}
