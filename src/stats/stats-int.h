/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STATS_INT_H
#define WBLAB_STATS_INT_H

/*
 * The statistics' insides, shared by its files and nothing else:
 *   stats.c        descriptive statistics, Welch (plain, log1p, TOST),
 *                  Fisher, power and smallest detectable effects
 *   stats-perm.c   the permutation test of a difference in means
 *   stats-multi.c  multiplicity: Benjamini-Hochberg, Holm, Simes
 *   stats-seq.c    group-sequential boundaries (repeated looks)
 * The public interface of all of them is stats/stats.h.
 */
#include <stddef.h>

#include <gsl/gsl_math.h>

#include "stats/stats.h"

/* Turn GSL's abort-on-error handler off (once); callers check codes. */
void stats_init(void);

/* malloc() that aborts: these are pure functions with no error path. */
void *stats_alloc(size_t size);

/*
 * A copy of x[0..n-1] without its NaN values (the convention of every
 * sample function here); *m is how many are left. free() it.
 */
double *stats_drop_nan(const double *x, size_t n, size_t *m);

/* t says the test could not run, and why (a static string). */
void stats_test_invalid(struct stats_test *t, const char *why);

/* Brent's method on f over [lo, hi], where f changes sign; NAN if not. */
double stats_solve(gsl_function *f, double lo, double hi, double tol);

#endif
