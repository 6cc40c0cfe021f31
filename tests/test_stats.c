// SPDX-License-Identifier: GPL-2.0
/*
 * src/stats against numbers published by independent references: the
 * examples in R's documentation (?t.test, ?fisher.test, ?power.t.test)
 * and SciPy's/NumPy's (scipy.stats.hmean, gmean, fisher_exact,
 * numpy.percentile), and values computed by tests/ref/stats_ref.py
 * (SciPy) and tests/ref/stats_ref.R (R) from the captured runs in
 * tests/data/report and from samples pasted here. Each test names where
 * its expected figure is from and its tolerance.
 */
#include <check.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "testdata.h"
#include "util/json.h"

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* One metric over the ok cells of a captured run, as stats_ref.py reads it. */
struct sample {
	double v[16];
	size_t n;
};

/* cells: a glob under tests/data ("report/ab/cells/6.1_*"); path: metrics.* */
static void load(struct sample *s, const char *cells, const char *path)
{
	char *pat = testdata_path("%s/cell.json", cells);
	glob_t g;

	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		json_object *c = json_object_from_file(g.gl_pathv[i]);
		json_object *o, *v;

		ck_assert_msg(c, "%s: not JSON", g.gl_pathv[i]);
		o = json_path(c, "outcome");
		if (o && !strcmp(json_object_get_string(o), "ok")) {
			v = json_path(c, path);
			ck_assert_msg(v, "%s: no %s", g.gl_pathv[i], path);
			ck_assert_uint_lt(s->n, ARRAY_N(s->v));
			s->v[s->n++] = json_object_get_double(v);
		}
		json_object_put(c);
	}
	globfree(&g);
	free(pat);
}

#define AB_A "report/ab/cells/6.1_*"
#define AB_B "report/ab/cells/6.1-direct-writeback_*"
#define AA_A "report/aa/20261203-141600-381e/cells/*"
#define AA_B "report/aa/20261203-141602-388e/cells/*"
#define DIRECT "metrics.vmscan_write_file_direct"
#define FIO_BW "metrics.fio.0.write.bw_kib_s"
#define PSI_MEM "metrics.psi.memory.some.total_delta_us"

/* R's datasets::sleep, extra by group (R's ?t.test example). */
static const double sleep1[] = { 0.7, -1.6, -0.2, -1.2, -0.1,
				 3.4, 3.7,  0.8,  0.0,	2.0 };
static const double sleep2[] = { 1.9, 0.8, 1.1, 0.1, -0.1,
				 4.4, 5.5, 1.6, 4.6, 3.4 };

START_TEST(test_welch_r_sleep)
{
	struct stats_test t;

	/*
	 * R: t.test(extra ~ group, data = sleep)
	 *	Welch Two Sample t-test
	 *	t = -1.8608, df = 17.776, p-value = 0.07939
	 *	mean in group 1 0.75, mean in group 2 2.33
	 * stats_welch(a, b) reports mean(b) - mean(a): the sign flips.
	 */
	stats_welch(sleep1, ARRAY_N(sleep1), sleep2, ARRAY_N(sleep2), &t);
	ck_assert(t.valid);
	ck_assert_double_eq_tol(t.stat, 1.8608, 5e-5);
	ck_assert_double_eq_tol(t.df, 17.776, 5e-4);
	ck_assert_double_eq_tol(t.p, 0.07939, 5e-6);
	stats_welch(sleep2, ARRAY_N(sleep2), sleep1, ARRAY_N(sleep1), &t);
	ck_assert_double_eq_tol(t.stat, -1.8608, 5e-5);
	ck_assert_double_eq_tol(t.p, 0.07939, 5e-6);
}
END_TEST

/*
 * The interval the mail's compact column prints (+-h): R's t.test on the
 * sleep data, 95 percent confidence interval -3.3654832 0.2054832, half
 * 1.7854832; and two rows of report/ab, the demo's A/B, against SciPy
 * (t.ppf(0.975, Welch df) * se, the df and t checked against
 * scipy.stats.ttest_ind(equal_var=False)): write-lat-p99 in ms (the
 * mail's unit) 93.40749738, Flush for vmscan in pages 22045.44134.
 */
