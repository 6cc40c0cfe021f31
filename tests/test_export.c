// SPDX-License-Identifier: GPL-2.0
/*
 * wblab export --kcidb (jobs/kcidb.c) of the real cells of
 * tests/data/report/fsync/ab (6.1 against its direct-writeback revert,
 * 10 cells each): validated against KCIDB's v5.3 JSON schema
 * ($WBLAB_KCIDB_SCHEMA, ../shared/kcidb/) by tests/kcidb_validate.py
 * (python3-jsonschema), which must also refuse a spoiled copy; and the
 * revert's reclaim-wr-direct is one FAIL test with n, p and the effect.
 */
#include <check.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "jobs/kcidb.h"
#include "jobs/pool.h"
#include "report/report.h"
#include "testdata.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"

static int validate(json_object *doc)
{
	char path[] = "/tmp/wblab-test-kcidb.XXXXXX";
	int fd = mkstemp(path);
	const char *s = json_object_to_json_string(doc);
	char *script = xasprintf("%s/tests/kcidb_validate.py", testdata_home());
	const char *schema = getenv("WBLAB_KCIDB_SCHEMA");
	const char *argv[] = { "/usr/bin/python3", script, schema, path, NULL };
	struct run_opts ro = { 0 };
	int rc;

	ck_assert_msg(
		schema && !access(schema, R_OK),
		"WBLAB_KCIDB_SCHEMA (tests/run-unit.sh sets it) unreadable");
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
	rc = run_argv(argv, &ro);
	unlink(path);
	free(script);
	return rc;
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no %s", k);
	return v;
}

START_TEST(kcidb_real_cells)
{
	char *run = testdata_path("report/fsync/ab");
	struct pool p = POOL_INIT;
	json_object *doc, *tests, *fail = NULL, *misc;
	int pass = 0;

	ck_assert_int_eq(pool_load_run(&p, run), 0);
	doc = kcidb_export(&p, "wblab", "6.1");
	ck_assert_ptr_nonnull(doc);
	ck_assert_int_eq(json_object_get_int(get(get(doc, "version"), "major")),
			 5);
	ck_assert_int_eq(json_object_get_int(get(get(doc, "version"), "minor")),
			 3);
	ck_assert_int_eq(json_object_array_length(get(doc, "checkouts")), 2);
	ck_assert_int_eq(json_object_array_length(get(doc, "builds")), 2);
	tests = get(doc, "tests");
	/* 20 cells and one decision: the revert's reclaim-wr-direct */
	ck_assert_int_eq(json_object_array_length(tests), 21);
	for (size_t i = 0; i < 21; i++) {
		json_object *t = json_object_array_get_idx(tests, i);
		const char *st = json_object_get_string(get(t, "status"));

		pass += !strcmp(st, "PASS");
		if (!strcmp(st, "FAIL"))
			fail = t;
	}
	ck_assert_int_eq(pass, 20);
	ck_assert_ptr_nonnull(fail);
	ck_assert_str_eq(json_object_get_string(get(fail, "path")),
			 "wblab.ext4-disk.dirty-flood.512.reclaim-wr-direct");
	ck_assert_str_eq(
		json_object_get_string(get(fail, "build_id")),
		"wblab:3925e5c564b29bd0d9d24d9420aa2c0b35a9fb6b18cacc64d19b8ad18c956e92");
	misc = get(fail, "misc");
	ck_assert_int_eq(json_object_get_int(get(misc, "n")), 10);
	ck_assert_int_eq(json_object_get_int(get(misc, "n_b")), 10);
	/* the row's one mean, its Gmean (the Amean is 294.9) */
	ck_assert_double_eq_tol(json_object_get_double(get(misc, "mean_b")),
				231.198, 5e-4);
	ck_assert_double_lt(json_object_get_double(get(misc, "p")), 1e-6);
	ck_assert_double_eq_tol(
		json_object_get_double(get(get(fail, "number"), "value")),
		231.198, 5e-4);
	ck_assert_int_eq(validate(doc), 0);
	/* The validator is no rubber stamp: an id without its origin fails. */
	json_object_object_add(fail, "id", json_object_new_string("no-origin"));
	ck_assert_int_eq(validate(doc), 1);
	json_object_put(doc);
	pool_free(&p);
	free(run);
}
END_TEST

