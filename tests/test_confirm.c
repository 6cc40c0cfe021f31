// SPDX-License-Identifier: GPL-2.0
/*
 * A night's candidates confirmed (jobs/confirm.h) on real cells: the
 * direct-writeback revert's cells of tests/data/report/fsync are a
 * candidate the re-run confirms; 6.1 against 6.1 (its two runs, the A/A
 * of that README) is a candidate the re-run rejects. Both are recorded
 * in wblab.db and shown by wblab history. The last good night is looked
 * up on the night's own host and accelerator.
 */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/confirm.h"
#include "jobs/history.h"
#include "jobs/pool.h"
#include "spec/matrix.h"
#include "testdata.h"
#include "util/log.h"

/* Detection as nightly does it: one look at alpha, Holm, no spending. */
static void detect(struct family *f, const struct pool *p, const char *ka,
		   const char *kb, const struct matrix_spec *m)
{
	struct dlooks l = DLOOKS_INIT;

	l.boundary = DBOUND_NONE;
	family_decide(f, p, ka, kb, m->thresholds, m->nr_thresholds, &l);
}

/* Confirmation as nightly does it: the looks of 3, 5, 7, 9 of max 8. */
static void reconfirm(struct family *f, const struct pool *p, const char *ka,
		      const char *kb, const struct matrix_spec *m)
{
	struct dlooks l = DLOOKS_INIT;

	dlooks_plan(&l, 3, 2, 8);
	family_decide(f, p, ka, kb, m->thresholds, m->nr_thresholds, &l);
}

/* The family's hypothesis of a metric row. */
static const struct dhyp *row(const struct family *f, const char *what)
{
	for (size_t i = 0; i < f->n; i++)
		if (!f->h[i].event && !strcmp(f->h[i].what, what))
			return &f->h[i];
	ck_abort_msg("no row %s", what);
	return NULL;
}

START_TEST(revert_confirmed)
{
	struct matrix_spec m;
	struct pool p = POOL_INIT;
	struct family det = { 0 }, conf = { 0 };
	size_t unknown;

	testdata_matrix(&m, "validate");
	testdata_pool(&p, NULL, "report/fsync/ab");
	detect(&det, &p, "6.1", "6.1-direct-writeback", &m);
	/* the candidate: 0 -> 294.9 pages, p 5.6e-09 (log1p-welch) */
	ck_assert_uint_eq(family_regressions(&det), 1);
	ck_assert(row(&det, "reclaim-wr-direct")->regression);
	reconfirm(&conf, &p, "6.1", "6.1-direct-writeback", &m);
	/* the look at 9 of max 8 spends 0.0431 of 0.05; Holm over 4 rows */
	ck_assert_double_eq_tol(dlooks_level(&(struct dlooks)DLOOKS_INIT, 9),
				0.0431, 5e-5);
	ck_assert(row(&conf, "reclaim-wr-direct")->regression);
	ck_assert_double_eq_tol(row(&conf, "reclaim-wr-direct")->d.b, 294.9,
				0.05);
	ck_assert_int_eq(confirm_decide(&det, &conf, &unknown),
			 CONFIRM_REGRESSION);
	ck_assert_uint_eq(unknown, 0);
	family_release(&det);
	family_release(&conf);
	pool_free(&p);
	matrix_spec_free(&m);
}
END_TEST

START_TEST(aa_rejected)
{
	struct matrix_spec m;
	struct pool p = POOL_INIT, q = POOL_INIT;
	struct family det = { 0 }, conf = { 0 };
	size_t unknown;

	testdata_matrix(&m, "validate");
	testdata_pool(&q, NULL, "report/fsync/ab");
	detect(&det, &q, "6.1", "6.1-direct-writeback", &m);
	testdata_pool(&p, "good", "report/fsync/aa");
	testdata_pool(&p, NULL, "report/fsync/ab");
	reconfirm(&conf, &p, "good", "6.1", &m);
	/*
	 * The revert's candidate faced with 6.1 against 6.1: same (0 -> 0
	 * pages, TOST inside 10%), so rejected; fio-write stays unknown
	 * (-0.6%, could see 53%) but it was no candidate.
	 */
	ck_assert_int_eq(row(&conf, "reclaim-wr-direct")->d.verdict,
			 VERDICT_SAME);
	ck_assert_int_eq(row(&conf, "fio-write")->d.verdict, VERDICT_UNKNOWN);
	ck_assert_int_eq(confirm_decide(&det, &conf, &unknown),
			 CONFIRM_REJECTED);
	ck_assert_uint_eq(family_regressions(&conf), 0);
	family_release(&det);
	family_release(&conf);
	pool_free(&p);
	pool_free(&q);
	matrix_spec_free(&m);
}
END_TEST

