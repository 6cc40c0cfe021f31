/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STATS_H
#define WBLAB_STATS_H

/*
 * Statistics for comparing kernels: pure functions over arrays of doubles
 * and counts, GSL underneath (distributions, quantiles, integration, root
 * finding). Nothing here allocates state the caller must free, opens a
 * file or prints. Used by src/report (the report's marks and legend) and
 * src/jobs (same/different/unknown decisions).
 *
 * Conventions:
 *  - "a" is the baseline side, "b" the side compared with it.
 *  - Standard deviations are sample ones (n - 1 in the denominator), as
 *    R's sd() and mmtests' Stddev rows.
 *  - p-values are two-sided unless the name says otherwise.
 *  - NaN values in a sample are left out (a cell without the figure);
 *    the n a test reports is the count of those it used.
 *  - A function that cannot answer (too few values, a mean of a value
 *    that is not positive) returns NAN, or sets .valid = false with .why
 *    saying which; it never guesses.
 */
#include <stdbool.h>
#include <stddef.h>

/* What the report and the jobs use unless told otherwise. */
#define STATS_ALPHA 0.05
#define STATS_POWER 0.8
/* mmtests' band: mean +- 1.96 standard deviations (95% of a normal). */
#define STATS_BAND_Z 1.96
/* Fewer values per side than this: no test is run, no mark is given. */
#define STATS_MIN_N 3

/* Descriptive statistics of one sample. */
struct stats_desc {
	size_t n;
	double amean; /* arithmetic mean */
	double hmean; /* harmonic mean; NAN unless every value > 0 */
	double gmean; /* geometric mean; NAN unless every value > 0 */
	double min, max;
	double stddev; /* sample sd; 0 when n == 1 */
	double coeffvar; /* 100 * stddev / |amean| (%); NAN when amean == 0 */
	double median;
};

/* Describe x[0..n-1] (not modified). 0, or -1 when n == 0 (d is zeroed). */
int stats_describe(const double *x, size_t n, struct stats_desc *d);

/*
 * Half the width of the level (0.95) confidence interval of mean(b) -
 * mean(a), Welch's (unequal variances, Welch-Satterthwaite df): the
 * interval scipy.stats.ttest_ind(a, b, equal_var=False)
 * .confidence_interval() gives, from the two descriptions. 0 when both
 * sides are constant; NAN when a side has fewer than 2 values.
 */
double stats_welch_halfwidth(const struct stats_desc *a,
			     const struct stats_desc *b, double level);

/*
 * The q-quantile (0 <= q <= 1) of x[0..n-1], interpolated linearly between
 * order statistics: R's quantile(type = 7), numpy's default, GSL's
 * gsl_stats_quantile_from_sorted_data. x is not modified. NAN when n == 0.
 */
double stats_quantile(const double *x, size_t n, double q);

/*
 * Spearman's rank correlation of x and y (n pairs): Pearson's correlation
 * of their ranks, ties given their average rank (scipy.stats.spearmanr,
 * R's cor(method = "spearman")). NAN when n < 2 or either is constant.
 */
double stats_spearman(const double *x, const double *y, size_t n);

/* A two-sample test's result. */
struct stats_test {
	bool valid; /* false: see why, and ignore the rest */
	const char *why; /* a static string when !valid */
	size_t na, nb; /* the values used on each side (NaN left out) */
	double stat; /* t for Welch; mean(b) - mean(a) for a permutation */
	double df; /* degrees of freedom (Welch-Satterthwaite); NAN if none */
	double p; /* two-sided p-value */
	double diff; /* mean(b) - mean(a), in the values' unit */
	/* stats_welch_log1p: geometric mean of 1 + b over that of 1 + a. */
	double ratio;
	/* The smallest p the test could give these values (a permutation). */
	double p_min;
	/* Permutation: the splits counted, all of them when exact. */
	unsigned long splits;
	bool exact;
};

/*
 * Welch's unequal-variance t-test of a against b (R's t.test(b, a), the
 * sign of stat is mean(b) - mean(a)). Needs n >= 2 on each side. When
 * both sides have zero variance there is no noise to test against: p is
 * 1 if the means are equal, else 0, and df is na + nb - 2. For figures
 * near normal (times, bandwidths); ratio is NAN, p_min 0.
 */
void stats_welch(const double *a, size_t na, const double *b, size_t nb,
		 struct stats_test *t);

/*
 * Welch's t-test on log(1 + x): for counts and heavy-tailed figures,
 * whose spread grows with their size (a counter 0 on one side and
 * 32-1322 on the other), where a test on the raw values has little
 * power. As scipy.stats.ttest_ind(log1p(b), log1p(a), equal_var=False).
 * stat, df and p are on the log1p scale; the effect is reported on the
 * values' own: diff = mean(b) - mean(a), and ratio = the geometric mean
 * of 1 + b over that of 1 + a (exp of the difference of log1p means).
 * Values must be > -1 (counts, times, sizes are); invalid otherwise.
 */