/* The FAIL decisions of an export, counted. */
static size_t failed_decisions(json_object *doc, const char *baseline)
{
	json_object *tests = get(doc, "tests");
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(tests); i++) {
		json_object *t = json_object_array_get_idx(tests, i), *b;

		if (!json_object_object_get_ex(get(t, "misc"), "baseline", &b))
			continue;
		ck_assert_str_eq(json_object_get_string(b), baseline);
		n += !strcmp(json_object_get_string(get(t, "status")), "FAIL");
	}
	return n;
}

/*
 * The default baseline is the first kernel the run declares, not the
 * first cell's. In a nightly's crash re-run (tests/data/jobs/crash-rerun)
 * the cells ran interleaved, the crash kernel's first: a baseline taken
 * from that cell decided the good kernel against the crash kernel and
 * exported no FAIL at all (tests/jobs/e2e-nightly.sh, 2026-12-05).
 */
START_TEST(kcidb_default_baseline)
{
	struct pool p = POOL_INIT;
	json_object *doc;

	testdata_pool(&p, NULL, "jobs/crash-rerun");
	ck_assert_str_eq(p.v[0].kernel, "git-d2636e9262ff");
	ck_assert_str_eq(kcidb_baseline(&p), "git-4465b64a19f2");
	/* the first cell's kernel as the reference: nothing fails */
	doc = kcidb_export(&p, "wblab", p.v[0].kernel);
	ck_assert_uint_eq(failed_decisions(doc, "git-d2636e9262ff"), 0);
	json_object_put(doc);
	/* the default: the new crash and its panic, 0:7 -> 7:7 */
	doc = kcidb_export(&p, "wblab", NULL);
	ck_assert_ptr_nonnull(doc);
	ck_assert_uint_eq(failed_decisions(doc, "git-4465b64a19f2"), 2);
	ck_assert_int_eq(validate(doc), 0);
	json_object_put(doc);
	pool_free(&p);
}
END_TEST

/*
 * One run given as R, R/ and a link to R (issue 47): wblab export counts
 * its cells once (was 60 tests with duplicate ids and p 1.7e-07 from
 * thrice the cells), warns about each repeat, and the schema holds.
 */
START_TEST(kcidb_same_run_once)
{
	char tmp[] = "/tmp/wblab-test-export.XXXXXX";
	char *run = testdata_path("report/fsync/ab");
	char *slash, *link, *out;
	char *argv[] = {
		"export", "--kcidb", run, NULL, NULL, "-o", NULL, NULL
	};
	struct strbuf err = STRBUF_INIT;
	json_object *doc, *tests, *ids = json_object_new_object();

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	argv[3] = slash = xasprintf("%s/", run);
	argv[4] = link = xasprintf("%s/run", tmp);
	argv[6] = out = xasprintf("%s/kcidb.json", tmp);
	ck_assert_int_eq(symlink(run, link), 0);
	stderr_begin();
	ck_assert_int_eq(cmd_export(7, argv), 0);
	stderr_end(&err);
	ck_assert_msg(strstr(err.buf, "/: the same run as ") &&
			      strstr(err.buf, "/run: the same run as "),
		      "%s", err.buf);
	doc = json_object_from_file(out);
	ck_assert_ptr_nonnull(doc);
	tests = get(doc, "tests");
	ck_assert_int_eq(json_object_array_length(tests), 21);
	for (size_t i = 0; i < json_object_array_length(tests); i++) {
		const char *id = json_object_get_string(
			get(json_object_array_get_idx(tests, i), "id"));

		ck_assert_msg(!json_object_object_get_ex(ids, id, NULL),
			      "test id %s twice", id);
		json_object_object_add(ids, id, NULL);
	}
	ck_assert_int_eq(validate(doc), 0);
	json_object_put(ids);
	json_object_put(doc);
	rm_rf(tmp);
	strbuf_release(&err);
	free(out);
	free(link);
	free(slash);
	free(run);
}
END_TEST