/*
 * A new event kind is a candidate even when one cell is no significant
 * rate: tests/data/report/aa's second run has one boot-failed cell of 6
 * (a TCG timing panic: two kinds, the outcome and the console's panic),
 * its first none. Faced with itself it stays
 * unknown (one of 6 is no rate: no mail, and no good night either);
 * faced with a re-run that never shows it, it is rejected.
 */
START_TEST(new_event_is_a_candidate)
{
	struct matrix_spec m;
	struct pool p = POOL_INIT;
	struct family det = { 0 }, conf = { 0 };
	size_t unknown;

	testdata_matrix(&m, "validate");
	testdata_pool(&p, "good", "report/aa/20261203-141600-381e");
	testdata_pool(&p, "night", "report/aa/20261203-141602-388e");
	detect(&det, &p, "good", "night", &m);
	ck_assert_uint_eq(family_regressions(&det), 0);
	/* the outcome boot-failed and the console's panic, 1:6 each */
	ck_assert_uint_eq(confirm_candidates(&det), 2);
	reconfirm(&conf, &p, "good", "night", &m);
	ck_assert_int_eq(confirm_decide(&det, &conf, &unknown),
			 CONFIRM_UNKNOWN);
	ck_assert_uint_eq(unknown, 2);
	family_release(&conf);
	reconfirm(&conf, &p, "night", "good", &m);
	ck_assert_int_eq(confirm_decide(&det, &conf, &unknown),
			 CONFIRM_REJECTED);
	/*
	 * A re-run stopped before its cells (SIGTERM; the e2e's killed
	 * night 9 at 0/0 per side) decides nothing: it was 'rejected'.
	 */
	family_release(&conf);
	reconfirm(&conf, &p, "other", "none", &m);
	ck_assert_int_eq(conf.look, 0);
	ck_assert_int_eq(confirm_decide(&det, &conf, &unknown),
			 CONFIRM_UNKNOWN);
	ck_assert_uint_eq(unknown, 2);
	family_release(&det);
	family_release(&conf);
	pool_free(&p);
	matrix_spec_free(&m);
}
END_TEST

/* A night with an id, tree mm, on host/accel. */
static long long night(sqlite3 *db, const char *commit, const char *verdict,
		       const char *accel)
{
	long long id;

	ck_assert_int_eq(history_add_night(db, "mm", commit, "s", "k", "t",
					   commit, verdict, &id),
			 0);
	ck_assert_int_eq(history_night_host(db, id, "lab", accel), 0);
	return id;
}

/*
 * The rejected candidate is kept with its figures and shown by wblab
 * history (table and HTML). Nights of another accelerator are never the
 * last good night: before the fix the newest good night of the tree was,
 * whatever it ran on (here the TCG night c3 for a KVM night).
 */
START_TEST(recorded_and_shown)
{
	struct matrix_spec m;
	struct pool p = POOL_INIT, q = POOL_INIT;
	struct family det = { 0 }, conf = { 0 };
	struct strbuf html = STRBUF_INIT;
	char *run = NULL, *commit = NULL, *kernel = NULL, *text = NULL;
	size_t len = 0;
	sqlite3 *db;
	FILE *out;
	long long id;

	testdata_matrix(&m, "validate");
	testdata_pool(&q, NULL, "report/fsync/ab");
	detect(&det, &q, "6.1", "6.1-direct-writeback", &m);
	testdata_pool(&p, "good", "report/fsync/aa");
	testdata_pool(&p, NULL, "report/fsync/ab");
	reconfirm(&conf, &p, "good", "6.1", &m);

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(history_schema(db), 0);
	night(db, "c1", "good", "tcg");
	night(db, "c2", "good", "kvm");
	id = night(db, "c3", "good", "tcg");
	ck_assert_int_eq(history_last_good(db, "mm", "lab", "tcg", &run,
					   &commit, &kernel),
			 0);
	ck_assert_str_eq(commit, "c3");
	free(run);
	free(commit);
	free(kernel);
	ck_assert_int_eq(history_last_good(db, "mm", "lab", "kvm", &run,
					   &commit, &kernel),
			 0);
	ck_assert_str_eq(commit, "c2");
	ck_assert_int_eq(history_last_good(db, "mm", "other", "tcg", &run,
					   &commit, &kernel),
			 1);

	ck_assert_int_eq(confirm_record(db, id, &det, &conf, "runs/<x>"), 0);
	out = open_memstream(&text, &len);
	ck_assert_int_eq(confirm_print(db, "mm", out), 0);
	fclose(out);
	/* night 3, c3, the group, the row, rejected same, 10/10, 0 -> 0 */
	ck_assert_msg(
		strstr(text,
		       "\n3     c3           ext4-disk/dirty-flood/512    reclaim-wr-direct          rejected  same       10/10            0           0"),
		"%s", text);
	ck_assert_int_eq(confirm_html(db, NULL, &html), 0);
	ck_assert_ptr_nonnull(strstr(
		html.buf, "<td>rejected</td><td>same</td><td>10/10</td>"));
	free(text);
	strbuf_release(&html);
	sqlite3_close(db);
	family_release(&det);
	family_release(&conf);
	pool_free(&p);
	pool_free(&q);
	matrix_spec_free(&m);
}
END_TEST

