// SPDX-License-Identifier: GPL-2.0
/*
 * The jobs' pieces that need no guest: git trees (resolve, range, mbox
 * split, subjects) on a small repository made here with git, kernels made
 * in code (handed to the engine by jobrun), the build failure record, and the
 * nights' database and trend on an in-memory SQLite database.
 */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/kbuild-int.h"
#include "cmd/cmds.h"
#include "jobs/bisect.h"
#include "jobs/history.h"
#include "jobs/jobrun.h"
#include "jobs/nightly.h"
#include "jobs/tree.h"
#include "report/report.h"
#include "results/db.h"
#include "spec/specs.h"
#include "testdata.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

static char tmp[] = "/tmp/wblab-test-jobs.XXXXXX";

static void sh_git(const char *const *args)
{
	const char *env[] = { "GIT_AUTHOR_NAME=t",
			      "GIT_AUTHOR_EMAIL=t@t",
			      "GIT_COMMITTER_NAME=t",
			      "GIT_COMMITTER_EMAIL=t@t",
			      "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
			      "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
			      NULL };
	struct run_opts o = { .dir = tmp, .env = env, .quiet = 1 };

	ck_assert_int_eq(run_argv(args, &o), 0);
}

static void commit_file(const char *name, const char *text, const char *msg)
{
	char *p = xasprintf("%s/%s", tmp, name);
	const char *add[] = { "git", "add", name, NULL };
	const char *ci[] = { "git", "commit", "-q", "-m", msg, NULL };

	ck_assert_int_eq(write_string_atomic(p, text), 0);
	sh_git(add);
	sh_git(ci);
	free(p);
}

static void setup(void)
{
	const char *init[] = { "git", "init", "-q", NULL };

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	sh_git(init);
	commit_file("a.c", "int a;\n", "base");
	commit_file("a.c", "int a;\nint b;\n", "two");
	commit_file("a.c", "int a;\nint b;\nint c;\n", "mm: three");
}

static void teardown(void)
{
	rm_rf(tmp);
}

START_TEST(resolve_and_range)
{
	char c[41], subject[64];
	struct strvec r = STRVEC_INIT;

	ck_assert_int_eq(tree_resolve(tmp, "HEAD", c, subject, sizeof(subject)),
			 0);
	ck_assert_int_eq(strlen(c), 40);
	ck_assert_str_eq(subject, "mm: three");
	ck_assert_int_ne(tree_resolve(tmp, "no-such-ref", c, NULL, 0), 0);
	ck_assert_int_eq(tree_range(tmp, "HEAD~2", "HEAD", &r), 0);
	ck_assert_int_eq(r.nr, 2);
	/* oldest first; the last is the bad end */
	ck_assert_str_eq(r.v[1], c);
	strvec_clear(&r);
}
END_TEST

/*
 * A revision from the command line (bisect's --good, validate's --base)
 * that looks like an option reaches git after --end-of-options: rev-list
 * took "--output=FILE..HEAD" as an option and wrote FILE..HEAD (#20).
 */
START_TEST(revs_are_not_options)
{
	char *out = xasprintf("%s/pwn", tmp),
	     *made = xasprintf("%s..HEAD", out);
	char *good = xasprintf("--output=%s", out), c[41];
	struct strvec r = STRVEC_INIT;

	ck_assert_int_ne(tree_range(tmp, good, "HEAD", &r), 0);
	ck_assert_msg(!path_exists(made), "git wrote %s", made);
	ck_assert_int_ne(tree_resolve(tmp, good, c, NULL, 0), 0);
	ck_assert(!path_exists(out));
	strvec_clear(&r);
	free(good);
	free(made);
	free(out);
}
END_TEST

