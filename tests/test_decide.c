// SPDX-License-Identifier: GPL-2.0
/*
 * jobs/decide: the same/different/unknown rule on hand-checked numbers
 * (R's t.test(1:3, 4:6) gives t = -3.6742, df = 4, p = 0.02131; Fisher's
 * test on 0:5 against 5:5 is 2/C(10,5) = 2/252) and on real cells
 * (tests/data/jobs, see its README).
 */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>

#include "jobs/decide.h"
#include "results/metric.h"
#include "results/reader.h"
#include "stats/stats.h"
#include "util/log.h"

#include "testdata.h"

static const struct decide_opts opts = DECIDE_OPTS_INIT;

START_TEST(welch_hand_checked)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	struct decision d;

	decide_metric(a, 3, b, 3, &opts, &d);
	ck_assert_int_eq(d.verdict, VERDICT_DIFFERENT);
	ck_assert_double_eq_tol(d.p, 0.02131, 5e-5);
	ck_assert_double_eq_tol(d.effect, 150, 1e-9);
	ck_assert_int_eq(d.na, 3);
	/*
	 * The normal approximation (t(0.975,4) + t(0.8,4)) * se = (2.7764 +
	 * 0.9410) * 0.8165 = 3.035, i.e. 152% of the baseline mean 2; the
	 * exact (noncentral t) figure is close, and has power 0.8 by definition.
	 */
	ck_assert_double_eq_tol(d.sde, 100 * 3.035 / 2, 15);
	ck_assert_double_eq_tol(
		stats_power_t(d.sde * 2 / 100, 1, 3, 1, 3, 0.05), 0.8, 1e-3);
}
END_TEST

START_TEST(same_needs_power)
{
	/* Tight and equal: a 10% change would have shown. */
	const double a[] = { 100, 101, 99, 100, 101, 99 };
	const double b[] = { 100.5, 99.5, 100, 101, 99, 100 };
	/* Loose and equal-ish: nothing can be ruled out. */
	const double c[] = { 50, 150, 100 }, e[] = { 60, 140, 110 };
	struct decision d;

	decide_metric(a, 6, b, 6, &opts, &d);
	ck_assert_int_eq(d.verdict, VERDICT_SAME);
	ck_assert(d.sde < 10 && d.p > 0.05);
	decide_metric(c, 3, e, 3, &opts, &d);
	ck_assert_int_eq(d.verdict, VERDICT_UNKNOWN);
	ck_assert(d.sde > 10 && d.p > 0.05);
}
END_TEST

START_TEST(degenerate_and_small)
{
	const double z[] = { 0, 0, 0 }, five[] = { 5, 5, 5 };
	const double nan3[] = { 1, NAN, 2 };
	struct decision d;

	decide_metric(z, 3, z, 3, &opts, &d);
	ck_assert_int_eq(d.verdict, VERDICT_SAME);
	ck_assert_double_eq(d.effect, 0);
	decide_metric(z, 3, five, 3, &opts, &d);
	ck_assert_int_eq(d.verdict, VERDICT_DIFFERENT);
	/* From nothing: +100% of the new side. */
	ck_assert_double_eq(d.effect, 100);
	/* A NaN (metric absent in a cell) leaves n=2: too few. */
	decide_metric(nan3, 3, five, 3, &opts, &d);
	ck_assert_int_eq(d.na, 2);
	ck_assert_int_eq(d.verdict, VERDICT_UNKNOWN);
}
END_TEST

START_TEST(fisher_hand_checked)
{
	struct decision d;
	struct decide_opts o = opts;

	/*
	 * 5 a side, A at 0:5: B at 4:5 (p = 10/210) and 5:5 (p = 2/252)
	 * reject, 3:5 (p = 0.167) does not. Power at rate r is P(y >= 4) =
	 * 5 r^4 - 4 r^5: 0.91854 at 0.9; it reaches 0.8 at r = 0.8315.
	 */
	ck_assert_double_eq_tol(stats_fisher_2x2(0, 5, 5, 5), 2.0 / 252, 1e-12);
	ck_assert_double_eq_tol(stats_fisher_2x2(0, 5, 4, 5), 10.0 / 210,
				1e-12);
	ck_assert_double_eq_tol(stats_power_fisher(0, 5, 0.9, 5, 0.05),
				5 * pow(0.9, 4) - 4 * pow(0.9, 5), 1e-9);
	decide_rate(0, 5, 0, 5, &o, &d);
	ck_assert_double_eq_tol(d.sde, 83.15, 0.5);
	/* 3 runs a side can never reject at 0.05: nothing is detectable. */
	decide_rate(0, 3, 0, 3, &o, &d);
	ck_assert(isinf(d.sde));
	ck_assert_int_eq(d.verdict, VERDICT_UNKNOWN);
	decide_rate(0, 5, 5, 5, &o, &d);
	ck_assert_int_eq(d.verdict, VERDICT_DIFFERENT);
	ck_assert_double_eq(d.effect, 100);
	decide_rate(0, 3, 3, 3, &o, &d);
	ck_assert_int_eq(d.verdict, VERDICT_UNKNOWN);
	/* 0:20 vs 0:20 rules out a 50 pp change. */
	o.threshold = 50;
	decide_rate(0, 20, 0, 20, &o, &d);
	ck_assert_int_eq(d.verdict, VERDICT_SAME);
	ck_assert(d.sde <= 50);
}
END_TEST

static json_object *load(const char *name)
{
	char *p = testdata_path("jobs/%s", name);
	json_object *o = json_object_from_file(p);

	ck_assert_msg(o, "cannot read %s", p);
	free(p);
	return o;
}

START_TEST(real_cells)
{
	json_object *c1 = load("aa-debian-6.1/cell-1.json");
	json_object *c2 = load("aa-debian-6.1/cell-2.json");
	json_object *infra = json_object_get(c2);

	ck_assert(results_cell_counts(c1));
	ck_assert_double_eq(
		metric_value(c1, metric_by_name("reclaim-wr-direct")), 0);
	ck_assert_double_eq(metric_value(c1, metric_by_name("fio-write")),
			    11289.0 / 1024);
	ck_assert_int_eq(decide_cell_event(c1, "oom", NULL), 0);
	ck_assert_int_eq(decide_cell_event(c1, "ok", NULL), 1);
	/* An infra-error cell never enters. */
	json_object_put(c2);
	c2 = json_object_from_file("/dev/null");
	json_object_object_add(infra, "outcome",
			       json_object_new_string("infra-error"));
	ck_assert(!results_cell_counts(infra));
	ck_assert_int_eq(decide_cell_event(infra, "oom", NULL), -1);
	json_object_put(infra);
	json_object_put(c1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decide");
	TCase *tc = tcase_create("decide");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, welch_hand_checked);
	tcase_add_test(tc, same_needs_power);
	tcase_add_test(tc, degenerate_and_small);
	tcase_add_test(tc, fisher_hand_checked);
	tcase_add_test(tc, real_cells);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
