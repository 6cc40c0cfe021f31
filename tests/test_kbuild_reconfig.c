// SPDX-License-Identifier: GPL-2.0
/*
 * The configure step skipped when nothing it reads changed
 * (src/artifact/kbuild-reconfig.c): which patches touch Kconfig's inputs
 * (the lab's patches and real diffs of mm/Kconfig and x86_64_defconfig),
 * the inputs' digest, and the stamp that lets a copied O= tree keep its
 * .config with only the localversion rewritten.
 */
#include <check.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/kbuild-int.h"
#include "testdata.h"
#include "spec/spec.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/run.h"
#include "util/str.h"
#include "util/strbuf.h"

START_TEST(lab_patches_leave_kconfig_alone)
{
	char *pat = xasprintf("%s/lab/patches/*.patch", testdata_home());
	glob_t g;

	ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 9);
	for (size_t i = 0; i < g.gl_pathc; i++)
		ck_assert_msg(kb_patch_touches_kconfig(g.gl_pathv[i]) == 0,
			      "%s", g.gl_pathv[i]);
	globfree(&g);
	free(pat);
}
END_TEST

START_TEST(kconfig_diffs_are_inputs)
{
	const char *names[] = { "kbuild/mm-Kconfig-7.2-to-7.3.diff",
				"kbuild/x86_64_defconfig-6.1-to-7.2.diff" };

	for (size_t i = 0; i < 2; i++) {
		char *p = testdata_path("%s", names[i]);

		ck_assert_int_eq(kb_patch_touches_kconfig(p), 1);
		free(p);
	}
	ck_assert_int_eq(kb_patch_touches_kconfig("/nonexistent/x.patch"), -1);
}
END_TEST

struct fixture {
	char dir[64];
	struct kb k;
	char *frags[2];
	char *patches[3];
};

/* A kb with the lab's wblab.config and a copy of wblab-lru-gen.config. */
static void fixture_init(struct fixture *f)
{
	char *lru = xasprintf("%s/lab/configs/wblab-lru-gen.config",
			      testdata_home());
	struct strbuf sb = STRBUF_INIT;

	memset(f, 0, sizeof(*f));
	strcpy(f->dir, "/tmp/wblab-reconfig.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	f->frags[0] = xasprintf("%s/lab/configs/wblab.config", testdata_home());
	f->frags[1] = xasprintf("%s/lru.config", f->dir);
	ck_assert_int_ge(strbuf_read_file(&sb, lru), 0);
	ck_assert_int_eq(write_string_atomic(f->frags[1], sb.buf), 0);
	f->k.plan.config_base = "defconfig";
	spec_strlist_add(&f->k.plan.fragments, "wblab.config");
	spec_strlist_add(&f->k.plan.fragments, "wblab-lru-gen.config");
	f->k.plan.localversion = "-wblab-resc";
	f->k.obj = f->dir;
	f->k.patch_paths = f->patches;
	strbuf_release(&sb);
	free(lru);
}

static void fixture_fini(struct fixture *f)
{
	char *cmd[] = { "rm", "-rf", "--", f->dir, NULL };

	run_argv((const char *const *)cmd, NULL);
	for (size_t i = 0; i < 2; i++)
		free(f->frags[i]);
	for (size_t i = 0; f->patches[i]; i++)
		free(f->patches[i]);
	spec_strlist_free(&f->k.plan.fragments);
}

static void digest(struct fixture *f, char *hex)
{
	ck_assert_int_eq(kb_config_digest(&f->k, (const char *const *)f->frags,
					  2, hex),
			 0);
}

START_TEST(digest_follows_what_configure_reads)
{
	struct fixture f;
	char a[HASH_HEX_LEN + 1], b[HASH_HEX_LEN + 1];

	fixture_init(&f);
	digest(&f, a);
	digest(&f, b);
	ck_assert_str_eq(a, b);
	/* a patch of drivers/md/md.c: configure would read the same */
	f.patches[0] =
		xasprintf("%s/lab/patches/0008-md-bio_set-rescuer-7.2.patch",
			  testdata_home());
	digest(&f, b);
	ck_assert_str_eq(a, b);
	/* a patch of mm/Kconfig: it would not */
	f.patches[1] = testdata_path("kbuild/mm-Kconfig-7.2-to-7.3.diff");
	digest(&f, b);
	ck_assert_str_ne(a, b);
	free(f.patches[1]);
	f.patches[1] = NULL;
	/* one line more in a fragment */
	{
		struct strbuf sb = STRBUF_INIT;

		ck_assert_int_ge(strbuf_read_file(&sb, f.frags[1]), 0);
		strbuf_addstr(&sb, "CONFIG_LRU_GEN_STATS=y\n");
		ck_assert_int_eq(write_string_atomic(f.frags[1], sb.buf), 0);
		strbuf_release(&sb);
	}
	digest(&f, b);
	ck_assert_str_ne(a, b);
	fixture_fini(&f);
}
END_TEST

START_TEST(stamp_keeps_config_and_sets_localversion)
{
	struct fixture f;
	char hex[HASH_HEX_LEN + 1], *config, *stamp;
	struct strbuf sb = STRBUF_INIT;

	fixture_init(&f);
	config = xasprintf("%s/.config", f.dir);
	stamp = xasprintf("%s/.wblab-config-inputs", f.dir);
	ck_assert_int_eq(
		write_string_atomic(config,
				    "CONFIG_MD=y\n"
				    "CONFIG_LOCALVERSION=\"-wblab\"\n"
				    "# CONFIG_LOCALVERSION_AUTO is not set\n"),
		0);
	digest(&f, hex);
	/* never configured here: no reuse */
	ck_assert(!kb_config_reuse(&f.k, hex));
	ck_assert_int_eq(kb_config_record(&f.k, hex), 0);
	ck_assert(kb_config_reuse(&f.k, hex));
	ck_assert_int_ge(strbuf_read_file(&sb, config), 0);
	ck_assert_str_eq(sb.buf, "CONFIG_MD=y\n"
				 "CONFIG_LOCALVERSION=\"-wblab-resc\"\n"
				 "# CONFIG_LOCALVERSION_AUTO is not set\n");
	/* other inputs: no reuse, and the stale stamp is gone */
	hex[0] = hex[0] == '0' ? '1' : '0';
	ck_assert(!kb_config_reuse(&f.k, hex));
	ck_assert(!path_exists(stamp));
	strbuf_release(&sb);
	free(config);
	free(stamp);
	fixture_fini(&f);
}
END_TEST

Suite *reconfig_suite(void)
{
	Suite *s = suite_create("kbuild-reconfig");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, lab_patches_leave_kconfig_alone);
	tcase_add_test(tc, kconfig_diffs_are_inputs);
	tcase_add_test(tc, digest_follows_what_configure_reads);
	tcase_add_test(tc, stamp_keeps_config_and_sets_localversion);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reconfig_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