START_TEST(test_welch_halfwidth)
{
	struct stats_desc a, b;
	struct sample sa, sb;

	stats_describe(sleep1, ARRAY_N(sleep1), &a);
	stats_describe(sleep2, ARRAY_N(sleep2), &b);
	ck_assert_double_eq_tol(stats_welch_halfwidth(&a, &b, 0.95), 1.7854832,
				5e-7);
	ck_assert_double_eq_tol(stats_welch_halfwidth(&b, &a, 0.95), 1.7854832,
				5e-7);
	load(&sa, AB_A, "metrics.fio.0.write.clat_p99_us");
	load(&sb, AB_B, "metrics.fio.0.write.clat_p99_us");
	for (size_t i = 0; i < sa.n; i++)
		sa.v[i] /= 1000;
	for (size_t i = 0; i < sb.n; i++)
		sb.v[i] /= 1000;
	stats_describe(sa.v, sa.n, &a);
	stats_describe(sb.v, sb.n, &b);
	ck_assert_double_eq_tol(stats_welch_halfwidth(&a, &b, 0.95),
				93.40749738, 1e-6);
	load(&sa, AB_A, "metrics.trace.writeback.by_reason.vmscan.pages");
	load(&sb, AB_B, "metrics.trace.writeback.by_reason.vmscan.pages");
	stats_describe(sa.v, sa.n, &a);
	stats_describe(sb.v, sb.n, &b);
	ck_assert_double_eq_tol(stats_welch_halfwidth(&a, &b, 0.95),
				22045.44134, 1e-5);
	/* One cell a side has no interval; constant sides have none wide. */
	stats_describe(sleep1, 1, &a);
	ck_assert(isnan(stats_welch_halfwidth(&a, &b, 0.95)));
	stats_describe((const double[]){ 5, 5, 5 }, 3, &a);
	stats_describe((const double[]){ 7, 7, 7 }, 3, &b);
	ck_assert_double_eq(stats_welch_halfwidth(&a, &b, 0.95), 0);
}
END_TEST

START_TEST(test_welch_degenerate)
{
	const double one[] = { 1 }, zeros[] = { 0, 0, 0 },
		     fives[] = { 5, 5, 5 };
	struct stats_test t;

	stats_welch(one, 1, sleep1, ARRAY_N(sleep1), &t);
	ck_assert(!t.valid);
	ck_assert_ptr_nonnull(t.why);
	stats_welch(zeros, 3, zeros, 3, &t);
	ck_assert(t.valid);
	ck_assert_double_eq(t.p, 1);
	stats_welch(zeros, 3, fives, 3, &t);
	ck_assert(t.valid);
	ck_assert_double_eq(t.p, 0);
	ck_assert(isinf(t.stat) && t.stat > 0);
}
END_TEST

START_TEST(test_describe_sleep)
{
	struct stats_desc d;

	/* R's ?t.test output above: mean in group 1 0.75, group 2 2.33. */
	ck_assert_int_eq(stats_describe(sleep1, ARRAY_N(sleep1), &d), 0);
	ck_assert_uint_eq(d.n, 10);
	ck_assert_double_eq_tol(d.amean, 0.75, 1e-12);
	ck_assert_double_eq_tol(d.min, -1.6, 1e-12);
	ck_assert_double_eq_tol(d.max, 3.7, 1e-12);
	/* A negative value: no harmonic or geometric mean. */
	ck_assert(isnan(d.hmean) && isnan(d.gmean));
	ck_assert_int_eq(stats_describe(sleep2, ARRAY_N(sleep2), &d), 0);
	ck_assert_double_eq_tol(d.amean, 2.33, 1e-12);
	ck_assert_double_eq_tol(d.coeffvar, 100 * d.stddev / 2.33, 1e-9);
	ck_assert_int_eq(stats_describe(sleep2, 0, &d), -1);
}
END_TEST

START_TEST(test_means_scipy)
{
	const double two[] = { 1, 4 }, seven[] = { 1, 2, 3, 4, 5, 6, 7 };
	struct stats_desc d;

	/*
	 * SciPy docs, scipy.stats.hmean: hmean([1, 4]) -> 1.6,
	 * hmean([1, 2, 3, 4, 5, 6, 7]) -> 2.6997245179063363;
	 * scipy.stats.gmean: gmean([1, 4]) -> 2.0,
	 * gmean([1, 2, 3, 4, 5, 6, 7]) -> 3.3800151591412964.
	 */
	stats_describe(two, 2, &d);
	ck_assert_double_eq_tol(d.hmean, 1.6, 1e-12);
	ck_assert_double_eq_tol(d.gmean, 2.0, 1e-12);
	stats_describe(seven, 7, &d);
	ck_assert_double_eq_tol(d.hmean, 2.6997245179063363, 1e-12);
	ck_assert_double_eq_tol(d.gmean, 3.3800151591412964, 1e-12);
	ck_assert_double_eq_tol(d.median, 4, 1e-12);
}
END_TEST

