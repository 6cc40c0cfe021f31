/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_DECIDE_VERDICT_H
#define WBLAB_DECIDE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "results/metric.h"
#include "stats/stats.h"
#include "util/strbuf.h"

/*
 * One comparison of a side A (the reference) with a side B, decided with
 * the test that fits the figure (after Chromium's Pinpoint, a decision
 * knows when it does not know):
 *
 *   different  the row's test rejects "no change" at alpha;
 *   same       an equivalence test (TOST) puts the change inside the
 *              threshold at alpha;
 *   unknown    neither: more repetitions, or a larger threshold.
 *
 * The report's Verdict block and the jobs (validate, bisect, nightly)
 * decide every row here; the jobs add looks and a family-wise correction
 * on top (decide/procedure.h). Pure: numbers in, a verdict out.
 */
enum verdict {
	VERDICT_UNKNOWN,
	VERDICT_SAME,
	VERDICT_DIFFERENT,
};

const char *verdict_name(enum verdict v);

struct verdict_opts {
	double alpha; /* the level of both tests */
	double power; /* for the smallest detectable change */
	/*
	 * The change that matters, in % of the reference mean (a metric) or
	 * in percentage points of cells (a rate); `same` means smaller.
	 */
	double threshold;
	/*
	 * A metric's absolute floor in its unit (metric_abs_floor()): the
	 * margin is the larger of threshold % of |mean(a)| and this, so a
	 * reference of 0 has a threshold; 0: percentages only.
	 */
	double floor;
	/*
	 * A log1p-welch row's offset in its unit (metric_log_offset(),
	 * verdict_row() sets it): its test is on log(1 + x / log_c), so
	 * that a count recorded in KiB is decided as the same count in
	 * pages. 0: 1 (a figure that is no registry row).
	 */
	double log_c;
	int min_n; /* fewer values on a side: unknown */
	/*
	 * A rate: Fisher's one-sided p that b has the event more often
	 * (stats_fisher_greater()), for a question with one direction; the
	 * `same` rule keeps the two-sided power (it only gets stricter).
	 */
	bool greater;
	/*
	 * The caller works out the smallest detectable change itself, at its
	 * own level (the jobs' rows: dhyp_format(), when it prints one):
	 * none here (a power solve per row and look is most of a simulated
	 * job's time)
	 */
	bool no_sdc;
};

#define VERDICT_OPTS_INIT                                                \
	{                                                                \
		.alpha = 0.05, .power = 0.8, .threshold = 10, .min_n = 3 \
	}

struct vdecision {
	enum verdict verdict;
	enum metric_test test; /* the registry's, or the one that stood in */
	int na, nb; /* values (cells) that entered */
	int fa, fb; /* a rate: cells with the event */
	/*
	 * The row's one mean per side, the one its test compares
	 * (metric_test_mean(): the geometric mean of c + x less c for
	 * log1p-welch, else the arithmetic mean), or rates in [0, 1].
	 */
	double a, b;
	double c; /* verdict_opts.log_c (1 when it was 0) */
	double sa, sb; /* standard deviations (metrics) */
	double diff; /* b - a in the values' unit (rates: in [-1, 1]) */
	/*
	 * b against a in % of |a| (NAN when a is 0: then only diff says it,
	 * never "-inf%"), for a rate in percentage points.
	 */
	double pct;
	double p; /* the difference test's p (two-sided; Fisher: see greater) */
	double p_same; /* TOST's p against the threshold; NAN if none */
	double floor; /* verdict_opts.floor: the margin's absolute least */
	/*
	 * The one-sided p that the change is beyond the threshold upwards
	 * (p_up) or downwards (p_down), on the test's scale (log1p: the
	 * ratio of geometric means of 1 + x); NAN where only a permutation
	 * test ran (no spread: the change is what it is) or for a rate.
	 */
	double p_up, p_down;
	/*
	 * The smallest change these values could show with the given power
	 * at alpha: in the values' unit (sdc_abs) and in % of |a| (sdc_pct,
	 * NAN when a is 0).
	 */
	double sdc_abs, sdc_pct;
	/* On the test's scale (log1p rows: of log(1 + x)), for the above. */
	double tma, tsa, tsb, power;
	/*
	 * Every value on both sides is one and the same (a counter 0 in
	 * every cell): no test of a difference or of equivalence has
	 * anything to work with, so the row is decided as a rate, the share
	 * of cells away from that value, 0 of na against 0 of nb.
	 */
	bool constant;
	double threshold; /* the options' (pp for a rate or a constant row) */
	/*
	 * Rates and constant rows: the one-sided upper bound, in pp, of the
	 * rise of b's rate at the level of the last verdict_apply();
	 * `same` when it is below the threshold (stats_rate_rise_bound()).
	 */
	double bound;
	char why[200];
};