START_TEST(mbox_and_subjects)
{
	const char *fp[] = { "git",	 "format-patch", "-q",
			     "--stdout", "HEAD~2",	 NULL };
	struct strbuf mbox = STRBUF_INIT;
	struct run_opts o = { .dir = tmp, .out = &mbox };
	struct strvec parts = STRVEC_INIT;
	char *mpath = xasprintf("%s/series.mbox", tmp);
	char *dir = xasprintf("%s/split", tmp);
	char *seed = xasprintf(
		"%s/lab/patches/seed-disallow-direct-reclaim-writeback.patch",
		getenv("WBLAB_HOME"));
	char *s;

	ck_assert_int_eq(run_argv(fp, &o), 0);
	ck_assert_int_eq(write_string_atomic(mpath, mbox.buf), 0);
	ck_assert_int_eq(tree_mbox_split(mpath, dir, &parts), 0);
	ck_assert_int_eq(parts.nr, 2);
	s = tree_patch_subject(parts.v[0]);
	ck_assert_str_eq(s, "two");
	free(s);
	s = tree_patch_subject(parts.v[1]);
	ck_assert_str_eq(s, "mm: three");
	free(s);
	/* The seed's Subject has a UTF-8 no-break space before "[PATCH]". */
	s = tree_patch_subject(seed);
	ck_assert_str_eq(s, "mm: disallow direct reclaim page writeback");
	free(s);
	ck_assert_int_ne(tree_mbox_split("/dev/null", dir, &parts), 0);
	strvec_clear(&parts);
	strbuf_release(&mbox);
	free(mpath);
	free(dir);
	free(seed);
}
END_TEST

/*
 * One parser of a patch's headers (util/mailhdr.h): git format-patch folds
 * a long Subject onto a continuation line, which the tree's subject and
 * the report's both cut at the fold before; the seed's no-break space
 * before "[PATCH]" kept the tag in the report's.
 */
START_TEST(patch_subject_one_parser)
{
	static const char folded[] =
		"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
		"From: A Developer <a@example.org>\n"
		"Date: Mon, 7 Dec 2026 10:00:00 +0000\n"
		"Subject: [PATCH v2 3/7] mm: vmscan: a subject long enough that git\n"
		" format-patch folds it onto a second line\n"
		"\n"
		"Subject: not a header, the body\n"
		"---\n";
	const char *want = "mm: vmscan: a subject long enough that git "
			   "format-patch folds it onto a second line";
	char *path = xasprintf("%s/folded.patch", tmp), *s;
	struct strvec rs = STRVEC_INIT;

	ck_assert_int_eq(write_string_atomic(path, folded), 0);
	s = tree_patch_subject(path);
	ck_assert_str_eq(s, want);
	free(s);
	rpt_patch_subjects(path, &rs);
	rpt_patch_subjects("seed-disallow-direct-reclaim-writeback.patch", &rs);
	ck_assert_uint_eq(rs.nr, 2);
	ck_assert_str_eq(rs.v[0], want);
	ck_assert_str_eq(rs.v[1], "mm: disallow direct reclaim page writeback");
	strvec_clear(&rs);
	unlink(path);
	free(path);
}
END_TEST

/*
 * A kernel made in code goes to the engine with the job's runs
 * (matrix_opts.kernels), not through a process-wide registry: lab/kernels
 * never sees it.
 */
START_TEST(made_kernels)
{
	struct kernel_spec s = { 0 }, got;
	struct jobrun j = { .pool = POOL_INIT };

	s.name = xstrdup("git-0123456789ab");
	s.source_git = xstrdup(tmp);
	s.source_ref = xstrdup("HEAD");
	s.tree = xstrdup("tree-x");
	spec_strlist_add(&s.patches, "/p/one.patch");
	ck_assert_int_eq(jobrun_add_kernel(&j, &s), 0);
	ck_assert_int_eq(jobrun_add_kernel(&j, &s), 0); /* replaced */
	ck_assert_uint_eq(j.mo.nr_kernels, 1);
	ck_assert_ptr_eq(j.mo.kernels, j.kernels);
	ck_assert_str_eq(j.mo.kernels[0].source_git, tmp);
	ck_assert_str_eq(j.mo.kernels[0].tree, "tree-x");
	ck_assert_int_eq(j.mo.kernels[0].patches.n, 1);
	ck_assert_int_ne(kernel_spec_find("git-0123456789ab", &got), 0);
	kernel_spec_free(&got);
	/* '_' separates the parts of a cell id: not in a kernel name */
	free(s.name);
	s.name = xstrdup("bad_name");
	ck_assert_int_ne(jobrun_add_kernel(&j, &s), 0);
	ck_assert_uint_eq(j.mo.nr_kernels, 1);
	kernel_spec_free(&s);
	jobrun_free(&j);
}
END_TEST