START_TEST(test_quantile_numpy)
{
	/*
	 * NumPy docs, numpy.percentile: a = [[10, 7, 4], [3, 2, 1]];
	 * np.percentile(a, 50) -> 3.5; axis=0 -> [6.5, 4.5, 2.5];
	 * axis=1 -> [7., 2.] (linear interpolation, R's type 7).
	 */
	const double a[] = { 10, 7, 4, 3, 2, 1 }, c0[] = { 10, 3 };
	const double r0[] = { 10, 7, 4 }, r1[] = { 3, 2, 1 };
	struct stats_desc d;

	ck_assert_double_eq_tol(stats_quantile(a, 6, 0.5), 3.5, 1e-12);
	ck_assert_double_eq_tol(stats_quantile(c0, 2, 0.5), 6.5, 1e-12);
	ck_assert_double_eq_tol(stats_quantile(r0, 3, 0.5), 7, 1e-12);
	ck_assert_double_eq_tol(stats_quantile(r1, 3, 0.5), 2, 1e-12);
	stats_describe(a, 6, &d);
	ck_assert_double_eq_tol(d.median, 3.5, 1e-12);
	/* Input order is untouched. */
	ck_assert_double_eq(a[0], 10);
	ck_assert(isnan(stats_quantile(a, 0, 0.5)));
}
END_TEST

START_TEST(test_fisher_references)
{
	/*
	 * R docs, ?fisher.test, "Convictions": matrix(c(2, 10, 15, 3), 2):
	 * dizygotic 2 convicted of 17, monozygotic 10 of 13;
	 * fisher.test(Convictions) -> p-value = 0.0005367.
	 */
	ck_assert_double_eq_tol(stats_fisher_2x2(2, 17, 10, 13), 0.0005367,
				5e-8);
	/*
	 * SciPy docs, scipy.stats.fisher_exact: [[6, 2], [1, 4]] ->
	 * pvalue 0.10256410256410257 (SciPy >= 1.9 example); older docs:
	 * [[8, 2], [1, 5]] -> 0.0349650349650.
	 */
	ck_assert_double_eq_tol(stats_fisher_2x2(6, 8, 1, 5),
				0.10256410256410257, 1e-12);
	ck_assert_double_eq_tol(stats_fisher_2x2(8, 10, 1, 6), 0.0349650349650,
				1e-12);
	/*
	 * R docs, ?fisher.test, "TeaTasting" matrix(c(3, 1, 1, 3), 2): the
	 * docs give the one-sided p 0.2429; two-sided it is 34/70 (the
	 * tables with P <= P(observed): 1 + 16 + 16 + 1 of C(8,4) = 70).
	 */
	ck_assert_double_eq_tol(stats_fisher_2x2(3, 4, 1, 4), 34.0 / 70, 1e-12);
	/* Symmetric in the sides; identical rates give 1. */
	ck_assert_double_eq_tol(stats_fisher_2x2(10, 13, 2, 17), 0.0005367,
				5e-8);
	ck_assert_double_eq_tol(stats_fisher_2x2(0, 5, 0, 5), 1, 1e-12);
	ck_assert(isnan(stats_fisher_2x2(6, 5, 0, 5)));
	ck_assert(isnan(stats_fisher_2x2(0, 0, 0, 5)));
}
END_TEST

START_TEST(test_power_t_r)
{
	/*
	 * R docs, ?power.t.test: power.t.test(n = 20, delta = 1) ->
	 * power = 0.8689528 (two-sample, sd 1, sig.level 0.05, two-sided).
	 */
	ck_assert_double_eq_tol(stats_power_t(1, 1, 20, 1, 20, 0.05), 0.8689528,
				5e-7);
	/* The inverse: the effect seen with that power is delta = 1. */
	ck_assert_double_eq_tol(stats_mde_t(1, 20, 1, 20, 0.05, 0.8689528), 1,
				1e-5);
	/* No difference: power is alpha. */
	ck_assert_double_eq_tol(stats_power_t(0, 1, 20, 1, 20, 0.05), 0.05,
				1e-6);
	/* Scale: doubling sd doubles the smallest detectable effect. */
	ck_assert_double_eq_tol(stats_mde_t(2, 5, 2, 5, 0.05, 0.8),
				2 * stats_mde_t(1, 5, 1, 5, 0.05, 0.8), 1e-6);
	ck_assert_double_eq(stats_mde_t(0, 5, 0, 5, 0.05, 0.8), 0);
	ck_assert(isnan(stats_mde_t(1, 1, 1, 5, 0.05, 0.8)));
}
END_TEST

