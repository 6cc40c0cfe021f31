// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel specs and the kernel builder's pieces that need no build:
 * loading the shipped specs and bad ones, the cache key, patch dry-run
 * messages and the config check.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "testdata.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/kallsyms.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

static char home[PATH_MAX]; /* the checkout: lab/kernels etc. */
static char tmp[PATH_MAX]; /* per-test scratch directory */

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	char *slash = strrchr(p, '/');

	*slash = '\0';
	mkdir_p(p, 0755);
	*slash = '/';
	ck_assert_int_eq(write_string_atomic(p, text), 0);
	free(p);
}

static char *tpath(const char *name)
{
	return xasprintf("%s/%s", tmp, name);
}

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/wblab-test-kernel.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	setenv("WBLAB_HOME", home, 1);
}

static void teardown(void)
{
	rm_rf(tmp);
	setenv("WBLAB_HOME", home, 1);
}

static int load_shipped(const char *name, struct kernel_spec *s,
			struct strbuf *err)
{
	char *p = xasprintf("%s/lab/kernels/%s.yaml", home, name);
	int ret = kernel_spec_load_err(p, name, s, err);

	free(p);
	return ret;
}

START_TEST(test_shipped_specs_load)
{
	struct strbuf err = STRBUF_INIT;
	struct kernel_spec s;

	ck_assert_msg(!load_shipped("6.1", &s, &err), "6.1: %s", err.buf);
	ck_assert_str_eq(s.source_package, "linux-source-6.1");
	ck_assert_str_eq(s.config_base, "defconfig");
	ck_assert_int_eq(s.fragments.n, 2);
	ck_assert_str_eq(s.fragments.v[0], "kvm_guest.config");
	ck_assert_str_eq(s.fragments.v[1], "wblab.config");
	ck_assert_int_eq(s.patches.n, 0);
	ck_assert_str_eq(s.localversion, "-wblab");
	ck_assert_ptr_null(s.base);
	kernel_spec_free(&s);

	ck_assert_msg(!load_shipped("6.1-direct-writeback", &s, &err), "%s",
		      err.buf);
	ck_assert_str_eq(s.base, "6.1");
	ck_assert_ptr_null(s.source_package);
	ck_assert_int_eq(s.patches.n, 1);
	ck_assert_str_eq(
		s.patches.v[0],
		"0001-mm-vmscan-let-direct-reclaim-write-file-folios.patch");
	ck_assert_str_eq(s.localversion, "-wblab-dw");
	kernel_spec_free(&s);

	/* 8 KiB stacks: a variant of 6.1, and the revert a variant of it. */
	ck_assert_msg(!load_shipped("6.1-8k", &s, &err), "%s", err.buf);
	ck_assert_str_eq(s.base, "6.1");
	ck_assert_int_eq(s.patches.n, 1);
	ck_assert_str_eq(s.patches.v[0], "0003-x86-64-8-KiB-task-stacks.patch");
	ck_assert_str_eq(s.localversion, "-wblab-8k");
	kernel_spec_free(&s);
	ck_assert_msg(!load_shipped("6.1-8k-direct-writeback", &s, &err), "%s",
		      err.buf);
	ck_assert_str_eq(s.base, "6.1-8k");
	ck_assert_int_eq(s.patches.n, 1);
	ck_assert_str_eq(
		s.patches.v[0],
		"0001-mm-vmscan-let-direct-reclaim-write-file-folios.patch");
	ck_assert_str_eq(s.localversion, "-wblab-8k-dw");
	kernel_spec_free(&s);

	ck_assert_msg(!load_shipped("6.1-seed-patch", &s, &err), "%s", err.buf);
	ck_assert_int_eq(s.patches.n, 1);
	ck_assert_str_eq(s.patches.v[0],
			 "seed-disallow-direct-reclaim-writeback.patch");
	kernel_spec_free(&s);

	/* Every shipped patch and lab fragment a spec names exists. */
	{
		const char *files[] = {
			"lab/configs/wblab.config",
			"lab/patches/0001-mm-vmscan-let-direct-reclaim-write-file-folios.patch",
			"lab/patches/seed-disallow-direct-reclaim-writeback.patch",
			"lab/patches/0003-x86-64-8-KiB-task-stacks.patch",
		};

		for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
			char *p = xasprintf("%s/%s", home, files[i]);

			ck_assert_msg(path_exists(p), "%s missing", p);
			free(p);
		}
	}
	/* kernel_spec_find resolves names under the wblab home. */
	ck_assert_int_eq(kernel_spec_find("6.1-direct-writeback", &s), 0);
	kernel_spec_free(&s);
	strbuf_release(&err);
}
END_TEST