/*
 * The row's difference test on finite values (stats_test's p): Welch,
 * Welch on log(1 + x / c) (c the row's offset, 0 for 1) or the
 * permutation test; the permutation test stands in
 * when Welch has no answer (no variance on either side): *used says which.
 */
void verdict_test(enum metric_test test, double c, const double *a, size_t na,
		  const double *b, size_t nb, struct stats_test *t,
		  enum metric_test *used);
/*
 * The smallest change of the mean these values could show with power at
 * alpha, in their unit (for log1p-welch, upward from the reference's
 * geometric mean of c + x, c the row's offset: metric_log_offset());
 * NAN when n is too small.
 */
double verdict_sdc(enum metric_test test, double c, const double *a, size_t na,
		   const double *b, size_t nb, double alpha, double power);

/*
 * The same for an A/A comparison of n cells a side, both spread like
 * the na values of a (bench/noise: what n = 5 or 9 would see at this
 * noise); NAN when na < 2.
 */
double verdict_sdc_n(enum metric_test test, double c, const double *a,
		     size_t na, size_t n, double alpha, double power);

/*
 * d's smallest detectable change (sdc_abs, sdc_pct) again, at level
 * alpha: for bad 0 two-sided, else one-sided in the bad direction (up:
 * a rise, down: a fall, each as a positive size). NAN where only the
 * permutation test ran (no spread: no power figure means anything).
 */
void vdecision_sdc_at(struct vdecision *d, double alpha, int bad);

/*
 * NaN values are left out (a cell where the figure is absent). The
 * primitive, for figures that are no registry row: a row is decided by
 * verdict_row().
 */
void verdict_metric(enum metric_test test, const double *a, size_t na,
		    const double *b, size_t nb, const struct verdict_opts *o,
		    struct vdecision *d);
/*
 * A registry row's verdict: the row's own test and its absolute floor
 * (metric_abs_floor(), whatever o->floor says). Every decider of a row
 * (the report's Verdict and claims, validate, nightly, bisect, `wblab
 * decide`) comes through here, so that the floor is one rule with one
 * owner, not a field each caller may forget.
 */
void verdict_row(const struct metric *m, const double *a, size_t na,
		 const double *b, size_t nb, const struct verdict_opts *o,
		 struct vdecision *d);
/*
 * The estimate's half of "beyond the threshold": diff (pct % of the
 * reference, NAN from 0) in direction bad (+1 up, -1 down, 0 either),
 * at least floor in the row's unit and at least threshold % (a change
 * from 0 has no percentage: the floor is its threshold).
 */
bool verdict_change_beyond(int bad, double diff, double pct, double threshold,
			   double floor);
/*
 * The one-sided p that d's change is beyond the larger of its threshold
 * and floor in direction bad (either: twice the smaller); NAN where no
 * such test ran (the permutation test stood in, or a rate).
 */
double vdecision_p_beyond(const struct vdecision *d, int bad);
/*
 * The one rule of "beyond the threshold" every decider uses: the
 * estimate beyond it (verdict_change_beyond(), d's threshold and floor)
 * and the non-inferiority test of it at level (vdecision_p_beyond() <
 * level); where no such test ran, the estimate stands.
 */
bool vdecision_beyond(const struct vdecision *d, int bad, double level);
void verdict_rate(unsigned fail_a, unsigned runs_a, unsigned fail_b,
		  unsigned runs_b, const struct verdict_opts *o,
		  struct vdecision *d);
/*
 * The verdict at level alpha from d's p-values (the jobs call it again
 * with the level their look and family leave to a row).
 */
void verdict_apply(struct vdecision *d, double alpha);
/* verdict_apply() for a rate (verdict_rate()'s d): `same` by its bound. */
void verdict_apply_rate(struct vdecision *d, double alpha);

/* "0 -> 241 pages", "1520 -> 1390 MiB/s (-8.6%)", "0% -> 40% (+40pp)". */
void vdecision_effect(const struct vdecision *d, const char *unit, double scale,
		      struct strbuf *out);
/* "241 pages" or "14%": the smallest detectable change, as a reader wants it. */
void vdecision_sdc(const struct vdecision *d, const char *unit, double scale,
		   struct strbuf *out);

#endif