START_TEST(test_bands)
{
	/* mmtests: mean +- 1.96 sd bands apart. */
	ck_assert(stats_bands_apart(10, 1, 14, 1, STATS_BAND_Z));
	ck_assert(!stats_bands_apart(10, 1, 13.9, 1, STATS_BAND_Z));
	ck_assert(!stats_bands_apart(10, 1, 10, 1, STATS_BAND_Z));
	ck_assert(stats_bands_apart(0, 0, 1, 0, STATS_BAND_Z));
}
END_TEST

START_TEST(test_fisher_power)
{
	double pb;

	/*
	 * 5 runs a side, side a never fails: Fisher's two-sided p is below
	 * 0.05 exactly when b fails 4 or 5 times (0:5 vs 4:5 gives 10/210
	 * = 0.0476, vs 3:5 0.167), so the power is P(Y >= 4) = 5 p^4 (1 - p)
	 * + p^5, which reaches 0.8 at p = 0.831391 (bisection of that
	 * polynomial, not of the code under test).
	 */
	ck_assert_double_eq_tol(stats_fisher_2x2(0, 5, 4, 5), 10.0 / 210,
				1e-12);
	pb = 0.6;
	ck_assert_double_eq_tol(stats_power_fisher(0, 5, pb, 5, 0.05),
				5 * pow(pb, 4) * (1 - pb) + pow(pb, 5), 1e-12);
	ck_assert_double_eq_tol(stats_mde_fisher(0, 5, 5, 0.05, 0.8), 0.831391,
				2e-4);
	/* 2 runs a side can never reach p < 0.05 (0:2 vs 2:2 is 1/3). */
	ck_assert(isnan(stats_mde_fisher(0, 2, 2, 0.05, 0.8)));
}
END_TEST

/*
 * tests/ref/stats_ref.py, "stats_perm_test": SciPy's exact permutation
 * test (every split) of |mean(b) - mean(a)|. Exact p-values are ratios of
 * counts: tolerance 1e-12.
 */
START_TEST(test_perm_real)
{
	static const struct {
		const char *a, *b, *path;
		size_t na, nb;
		double p;
	} ref[] = {
		/* 0 in every 6.1 cell, 32-1322 in the revert's: 2 of 252. */
		{ AB_A, AB_B, DIRECT, 5, 5, 0.0079365079365079361 },
		{ AB_A, AB_B, FIO_BW, 5, 5, 0.94444444444444442 },
		/* 6 against 5: rep 3 of the second run did not boot. */
		{ AA_A, AA_B, FIO_BW, 6, 5, 0.43506493506493504 },
		{ AA_A, AA_B, PSI_MEM, 6, 5, 0.14502164502164502 },
	};
	struct sample a, b;
	struct stats_test t;

	for (size_t i = 0; i < ARRAY_N(ref); i++) {
		load(&a, ref[i].a, ref[i].path);
		load(&b, ref[i].b, ref[i].path);
		ck_assert_uint_eq(a.n, ref[i].na);
		ck_assert_uint_eq(b.n, ref[i].nb);
		stats_perm_test(a.v, a.n, b.v, b.n, &t);
		ck_assert(t.valid && t.exact);
		ck_assert_double_eq_tol(t.p, ref[i].p, 1e-12);
		ck_assert_uint_eq(t.na, ref[i].na);
		/* Side order does not change a two-sided p. */
		stats_perm_test(b.v, b.n, a.v, a.n, &t);
		ck_assert_double_eq_tol(t.p, ref[i].p, 1e-12);
	}
	/* The known answer: mean 650.2 pages up, the most extreme split. */
	load(&a, AB_A, DIRECT);
	load(&b, AB_B, DIRECT);
	stats_perm_test(a.v, a.n, b.v, b.n, &t);
	ck_assert_double_eq_tol(t.diff, 650.2, 1e-9);
	ck_assert_double_eq_tol(t.p_min, 2.0 / 252, 1e-12);
	ck_assert_double_eq_tol(t.p, t.p_min, 1e-12);
	ck_assert_uint_eq(t.splits, 252);
}
END_TEST

