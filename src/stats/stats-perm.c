// SPDX-License-Identifier: GPL-2.0
/*
 * The two-sample permutation test of a difference in means: exact over
 * every split for the small samples a lab run has, Monte Carlo with a
 * fixed seed above that. See stats_perm_test() in stats.h.
 */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats-int.h"

struct perm {
	const double *x; /* the pooled values, a then b */
	size_t n, nb;
	double total; /* sum of x */
	double obs; /* |observed difference| */
	double tol; /* ties: |d| >= obs - tol */
	unsigned long splits, hits; /* splits seen, those as extreme */
	double max; /* the largest |d| of a split (exact) */
	unsigned long at_max; /* splits at max */
};

/* |mean(b) - mean(a)| when the values summing to sb are side b. */
static double split_diff(const struct perm *c, double sb)
{
	size_t na = c->n - c->nb;

	return fabs(sb / c->nb - (c->total - sb) / na);
}

static void count_split(struct perm *c, double sb)
{
	double d = split_diff(c, sb);

	c->splits++;
	if (d >= c->obs - c->tol)
		c->hits++;
	if (d > c->max + c->tol) {
		c->max = d;
		c->at_max = 1;
	} else if (d >= c->max - c->tol) {
		c->at_max++;
	}
}

/*
 * Every way to take `left` more values for side b from x[i..n-1], with
 * sb the sum taken so far: C(n, nb) leaves, at most C(20, 10) = 184756.
 */
static void enumerate(struct perm *c, size_t i, size_t left, double sb)
{
	if (!left) {
		count_split(c, sb);
		return;
	}
	if (c->n - i < left)
		return;
	enumerate(c, i + 1, left - 1, sb + c->x[i]);
	enumerate(c, i + 1, left, sb);
}

/* STATS_PERM_RESAMPLES random splits: a partial Fisher-Yates shuffle. */
static void resample(struct perm *c)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	double *x = stats_alloc(c->n * sizeof(*x));

	if (!r)
		abort();
	gsl_rng_set(r, STATS_PERM_SEED);
	memcpy(x, c->x, c->n * sizeof(*x));
	for (unsigned long k = 0; k < STATS_PERM_RESAMPLES; k++) {
		double sb = 0;

		for (size_t i = 0; i < c->nb; i++) {
			size_t j = i + gsl_rng_uniform_int(r, c->n - i);
			double v = x[j];

			x[j] = x[i];
			x[i] = v;
			sb += v;
		}
		c->splits++;
		if (split_diff(c, sb) >= c->obs - c->tol)
			c->hits++;
	}
	gsl_rng_free(r);
	free(x);
}

static void perm_run(struct perm *c, size_t na, struct stats_test *t)
{
	double lo = c->x[0], hi = c->x[0], sb = 0;

	for (size_t i = 0; i < c->n; i++) {
		c->total += c->x[i];
		lo = fmin(lo, c->x[i]);
		hi = fmax(hi, c->x[i]);
	}
	for (size_t i = na; i < c->n; i++)
		sb += c->x[i];
	t->diff = t->stat = sb / c->nb - (c->total - sb) / na;
	c->obs = split_diff(c, sb);
	c->tol = 1e-9 * (hi - lo);
	t->exact = na <= STATS_PERM_EXACT && c->nb <= STATS_PERM_EXACT;
	if (t->exact) {
		enumerate(c, 0, c->nb, 0);
		t->p = (double)c->hits / c->splits;
		t->p_min = (double)c->at_max / c->splits;
	} else {
		resample(c);
		t->p = (c->hits + 1.0) / (c->splits + 1.0);
		t->p_min = 1.0 / (c->splits + 1.0);
	}
	t->splits = c->splits;
}

void stats_perm_test(const double *a, size_t na, const double *b, size_t nb,
		     struct stats_test *t)
{
	size_t ma, mb;
	double *xa = stats_drop_nan(a, na, &ma);
	double *xb = stats_drop_nan(b, nb, &mb);
	double *x = stats_alloc((ma + mb) * sizeof(*x));
	struct perm c = { .x = x, .n = ma + mb, .nb = mb };

	stats_init();
	if (!ma || !mb) {
		stats_test_invalid(t, "no value on a side");
		goto out;
	}
	memcpy(x, xa, ma * sizeof(*x));
	memcpy(x + ma, xb, mb * sizeof(*x));
	memset(t, 0, sizeof(*t));
	t->valid = true;
	t->na = ma;
	t->nb = mb;
	t->df = t->ratio = NAN;
	perm_run(&c, ma, t);
out:
	free(x);
	free(xa);
	free(xb);
}
