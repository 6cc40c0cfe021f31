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
#include "results/db.h"
#include "spec/matrix.h"
#include "util/json.h"
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

/*
 * The matrix's threshold of a row set to pct: 6.1 against 6.1 has
 * reclaim-wr-direct 0 in all 10 + 10 cells, which rules out a change in
 * 27% of cells or more at the look's 0.0431 (1 - 0.0431^(1/10)), not one
 * in 10%: at 10% the re-run is unknown, at 30% `same`.
 */
static void set_threshold(struct matrix_spec *m, const char *row, double pct)
{
	for (size_t i = 0; i < m->nr_thresholds; i++)
		if (!strcmp(m->thresholds[i].metric, row))
			m->thresholds[i].change_pct = pct;
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
	/* its Gmean (the mean log1p-welch compares; the Amean is 294.9) */
	ck_assert_double_eq_tol(row(&conf, "reclaim-wr-direct")->d.b, 231.198,
				0.0005);
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
	 * The revert's candidate faced with 6.1 against 6.1, 0 -> 0 pages
	 * in every cell: no test says `same` within 10% (before: "TOST
	 * p=0"), so the candidate stays unknown; within 30% it is `same`,
	 * so rejected; fio-write stays unknown (-0.6%, could see 53%) but
	 * it was no candidate.
	 */
	ck_assert_int_eq(row(&conf, "reclaim-wr-direct")->d.verdict,
			 VERDICT_UNKNOWN);
	ck_assert_int_eq(confirm_decide(&det, &conf, &unknown),
			 CONFIRM_UNKNOWN);
	family_release(&conf);
	set_threshold(&m, "reclaim-wr-direct", 30);
	reconfirm(&conf, &p, "good", "6.1", &m);
	ck_assert_double_eq_tol(row(&conf, "reclaim-wr-direct")->d.bound,
				100 * (1 - pow(0.04307129994, 0.1)), 1e-4);
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
 * unknown (one of 6 is no rate: no mail, and no good night either).
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
	/*
	 * Faced with a re-run where the reference has it (1:6) and tonight
	 * not (0:6): still a hypothesis (before: none, "not seen again",
	 * rejected), and no rise of more than 50pp is ruled out by 0 of 6 at
	 * this look, so unknown, not rejected.
	 */
	family_release(&conf);
	reconfirm(&conf, &p, "night", "good", &m);
	ck_assert_int_eq(confirm_decide(&det, &conf, &unknown),
			 CONFIRM_UNKNOWN);
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
/* The first candidate's key, as a string. */
static const char *jstr(json_object *arr, const char *key)
{
	return json_object_get_string(
		json_path(json_object_array_get_idx(arr, 0), key));
}

START_TEST(recorded_and_shown)
{
	struct matrix_spec m;
	struct pool p = POOL_INIT, q = POOL_INIT;
	struct family det = { 0 }, conf = { 0 };
	struct strbuf html = STRBUF_INIT;
	json_object *js;
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
	set_threshold(&m, "reclaim-wr-direct", 30);
	reconfirm(&conf, &p, "good", "6.1", &m);

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(resdb_schema(db), 0);
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
	free(run);
	free(commit);
	free(kernel);
	ck_assert_int_eq(history_last_good(db, "mm", "other", "tcg", &run,
					   &commit, &kernel),
			 1);

	ck_assert_int_eq(confirm_record(db, id, &det, &conf, "runs/<x>", "c2"),
			 0);
	out = open_memstream(&text, &len);
	ck_assert_int_eq(confirm_print(db, "mm", out), 0);
	fclose(out);
	/*
	 * night 3, c3 re-run against c2 (the last good night's, on the same
	 * accel), the group, the row, rejected same, 10/10, 0 -> 0
	 */
	ck_assert_msg(
		strstr(text,
		       "\n3     c3           c2           ext4-disk/dirty-flood/512    reclaim-wr-direct          rejected  same       10/10            0           0"),
		"%s", text);
	ck_assert_int_eq(confirm_html(db, NULL, &html), 0);
	ck_assert_ptr_nonnull(strstr(
		html.buf,
		"<td>3</td><td>c3</td><td>c2</td><td>ext4-disk/dirty-flood/512</td>"));
	ck_assert_ptr_nonnull(strstr(
		html.buf, "<td>rejected</td><td>same</td><td>10/10</td>"));
	js = confirm_json(db, "mm");
	ck_assert_ptr_nonnull(js);
	ck_assert_uint_eq(json_object_array_length(js), 1);
	ck_assert_str_eq(jstr(js, "ref_commit"), "c2");
	ck_assert_str_eq(jstr(js, "commit"), "c3");
	ck_assert_str_eq(jstr(js, "outcome"), "rejected");
	json_object_put(js);
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
	ck_assert_int_eq(resdb_schema(db), 0);
	night(db, "c1", "good", "tcg");
	first = night(db, "c2", "regression", "tcg");
	ck_assert_int_eq(confirm_record(db, first, &det, &conf, "r2", "c1"), 0);
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

/* The nights of a real e2e run, as its wblab.db had them. */
static sqlite3 *e2e_nights(void)
{
	struct strbuf sql = STRBUF_INIT;
	char *msg = NULL;
	sqlite3 *db;

	testdata_read(&sql, "jobs/e2e-nights.sql");
	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql.buf, NULL, NULL, &msg) == SQLITE_OK,
		      "%s", msg);
	ck_assert_int_eq(resdb_schema(db), 0);
	strbuf_release(&sql);
	return db;
}

static void exec(sqlite3 *db, const char *sql)
{
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
}

/*
 * A night's detection with no candidate: its two rows as
 * tests/jobs/nightly-ext4.yaml thresholds them (10% and 100%, up is bad),
 * down is bad for reclaim-wr-direct when down.
 */
static void quiet_night(struct family *f, int down)
{
	static const char *const what[] = { "reclaim-wr-direct",
					    "workload-time" };
	static const double pct[] = { 10, 100 };

	memset(f, 0, sizeof(*f));
	f->h = xzalloc(2 * sizeof(*f->h));
	for (size_t i = 0; i < 2; i++) {
		f->h[i].group = xstrdup("ext4-disk/dirty-flood/512");
		f->h[i].what = xstrdup(what[i]);
		f->h[i].bad = 1;
		f->h[i].threshold = pct[i];
		f->n++;
	}
	if (down)
		f->h[0].bad = -1;
}

/* history_change_candidates() at night: how many raised, the report, the reference. */
static int changes_at(sqlite3 *db, long long night, struct family *det,
		      int down, struct strbuf *rep, char **ref)
{
	family_release(det);
	quiet_night(det, down);
	strbuf_reset(rep);
	free(*ref);
	*ref = NULL;
	return history_change_candidates(db, night, det, rep, ref);
}

/*
 * A change point of the nights reaching tonight is a candidate, on the
 * nights of a real run of tests/jobs/e2e-nightly.sh (tests/data/jobs/
 * e2e-nights.sql): the revert came on night 6 (0 -> 186.7 pages), night 7
 * missed it (247.3, Holm p 0.052) and became the last good night, so
 * night 8 faced a regressed night (175.3: -29%, no candidate). Over nights
 * 1-8 E-divisive cuts after night 5: 0 -> 203.1 pages, p 0.01, 5 nights
 * before and 3 after (tests/ref/edivisive_ref.py). Night 6's confirmation
 * (bisected, mailed) keeps it from being raised again; with night 6
 * missed as well, only the change point raises it (the carry of a
 * confirmed row has nothing to carry), to be re-run from night 5's
 * commit, before the change and older than the last good night.
 */
START_TEST(change_point_candidate)
{
	struct family det = { 0 };
	struct strbuf rep = STRBUF_INIT;
	char *ref = NULL;
	sqlite3 *db = e2e_nights();

	/* as recorded: confirmed on night 6, since the change */
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 0);
	ck_assert_uint_eq(confirm_candidates(&det), 0);
	ck_assert_ptr_null(ref);

	/* the one look missed night 6 too: three good nights after it */
	exec(db, "DELETE FROM candidates WHERE night = 6;"
		 " UPDATE nights SET verdict = 'good' WHERE id = 6");
	family_release(&det);
	quiet_night(&det, 0);
	ck_assert_int_eq(confirm_carry(db, 8, &det, &rep), 0);
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 1);
	ck_assert(row(&det, "reclaim-wr-direct")->regression);
	ck_assert(!row(&det, "workload-time")->regression);
	/* recorded as its detection's p: the permutation test's */
	ck_assert_double_eq(row(&det, "reclaim-wr-direct")->d.p, 0.015);
	ck_assert_msg(
		!strcmp(rep.buf,
			"change point: reclaim-wr-direct (ext4-disk/dirty-flood/512)"
			" changed after night 5 (4465b64a19f2): 0 -> 203.1 pages,"
			" worse; p=0.015, 5 nights before, 3 after: a candidate\n"),
		"%s", rep.buf);
	ck_assert_str_eq(ref, "4465b64a19f2f706b5b0628beceb238e836ce62d");

	/* down is not the bad way for this row: no candidate */
	ck_assert_int_eq(changes_at(db, 8, &det, 1, &rep, &ref), 0);
	/* on night 7 the right segment (2 nights) is too short */
	ck_assert_int_eq(changes_at(db, 7, &det, 0, &rep, &ref), 0);
	/* night 9's cells crashed: no figure tonight, no change at tonight */
	ck_assert_int_eq(changes_at(db, 9, &det, 0, &rep, &ref), 0);

	/* nights 6-7 unconfirmed: night 5 is the last good night, the ref */
	exec(db,
	     "UPDATE nights SET verdict = 'unconfirmed' WHERE id IN (6, 7)");
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 1);
	ck_assert_ptr_null(ref);
	/* a night of another accelerator: its own (one-night) series */
	exec(db, "UPDATE nights SET accel = 'kvm' WHERE id = 8");
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 0);

	family_release(&det);
	strbuf_release(&rep);
	sqlite3_close(db);
}
END_TEST