/* Load a spec from text; return its error report (caller frees). */
static char *bad_spec(const char *name, const char *text, char **pathp)
{
	struct strbuf err = STRBUF_INIT;
	struct kernel_spec s;
	char *leaf = xasprintf("%s.yaml", name);
	char *p = tpath(leaf);

	put(tmp, leaf, text);
	ck_assert_int_eq(kernel_spec_load_err(p, name, &s, &err), -1);
	kernel_spec_free(&s);
	free(leaf);
	*pathp = p;
	return strbuf_detach(&err, NULL);
}

static void expect(const char *err, const char *path, int line,
		   const char *field, const char *words)
{
	char *want = xasprintf("%s:%d: %s: ", path, line, field);

	ck_assert_msg(strstr(err, want), "wanted '%s' in:\n%s", want, err);
	if (words)
		ck_assert_msg(strstr(err, words), "wanted '%s' in:\n%s", words,
			      err);
	free(want);
}

START_TEST(test_bad_specs)
{
	char *p, *err;

	err = bad_spec("typo",
		       "description: x\n"
		       "source:\n"
		       "  pakage: linux-source-6.1\n",
		       &p);
	expect(err, p, 3, "source.pakage", "unknown field");
	free(err);
	free(p);

	err = bad_spec("two-kinds",
		       "package: linux-image-6.1.0-57-amd64-unsigned\n"
		       "base: 6.1\n",
		       &p);
	expect(err, p, 1, "package", "exactly one of");
	free(err);
	free(p);

	/* A prebuilt's source: names the package it was built from. */
	err = bad_spec("prebuilt-git",
		       "package: linux-image-6.1.0-57-amd64-unsigned\n"
		       "source:\n"
		       "  git: /srv/linux\n",
		       &p);
	expect(err, p, 3, "source", "was built from");
	free(err);
	free(p);

	err = bad_spec("variant-source",
		       "base: 6.1\n"
		       "source:\n"
		       "  package: linux-source-6.1\n",
		       &p);
	expect(err, p, 1, "base", "drop source");
	free(err);
	free(p);

	err = bad_spec("lv",
		       "source:\n"
		       "  package: linux-source-6.1\n"
		       "localversion: -wblab dw\n",
		       &p);
	expect(err, p, 3, "localversion", "must be");
	free(err);
	free(p);

	err = bad_spec("patchlist",
		       "source:\n"
		       "  package: linux-source-6.1\n"
		       "patches:\n"
		       "  - one.patch\n"
		       "  - {file: two.patch}\n",
		       &p);
	expect(err, p, 5, "patches", "scalars");
	free(err);
	free(p);

	/* A variant of a prebuilt kernel (the shipped debian-6.1) rebuilds modules. */
	err = bad_spec("modvar-release",
		       "base: debian-6.1\n"
		       "patches:\n"
		       "  - 0005-md-bio_set-rescuer-6.1.patch\n"
		       "localversion: -x\n",
		       &p);
	expect(err, p, 4, "localversion", "keeps its release");
	free(err);
	free(p);

	err = bad_spec("modvar-nothing", "base: debian-6.1\n", &p);
	expect(err, p, 1, "base", "needs patches");
	free(err);
	free(p);

	err = bad_spec("prebuilt-patched",
		       "package: linux-image-6.1.0-57-amd64-unsigned\n"
		       "patches:\n"
		       "  - a.patch\n",
		       &p);
	expect(err, p, 1, "package", "no patches");
	free(err);
	free(p);
}
END_TEST

/*
 * A private wblab home with a git source (so the key does not depend on an
 * installed package), a fragment, a patch and a variant.
 */