START_TEST(failure_record)
{
	kb_fail_reset();
	ck_assert_int_eq(kbuild_last_failure()->kind, KBUILD_OK);
	kb_fail(KBUILD_PATCH, "/p/x.patch", "mm/vmscan.c: hunk #%d FAILED", 1);
	/* the caller's summary does not overwrite the cause */
	kb_fail(KBUILD_INFRA, NULL, "the build failed");
	ck_assert_int_eq(kbuild_last_failure()->kind, KBUILD_PATCH);
	ck_assert_str_eq(kbuild_last_failure()->patch, "/p/x.patch");
	ck_assert_str_eq(kbuild_last_failure()->msg,
			 "mm/vmscan.c: hunk #1 FAILED");
	ck_assert_str_eq(kbuild_fail_name(KBUILD_COMPILE), "compile");
}
END_TEST

START_TEST(nights)
{
	sqlite3 *db;
	long long id;
	char *run = NULL, *commit = NULL, *kernel = NULL;
	double means[8];
	char trend[64];
	const double up[] = { 100, 102, 104, 106 };

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(resdb_schema(db), 0);
	ck_assert_int_eq(history_last_good(db, "mm", NULL, NULL, &run, &commit,
					   &kernel),
			 1);
	for (int i = 0; i < 4; i++) {
		char c[8];

		snprintf(c, sizeof(c), "c%d", i);
		ck_assert_int_eq(
			history_add_night(db, "mm", c, "s", "k", "t", c,
					  i == 3 ? "regression" : "good", &id),
			0);
		ck_assert_int_eq(
			history_add_metric(db, id, "g", "m", 3, up[i], 1), 0);
	}
	ck_assert_int_eq(history_last_good(db, "mm", NULL, NULL, &run, &commit,
					   &kernel),
			 0);
	ck_assert_str_eq(commit, "c2");
	ck_assert_int_eq(history_means(db, "mm", "g", "m", 8, means), 4);
	ck_assert_double_eq(means[0], 100);
	ck_assert_double_eq(means[3], 106);
	/* slope 2 per night on a mean of 103: +1.9% a night */
	history_trend(means, 4, trend, sizeof(trend));
	ck_assert_str_eq(trend, "+1.9%/night over 4 nights");
	history_trend(means, 2, trend, sizeof(trend));
	ck_assert_str_eq(trend, "- (2 nights)");
	free(run);
	free(commit);
	free(kernel);
	sqlite3_close(db);
}
END_TEST

/*
 * Nights recorded under cell.json keys before the metric registry go on
 * under the registry's names, in its units (fio's KiB/s become MiB/s), the
 * next time the database is opened; names it does not know stay.
 */
START_TEST(nights_renamed)
{
	sqlite3 *db;
	long long id;
	double means[8];

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(resdb_schema(db), 0);
	ck_assert_int_eq(history_add_night(db, "mm", "c0", "s", "k", "t", "c0",
					   "good", &id),
			 0);
	ck_assert_int_eq(history_add_metric(db, id, "g",
					    "vmscan_write_file_direct", 3, 7,
					    1),
			 0);
	ck_assert_int_eq(history_add_metric(db, id, "g",
					    "metrics.fio.0.write.bw_kib_s", 3,
					    2048, 512),
			 0);
	ck_assert_int_eq(history_add_metric(db, id, "g", "m", 3, 5, 1), 0);
	ck_assert_int_eq(resdb_schema(db), 0);
	ck_assert_int_eq(
		history_means(db, "mm", "g", "reclaim-wr-direct", 8, means), 1);
	ck_assert_double_eq(means[0], 7);
	ck_assert_int_eq(history_means(db, "mm", "g", "fio-write", 8, means),
			 1);
	ck_assert_double_eq(means[0], 2);
	ck_assert_int_eq(history_means(db, "mm", "g",
				       "vmscan_write_file_direct", 8, means),
			 0);
	ck_assert_int_eq(history_means(db, "mm", "g", "m", 8, means), 1);
	sqlite3_close(db);
}
END_TEST

/*
 * A nightly spec's tree url and ref reach git: a value that git would take
 * as an option (--upload-pack=CMD ran CMD as root) fails when the spec is
 * read, naming file, line and field, and nothing is run.
 */