void stats_welch_log1p(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_test *t);

/*
 * Equivalence by two one-sided Welch tests (TOST, Schuirmann 1987): the
 * p-value that the true mean(b) - mean(a) lies inside (-margin, margin),
 * margin > 0 in the values' unit. p = max(p_lower, p_upper), where
 * p_lower tests diff <= -margin against diff > -margin (R's t.test(b, a,
 * mu = -margin, alternative = "greater")) and p_upper diff >= margin
 * against diff < margin (mu = margin, "less"); stat is the t of the
 * larger. p < alpha reads `same`: the change is smaller than the margin
 * (at level alpha; the 1 - 2 alpha interval lies inside it). With SD 0
 * on both sides p is 0 when |diff| < margin, else 1. Needs n >= 2 a side.
 */
void stats_tost(const double *a, size_t na, const double *b, size_t nb,
		double margin, struct stats_test *t);

/*
 * A change beyond a margin, one-sided, by Welch: *p_up that mean(b) -
 * mean(a) > margin (R's t.test(b, a, mu = margin, alternative =
 * "greater")), *p_down that it is < -margin (mu = -margin, "less"). The
 * non-inferiority half of TOST: what makes a change "beyond the
 * threshold" a finding rather than a point estimate. margin >= 0 in the
 * values' unit; NAN when Welch cannot run.
 */
void stats_welch_beyond(const double *a, size_t na, const double *b, size_t nb,
			double margin, double *p_up, double *p_down);

/*
 * stats_tost() with a margin of pct percent of |mean(a)| (a threshold
 * such as "within 10%"). Invalid when mean(a) is 0 (the margin would be
 * 0: nothing is equivalent to it; give an absolute margin instead).
 */
void stats_tost_rel(const double *a, size_t na, const double *b, size_t nb,
		    double pct, struct stats_test *t);

/*
 * The exact permutation test of mean(b) - mean(a), two-sided: every
 * split of the pooled values into na and nb is equally likely if the
 * kernels do not differ, and p is the share of splits whose |difference|
 * is at least the observed one. A split ties the observed one when its
 * |difference| is within 1e-9 of the pooled values' range below it (sums
 * in another order round differently; no real difference is that small).
 * No assumption about the distribution: for counts and heavy tails.
 *
 * All C(na + nb, na) splits when na and nb are both <= STATS_PERM_EXACT
 * (.exact, p = k / C); otherwise STATS_PERM_RESAMPLES random splits from
 * a generator seeded with STATS_PERM_SEED, so the same values give the
 * same p, and p = (k + 1) / (R + 1) (Phipson & Smyth 2010; standard
 * error at p = 0.05 about 0.002). .p_min is the p of the most extreme
 * split: n = 3 a side can never go below 0.1, n = 4 gives 2/70, n = 5
 * 2/252. Needs a value on each side; stat is diff.
 */
#define STATS_PERM_EXACT 10
#define STATS_PERM_RESAMPLES 9999
#define STATS_PERM_SEED 20261203UL
void stats_perm_test(const double *a, size_t na, const double *b, size_t nb,
		     struct stats_test *t);

/*
 * mmtests' rule: the bands mean +- z * sd of the two sides do not overlap
 * (z = STATS_BAND_Z). Takes summary figures so callers that hold only
 * those can use it.
 */
bool stats_bands_apart(double mean_a, double sd_a, double mean_b, double sd_b,
		       double z);

/*
 * Fisher's exact test, two-sided, on the 2x2 table
 *	a_fail  a_runs - a_fail
 *	b_fail  b_runs - b_fail
 * (R's fisher.test: the sum of the probabilities of all tables with the
 * same margins no more likely than this one). NAN if a count is larger
 * than its runs or a side has no runs.
 */
double stats_fisher_2x2(unsigned a_fail, unsigned a_runs, unsigned b_fail,
			unsigned b_runs);

/*
 * Fisher's exact test, one-sided: the p-value that side b fails more
 * often than side a, P(b's failures >= b_fail) given the margins (the
 * hypergeometric upper tail). As scipy.stats.fisher_exact([[b_fail,
 * b_runs - b_fail], [a_fail, a_runs - a_fail]], alternative='greater')
 * and R's fisher.test(..., alternative = "greater"). For a new event
 * (absent or rare on the base, seen on the patch): a fall in its rate is
 * not evidence of one. NAN as stats_fisher_2x2().
 */