static void make_home(void)
{
	const char *git_init[] = { "git", "init", "-q", NULL, NULL };
	char *repo = tpath("linux");
	struct strbuf out = STRBUF_INIT;

	put(tmp, "linux/Makefile", "VERSION = 6\n");
	git_init[3] = repo;
	ck_assert_int_eq(run_capture(git_init, &out, &out), 0);
	{
		const char *add[] = {
			"git", "-C", repo, "add", "Makefile", NULL
		};
		const char *ci[] = { "git",
				     "-C",
				     repo,
				     "-c",
				     "user.name=t",
				     "-c",
				     "user.email=t@t",
				     "commit",
				     "-q",
				     "-m",
				     "one",
				     NULL };

		ck_assert_int_eq(run_capture(add, &out, &out), 0);
		ck_assert_msg(run_capture(ci, &out, &out) == 0, "%s", out.buf);
	}
	{
		char *spec =
			xasprintf("source:\n  git: %s\n  ref: HEAD\n"
				  "config:\n  base: defconfig\n  fragments:\n"
				  "    - kvm_guest.config\n    - lab.config\n"
				  "localversion: -t\n",
				  repo);

		put(tmp, "lab/kernels/k.yaml", spec);
		free(spec);
	}
	put(tmp, "lab/kernels/k-dw.yaml",
	    "base: k\npatches:\n  - 0001-x.patch\n"
	    "localversion: -t-dw\n");
	put(tmp, "lab/configs/lab.config", "CONFIG_MD=y\n");
	put(tmp, "lab/patches/0001-x.patch",
	    "--- a/Makefile\n+++ b/Makefile\n");
	setenv("WBLAB_HOME", tmp, 1);
	strbuf_release(&out);
	free(repo);
}

static void key_of(const char *name, char *hex)
{
	struct kernel_spec s;

	ck_assert_int_eq(kernel_spec_find(name, &s), 0);
	ck_assert_int_eq(kernel_cache_key(&s, hex), 0);
	kernel_spec_free(&s);
}

START_TEST(test_cache_key)
{
	char k0[HASH_HEX_LEN + 1], k1[HASH_HEX_LEN + 1];
	char v0[HASH_HEX_LEN + 1], v1[HASH_HEX_LEN + 1];

	make_home();
	key_of("k", k0);
	key_of("k-dw", v0);
	/* Stable when nothing changes. */
	key_of("k", k1);
	ck_assert_str_eq(k0, k1);
	key_of("k-dw", v1);
	ck_assert_str_eq(v0, v1);
	ck_assert_str_ne(k0, v0);

	/* A patch edit changes the variant, not its base. */
	put(tmp, "lab/patches/0001-x.patch",
	    "--- a/Makefile\n+++ b/Makefile\n\n");
	key_of("k", k1);
	ck_assert_str_eq(k0, k1);
	key_of("k-dw", v1);
	ck_assert_str_ne(v0, v1);
	memcpy(v0, v1, sizeof(v0));

	/* A fragment edit changes the base and so the variant. */
	put(tmp, "lab/configs/lab.config", "CONFIG_MD=y\nCONFIG_XFS_FS=y\n");
	key_of("k", k1);
	ck_assert_str_ne(k0, k1);
	memcpy(k0, k1, sizeof(k0));
	key_of("k-dw", v1);
	ck_assert_str_ne(v0, v1);
	memcpy(v0, v1, sizeof(v0));

	/* localversion is part of the key. */
	put(tmp, "lab/kernels/k-dw.yaml",
	    "base: k\npatches:\n  - 0001-x.patch\n"
	    "localversion: -t-other\n");
	key_of("k-dw", v1);
	ck_assert_str_ne(v0, v1);
	key_of("k", k1);
	ck_assert_str_eq(k0, k1);

	/* A new commit in the source changes the key. */
	{
		char *repo = tpath("linux");
		const char *ci[] = { "git",
				     "-C",
				     repo,
				     "-c",
				     "user.name=t",
				     "-c",
				     "user.email=t@t",
				     "commit",
				     "-q",
				     "--allow-empty",
				     "-m",
				     "two",
				     NULL };
		struct strbuf out = STRBUF_INIT;

		ck_assert_int_eq(run_capture(ci, &out, &out), 0);
		key_of("k", k1);
		ck_assert_str_ne(k0, k1);
		strbuf_release(&out);
		free(repo);
	}

	/* A missing patch is an error naming it. */
	{
		struct kernel_spec s;
		char hex[HASH_HEX_LEN + 1];

		put(tmp, "lab/kernels/k-missing.yaml",
		    "base: k\npatches:\n  - nope.patch\n");
		ck_assert_int_eq(kernel_spec_find("k-missing", &s), 0);
		ck_assert_int_eq(kernel_cache_key(&s, hex), -1);
		kernel_spec_free(&s);
	}
}
END_TEST