static void nightly_rejects(const char *tree_yaml, const char *mail_yaml,
			    const char *want)
{
	char *path = xasprintf("%s/nightly.yaml", tmp);
	char *text = xasprintf("matrix: m.yaml\n"
			       "trees:\n"
			       "  - name: t\n"
			       "%s"
			       "mail:\n"
			       "  to: a@b\n"
			       "%s",
			       tree_yaml, mail_yaml);
	struct strbuf err = STRBUF_INIT;
	struct nightly_spec s;

	ck_assert_int_eq(write_string_atomic(path, text), 0);
	ck_assert_int_eq(nightly_spec_load(path, &s, &err), -1);
	ck_assert_msg(strstr(err.buf, want), "'%s' not in '%s'", want, err.buf);
	ck_assert_msg(strstr(err.buf, path), "no file name in '%s'", err.buf);
	nightly_spec_free(&s);
	strbuf_release(&err);
	free(text);
	free(path);
}

START_TEST(nightly_spec_values)
{
	char *marker = xasprintf("%s/pwned", tmp);
	char *evil = xasprintf(
		"    path: /x\n    url: --upload-pack=touch %s\n", marker);
	char *evil_ref = xasprintf("    path: /x\n    url: /y\n"
				   "    ref: --upload-pack=touch %s\n",
				   marker);

	nightly_rejects(evil, "", ":5: trees[0].url:");
	nightly_rejects(evil_ref, "", ":6: trees[0].ref:");
	nightly_rejects("    path: /x\n    url: ext::sh -c touch% /tmp/x\n", "",
			"trees[0].url:");
	nightly_rejects("    path: /x\n    ref: a/../b\n", "", "trees[0].ref:");
	nightly_rejects("    path: --work-tree=/\n", "", "trees[0].path:");
	nightly_rejects("    path: /x\n", "  sendmail: [sendmail, -t]\n",
			"mail.sendmail");
	ck_assert(!path_exists(marker));
	free(marker);
	free(evil);
	free(evil_ref);
}
END_TEST

START_TEST(pick)
{
	bool none[17] = { false }, some[17] = { false };
	long lo = -1, hi = 15, steps = 0;
	const long first_bad = 10;

	/* 16 commits after good, the 11th (index 10) first bad: 4 steps */
	while (hi - lo > 1) {
		long m = bisect_pick(none, lo, hi);

		ck_assert(m > lo && m < hi);
		if (m >= first_bad)
			hi = m;
		else
			lo = m;
		steps++;
	}
	ck_assert_int_eq(hi, first_bad);
	ck_assert_int_eq(steps, 4);
	/* skipped commits are stepped around, nearest first */
	some[7] = true;
	ck_assert_int_eq(bisect_pick(some, -1, 15), 8);
	some[8] = some[6] = true;
	ck_assert_int_eq(bisect_pick(some, -1, 15), 9);
	/* nothing left between the ends */
	ck_assert_int_eq(bisect_pick(some, 5, 9), -1);
	ck_assert_int_eq(bisect_pick(none, 3, 4), -1);
}
END_TEST

/*
 * git bisect run exports the bisected worktree's GIT_DIR to the step:
 * bisect-step drops it (and the other variables that pick a repository)
 * before any git it runs, or its kernel build's own clone is checked out
 * through the worktree's index (on the e2e of 2026-12-05 06:30, a sparse
 * worktree left the build clone with its top-level files only, and the
 * step a skip). Bad usage aborts (128) after that, as git bisect run
 * wants.
 */
START_TEST(bisect_step_forgets_git_dir)
{
	char *argv[] = { "bisect-step", "--no-such-option", NULL };
	struct strbuf err = STRBUF_INIT;
	int r;

	ck_assert_int_eq(setenv("GIT_DIR", "/nonexistent/.git/worktrees/wt", 1),
			 0);
	ck_assert_int_eq(setenv("GIT_INDEX_FILE", "/nonexistent/index", 1), 0);
	stderr_begin();
	r = cmd_bisect_step(2, argv);
	stderr_end(&err);
	ck_assert_int_eq(r, 128);
	ck_assert_ptr_null(getenv("GIT_DIR"));
	ck_assert_ptr_null(getenv("GIT_INDEX_FILE"));
	strbuf_release(&err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jobs");
	TCase *tc = tcase_create("jobs");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, resolve_and_range);
	tcase_add_test(tc, revs_are_not_options);
	tcase_add_test(tc, mbox_and_subjects);
	tcase_add_test(tc, patch_subject_one_parser);
	tcase_add_test(tc, made_kernels);
	tcase_add_test(tc, failure_record);
	tcase_add_test(tc, nights);
	tcase_add_test(tc, nights_renamed);
	tcase_add_test(tc, pick);
	tcase_add_test(tc, nightly_spec_values);
	tcase_add_test(tc, bisect_step_forgets_git_dir);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