START_TEST(test_perm_ties_and_edges)
{
	/* tests/ref/stats_ref.py "ties p": tied values across the sides. */
	const double ta[] = { 1, 2, 2, 3 }, tb[] = { 2, 3, 3, 4, 5 };
	const double three[] = { 1, 2, 3 }, six[] = { 4, 5, 6 };
	const double same[] = { 7, 7, 7 }, nan3[] = { NAN, 4, NAN };
	struct stats_test t;

	stats_perm_test(ta, 4, tb, 5, &t);
	ck_assert_double_eq_tol(t.p, 0.10317460317460317, 1e-12);
	ck_assert_uint_eq(t.splits, 126);
	/* n = 3 a side: the most extreme split has p 2/20, never < 0.05. */
	stats_perm_test(three, 3, six, 3, &t);
	ck_assert_double_eq_tol(t.p, 0.1, 1e-12);
	ck_assert_double_eq_tol(t.p_min, 0.1, 1e-12);
	/* All values equal, identical sides: every split ties, p = 1. */
	stats_perm_test(same, 3, same, 3, &t);
	ck_assert(t.valid);
	ck_assert_double_eq(t.p, 1);
	ck_assert_double_eq(t.diff, 0);
	stats_perm_test(three, 3, three, 3, &t);
	ck_assert_double_eq_tol(t.p, 1, 1e-12);
	/*
	 * NaN left out: {4} against {1, 2, 3}, C(4, 1) = 4 splits; b = {4}
	 * (4 - 2) and b = {1} (|1 - 3|) are as extreme: p = 2/4.
	 */
	stats_perm_test(three, 3, nan3, 3, &t);
	ck_assert(t.valid);
	ck_assert_uint_eq(t.nb, 1);
	ck_assert_uint_eq(t.splits, 4);
	ck_assert_double_eq_tol(t.p, 0.5, 1e-12);
	/* n = 1 a side: 2 splits, both as extreme. */
	stats_perm_test(three, 1, six, 1, &t);
	ck_assert(t.valid);
	ck_assert_double_eq_tol(t.p, 1, 1e-12);
	/* Nothing on a side (or only NaN): no test. */
	stats_perm_test(three, 0, six, 3, &t);
	ck_assert(!t.valid && t.why);
	ck_assert(isnan(t.p));
	stats_perm_test(three, 3, nan3, 1, &t);
	ck_assert(!t.valid);
}
END_TEST

START_TEST(test_perm_monte_carlo)
{
	/*
	 * 11 against 12 is above STATS_PERM_EXACT: STATS_PERM_RESAMPLES
	 * random splits. tests/ref/stats_ref.py "monte carlo 11 v 12 exact
	 * p" (SciPy over all 1352078 splits) = 0.019426394039397134; the
	 * resampled p is within 4 standard errors, sqrt(p (1 - p) / R).
	 */
	const double a[] = { 31, 45, 28, 52, 39, 61, 33, 47, 40, 36, 58 };
	const double b[] = { 44, 63, 49, 71, 38, 55, 69, 52, 47, 60, 66, 41 };
	const double exact = 0.019426394039397134;
	double se = sqrt(exact * (1 - exact) / STATS_PERM_RESAMPLES);
	struct stats_test t, again;

	stats_perm_test(a, ARRAY_N(a), b, ARRAY_N(b), &t);
	ck_assert(t.valid && !t.exact);
	ck_assert_uint_eq(t.splits, STATS_PERM_RESAMPLES);
	ck_assert_double_eq_tol(t.p, exact, 4 * se);
	ck_assert_double_eq_tol(t.p_min, 1.0 / (STATS_PERM_RESAMPLES + 1),
				1e-15);
	/* A fixed seed: the same values give the same p. */
	stats_perm_test(a, ARRAY_N(a), b, ARRAY_N(b), &again);
	ck_assert_double_eq(t.p, again.p);
}
END_TEST

/*
 * tests/ref/stats_ref.py, "stats_welch_log1p": SciPy's Welch test on
 * log1p values (t, p, df), the ratio of geometric means of 1 + x and the
 * difference of means. GSL's t distribution and SciPy's agree far below
 * the tolerance: 1e-9 absolute on t, p and df, 1e-9 relative on ratio.
 */
