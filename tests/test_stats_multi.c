// SPDX-License-Identifier: GPL-2.0
/*
 * src/stats when many p-values are read at once: across rows and groups
 * (Holm, Benjamini-Hochberg, Simes: stats-multi.c) and across looks at
 * growing data (group-sequential boundaries: stats-seq.c). Expected
 * values from tests/ref/stats_ref.R (R's p.adjust, rpact), Jennison &
 * Turnbull's tables and simulation; each test names its source and its
 * tolerance.
 */
#include <check.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "stats/stats.h"

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(test_bh_paper)
{
	/*
	 * Benjamini & Hochberg (1995), J. R. Statist. Soc. B 57(1), the
	 * worked example: 15 p-values; at q* = 0.05 the procedure rejects the
	 * four smallest (Bonferroni only three). Adjusted values as R's
	 * p.adjust(p, "BH"): q(4) = 0.0095 * 15 / 4 = 0.035625, and q(5) is
	 * min over j >= 5 of p(j) * 15 / j = 0.0201 * 15 / 5 = 0.0603.
	 */
	const double p[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201,
			     0.0278, 0.0298, 0.0344, 0.0459, 0.3240,
			     0.4262, 0.5719, 0.6528, 0.7590, 1.0000 };
	double q[15];
	int rejected = 0;

	stats_bh(p, 15, q);
	for (int i = 0; i < 15; i++)
		rejected += q[i] < 0.05;
	ck_assert_int_eq(rejected, 4);
	ck_assert_double_eq_tol(q[3], 0.035625, 1e-12);
	ck_assert_double_eq_tol(q[4], 0.0603, 1e-12);
	ck_assert_double_eq_tol(q[14], 1, 1e-12);
	/* Order does not matter; NAN is left out of the count. */
	{
		const double p2[] = { 0.04, NAN, 0.01 };
		double q2[3];

		stats_bh(p2, 3, q2);
		ck_assert_double_eq_tol(q2[0], 0.04, 1e-12);
		ck_assert_double_eq_tol(q2[2], 0.02, 1e-12);
		ck_assert(isnan(q2[1]));
	}
}
END_TEST

/*
 * tests/ref/stats_ref.R, "stats_holm, stats_bh": R's p.adjust(p, "holm")
 * and p.adjust(p, "BH"), Simes by hand (min(sort(p) * m / (1:m))).
 * Products and minima of the inputs: tolerance 1e-12.
 */
static void check_adjusted(const double *p, size_t n, const double *holm,
			   const double *bh, double simes)
{
	double q[16];

	ck_assert_uint_le(n, ARRAY_N(q));
	stats_holm(p, n, q);
	for (size_t i = 0; i < n; i++) {
		if (isnan(holm[i]))
			ck_assert(isnan(q[i]));
		else
			ck_assert_double_eq_tol(q[i], holm[i], 1e-12);
	}
	stats_bh(p, n, q);
	for (size_t i = 0; i < n; i++) {
		if (isnan(bh[i]))
			ck_assert(isnan(q[i]));
		else
			ck_assert_double_eq_tol(q[i], bh[i], 1e-12);
	}
	ck_assert_double_eq_tol(stats_simes(p, n), simes, 1e-12);
}