double stats_fisher_greater(unsigned a_fail, unsigned a_runs, unsigned b_fail,
			    unsigned b_runs);

/*
 * Clopper-Pearson one-sided bounds of a binomial rate from fail of runs:
 * the rate p with P(X <= fail | p) = alpha (upper; 1 when fail = runs)
 * and with P(X >= fail | p) = alpha (lower; 0 when fail = 0). R's
 * binom.test(fail, runs, alternative = "less" | "greater",
 * conf.level = 1 - alpha)$conf.int. NAN if fail > runs or runs is 0.
 */
double stats_binom_upper(unsigned fail, unsigned runs, double alpha);
double stats_binom_lower(unsigned fail, unsigned runs, double alpha);

/*
 * A one-sided upper bound at level alpha of the rise of b's rate over
 * a's, rate_b - rate_a, in [0, 1]: b's upper bound less a's lower bound,
 * each at alpha / 2 (Bonferroni: conservative), or b's upper bound at
 * alpha when a never failed (a's rate is >= 0 whatever the data). What
 * lets a rate, or a row whose cells are all one value, be called `same`
 * within a threshold of percentage points, or say how large a rise the
 * cells still allow. NAN as the bounds.
 */
double stats_rate_rise_bound(unsigned a_fail, unsigned a_runs, unsigned b_fail,
			     unsigned b_runs, double alpha);

/*
 * Power of the two-sided Welch test at level alpha to see a true
 * difference delta between means, with these standard deviations and
 * sizes (noncentral t; equal to R's power.t.test for equal sd and n).
 * NAN when a side has n < 2.
 */
double stats_power_t(double delta, double sd_a, size_t na, double sd_b,
		     size_t nb, double alpha);

/*
 * The smallest detectable effect: the difference between means (in the
 * values' unit, >= 0) that a two-sided Welch test at level alpha sees
 * with probability power, given these standard deviations and sizes.
 * Divide by the baseline mean for a percentage. 0 when both sd are 0 (any
 * change shows); NAN when a side has n < 2.
 */
double stats_mde_t(double sd_a, size_t na, double sd_b, size_t nb, double alpha,
		   double power);

/*
 * The smallest detectable difference in the values' unit, from the
 * pooled standard deviation: the delta that Student's two-sample t-test
 * (df na + nb - 2) at level alpha sees with probability power (R's
 * power.t.test(n, sd = pooled, power)$delta for equal n). For a row
 * whose base mean is 0, where a percentage has no meaning: the report
 * prints "smallest detectable change 40 pages". Pooling keeps the
 * degrees of freedom of both sides when one has no spread (a count 0 in
 * every base cell, where Welch's df falls to nb - 1). 0 when both sd are
 * 0; NAN when a side has n < 2.
 */
double stats_mde_abs(double sd_a, size_t na, double sd_b, size_t nb,
		     double alpha, double power);

/*
 * Power of Fisher's test at level alpha when side a fails with
 * probability pa in each of na runs and side b with pb in nb runs
 * (exact: sums over every pair of binomial outcomes).
 */
double stats_power_fisher(double pa, unsigned na, double pb, unsigned nb,
			  double alpha);

/*
 * The smallest failure probability pb > pa that Fisher's test at level
 * alpha detects with probability power, with these run counts: "no mark"
 * on an outcome then reads "the rate did not rise from pa to pb or more".
 * NAN when even pb = 1 is not detected that often (too few runs).
 */
double stats_mde_fisher(double pa, unsigned na, unsigned nb, double alpha,
			double power);

/*
 * Multiplicity. Each function takes n p-values; NAN ones (no test) are
 * left out of the count and adjust to NAN.
 *
 * Benjamini-Hochberg adjusted p-values (R's p.adjust(p, "BH")): q[i] for
 * p[i], i < n. Rejecting every q < alpha keeps the expected share of
 * false discoveries among the rejections at alpha; when nothing changed
 * at all, the chance of any rejection is at most alpha. For exploratory
 * rows, across families.
 */
void stats_bh(const double *p, size_t n, double *q);

/*
 * Holm's step-down adjusted p-values (R's p.adjust(p, "holm")): q[i] for
 * p[i]. Rejecting every q < alpha keeps the chance of any false
 * rejection at alpha whatever the dependence between the tests
 * (family-wise), and rejects at least what Bonferroni does. For a job's
 * decision across its thresholded rows x groups.
 */
void stats_holm(const double *p, size_t n, double *q);

/*
 * Simes' combined p-value of a family: min over i of m p_(i) / i, for
 * the m sorted p-values (capped at 1; NAN when none). Tests "nothing in
 * the family changed"; exact for independent or positively dependent
 * tests, so rows that carry one quantity (reclaim-wr-direct, Reclaim
 * writes, Direct wr pages) cost nothing like Bonferroni's m times. BH
 * over one family's p-values gives Simes' p as its smallest q.
 */