/* A small tree and a patch whose second hunk does not apply. */
static void patch_files_of(const char *name, struct strvec *files)
{
	char *p = xasprintf("%s/lab/patches/%s", home, name);
	struct strbuf text = STRBUF_INIT;

	ck_assert_int_ge(strbuf_read_file(&text, p), 0);
	ck_assert_int_eq(kbuild_patch_files(text.buf, p, files), 0);
	strbuf_release(&text);
	free(p);
}

/* A module variant rebuilds the directories of the files a patch changes. */
START_TEST(test_patch_files)
{
	struct strvec files = STRVEC_INIT;

	/* Its message quotes file names and its diffstat has '---' lines. */
	patch_files_of("0004-virtio_net-refill_work-noio.patch", &files);
	ck_assert_uint_eq(files.nr, 1);
	ck_assert_str_eq(files.v[0], "drivers/net/virtio_net.c");
	patch_files_of("0006-md-bio_set-rescuer-6.12.patch", &files);
	ck_assert_uint_eq(files.nr, 2);
	ck_assert_str_eq(files.v[1], "drivers/md/md.c");
	/* A file both patches change is listed once. */
	patch_files_of("0004-virtio_net-refill_work-noio.patch", &files);
	ck_assert_uint_eq(files.nr, 2);
	strvec_clear(&files);

	ck_assert_int_eq(kbuild_patch_files("--- a/drivers/md/md.c\n"
					    "+++ /dev/null\n",
					    "del.patch", &files),
			 -1);
	ck_assert_int_eq(kbuild_patch_files("--- a/x.c\n+++ b/../x.c\n",
					    "up.patch", &files),
			 -1);
	ck_assert_int_eq(kbuild_patch_files("Subject: nothing\n", "empty.patch",
					    &files),
			 -1);
	strvec_clear(&files);
}
END_TEST