START_TEST(test_multi_r)
{
	/* Benjamini & Hochberg (1995)'s 15 p-values (test_bh_paper). */
	const double bh95[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201,
				0.0278, 0.0298, 0.0344, 0.0459, 0.3240,
				0.4262, 0.5719, 0.6528, 0.7590, 1.0000 };
	const double bh95_holm[] = { 0.0015, 0.0056, 0.0247, 0.114,  0.2211,
				     0.278,  0.278,  0.278,  0.3213, 1,
				     1,	     1,	     1,	     1,	     1 };
	const double bh95_bh[] = { 0.0015,
				   0.0030000000000000001,
				   0.0094999999999999998,
				   0.035624999999999997,
				   0.060299999999999999,
				   0.063857142857142862,
				   0.063857142857142862,
				   0.064500000000000002,
				   0.076500000000000012,
				   0.48599999999999999,
				   0.58118181818181813,
				   0.71487499999999993,
				   0.75323076923076926,
				   0.81321428571428567,
				   1 };
	const double ties[] = { 0.01, 0.04, 0.03, 0.005, 0.2, 0.04 };
	const double ties_holm[] = { 0.05, 0.12, 0.12, 0.03, 0.2, 0.12 };
	const double ties_bh[] = { 0.03, 0.048, 0.048, 0.03, 0.2, 0.048 };
	/* NA in R, NAN here: left out of the count. */
	const double na[] = { 0.5, NAN, 0.02, 0.9 };
	const double na_holm[] = { 1, NAN, 0.06, 1 };
	const double na_bh[] = { 0.75, NAN, 0.06, 0.9 };
	/* Three rows of one count (its log1p Welch p) and a fourth row. */
	const double pd = 0.00079613375910859258;
	const double same[] = { pd, pd, pd, 0.3 };
	const double same_holm[] = { 0.0031845350364343703,
				     0.0031845350364343703,
				     0.0031845350364343703, 0.3 };
	const double same_bh[] = { 0.0010615116788114567, 0.0010615116788114567,
				   0.0010615116788114567, 0.3 };

	check_adjusted(bh95, ARRAY_N(bh95), bh95_holm, bh95_bh, 0.0015);
	check_adjusted(ties, ARRAY_N(ties), ties_holm, ties_bh, 0.03);
	check_adjusted(na, ARRAY_N(na), na_holm, na_bh, 0.06);
	/* Simes: 4/3 p where Bonferroni within the family took 4 p. */
	check_adjusted(same, ARRAY_N(same), same_holm, same_bh,
		       0.0010615116788114567);
}
END_TEST

START_TEST(test_multi_edges)
{
	const double one[] = { 0.03 }, nans[] = { NAN, NAN },
		     big[] = { 0.9, 0.8 };
	double q[2];

	/* One test: nothing to adjust. */
	stats_holm(one, 1, q);
	ck_assert_double_eq(q[0], 0.03);
	ck_assert_double_eq(stats_simes(one, 1), 0.03);
	/* No test at all: NAN, never 0 or 1 by default. */
	ck_assert(isnan(stats_simes(nans, 2)));
	stats_holm(nans, 2, q);
	ck_assert(isnan(q[0]) && isnan(q[1]));
	ck_assert(isnan(stats_simes(nans, 0)));
	/* Capped at 1. */
	stats_holm(big, 2, q);
	ck_assert_double_eq(q[0], 1);
	ck_assert_double_eq_tol(stats_simes(big, 2), 0.9, 1e-15);
}
END_TEST

/*
 * tests/ref/stats_ref.R, "stats_gs_bounds": rpact 3.3.4's
 * getDesignGroupSequential(informationRates = t, alpha = 0.05, sided =
 * 2)$criticalValues. Two numerical integrations of the same recursion:
 * tolerance 1e-6 in z.
 */
static const double t_eq[][5] = {
	{ 0 },
	{ 0 },
	{ 0.5, 1 },
	{ 1 / 3.0, 2 / 3.0, 1 },
	{ 0.25, 0.5, 0.75, 1 },
	{ 0.2, 0.4, 0.6, 0.8, 1 },
};
/* validate's looks at n = 3, 5, 7, 9 a side. */
static const double t_3579[] = { 3 / 9.0, 5 / 9.0, 7 / 9.0, 1 };