START_TEST(test_welch_log1p_real)
{
	static const struct {
		const char *a, *b, *path;
		double t, p, ratio, diff, df;
	} ref[] = {
		{ AB_A, AB_B, DIRECT, 9.1372312166400658,
		  0.00079613375910859258, 389.39116313032844, 650.2, 4 },
		{ AB_A, AB_B, FIO_BW, -0.14024874466022402, 0.89197149904270201,
		  0.96215299378222918, -221.2, 7.9041055093511572 },
		{ AA_A, AA_B, FIO_BW, -1.0636700948567692, 0.32036466785596696,
		  0.82215916061430405, -6210, 7.5371584612513427 },
		{ AA_A, AA_B, PSI_MEM, 1.8101998385740556, 0.10762831784229107,
		  1.3492272957155576, 468926.3666666667, 8.0494246176947435 },
	};
	struct sample a, b;
	struct stats_test t;

	for (size_t i = 0; i < ARRAY_N(ref); i++) {
		load(&a, ref[i].a, ref[i].path);
		load(&b, ref[i].b, ref[i].path);
		stats_welch_log1p(a.v, a.n, b.v, b.n, &t);
		ck_assert(t.valid);
		ck_assert_double_eq_tol(t.stat, ref[i].t, 1e-9);
		ck_assert_double_eq_tol(t.p, ref[i].p, 1e-9);
		ck_assert_double_eq_tol(t.df, ref[i].df, 1e-9);
		ck_assert_double_eq_tol(t.ratio / ref[i].ratio, 1, 1e-9);
		ck_assert_double_eq_tol(t.diff, ref[i].diff, 1e-6);
	}
}
END_TEST

START_TEST(test_welch_log1p_edges)
{
	const double zeros[] = { 0, 0, 0 }, ones[] = { 1, 1, 1 };
	const double neg[] = { 3, -1, 2 }, nan4[] = { 0, NAN, 0, 0 };
	struct stats_test t;

	/* Identical all-zero sides (a counter that never moved): p = 1. */
	stats_welch_log1p(zeros, 3, zeros, 3, &t);
	ck_assert(t.valid);
	ck_assert_double_eq(t.p, 1);
	ck_assert_double_eq(t.ratio, 1);
	ck_assert_double_eq(t.diff, 0);
	/* SD 0 on both sides but apart: certain; ratio (1 + 1) / (1 + 0). */
	stats_welch_log1p(zeros, 3, ones, 3, &t);
	ck_assert_double_eq(t.p, 0);
	ck_assert_double_eq_tol(t.ratio, 2, 1e-12);
	ck_assert_double_eq_tol(t.diff, 1, 1e-12);
	/* NaN left out; -1 has no logarithm of 1 + x; n = 1 is too few. */
	stats_welch_log1p(nan4, 4, zeros, 3, &t);
	ck_assert(t.valid);
	ck_assert_uint_eq(t.na, 3);
	stats_welch_log1p(neg, 3, zeros, 3, &t);
	ck_assert(!t.valid && t.why);
	stats_welch_log1p(ones, 1, zeros, 3, &t);
	ck_assert(!t.valid && isnan(t.p));
}
END_TEST

START_TEST(test_fisher_greater_scipy)
{
	/*
	 * tests/ref/stats_ref.py, "stats_fisher_greater": SciPy's
	 * fisher_exact(..., alternative='greater') with b's row first. Sums
	 * of a few hypergeometric terms: tolerance 1e-12.
	 */
	static const struct {
		unsigned af, an, bf, bn;
		double p;
	} ref[] = {
		{ 0, 5, 2, 5, 0.22222222222222224 },
		/* The outcome table's 0:5 against 5:5: 1/252. */
		{ 0, 5, 5, 5, 0.0039682539682539689 },
		{ 1, 9, 2, 9, 0.5 },
		{ 0, 9, 2, 9, 0.23529411764705885 },
		{ 2, 10, 0, 10, 1 },
		{ 3, 4, 1, 4, 0.98571428571428577 },
		{ 0, 20, 3, 20, 0.1153846153846154 },
	};

	for (size_t i = 0; i < ARRAY_N(ref); i++)
		ck_assert_double_eq_tol(
			stats_fisher_greater(ref[i].af, ref[i].an, ref[i].bf,
					     ref[i].bn),
			ref[i].p, 1e-12);
	/*
	 * R docs, ?fisher.test, TeaTasting matrix(c(3, 1, 1, 3), 2) with
	 * alternative = "greater": p-value = 0.2429 (17/70).
	 */
	ck_assert_double_eq_tol(stats_fisher_greater(1, 4, 3, 4), 17.0 / 70,
				1e-12);
	/* Nothing seen on either side: no evidence, p = 1. */
	ck_assert_double_eq_tol(stats_fisher_greater(0, 5, 0, 5), 1, 1e-12);
	ck_assert(isnan(stats_fisher_greater(0, 5, 6, 5)));
	ck_assert(isnan(stats_fisher_greater(0, 5, 0, 0)));
}
END_TEST

/*
 * tests/ref/stats_ref.R, "stats_tost": R's t.test(b, a, mu = -margin,
 * "greater") and t.test(b, a, mu = margin, "less"); p is the larger of
 * the two, stat its t. Tolerance 1e-9 on p and t.
 */