double stats_simes(const double *p, size_t n);

/*
 * Group-sequential boundaries: a job that looks at its data several
 * times as it grows (validate at n = 3, 5, 7, 9 a side) and stops at the
 * first significant look must test each look at a smaller level, or its
 * chance of a false alarm grows with every look (five looks at 0.05:
 * 0.14). K looks at information fractions t[0..k-1] (0 < t < = 1,
 * increasing: n_i / n_max for a t-test of means), two-sided overall
 * alpha. z[i]: reject at look i when |Z_i| >= z[i]; p[i] (NULL to skip):
 * the same as a nominal two-sided p-value, 2 (1 - Phi(z[i])), to hold a
 * look's ordinary p-value against. Computed by the recursive numerical
 * integration of Armitage, McPherson & Rowe (1969) (Jennison & Turnbull
 * 2000, ch. 19), to about 1e-6 in z. 0, or -1 on bad looks or alpha.
 *
 * Pocock and O'Brien-Fleming take every look's t as given (rescaled so
 * the last is 1) and fix the shape; the spending forms (Lan & DeMets
 * 1983) fix how much alpha is spent by each t, so looks may be unequally
 * spaced or stop early (t[k-1] < 1 leaves the rest unspent):
 *  POCOCK        one z at every look: stops early most easily
 *                (K = 4 equal looks: 2.361, nominal p 0.0182 each)
 *  OBF           z_i = C / sqrt(t_i): almost nothing spent early, the
 *                last look near the plain test (K = 4: 4.049 ... 2.024)
 *  SPEND_POCOCK  spends alpha ln(1 + (e - 1) t)
 *  SPEND_OBF     spends 4 - 4 Phi(z_{1-alpha/4} / sqrt(t)) (alpha/2 a side
 *                by the one-sided O'Brien-Fleming-like function; rpact's
 *                "asOF", gsDesign's sfLDOF); a look too early to be
 *                allowed anything gets z = 20, which nothing crosses
 * The boundaries are for a normal statistic; a t-test with few degrees
 * of freedom held to the nominal p[i] is the usual approximation.
 */
enum stats_gs_design {
	STATS_GS_POCOCK,
	STATS_GS_OBF,
	STATS_GS_SPEND_POCOCK,
	STATS_GS_SPEND_OBF,
};
int stats_gs_bounds(enum stats_gs_design d, const double *t, size_t k,
		    double alpha, double *z, double *p);

/*
 * The chance, when nothing changed, that |Z_i| >= z[i] at some look i
 * (the overall two-sided type I error of boundaries z at fractions t):
 * four looks at n = 3, 5, 7, 9 a side held to 1.96 each give 0.12.
 * NAN on bad input.
 */
double stats_gs_crossing(const double *t, const double *z, size_t k);

/*
 * Change points of a series (stats-cpd.c): E-divisive means (Matteson and
 * James 2014) as Apache Otava runs it over performance histories. The
 * series is cut where the divergence of the stretches either side is
 * largest, if a permutation test (the values shuffled within the current
 * segments, `permutations` times, from a fixed seed) says it is
 * significant: p = (permutations reaching the same divergence) /
 * (permutations + 1) <= alpha; then each segment is searched again. No
 * segment is shorter than min_size (>= 2), so one odd night is never a
 * change point of its own. Reference: tests/ref/edivisive_ref.py.
 */
struct stats_cpd_opts {
	double alpha;
	unsigned permutations;
	size_t min_size;
	unsigned long long seed;
};

#define STATS_CPD_INIT                                             \
	{                                                          \
		.alpha = 0.05, .permutations = 199, .min_size = 3, \
		.seed = 20140101                                   \
	}

struct stats_cp {
	size_t index; /* the first value after the change */
	size_t before,
		after; /* the segments: [before, index), [index, after) */
	double q; /* the divergence at the cut */
	double p; /* the permutation test's p */
	double mean_before, sd_before, mean_after, sd_after;
};

/*
 * The change points of x[0..n-1] (finite values), sorted by index, at most
 * max of them into cp: how many, or -1 on bad input (a NaN, min_size < 2,
 * no permutations, alpha <= 0) or no memory.
 */
int stats_cpd(const double *x, size_t n, const struct stats_cpd_opts *o,
	      struct stats_cp *cp, size_t max);
/* The largest divergence over one segment and where (*tau); NAN, -INF. */
double stats_edivisive_q(const double *x, size_t n, size_t min_size,
			 size_t *tau);

#endif
