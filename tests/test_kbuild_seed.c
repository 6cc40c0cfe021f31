// SPDX-License-Identifier: GPL-2.0
/*
 * A git tree's first build starting from a built kernel's object tree
 * (artifact/kbuild-seed.c), on small trees made here: only files whose
 * bytes are the seed source's take its mtime, .git and obj/ are left
 * alone, git's index records the moved mtimes (else the next checkout -f
 * rewrites every file: a full rebuild), the O= tree is copied with its
 * absolute tools/ paths pointed at the new tree, and nothing happens
 * without a built seed or with an O= tree already there.
 */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

static char tmp[] = "/tmp/wblab-test-seed.XXXXXX";
static char *seed, *tree;
#define OLD 1577836800 /* 2020-01-01: the seed source's mtime */

static void put(const char *dir, const char *name, const char *text, bool old)
{
	char *p = xasprintf("%s/%s", dir, name);
	char *d = xstrdup(p);

	*strrchr(d, '/') = 0;
	ck_assert_int_eq(mkdir_p(d, 0755), 0);
	ck_assert_int_eq(write_string_atomic(p, text), 0);
	if (old) {
		struct timespec ts[2] = { { OLD, 0 }, { OLD, 0 } };

		ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	}
	free(d);
	free(p);
}

static int git(const char *const *args)
{
	const char *env[] = { "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
			      "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
			      NULL };
	struct run_opts o = { .dir = tree, .env = env, .quiet = 1 };

	return run_argv(args, &o);
}

static time_t mtime(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct stat st;

	ck_assert_int_eq(stat(p, &st), 0);
	free(p);
	return st.st_mtime;
}

static void setup(void)
{
	char *cache;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	cache = xasprintf("%s/cache", tmp);
	ck_assert_int_eq(setenv("WBLAB_CACHE", cache, 1), 0);
	seed = xasprintf("%s/build/seedk/linux", cache);
	tree = xasprintf("%s/build/tree-t/linux", cache);
	put(seed, "a.c", "int a;\n", true);
	put(seed, "b.c", "int b;\n", true);
	put(seed, "mm/d.h", "#define D 1\n", true);
	put(seed, "obj/vmlinux", "ELF", false);
	put(seed, "obj/a.o", "obj", false);
	{
		char *cmd = xasprintf("cmd := gcc -I%s/tools/include\n", seed);

		put(seed, "obj/tools/objtool/.x.o.cmd", cmd, false);
		free(cmd);
	}
	put(tree, "a.c", "int a;\n", false);
	put(tree, "b.c", "int c;\n", false); /* same size, other bytes */
	put(tree, "mm/d.h", "#define D 1\n", false);
	put(tree, "e.c", "int e;\n", false); /* only in the tree */
	{
		const char *init[] = { "git", "init", "-q", NULL };
		const char *add[] = { "git", "add", ".", NULL };
		const char *ci[] = { "git", "commit", "-q", "-m", "t", NULL };
		struct strbuf d = STRBUF_INIT;
		char *p = xasprintf("%s/.git/description", tree);

		ck_assert_int_eq(git(init), 0);
		ck_assert_int_eq(git(add), 0);
		ck_assert_int_eq(git(ci), 0);
		/* the same bytes in the seed: .git is skipped all the same */
		ck_assert_int_ge(strbuf_read_file(&d, p), 0);
		put(seed, ".git/description", d.buf, true);
		strbuf_release(&d);
		free(p);
	}
	free(cache);
}

static void teardown(void)
{
	rm_rf(tmp);
	free(seed);
	free(tree);
}

static void kb_for(struct kb *k, struct kernel_spec *s, const char *seedk)
{
	memset(k, 0, sizeof(*k));
	memset(s, 0, sizeof(*s));
	s->name = "git-0123456789ab";
	k->s = s;
	k->seed = seedk ? xstrdup(seedk) : NULL;
	k->srctree = xstrdup(tree);
	k->obj = xasprintf("%s/obj", tree);
	k->log = xasprintf("%s/build.log", tmp);
}

static void kb_done(struct kb *k)
{
	free(k->seed);
	free(k->srctree);
	free(k->obj);
	free(k->log);
}

START_TEST(same_bytes_take_the_seed_mtime)
{
	struct kernel_spec s;
	struct kb k;
	struct strbuf cmd = STRBUF_INIT;
	char *p;

	kb_for(&k, &s, "seedk");
	ck_assert_int_eq(kb_seed_git_tree(&k), 0);
	ck_assert_int_eq(mtime(tree, "a.c"), OLD);
	ck_assert_int_eq(mtime(tree, "mm/d.h"), OLD);
	ck_assert_int_gt(mtime(tree, "b.c"), OLD);
	ck_assert_int_gt(mtime(tree, "e.c"), OLD);
	ck_assert_int_gt(mtime(tree, ".git/description"), OLD);
	ck_assert_int_eq(mtime(tree, "obj/a.o"), mtime(seed, "obj/a.o"));
	p = xasprintf("%s/obj/tools/objtool/.x.o.cmd", tree);
	ck_assert_int_ge(strbuf_read_file(&cmd, p), 0);
	ck_assert_ptr_nonnull(strstr(cmd.buf, tree));
	ck_assert_ptr_null(strstr(cmd.buf, seed));
	strbuf_release(&cmd);
	free(p);
	{
		/* the index's stat data is fresh: no file looks changed */
		const char *df[] = { "git",	   "-C",	  tree,
				     "diff-files", "--name-only", NULL };
		struct strbuf out = STRBUF_INIT;

		ck_assert_int_eq(run_capture(df, &out, NULL), 0);
		ck_assert_str_eq(out.buf, "");
		strbuf_release(&out);
	}
	kb_done(&k);
}
END_TEST

START_TEST(no_seed_no_copy)
{
	struct kernel_spec s;
	struct kb k;
	char *v = xasprintf("%s/obj/vmlinux", seed), *o;

	/* no seed named: nothing done */
	kb_for(&k, &s, NULL);
	ck_assert_int_eq(kb_seed_git_tree(&k), 0);
	ck_assert(!path_exists(k.obj));
	kb_done(&k);
	/* a seed never built (no vmlinux): built from scratch */
	ck_assert_int_eq(unlink(v), 0);
	kb_for(&k, &s, "seedk");
	ck_assert_int_eq(kb_seed_git_tree(&k), 0);
	ck_assert(!path_exists(k.obj));
	ck_assert_int_gt(mtime(tree, "a.c"), OLD);
	kb_done(&k);
	/* an O= tree already there is the tree's own: kept as it is */
	put(seed, "obj/vmlinux", "ELF", false);
	put(tree, "obj/mine.o", "mine", false);
	kb_for(&k, &s, "seedk");
	ck_assert_int_eq(kb_seed_git_tree(&k), 0);
	o = xasprintf("%s/a.o", k.obj);
	ck_assert(!path_exists(o));
	ck_assert_int_gt(mtime(tree, "a.c"), OLD);
	kb_done(&k);
	free(o);
	free(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kbuild_seed");
	TCase *tc = tcase_create("kbuild_seed");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, same_bytes_take_the_seed_mtime);
	tcase_add_test(tc, no_seed_no_copy);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