START_TEST(test_tost_r)
{
	static const struct {
		const char *a, *b, *path;
		double margin, pct, p, t;
	} ref[] = {
		{ AB_A, AB_B, FIO_BW, NAN, 10, 0.39299038832456085,
		  0.28102640012483376 },
		{ AB_A, AB_B, FIO_BW, 5000, NAN, 0.11235464656881237,
		  1.3182646807983924 },
		{ AA_A, AA_B, FIO_BW, NAN, 10, 0.72018210956971462,
		  -0.61669491476710647 },
		{ AA_A, AA_B, FIO_BW, NAN, 30, 0.35894335534164812,
		  0.37841419122601905 },
		{ AA_A, AA_B, PSI_MEM, NAN, 10, 0.85146065240225144,
		  1.1069544266394176 },
		{ AA_A, AA_B, PSI_MEM, NAN, 50, 0.1600836259053903,
		  -1.0522572268469574 },
	};
	static const struct {
		double margin, p, t;
	} sleep_ref[] = {
		{ 2, 0.31345362597515725, -0.49464661793954312 },
		{ 3, 0.055978914532244482, -1.6723766606527413 },
		{ 4, 0.0053616241031591181, -2.8501067033659391 },
	};
	struct sample a, b;
	struct stats_test t;

	for (size_t i = 0; i < ARRAY_N(ref); i++) {
		load(&a, ref[i].a, ref[i].path);
		load(&b, ref[i].b, ref[i].path);
		if (isnan(ref[i].pct))
			stats_tost(a.v, a.n, b.v, b.n, ref[i].margin, &t);
		else
			stats_tost_rel(a.v, a.n, b.v, b.n, ref[i].pct, &t);
		ck_assert(t.valid);
		ck_assert_double_eq_tol(t.p, ref[i].p, 1e-9);
		ck_assert_double_eq_tol(t.stat, ref[i].t, 1e-9);
	}
	for (size_t i = 0; i < ARRAY_N(sleep_ref); i++) {
		stats_tost(sleep1, ARRAY_N(sleep1), sleep2, ARRAY_N(sleep2),
			   sleep_ref[i].margin, &t);
		ck_assert_double_eq_tol(t.p, sleep_ref[i].p, 1e-9);
		ck_assert_double_eq_tol(t.stat, sleep_ref[i].t, 1e-9);
		ck_assert_double_eq_tol(t.diff, 1.58, 1e-12);
	}
}
END_TEST

START_TEST(test_tost_edges)
{
	const double zeros[] = { 0, 0, 0 }, fives[] = { 5, 5, 5 };
	const double ones[] = { 1, 1, 1 }, nan4[] = { 1, NAN, 1, 1 };
	struct stats_test t;

	/* SD 0 both sides: inside the margin is certain, outside never. */
	stats_tost(zeros, 3, zeros, 3, 1, &t);
	ck_assert(t.valid);
	ck_assert_double_eq(t.p, 0);
	stats_tost(zeros, 3, fives, 3, 1, &t);
	ck_assert_double_eq(t.p, 1);
	stats_tost(ones, 3, nan4, 4, 0.5, &t);
	ck_assert_double_eq(t.p, 0);
	ck_assert_uint_eq(t.nb, 3);
	/* Identical sides with noise: within a wide margin, not a narrow one. */
	stats_tost(sleep1, ARRAY_N(sleep1), sleep1, ARRAY_N(sleep1), 3, &t);
	ck_assert(t.p < 0.01);
	stats_tost(sleep1, ARRAY_N(sleep1), sleep1, ARRAY_N(sleep1), 0.1, &t);
	ck_assert(t.p > 0.4);
	/* No margin, a base mean of 0 for a relative one, n = 1. */
	stats_tost(ones, 3, ones, 3, 0, &t);
	ck_assert(!t.valid && t.why);
	stats_tost_rel(zeros, 3, ones, 3, 10, &t);
	ck_assert(!t.valid && t.why);
	stats_tost(ones, 1, ones, 3, 1, &t);
	ck_assert(!t.valid && isnan(t.p));
}
END_TEST

/*
 * tests/ref/stats_ref.R, "stats_mde_abs": R's power.t.test(n, sd =
 * pooled, power = 0.8, strict = TRUE)$delta (equal n) or uniroot of the
 * noncentral t power (unequal n). Two numerical integrations and a root
 * apart: tolerance 1e-6 relative.
 */
