// SPDX-License-Identifier: GPL-2.0
/*
 * wblab history --changes on a results database made here from real
 * cells: each cell of tests/data/report/fsync is one night (its
 * reclaim-wr-direct the night's mean), 6.1's 20 cells then the
 * direct-writeback revert's 10, the change tests/ref/edivisive_ref.py
 * finds at the 21st value (p = 0 of 199 shuffles, 0 -> 294.9 pages).
 * A database written before nights had a host and accelerator is
 * migrated, and a series never mixes hosts or accelerators.
 */
#include <check.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cell/results.h"
#include "jobs/history.h"
#include "jobs/pool.h"
#include "results/db.h"
#include "results/metric.h"
#include "testdata.h"
#include "util/fs.h"
#include "util/log.h"

static char dir[] = "/tmp/wblab-test-history.XXXXXX";

/* The 30 nights' values: 6.1 (aa, ab) then 6.1-direct-writeback (ab). */
static size_t real_nights(double *x)
{
	static const char *const from[][2] = {
		{ "aa", "6.1" },
		{ "ab", "6.1" },
		{ "ab", "6.1-direct-writeback" },
	};
	const struct metric *m = metric_by_name("reclaim-wr-direct");
	size_t n = 0;

	for (size_t r = 0; r < 3; r++) {
		char *run = testdata_path("report/fsync/%s", from[r][0]);
		struct pool p = POOL_INIT;
		size_t k;
		double *v;

		ck_assert_int_eq(pool_load_run(&p, run), 0);
		v = pool_values(&p, from[r][1], NULL, m, &k);
		ck_assert_uint_eq(k, 10);
		memcpy(x + n, v, k * sizeof(*v));
		n += k;
		free(v);
		pool_free(&p);
		free(run);
	}
	return n;
}

/* The schema of nights before host and accel (as nightly wrote it). */
static const char old_schema[] =
	"CREATE TABLE nights(id INTEGER PRIMARY KEY, tree TEXT,"
	" commit_id TEXT, subject TEXT, kernel TEXT, started TEXT,"
	" run_dir TEXT, verdict TEXT);"
	"CREATE TABLE night_metrics(night INTEGER, grp TEXT,"
	" metric TEXT, n INTEGER, mean REAL, sd REAL);";

/* Tree t's nights of x; host/accel from the (mixed) index on when mix. */
static void add_nights(sqlite3 *db, const char *tree, const double *x, size_t n,
		       size_t mix)
{
	for (size_t i = 0; i < n; i++) {
		char c[16];
		long long id;

		snprintf(c, sizeof(c), "c%02zu", i);
		ck_assert_int_eq(history_add_night(db, tree, c, "s", "k", "t",
						   "r", "good", &id),
				 0);
		ck_assert_int_eq(history_night_host(db, id, "vm",
						    i >= mix ? "kvm" : "tcg"),
				 0);
		ck_assert_int_eq(history_add_metric(db, id, "ext4-disk/dd",
						    "reclaim-wr-direct", 1,
						    x[i], 0),
				 0);
	}
}

static char *changes(const struct history_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(history_print(o, f), 0);
	fclose(f);
	return buf;
}

START_TEST(history_changes_real)
{
	char *path, *msg = NULL, *out;
	struct history_opts o = { .results = dir, .changes = true };
	double x[30];
	sqlite3 *db;
	json_object *j, *c, *v;

	ck_assert_uint_eq(real_nights(x), 30);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/wblab.db", dir);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, old_schema, NULL, NULL, &msg),
			 SQLITE_OK);
	ck_assert_int_eq(resdb_schema(db), 0);
	/* "one": every night on vm/tcg; "mixed": the revert's on vm/kvm */
	add_nights(db, "one", x, 30, 30);
	add_nights(db, "mixed", x, 30, 20);
	sqlite3_close(db);

	out = changes(&o);
	ck_assert_msg(strstr(out,
			     "one vm/tcg ext4-disk/dd reclaim-wr-direct"
			     " (30 nights)\n"
			     "  night 20 (c19) | night 21 (c20): 0 -> 294.9"
			     " pages, worse; p=0.005, 20 nights before, 10"
			     " after\n"),
		      "%s", out);
	/* 20 nights on TCG, 10 on KVM: two series, neither changes */
	ck_assert_msg(!strstr(out, "mixed"), "%s", out);
	free(out);

	o.json = true;
	o.tree = "one";
	out = changes(&o);
	j = json_tokener_parse(out);
	ck_assert_int_eq(json_object_array_length(j), 1);
	c = json_object_array_get_idx(j, 0);
	ck_assert(json_object_object_get_ex(c, "after", &v));
	ck_assert_int_eq(
		json_object_get_int(json_object_object_get(v, "night")), 21);
	ck_assert_int_eq(
		json_object_get_int(json_object_object_get(v, "nights")), 10);
	ck_assert_double_eq(
		json_object_get_double(json_object_object_get(c, "p")), 0.005);
	ck_assert_str_eq(
		json_object_get_string(json_object_object_get(c, "direction")),
		"worse");
	ck_assert(json_object_is_type(json_object_object_get(c, "change_pct"),
				      json_type_null));
	json_object_put(j);
	free(out);

	unlink(path);
	rmdir(dir);
	free(path);
}
END_TEST

/* ---- a results database planted in a results directory (#47) ---- */

/* TMP/wblab.db made by sqlite3 itself from sql. */
static char *planted(const char *tmp, const char *sql)
{
	char *path = xasprintf("%s/wblab.db", tmp), *msg = NULL;
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK,
		      "%s", msg);
	sqlite3_close(db);
	return path;
}