START_TEST(test_patch_check_names_hunk)
{
	char *tree = tpath("tree");
	char *good = tpath("good.patch");
	char *bad = tpath("bad.patch");
	struct strbuf msg = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;

	put(tree, "mm/vmscan.c", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n");
	put(tmp, "good.patch",
	    "--- a/mm/vmscan.c\n+++ b/mm/vmscan.c\n"
	    "@@ -1,3 +1,3 @@ first\n a\n-b\n+B\n c\n");
	put(tmp, "bad.patch",
	    "--- a/mm/vmscan.c\n+++ b/mm/vmscan.c\n"
	    "@@ -1,3 +1,3 @@ first\n a\n-b\n+B\n c\n"
	    "@@ -9,3 +9,3 @@ static int second(void)\n i\n-x\n+X\n k\n");
	ck_assert_int_eq(kbuild_patch_check(tree, good, &msg), 0);
	ck_assert_int_eq(msg.len, 0);
	ck_assert_int_eq(kbuild_patch_check(tree, bad, &msg), 1);
	ck_assert_msg(strstr(msg.buf,
			     "mm/vmscan.c: hunk #2 FAILED at line 9: "
			     "@@ -9,3 +9,3 @@ static int second(void)"),
		      "message: %s", msg.buf);
	ck_assert_msg(!strstr(msg.buf, "hunk #1"), "message: %s", msg.buf);
	/* A dry run changes nothing. */
	{
		char *f = xasprintf("%s/mm/vmscan.c", tree);

		ck_assert_int_ge(strbuf_read_file(&text, f), 0);
		ck_assert_str_eq(text.buf,
				 "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n");
		free(f);
	}
	strbuf_reset(&msg);
	ck_assert_int_eq(kbuild_patch_check(tree, "/nonexistent.patch", &msg),
			 -1);
	strbuf_release(&msg);
	strbuf_release(&text);
	free(tree);
	free(good);
	free(bad);
}
END_TEST

/*
 * The lab's 6.1 patches against the files they touch of Debian's
 * linux-source-6.1 (tests/data/linux-6.1/README.md): patch --dry-run
 * reads only those, so the check needs no unpacked tree.
 */
START_TEST(test_seed_patch_on_6_1)
{
	char *tree = testdata_path("linux-6.1");
	char *vmscan = testdata_path("linux-6.1/mm/vmscan.c");
	char *seed = xasprintf(
		"%s/lab/patches/seed-disallow-direct-reclaim-writeback.patch",
		home);
	char *dw = xasprintf(
		"%s/lab/patches/0001-mm-vmscan-let-direct-reclaim-write-file-folios.patch",
		home);
	char *k8 = xasprintf(
		"%s/lab/patches/0003-x86-64-8-KiB-task-stacks.patch", home);
	struct strbuf msg = STRBUF_INIT;

	ck_assert_msg(path_exists(vmscan), "%s: missing", vmscan);
	ck_assert_int_eq(kbuild_patch_check(tree, seed, &msg), 1);
	ck_assert_msg(
		strstr(msg.buf,
		       "mm/vmscan.c: hunk #1 FAILED at line 1826: "
		       "@@ -1826,10 +1826,8 @@ static unsigned long do_try_to_free_pages"),
		"message: %s", msg.buf);
	ck_assert_msg(strstr(msg.buf, "mm/vmscan.c: hunk #5 FAILED"),
		      "message: %s", msg.buf);
	strbuf_reset(&msg);
	ck_assert_msg(kbuild_patch_check(tree, dw, &msg) == 0,
		      "0001 does not apply: %s", msg.buf);
	strbuf_reset(&msg);
	ck_assert_msg(kbuild_patch_check(tree, k8, &msg) == 0,
		      "0003 does not apply: %s", msg.buf);
	strbuf_release(&msg);
	free(vmscan);
	free(tree);
	free(seed);
	free(dw);
	free(k8);
}
END_TEST

/*
 * THREAD_SIZE from a symbol table: __end_init_task - __start_init_task
 * on 6.1, __end_init_stack - __start_init_stack on 6.12
 * (tests/data/kallsyms/README.md: greps of the built kernels' System.map).
 */
START_TEST(test_thread_size)
{
	struct strbuf sb = STRBUF_INIT;

	testdata_read(&sb, "kallsyms/6.1-System.map.grep");
	ck_assert_int_eq(ksyms_thread_size(sb.buf, sb.len), 16384);
	/* One of the two symbols alone says nothing. */
	ck_assert_int_eq(ksyms_thread_size(sb.buf, strlen(sb.buf) / 2), 0);
	ck_assert_int_eq(ksyms_thread_size(NULL, 0), 0);
	/* 6.12 names them __start_init_stack/__end_init_stack. */
	strbuf_reset(&sb);
	testdata_read(&sb, "kallsyms/6.12-System.map.grep");
	ck_assert_int_eq(ksyms_thread_size(sb.buf, sb.len), 16384);
	strbuf_release(&sb);
}
END_TEST

START_TEST(test_config_verify)
{
	char *cfg = tpath("config");
	char *lab = tpath("lab.config");
	char *tree = tpath("tree.config");
	const char *frags[] = { tree, lab };
	const bool strict[] = { false, true };
	struct strbuf msg = STRBUF_INIT, warn = STRBUF_INIT;

	put(tmp, "config",
	    "CONFIG_MD=y\n"
	    "CONFIG_MD_RAID1=m\n"
	    "CONFIG_EXT4_FS=y\n"
	    "# CONFIG_XFS_FS is not set\n"
	    "CONFIG_LOCALVERSION=\"-wblab\"\n"
	    "CONFIG_NR_CPUS=64\n");
	put(tmp, "tree.config",
	    "CONFIG_S390_GUEST=y\n"
	    "CONFIG_EXT4_FS=m\n"
	    "CONFIG_XFS_FS=y\n");
	put(tmp, "lab.config",
	    "# comment\n"
	    "CONFIG_MD=y\n"
	    "CONFIG_MD_RAID1=y\n" /* module: dropped to m */
	    "CONFIG_XFS_FS=y\n" /* overrides the tree's */
	    "CONFIG_LOCALVERSION=\"-wblab\"\n"
	    "# CONFIG_DEBUG_INFO is not set\n"
	    "CONFIG_ISCSI_TARGET=y\n" /* absent */
	    "CONFIG_NR_CPUS=64\n");
	ck_assert_int_eq(
		kbuild_config_verify(cfg, frags, strict, 2, &msg, &warn), 3);
	ck_assert_msg(strstr(msg.buf, "CONFIG_MD_RAID1=y (") &&
			      strstr(msg.buf, "lab.config:3): .config has m"),
		      "%s", msg.buf);
	ck_assert_msg(strstr(msg.buf, "CONFIG_XFS_FS=y (") &&
			      strstr(msg.buf, "lab.config:4)"),
		      "%s", msg.buf);
	ck_assert_msg(strstr(msg.buf, "CONFIG_ISCSI_TARGET=y (") &&
			      strstr(msg.buf, "lab.config:7)"),
		      "%s", msg.buf);
	ck_assert_msg(!strstr(msg.buf, "CONFIG_MD=") &&
			      !strstr(msg.buf, "LOCALVERSION") &&
			      !strstr(msg.buf, "DEBUG_INFO") &&
			      !strstr(msg.buf, "NR_CPUS"),
		      "%s", msg.buf);
	/* The kernel's own fragment only warns; m asked and y given is fine. */
	ck_assert_msg(strstr(warn.buf, "CONFIG_S390_GUEST=y"), "%s", warn.buf);
	ck_assert_msg(!strstr(warn.buf, "EXT4"), "%s", warn.buf);
	strbuf_release(&msg);
	strbuf_release(&warn);
	free(cfg);
	free(lab);
	free(tree);
}
END_TEST

/* The shipped fragment asks only for what it can check: =y or strings. */
START_TEST(test_wblab_config_builtin)
{
	char *p = xasprintf("%s/lab/configs/wblab.config", home);
	struct strbuf sb = STRBUF_INIT;

	ck_assert_int_ge(strbuf_read_file(&sb, p), 0);
	ck_assert_msg(!strstr(sb.buf, "=m\n"),
		      "wblab.config must build everything in");
	ck_assert_msg(strstr(sb.buf, "CONFIG_ISCSI_TARGET=y") &&
			      strstr(sb.buf, "CONFIG_MD_RAID456=y") &&
			      strstr(sb.buf, "CONFIG_STACK_TRACER=y") &&
			      strstr(sb.buf, "CONFIG_XFS_FS=y"),
		      "wblab.config lacks a lab option");
	strbuf_release(&sb);
	free(p);
}
END_TEST

static Suite *kernel_suite(void)
{
	Suite *s = suite_create("kernel_spec");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_shipped_specs_load);
	tcase_add_test(tc, test_bad_specs);
	tcase_add_test(tc, test_cache_key);
	tcase_add_test(tc, test_patch_check_names_hunk);
	tcase_add_test(tc, test_patch_files);
	tcase_add_test(tc, test_seed_patch_on_6_1);
	tcase_add_test(tc, test_config_verify);
	tcase_add_test(tc, test_thread_size);
	tcase_add_test(tc, test_wblab_config_builtin);
	suite_add_tcase(s, tc);
	return s;
}

/* The checkout: $WBLAB_HOME, the current directory, or two up from argv[0]. */
static void find_home(const char *argv0)
{
	const char *env = getenv("WBLAB_HOME");
	char *p;

	if (env && *env) {
		snprintf(home, sizeof(home), "%s", env);
		return;
	}
	if (path_exists("lab/kernels/6.1.yaml") && getcwd(home, sizeof(home)))
		return;
	if (realpath(argv0, home)) {
		for (int i = 0; i < 3 && (p = strrchr(home, '/')); i++)
			*p = '\0';
	}
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	find_home(argv[0]);
	sr = srunner_create(kernel_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