/*
 * A regression confirmed on a night and found again on the next nights
 * is mailed once: confirm_known() names the night that bisected and
 * mailed it, until a good night comes between, and only on the same host
 * and accelerator. Before it, every such night bisected and mailed again.
 */
START_TEST(known_regression)
{
	struct matrix_spec m;
	struct pool p = POOL_INIT;
	struct family det = { 0 }, conf = { 0 };
	const char *grp = "ext4-disk/dirty-flood/512", *what;
	long long first, id;
	sqlite3 *db;

	testdata_matrix(&m, "validate");
	testdata_pool(&p, NULL, "report/fsync/ab");
	detect(&det, &p, "6.1", "6.1-direct-writeback", &m);
	reconfirm(&conf, &p, "6.1", "6.1-direct-writeback", &m);
	what = row(&conf, "reclaim-wr-direct")->what;
	ck_assert_str_eq(row(&conf, "reclaim-wr-direct")->group, grp);

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(history_schema(db), 0);
	night(db, "c1", "good", "tcg");
	first = night(db, "c2", "regression", "tcg");
	ck_assert_int_eq(confirm_record(db, first, &det, &conf, "r2"), 0);
	id = night(db, "c3", "good", "tcg");
	ck_assert_int_eq(confirm_known(db, id, grp, what), first);
	ck_assert_int_eq(confirm_known(db, id, grp, "fio-write"), 0);
	ck_assert_int_eq(confirm_known(db, id, "other/group/512", what), 0);
	/*
	 * The detection of a night that missed it (6.1 against 6.1: no
	 * regression) still has it as a candidate, carried; the e2e's
	 * night 7 was 'good' before (0 -> 247 pages, Holm p 0.052).
	 */
	{
		struct pool q = POOL_INIT;
		struct family aa = { 0 };
		struct strbuf rep = STRBUF_INIT;

		testdata_pool(&q, "good", "report/fsync/aa");
		testdata_pool(&q, NULL, "report/fsync/ab");
		detect(&aa, &q, "good", "6.1", &m);
		ck_assert_uint_eq(confirm_candidates(&aa), 0);
		ck_assert_int_eq(confirm_carry(db, id, &aa, &rep), 1);
		ck_assert_uint_eq(confirm_candidates(&aa), 1);
		ck_assert(row(&aa, "reclaim-wr-direct")->regression);
		ck_assert_ptr_nonnull(
			strstr(rep.buf, "carried: reclaim-wr-direct"));
		strbuf_release(&rep);
		family_release(&aa);
		pool_free(&q);
	}
	/* another accelerator's series: its own last good night */
	id = night(db, "c3", "good", "kvm");
	ck_assert_int_eq(confirm_known(db, id, grp, what), 0);
	/* a good night between: the regression is news again */
	night(db, "c4", "good", "tcg");
	id = night(db, "c5", "good", "tcg");
	ck_assert_int_eq(confirm_known(db, id, grp, what), 0);
	sqlite3_close(db);
	family_release(&det);
	family_release(&conf);
	pool_free(&p);
	matrix_spec_free(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("confirm");
	TCase *tc = tcase_create("confirm");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, revert_confirmed);
	tcase_add_test(tc, aa_rejected);
	tcase_add_test(tc, recorded_and_shown);
	tcase_add_test(tc, new_event_is_a_candidate);
	tcase_add_test(tc, known_regression);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