/* results_db_open() and history refuse it, naming the file and why. */
static void refused(const char *tmp, const char *why)
{
	struct history_opts o = { .results = tmp };
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	stderr_begin();
	ck_assert_ptr_null(results_db_open(tmp));
	ck_assert_int_eq(history_print(&o, out), 1);
	stderr_end(&err);
	fclose(out);
	free(buf);
	ck_assert_msg(strstr(err.buf, "/wblab.db: ") && strstr(err.buf, why),
		      "want '%s' in: %s", why, err.buf);
	strbuf_release(&err);
}

/* Columns of table in the database at path. */
static int columns(const char *path, const char *table)
{
	char *sql = xasprintf("SELECT count(*) FROM pragma_table_info('%s')",
			      table);
	sqlite3_stmt *st;
	sqlite3 *db;
	int n;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(sql);
	return n;
}

/*
 * A trigger on cells (it kept run at 100% CPU, deaf to SIGTERM), a view
 * as nights (recursive, it made history write 1 GB), a foreign database
 * history migrated before failing: each refused, the file left as it was.
 */
START_TEST(planted_db_objects_refused)
{
	char tmp[] = "/tmp/wblab-test-history.XXXXXX";
	char *path;
	sqlite3 *db;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	db = results_db_open(tmp);
	ck_assert_ptr_nonnull(db);
	results_db_close(db);
	path = planted(tmp, "CREATE TRIGGER spin AFTER INSERT ON cells "
			    "BEGIN DELETE FROM runs; END;");
	refused(tmp, "holds trigger 'spin', not wblab's: refused");
	unlink(path);
	free(path);
	path = planted(tmp, "CREATE VIEW nights AS SELECT 1 AS id;");
	refused(tmp, "holds view 'nights', not wblab's: refused");
	unlink(path);
	free(path);
	path = planted(tmp, "CREATE TABLE nights(id INTEGER, note TEXT);"
			    "CREATE TABLE invoices(id INTEGER);");
	refused(tmp, "holds table 'invoices', not wblab's: refused");
	ck_assert_int_eq(columns(path, "nights"), 2);
	rm_rf(tmp);
	free(path);
}
END_TEST

/*
 * wblab.db a FIFO (history hung), a dangling link (run made a database
 * at its target), a corrupt file (run printed the error and went on,
 * exit 0, the run not indexed): each refused at once, by name.
 */
START_TEST(planted_db_files_refused)
{
	char tmp[] = "/tmp/wblab-test-history.XXXXXX";
	char *path, *target;
	struct strbuf junk = STRBUF_INIT;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	path = xasprintf("%s/wblab.db", tmp);
	target = xasprintf("%s/elsewhere.db", tmp);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	refused(tmp, "a FIFO, not a regular file: refused");
	unlink(path);
	ck_assert_int_eq(symlink(target, path), 0);
	refused(tmp, "a symbolic link (not followed): refused");
	ck_assert_int_ne(access(target, F_OK), 0);
	unlink(path);
	while (junk.len < 8192)
		strbuf_addstr(&junk, "not a database, whatever it says. ");
	ck_assert_int_eq(write_file_atomic(path, junk.buf, junk.len, 0644), 0);
	refused(tmp, "file is not a database");
	rm_rf(tmp);
	strbuf_release(&junk);
	free(target);
	free(path);
}
END_TEST

/*
 * A wblab.db of an older wblab (nights without host and accel, candidates
 * without ref_commit, a night's metric under its cell.json key), opened
 * the way every run opens it (results_db_open()): brought up to date
 * there, not only when nightly or history opens it, and again harmlessly.
 */
START_TEST(old_db_migrated_on_open)
{
	char tmp[] = "/tmp/wblab-test-history.XXXXXX";
	char *path;
	sqlite3 *db;
	sqlite3_stmt *st;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	path = planted(
		tmp,
		"CREATE TABLE nights(id INTEGER PRIMARY KEY, tree TEXT,"
		" commit_id TEXT, subject TEXT, kernel TEXT, started TEXT,"
		" run_dir TEXT, verdict TEXT);"
		"CREATE TABLE night_metrics(night INTEGER, grp TEXT,"
		" metric TEXT, n INTEGER, mean REAL, sd REAL);"
		"CREATE TABLE candidates(night INTEGER, grp TEXT, what TEXT,"
		" outcome TEXT, verdict TEXT, ref REAL, mean REAL, pct REAL,"
		" p REAL, na INTEGER, nb INTEGER, detect_p REAL, run_dir TEXT);"
		"INSERT INTO night_metrics VALUES"
		" (1, 'g', 'vmscan_write_file_direct', 3, 294.5, 1.5);");
	for (int i = 0; i < 2; i++) {
		db = results_db_open(tmp);
		ck_assert_ptr_nonnull(db);
		results_db_close(db);
	}
	ck_assert_int_eq(columns(path, "nights"), 10);
	ck_assert_int_eq(columns(path, "candidates"), 14);
	ck_assert_int_eq(columns(path, "night_metrics"), 6);
	ck_assert_int_eq(columns(path, "runs"), 5);
	ck_assert_int_eq(columns(path, "cells"), 11);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db,
					    "SELECT metric, mean FROM"
					    " night_metrics",
					    -1, &st, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0),
			 metric_by_old_key("vmscan_write_file_direct")->name);
	ck_assert_double_eq(sqlite3_column_double(st, 1), 294.5);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
	rm_rf(tmp);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("history");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, history_changes_real);
	tcase_add_test(tc, planted_db_objects_refused);
	tcase_add_test(tc, planted_db_files_refused);
	tcase_add_test(tc, old_db_migrated_on_open);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