/*
 * The change point must reach tonight, and its cut is not a night late
 * (issue 41 item 7), on the real nights of change_point_candidate with
 * night 6 missed by the one look. (1) Night 9 (whose cells crashed)
 * given 0 pages: nights 1-9 cut after night 5 (0 -> 152.3 pages, p
 * 0.035), but tonight is back at the old level (0, nearer the left's 0
 * than the right's 152.3): no candidate (before: raised, the last
 * change's right segment always ends tonight). (2) As
 * if night 5 had built the revert (night 6's commit 27e7402e70d7) and
 * measured 40 pages: E-divisive cuts after night 5, a night late (8 ->
 * 203.1 pages, p 0.025), and the re-run's reference was night 5's
 * commit, the bad one. Night 5 departs from every night before it, so
 * the cut moves to after night 4: 0 -> 162.3 pages over nights 5-8, the
 * reference night 4's commit 4465b64a19f2.
 */
START_TEST(change_point_reach_and_cut)
{
	struct family det = { 0 };
	struct strbuf rep = STRBUF_INIT;
	char *ref = NULL;
	sqlite3 *db = e2e_nights();

	exec(db, "DELETE FROM candidates WHERE night = 6;"
		 " UPDATE nights SET verdict = 'good' WHERE id = 6");
	exec(db, "UPDATE night_metrics SET mean = 0, n = 3 WHERE night = 9"
		 " AND metric = 'reclaim-wr-direct'");
	ck_assert_int_eq(changes_at(db, 9, &det, 0, &rep, &ref), 0);
	ck_assert_msg(!*rep.buf, "DEBUG %s", rep.buf);
	exec(db, "UPDATE night_metrics SET mean = 40 WHERE night = 5"
		 " AND metric = 'reclaim-wr-direct';"
		 " UPDATE nights SET commit_id ="
		 " '27e7402e70d735592c8fbb459913e436fa9d5245' WHERE id = 5");
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 1);
	ck_assert_msg(
		!strcmp(rep.buf,
			"change point: reclaim-wr-direct (ext4-disk/dirty-flood/512)"
			" changed after night 4 (4465b64a19f2): 0 -> 162.3 pages,"
			" worse; p=0.025, 4 nights before, 4 after: a candidate\n"),
		"%s", rep.buf);
	ck_assert_str_eq(ref, "4465b64a19f2f706b5b0628beceb238e836ce62d");
	family_release(&det);
	strbuf_release(&rep);
	free(ref);
	sqlite3_close(db);
}
END_TEST

