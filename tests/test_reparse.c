// SPDX-License-Identifier: GPL-2.0
/*
 * wblab reparse's engine on a real cell (tests/data/io/README.md): the
 * metrics are re-derived from the files, the outcome is kept, and a
 * console whose verdict differs (a real stack-overflow console from the
 * corpus excerpts in tests/data/console/) makes it decided again.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/reparse.h"
#include "cell/results.h"
#include "cmd/cmds.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"

#include "testdata.h"

static void put(const char *tmp, const char *src, const char *name)
{
	char *s = testdata_path("%s", src);
	char *d = xasprintf("%s/%s", tmp, name);

	ck_assert_int_eq(copy_file(s, d, 0644), 0);
	free(s);
	free(d);
}

/* A cell dir made of the real cell's files; the caller removes it. */
static char *cell_dir(const char *console)
{
	static const char *const files[] = { "cell.json",
					     "trace.gz",
					     "trace_stats.txt",
					     "hist.block_bio_queue",
					     "hist.mm_vmscan_write_folio",
					     "fsdev.txt",
					     "vmstat.before",
					     "vmstat.after",
					     "memcg.stat",
					     NULL };
	char *tmp = xstrdup("/tmp/wblab-test-reparse.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	testdata_copy(tmp, "io/dirty-flood-ext4", files);
	put(tmp, console, "console.log");
	return tmp;
}

static const char *str(json_object *o, const char *path)
{
	const char *s = json_object_get_string(json_path(o, path));

	return s ? s : "";
}

START_TEST(test_reparse_keeps)
{
	char *dir = cell_dir("io/dirty-flood-ext4/console.log");
	char *p = xasprintf("%s/cell.json", dir);
	struct strbuf note = STRBUF_INIT;
	struct reparse_result r;
	json_object *c;

	ck_assert_int_eq(cell_reparse(dir, &r, &note), 0);
	ck_assert(!r.console_changed);
	ck_assert(!r.outcome_changed);
	c = json_object_from_file(p);
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(str(c, "outcome"), "ok");
	ck_assert_str_eq(str(c, "outcome_reason"), "workload completed");
	/* Kept from the live cell. */
	ck_assert_str_eq(str(c, "kernel.name"), "debian-6.1");
	ck_assert_str_eq(str(c, "agent.status"), "ok");
	/* Re-derived: the trace and the hists. */
	ck_assert_int_eq(json_object_get_int(json_path(
				 c, "metrics.io.writers.flusher.pages")),
			 58258);
	ck_assert_int_eq(json_object_get_int(json_path(
				 c, "metrics.trace.memcg_reclaim.count")),
			 1382);
	ck_assert_str_eq(str(c, "reparsed.outcome_was"), "ok");
	json_object_put(c);
	rm_rf(dir);
	free(dir);
	free(p);
	strbuf_release(&note);
}
END_TEST

START_TEST(test_reparse_console_verdict)
{
	char *dir = cell_dir("console/stack-guard-344.log");
	char *p = xasprintf("%s/cell.json", dir);
	struct strbuf note = STRBUF_INIT;
	struct reparse_result r;
	json_object *c;

	ck_assert_int_eq(cell_reparse(dir, &r, &note), 0);
	ck_assert(r.console_changed);
	ck_assert(r.outcome_changed);
	ck_assert_str_eq(r.old_outcome, "ok");
	ck_assert_str_eq(r.new_outcome, "crashed");
	c = json_object_from_file(p);
	ck_assert_str_eq(str(c, "outcome"), "crashed");
	ck_assert_ptr_nonnull(
		strstr(str(c, "outcome_reason"), "stack guard page"));
	ck_assert_str_eq(str(c, "console_kind"), "stack_overflow");
	ck_assert(json_object_get_boolean(
		json_path(c, "reparsed.console_verdict_changed")));
	json_object_put(c);
	rm_rf(dir);
	free(dir);
	free(p);
	strbuf_release(&note);
}
END_TEST

START_TEST(test_reparse_missing)
{
	struct strbuf note = STRBUF_INIT;
	struct reparse_result r;

	ck_assert_int_eq(cell_reparse("/nonexistent-cell", &r, &note), -1);
	ck_assert_ptr_nonnull(strstr(note.buf, "cell.json"));
	strbuf_release(&note);
}
END_TEST

/*
 * wblab reparse on a run whose cell's console verdict changed: run.json's
 * entry and the results' index follow (through the results reader), the
 * rest of run.json is kept.
 */
START_TEST(test_reparse_run_follows)
{
	char *tmp = xstrdup("/tmp/wblab-test-reparse-run.XXXXXX");
	char *run, *cell, *rj, *argv[3];
	json_object *o;
	sqlite3 *db;
	sqlite3_stmt *st;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	run = xasprintf("%s/r", tmp);
	cell = xasprintf("%s/cells/c1", run);
	ck_assert_int_eq(mkdir_p(run, 0755), 0);
	free(cell);
	cell = cell_dir("console/stack-guard-344.log");
	rj = xasprintf("%s/cells/c1", run);
	ck_assert_int_eq(mkdir_p(rj, 0755), 0);
	ck_assert_int_eq(rename(cell, rj), 0);
	free(rj);
	rj = xasprintf("%s/run.json", run);
	o = json_tokener_parse("{\"run\": \"r1\", \"spec\": {\"x\": 1}, "
			       "\"cells\": [{\"id\": \"c1\", \"dir\": "
			       "\"cells/c1\", \"outcome\": \"ok\"}]}");
	ck_assert_int_eq(json_object_to_file(rj, o), 0);
	json_object_put(o);
	db = results_db_open(tmp);
	ck_assert_ptr_nonnull(db);
	results_db_close(db);
	argv[0] = "reparse";
	argv[1] = run;
	argv[2] = NULL;
	ck_assert_int_eq(cmd_reparse(2, argv), 0);
	o = json_object_from_file(rj);
	ck_assert_str_eq(str(o, "cells.0.outcome"), "crashed");
	ck_assert_int_eq(json_object_get_int(json_path(o, "spec.x")), 1);
	json_object_put(o);
	db = results_db_open(tmp);
	ck_assert_int_eq(sqlite3_prepare_v2(db,
					    "SELECT run_id, outcome FROM cells",
					    -1, &st, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "r1");
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 1), "crashed");
	sqlite3_finalize(st);
	results_db_close(db);
	rm_rf(tmp);
	free(tmp);
	free(run);
	free(cell);
	free(rj);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reparse");
	TCase *tc = tcase_create("reparse");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_reparse_keeps);
	tcase_add_test(tc, test_reparse_console_verdict);
	tcase_add_test(tc, test_reparse_missing);
	tcase_add_test(tc, test_reparse_run_follows);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