/* tests/data/PATH copied to TMP/run: a run the test may spoil. */
static char *copy_run(const char *tmp, const char *rel)
{
	char *src = testdata_path("%s", rel), *dst = xasprintf("%s/run", tmp);
	const char *argv[] = { "cp", "-r", src, dst, NULL };

	ck_assert_int_eq(run_argv(argv, &(struct run_opts){ .quiet = 1 }), 0);
	free(src);
	return dst;
}

/* Python's json reads path (strict UTF-8): 0. */
static int python_reads(const char *path)
{
	const char *argv[] = { "/usr/bin/python3", "-c",
			       "import json, sys; json.load(open(sys.argv[1], "
			       "encoding='utf-8', errors='strict'))",
			       path, NULL };

	return run_argv(argv, &(struct run_opts){ .quiet = 1 });
}

/*
 * A cell.json from elsewhere (issue 47): a reason of 20,000 bytes ending
 * in bytes that are not UTF-8, an empty topology name, a kernel source
 * that is not UTF-8. The export passes the v5.3 schema (log_excerpt
 * within 16384 characters, no empty path component, UTF-8 only), and
 * report --format json is JSON Python reads.
 */
START_TEST(kcidb_hostile_strings)
{
	char tmp[] = "/tmp/wblab-test-export.XXXXXX";
	char *run, *cell, *rj;
	struct strbuf reason = STRBUF_INIT, err = STRBUF_INIT;
	struct pool p = POOL_INIT;
	struct report r;
	json_object *c, *doc, *t = NULL;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	run = copy_run(tmp, "report/fsync/ab");
	cell = xasprintf("%s/cells/6.1_ext4-disk_dirty-flood_1/cell.json", run);
	c = json_object_from_file(cell);
	ck_assert_ptr_nonnull(c);
	for (int i = 0; i < 20000; i++)
		strbuf_addch(&reason, 'x');
	strbuf_addstr(&reason, "\xff\xfe");
	json_object_object_add(c, "outcome_reason",
			       json_object_new_string(reason.buf));
	json_object_object_add(json_path(c, "topology"), "name",
			       json_object_new_string(""));
	json_object_object_add(json_path(c, "kernel"), "source",
			       json_object_new_string("linux \xc3("));
	ck_assert_int_eq(json_object_to_file(cell, c), 0);
	ck_assert_int_eq(pool_load_run(&p, run), 0);
	doc = kcidb_export(&p, "wblab", "6.1");
	ck_assert_ptr_nonnull(doc);
	for (size_t i = 0; i < json_object_array_length(get(doc, "tests"));
	     i++) {
		t = json_object_array_get_idx(get(doc, "tests"), i);
		if (strlen(json_object_get_string(get(t, "log_excerpt"))) >
		    1000)
			break;
	}
	ck_assert_int_eq(json_object_get_string_len(get(t, "log_excerpt")),
			 16384);
	ck_assert_ptr_nonnull(
		strstr(json_object_get_string(get(t, "path")), "wblab._."));
	ck_assert_int_eq(validate(doc), 0);
	/* the same cells in report --format json */
	report_init(&r, NULL);
	ck_assert_int_eq(report_load_run(&r, run, &err), 0);
	ck_assert_int_eq(report_build(&r, &err), 0);
	json_object_put(c);
	c = report_json(&r);
	rj = xasprintf("%s/report.json", tmp);
	ck_assert_int_eq(json_object_to_file(rj, c), 0);
	ck_assert_int_eq(python_reads(rj), 0);
	report_release(&r);
	json_object_put(c);
	json_object_put(doc);
	pool_free(&p);
	rm_rf(tmp);
	strbuf_release(&reason);
	strbuf_release(&err);
	free(rj);
	free(cell);
	free(run);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("export");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, kcidb_real_cells);
	tcase_add_test(tc, kcidb_default_baseline);
	tcase_add_test(tc, kcidb_same_run_once);
	tcase_add_test(tc, kcidb_hostile_strings);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