START_TEST(test_gs_rpact)
{
	static const struct {
		enum stats_gs_design d;
		size_t k; /* 2-5 equally spaced, or 0 for t_3579 */
		double z[5];
	} ref[] = {
		{ STATS_GS_POCOCK,
		  2,
		  { 2.1782720888195413, 2.1782720888195413 } },
		{ STATS_GS_POCOCK,
		  3,
		  { 2.2894780610367804, 2.2894780610367804,
		    2.2894780610367804 } },
		{ STATS_GS_POCOCK,
		  5,
		  { 2.413176220184182, 2.413176220184182, 2.413176220184182,
		    2.413176220184182, 2.413176220184182 } },
		{ STATS_GS_POCOCK,
		  0,
		  { 2.3382607376718041, 2.3382607376718041, 2.3382607376718041,
		    2.3382607376718041 } },
		{ STATS_GS_OBF, 2, { 2.7965096812649128, 1.9774309592762502 } },
		{ STATS_GS_OBF,
		  3,
		  { 3.4710914423383086, 2.454432296996012,
		    2.0040355786158286 } },
		{ STATS_GS_OBF,
		  5,
		  { 4.5617422988814011, 3.2256389135645489, 2.6337231442328792,
		    2.2808711494407006, 2.0400731752269952 } },
		{ STATS_GS_OBF,
		  0,
		  { 3.5205925097405282, 2.7270392318015277, 2.3047688095686465,
		    2.032615033205674 } },
		{ STATS_GS_SPEND_POCOCK,
		  3,
		  { 2.2794282389170051, 2.2949111387133598,
		    2.2959383502602577 } },
		{ STATS_GS_SPEND_POCOCK,
		  4,
		  { 2.3683277035239052, 2.3675242885947227, 2.3581677451729774,
		    2.3500295355916023 } },
		{ STATS_GS_SPEND_POCOCK,
		  0,
		  { 2.2794282389170051, 2.3704757615923882, 2.3694616034626961,
		    2.3633782789111137 } },
		{ STATS_GS_SPEND_OBF,
		  2,
		  { 2.9625880427275479, 1.9685956463217735 } },
		{ STATS_GS_SPEND_OBF,
		  4,
		  { 4.3326336460495645, 2.9631315991282463, 2.3590442910790443,
		    2.0140901431441307 } },
		{ STATS_GS_SPEND_OBF,
		  5,
		  { 4.8768849487907602, 3.3570119217038155, 2.6802800670266151,
		    2.2898167744278908, 2.0310320481657982 } },
		{ STATS_GS_SPEND_OBF,
		  0,
		  { 3.7103028732625001, 2.7942021116614342, 2.3186493888497353,
		    2.0230179205536842 } },
	};

	for (size_t i = 0; i < ARRAY_N(ref); i++) {
		const double *t = ref[i].k ? t_eq[ref[i].k] : t_3579;
		size_t k = ref[i].k ? ref[i].k : 4;
		double z[5], p[5];

		ck_assert_int_eq(stats_gs_bounds(ref[i].d, t, k, 0.05, z, p),
				 0);
		for (size_t j = 0; j < k; j++) {
			ck_assert_double_eq_tol(z[j], ref[i].z[j], 1e-6);
			ck_assert_double_eq_tol(
				p[j], 2 * gsl_cdf_ugaussian_Q(ref[i].z[j]),
				1e-8);
		}
		ck_assert_double_eq_tol(stats_gs_crossing(t, z, k), 0.05, 1e-8);
	}
}
END_TEST

START_TEST(test_gs_tables)
{
	/*
	 * Jennison & Turnbull (2000), Group Sequential Methods with
	 * Applications to Clinical Trials, Table 2.1 (Pocock's C_P(K), two-
	 * sided alpha 0.05, K equally spaced looks) and Table 2.3 (O'Brien
	 * & Fleming's C_B(4) = 2.024, z_k = C_B sqrt(K / k)): printed to 3
	 * decimals, tolerance 5e-4.
	 */
	const double pocock[] = { 0, 0, 2.178, 2.289, 2.361, 2.413 };
	const double obf4[] = { 4.049, 2.863, 2.337, 2.024 };
	double z[5];

	for (size_t k = 2; k <= 5; k++) {
		stats_gs_bounds(STATS_GS_POCOCK, t_eq[k], k, 0.05, z, NULL);
		for (size_t j = 0; j < k; j++)
			ck_assert_double_eq_tol(z[j], pocock[k], 5e-4);
	}
	stats_gs_bounds(STATS_GS_OBF, t_eq[4], 4, 0.05, z, NULL);
	for (size_t j = 0; j < 4; j++)
		ck_assert_double_eq_tol(z[j], obf4[j], 5e-4);
}
END_TEST

/* Share of R Brownian paths (Z at looks t) crossing |Z_i| >= z[i]. */
static double gs_simulate(gsl_rng *r, const double *t, const double *z,
			  size_t k, unsigned long paths)
{
	unsigned long crossed = 0;

	for (unsigned long n = 0; n < paths; n++) {
		double s = 0, prev = 0;

		for (size_t i = 0; i < k; i++) {
			s += gsl_ran_gaussian(r, sqrt(t[i] - prev));
			prev = t[i];
			if (fabs(s / sqrt(t[i])) >= z[i]) {
				crossed++;
				break;
			}
		}
	}
	return (double)crossed / paths;
}

