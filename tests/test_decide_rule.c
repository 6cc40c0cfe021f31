// SPDX-License-Identifier: GPL-2.0
/*
 * One rule for every decider (issue 41 items 5 and 8): the row's absolute
 * floor in the report's Verdict as in the jobs, and what the report
 * prints is what it tested. On real cells: tests/data/report/fsync.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/procedure.h"
#include "report/report.h"
#include "results/metric.h"
#include "util/log.h"

#include "testdata.h"

#define AB "report/fsync/ab"
#define GRP "ext4-disk/dirty-flood/512"

/* The first n cells of each kernel form its side; the rest none (""). */
static void sides_of_n(struct report *r, size_t n)
{
	size_t seen[2] = { 0, 0 };

	for (size_t i = 0; i < r->nr_cells; i++) {
		struct rpt_cell *c = r->cells[i];
		int k = strcmp(c->kernel, "6.1") != 0;

		free(c->side);
		c->side = xstrdup(seen[k]++ < n ? c->kernel : "");
	}
}

static void load(struct report *r, const char *run)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = testdata_path("%s", run);

	report_init(r, NULL);
	r->o.baseline = "6.1";
	ck_assert_msg(!report_load_run(r, dir, &err), "%s", err.buf);
	strbuf_release(&err);
	free(dir);
}

static const struct rpt_verdict *verdict_of(const struct rpt_group *g,
					    const char *row)
{
	for (size_t i = 0; i < g->nr_verdicts; i++)
		if (!strcmp(metric_rows[g->verdicts[i].metric].name, row))
			return &g->verdicts[i];
	ck_abort_msg("no verdict on %s", row);
	return NULL;
}

/*
 * The report's Verdict decides a row as the jobs do, with the row's
 * absolute floor (32 pages for reclaim-wr-direct). 3 real 6.1 cells (0
 * pages each) against 3 revert cells given 0, 3, 0 pages: log1p-welch p
 * 0.423, TOST of the means within 32 pages p 0.000519 < 0.05: `same`,
 * the count within one reclaim batch. Before (no floor in the report,
 * margin log 1.1 from 0): TOST p 0.745, `unknown` where the jobs said
 * `same` (tests/ref/floor_ref.py).
 */
START_TEST(report_verdict_has_the_floor)
{
	struct report r;
	struct strbuf err = STRBUF_INIT;
	const struct metric *m = metric_by_name("reclaim-wr-direct");
	const double three[] = { 0, 3, 0 };
	const struct rpt_verdict *v;
	size_t k = 0;

	load(&r, AB);
	sides_of_n(&r, 3);
	for (size_t i = 0; i < r.nr_cells; i++)
		if (!strcmp(r.cells[i]->side, "6.1-direct-writeback"))
			r.cells[i]->val[metric_index(m)] = three[k++];
	ck_assert_uint_eq(k, 3);
	ck_assert_int_eq(report_build(&r, &err), 0);
	v = verdict_of(&r.groups[0], "reclaim-wr-direct");
	ck_assert_double_eq(v->d.a, 0);
	/* the row's one mean, log1p-welch's: (1 * 4 * 1)^(1/3) - 1 */
	ck_assert_double_eq_tol(v->d.b, cbrt(4) - 1, 1e-12);
	ck_assert_double_eq(v->d.floor, 32);
	ck_assert_double_eq_tol(v->d.p, 0.42264973, 1e-6);
	ck_assert_double_eq_tol(v->d.p_same, 0.0005194807, 1e-10);
	ck_assert_int_eq(v->d.verdict, VERDICT_SAME);
	strbuf_release(&err);
	report_release(&r);
}
END_TEST

/*
 * Every tested row's q is its own (issue 41 item 8): never below its own
 * p, and the starred row of a family carries the family's q. On the 10 +
 * 10 real cells of report/fsync/ab, before: each row carried its family's
 * q, and a row whose p was 0.44 read the q of a sibling that moved.
 */
START_TEST(report_rows_have_their_own_q)
{
	struct report r;
	struct strbuf err = STRBUF_INIT;
	const struct rpt_group *g;
	size_t tested = 0, below = 0;

	load(&r, AB);
	ck_assert_int_eq(report_build(&r, &err), 0);
	g = &r.groups[0];
	for (size_t m = 0; m < metric_nr_rows; m++) {
		const struct rpt_cmp *c = &g->cmp[1][m];

		if (!c->tested) {
			ck_assert(isnan(c->q));
			continue;
		}
		tested++;
		below += c->q < c->t.p;
		if (c->star)
			ck_assert_double_lt(c->q, r.o.alpha);
	}
	ck_assert_uint_ge(tested, 10);
	ck_assert_uint_eq(below, 0);
	strbuf_release(&err);
	report_release(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decide_rule");
	TCase *tc = tcase_create("decide_rule");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, report_verdict_has_the_floor);
	tcase_add_test(tc, report_rows_have_their_own_q);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