/*
 * A change point whose row a re-run rejected (same) across the same
 * change is not raised again every night it reaches: on the real nights
 * of change_point_candidate, had night 6's re-run (night 5's commit
 * 4465b64a19f2, the last before the change, against night 6's) said
 * same, night 8's change after night 5 is that change; before, night 8
 * raised it and paid for another re-run, and so would each night after.
 * A rejection from another reference (night 3's commit: not across this
 * change) or from before the change's right side began keeps nothing
 * back, nor does a row of a wblab.db of before ref_commit (NULL).
 */
START_TEST(rejected_change_point)
{
	struct family det = { 0 };
	struct strbuf rep = STRBUF_INIT;
	char *ref = NULL;
	sqlite3 *db = e2e_nights();

	/* the dump is of before ref_commit: the column is added, NULL */
	ck_assert_int_eq(resdb_schema(db), 0);
	ck_assert_int_eq(resdb_schema(db), 0);
	/* NULL: not a rejection of the change */
	exec(db, "UPDATE candidates SET outcome = 'rejected', verdict = 'same'"
		 " WHERE night = 6; UPDATE nights SET verdict = 'good'"
		 " WHERE id = 6");
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 1);
	ck_assert(row(&det, "reclaim-wr-direct")->regression);

	/* re-run from night 5's commit, before the change: not again */
	exec(db,
	     "UPDATE candidates SET ref_commit ="
	     " (SELECT commit_id FROM nights WHERE id = 5) WHERE night = 6");
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 0);
	ck_assert(!row(&det, "reclaim-wr-direct")->regression);
	ck_assert_str_eq(rep.buf, "");
	ck_assert_ptr_null(ref);

	/* from night 3's commit: another comparison, raised */
	exec(db,
	     "UPDATE candidates SET ref_commit ="
	     " (SELECT commit_id FROM nights WHERE id = 3) WHERE night = 6");
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 1);

	/*
	 * Left unknown by that re-run (night 6 against night 5's commit):
	 * night 8 would re-run the same change on the same history and say
	 * unknown again, so not raised (before: raised every night, each
	 * night then unconfirmed; issue 41 item 4). 2 nights since: < 3.
	 */
	exec(db,
	     "UPDATE candidates SET outcome = 'unknown', verdict = 'unknown',"
	     " ref_commit = (SELECT commit_id FROM nights WHERE id = 5)"
	     " WHERE night = 6; UPDATE nights SET verdict = 'unconfirmed'"
	     " WHERE id = 6");
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 0);
	ck_assert_ptr_null(ref);
	exec(db, "UPDATE candidates SET outcome = 'rejected', verdict = 'same'"
		 " WHERE night = 6; UPDATE nights SET verdict = 'good'"
		 " WHERE id = 6");

	/* rejected on night 5, before the right side began: raised */
	exec(db,
	     "UPDATE candidates SET night = 5, ref_commit ="
	     " (SELECT commit_id FROM nights WHERE id = 5) WHERE night = 6");
	ck_assert_int_eq(changes_at(db, 8, &det, 0, &rep, &ref), 1);

	family_release(&det);
	strbuf_release(&rep);
	free(ref);
	sqlite3_close(db);
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
	tcase_add_test(tc, change_point_candidate);
	tcase_add_test(tc, rejected_change_point);
	tcase_add_test(tc, change_point_reach_and_cut);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