START_TEST(test_gs_monte_carlo)
{
	/*
	 * The overall type I error of each boundary at validate's looks is
	 * alpha within Monte Carlo error: 200000 simulated paths (a fixed
	 * seed), 4 standard errors (sqrt(0.05 * 0.95 / 200000) = 0.00049).
	 * The unadjusted 1.96 at every look is far above it, and
	 * stats_gs_crossing() gives its rate too.
	 */
	const unsigned long paths = 200000;
	const double se = sqrt(0.05 * 0.95 / paths);
	const double naive[] = { 1.959964, 1.959964, 1.959964, 1.959964 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	double z[4], sim, exact;

	gsl_rng_set(r, 27);
	for (int d = STATS_GS_POCOCK; d <= STATS_GS_SPEND_OBF; d++) {
		ck_assert_int_eq(stats_gs_bounds(d, t_3579, 4, 0.05, z, NULL),
				 0);
		sim = gs_simulate(r, t_3579, z, 4, paths);
		ck_assert_double_eq_tol(sim, 0.05, 4 * se);
	}
	exact = stats_gs_crossing(t_3579, naive, 4);
	sim = gs_simulate(r, t_3579, naive, 4, paths);
	ck_assert(exact > 0.1);
	ck_assert_double_eq_tol(sim, exact,
				4 * sqrt(exact * (1 - exact) / paths));
	gsl_rng_free(r);
}
END_TEST

START_TEST(test_gs_edges)
{
	const double t2[] = { 3 / 9.0, 5 / 9.0 }, bad[] = { 0.5, 0.5 };
	const double over[] = { 0.5, 1.5 }, one[] = { 1 };
	double z[4], zfull[4];

	/*
	 * Spending: stopping early (t < 1) leaves the first looks' bounds
	 * as they were, the rest of alpha unspent.
	 */
	stats_gs_bounds(STATS_GS_SPEND_OBF, t_3579, 4, 0.05, zfull, NULL);
	stats_gs_bounds(STATS_GS_SPEND_OBF, t2, 2, 0.05, z, NULL);
	ck_assert_double_eq_tol(z[0], zfull[0], 1e-9);
	ck_assert_double_eq_tol(z[1], zfull[1], 1e-9);
	ck_assert(stats_gs_crossing(t2, z, 2) < 0.05 / 5);
	/*
	 * A look so early that O'Brien-Fleming spending allows nothing
	 * (4 Q(2.2414 / 0.01) underflows): a bound no path crosses, and the
	 * whole alpha at the last look.
	 */
	{
		const double early[] = { 1e-4, 1 };

		ck_assert_int_eq(stats_gs_bounds(STATS_GS_SPEND_OBF, early, 2,
						 0.05, z, NULL),
				 0);
		ck_assert(z[0] >= 20);
		ck_assert_double_eq_tol(z[1], 1.959964, 1e-4);
	}
	/* One look: the plain two-sided test. */
	for (int d = STATS_GS_POCOCK; d <= STATS_GS_SPEND_OBF; d++) {
		ck_assert_int_eq(stats_gs_bounds(d, one, 1, 0.05, z, NULL), 0);
		ck_assert_double_eq_tol(z[0], 1.959964, 1e-6);
	}
	/* Looks that do not grow, past 1, no looks, a bad alpha. */
	ck_assert_int_eq(
		stats_gs_bounds(STATS_GS_POCOCK, bad, 2, 0.05, z, NULL), -1);
	ck_assert_int_eq(stats_gs_bounds(STATS_GS_SPEND_OBF, over, 2, 0.05, z,
					 NULL),
			 -1);
	ck_assert_int_eq(stats_gs_bounds(STATS_GS_OBF, one, 0, 0.05, z, NULL),
			 -1);
	ck_assert_int_eq(stats_gs_bounds(STATS_GS_OBF, one, 1, 1, z, NULL), -1);
	ck_assert(isnan(stats_gs_crossing(bad, zfull, 2)));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stats_multi");
	TCase *tc = tcase_create("stats_multi");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_bh_paper);
	tcase_add_test(tc, test_multi_r);
	tcase_add_test(tc, test_multi_edges);
	tcase_add_test(tc, test_gs_rpact);
	tcase_add_test(tc, test_gs_tables);
	tcase_add_test(tc, test_gs_monte_carlo);
	tcase_add_test(tc, test_gs_edges);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