/*
 * Spearman's rho on the captured A/B run (tests/ref/stats_ref.py,
 * "stats_spearman": scipy.stats.spearmanr): reclaim-wr-direct against
 * fio-write in the revert's cells, and over both kernels' cells, where
 * 6.1's reclaim-wr-direct is 0 in every cell (ties at their average
 * rank). Then the edges: a constant side and n < 2 have no rho.
 */
START_TEST(test_spearman_scipy)
{
	struct sample a, b, x, y;
	double all_x[32], all_y[32];
	const double c[] = { 1, 1, 1 }, d[] = { 1, 2, 3 };

	load(&x, AB_B, DIRECT);
	load(&y, AB_B, FIO_BW);
	ck_assert_uint_eq(x.n, y.n);
	ck_assert_double_eq_tol(stats_spearman(x.v, y.v, x.n), 0.3, 1e-12);
	load(&a, AB_A, DIRECT);
	load(&b, AB_A, FIO_BW);
	memcpy(all_x, a.v, a.n * sizeof(double));
	memcpy(all_x + a.n, x.v, x.n * sizeof(double));
	memcpy(all_y, b.v, b.n * sizeof(double));
	memcpy(all_y + b.n, y.v, y.n * sizeof(double));
	ck_assert_double_eq_tol(stats_spearman(all_x, all_y, a.n + x.n),
				0.032325409191761793, 1e-12);
	ck_assert(isnan(stats_spearman(c, d, 3)));
	ck_assert(isnan(stats_spearman(d, d, 1)));
	ck_assert_double_eq_tol(stats_spearman(d, d, 3), 1, 1e-15);
}
END_TEST

START_TEST(test_mde_abs_r)
{
	static const struct {
		const char *a, *b, *path;
		double mde;
	} ref[] = {
		/* A count 0 in every base cell: "smallest change 720 pages". */
		{ AB_A, AB_B, DIRECT, 720.42199063442774 },
		{ AB_A, AB_B, FIO_BW, 11603.553550191345 },
		{ AA_A, AA_B, FIO_BW, 19066.176270463529 },
	};
	struct sample a, b;
	struct stats_desc da, db;

	for (size_t i = 0; i < ARRAY_N(ref); i++) {
		double mde;

		load(&a, ref[i].a, ref[i].path);
		load(&b, ref[i].b, ref[i].path);
		stats_describe(a.v, a.n, &da);
		stats_describe(b.v, b.n, &db);
		mde = stats_mde_abs(da.stddev, a.n, db.stddev, b.n, 0.05, 0.8);
		ck_assert_double_eq_tol(mde / ref[i].mde, 1, 1e-6);
	}
	ck_assert_double_eq_tol(stats_mde_abs(1, 3, 1, 9, 0.05, 0.8) /
					2.0733120677165302,
				1, 1e-6);
	/* The pooled sd of equal sides is theirs: power.t.test's delta. */
	ck_assert_double_eq_tol(stats_mde_abs(2, 5, 2, 5, 0.05, 0.8),
				2 * stats_mde_abs(1, 5, 1, 5, 0.05, 0.8), 1e-6);
	/* No spread anywhere: any change shows; n = 1: no answer. */
	ck_assert_double_eq(stats_mde_abs(0, 5, 0, 5, 0.05, 0.8), 0);
	ck_assert(isnan(stats_mde_abs(1, 1, 1, 5, 0.05, 0.8)));
	ck_assert(isnan(stats_mde_abs(1, 5, 1, 5, 0.05, 0.01)));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("stats");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_welch_r_sleep);
	tcase_add_test(tc, test_welch_degenerate);
	tcase_add_test(tc, test_describe_sleep);
	tcase_add_test(tc, test_means_scipy);
	tcase_add_test(tc, test_quantile_numpy);
	tcase_add_test(tc, test_fisher_references);
	tcase_add_test(tc, test_power_t_r);
	tcase_add_test(tc, test_bands);
	tcase_add_test(tc, test_fisher_power);
	tcase_add_test(tc, test_perm_real);
	tcase_add_test(tc, test_perm_ties_and_edges);
	tcase_add_test(tc, test_perm_monte_carlo);
	tcase_add_test(tc, test_welch_log1p_real);
	tcase_add_test(tc, test_welch_log1p_edges);
	tcase_add_test(tc, test_fisher_greater_scipy);
	tcase_add_test(tc, test_tost_r);
	tcase_add_test(tc, test_tost_edges);
	tcase_add_test(tc, test_mde_abs_r);
	tcase_add_test(tc, test_spearman_scipy);
	tcase_add_test(tc, test_welch_halfwidth);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
