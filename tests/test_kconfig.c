// SPDX-License-Identifier: GPL-2.0
/*
 * A user's kernel configuration (run --tree --config FILE, --config-fragment
 * FILE, and validate/bisect/nightly's): the merge logic against the lab's
 * fragments, on real data. tests/data/kconfig/ holds Debian's 6.1.0-57
 * .config (the distro config a user would start from: its virtio, md and
 * filesystems are modules), the .config the lab built for its 6.1
 * (defconfig + kvm_guest.config + wblab.config: everything holds), and
 * linux 7.2's kernel/configs/debug.config (KASAN, lockdep, debugfs). The
 * expected counts were computed apart from this code (a Python reading of
 * the same files: 161 of wblab.config's requests do not hold in Debian's
 * .config, 0 in the lab's, and debug.config asks nothing the lab forbids).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "jobs/tree.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strbuf.h"

#include "testdata.h"

static char tmpdir[] = "/tmp/wblab-kconfig-XXXXXX";

/* tests/data/kconfig/NAME.gz decompressed into the test's directory. */
static char *unpacked(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/%s", tmpdir, name);

	testdata_gunzip(&sb, "kconfig/%s.gz", name);
	ck_assert(sb.len > 10000);
	ck_assert_int_eq(write_file_atomic(path, sb.buf, sb.len, 0644), 0);
	strbuf_release(&sb);
	return path;
}

static char *write_tmp(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);

	ck_assert_int_eq(write_string_atomic(path, text), 0);
	return path;
}

static char *lab_fragment(const char *name)
{
	return xasprintf("%s/lab/configs/%s", testdata_home(), name);
}

/* Debian's .config under wblab.config: every change named, with file:line. */
START_TEST(debian_config_overridden)
{
	char *cfg = unpacked("debian-6.1.config");
	char *lab = lab_fragment("wblab.config");
	const char *frags[] = { lab };
	struct strbuf msg = STRBUF_INIT;
	char *want;

	ck_assert_int_eq(kbuild_config_overrides(cfg, frags, 1, &msg), 161);
	want = xasprintf("CONFIG_VIRTIO_BLK: m in %s, y by %s:11\n", cfg, lab);
	ck_assert_msg(strstr(msg.buf, want), "%s", msg.buf);
	free(want);
	/* wblab.config turns MGLRU off; Debian builds it in. */
	ck_assert_msg(strstr(msg.buf, "CONFIG_LRU_GEN: y in "), "%s", msg.buf);
	ck_assert_msg(strstr(msg.buf, ", not set by "), "%s", msg.buf);
	strbuf_release(&msg);
	free(cfg);
	free(lab);
}
END_TEST

/* The lab's own 6.1 .config: nothing for the fragments to change. */
START_TEST(lab_config_unchanged)
{
	char *cfg = unpacked("6.1-wblab.config");
	char *lab = lab_fragment("wblab.config");
	const char *frags[] = { lab };
	struct strbuf msg = STRBUF_INIT;

	ck_assert_int_eq(kbuild_config_overrides(cfg, frags, 1, &msg), 0);
	ck_assert_uint_eq(msg.len, 0);
	strbuf_release(&msg);
	free(cfg);
	free(lab);
}
END_TEST

/* Not a .config, or no file: -1, and msg names it. */
START_TEST(not_a_config)
{
	char *notes = write_tmp("notes.txt", "my kernel notes\n");
	char *lab = lab_fragment("wblab.config");
	const char *frags[] = { lab };
	struct strbuf msg = STRBUF_INIT;

	ck_assert_int_eq(kbuild_config_overrides(notes, frags, 1, &msg), -1);
	ck_assert_msg(strstr(msg.buf, "notes.txt: not a kernel .config"), "%s",
		      msg.buf);
	strbuf_reset(&msg);
	ck_assert_int_eq(kbuild_config_overrides("/nonexistent/.config", frags,
						 1, &msg),
			 -1);
	ck_assert_msg(strstr(msg.buf, "cannot read /nonexistent/.config"), "%s",
		      msg.buf);
	strbuf_release(&msg);
	free(notes);
	free(lab);
}
END_TEST

/* KASAN + lockdep (debug.config) over the lab's 6.1 and 7.2 fragments. */
START_TEST(debug_fragment_accepted)
{
	char *dbg = testdata_path("kconfig/debug-7.2.config");
	char *lab[] = { lab_fragment("wblab.config"),
			lab_fragment("wblab-7.x.config"),
			lab_fragment("wblab-lru-gen.config") };
	const char *user[] = { dbg };
	struct strbuf msg = STRBUF_INIT;

	ck_assert_int_eq(kbuild_config_conflicts((const char *const *)lab, 3,
						 user, 1, &msg),
			 0);
	ck_assert_uint_eq(msg.len, 0);
	strbuf_release(&msg);
	for (int i = 0; i < 3; i++)
		free(lab[i]);
	free(dbg);
}
END_TEST

/*
 * A fragment that turns off what the guest boots from, or makes a module
 * of what must be built in: each named with both file:line. =y where the
 * lab asks =m, and an option the lab does not name, are fine.
 */
START_TEST(conflicting_fragment_named)
{
	char *lab = lab_fragment("wblab.config");
	char *bad = write_tmp("bad.config", "CONFIG_KASAN=y\n"
					    "# CONFIG_VIRTIO_BLK is not set\n"
					    "CONFIG_BLK_DEV_MD=m\n");
	const char *labs[] = { lab }, *user[] = { bad };
	struct strbuf msg = STRBUF_INIT;
	char *want;

	ck_assert_int_eq(kbuild_config_conflicts(labs, 1, user, 1, &msg), 2);
	want = xasprintf(
		"%s:2: CONFIG_VIRTIO_BLK=n: the lab needs CONFIG_VIRTIO_BLK=y (%s:11)\n",
		bad, lab);
	ck_assert_msg(strstr(msg.buf, want), "%s", msg.buf);
	free(want);
	want = xasprintf(
		"%s:3: CONFIG_BLK_DEV_MD=m: the lab needs CONFIG_BLK_DEV_MD=y (%s:",
		bad, lab);
	ck_assert_msg(strstr(msg.buf, want), "%s", msg.buf);
	free(want);
	ck_assert_msg(!strstr(msg.buf, "KASAN"), "%s", msg.buf);
	strbuf_release(&msg);
	free(bad);
	free(lab);
}
END_TEST

/*
 * The shipped check wblab run --tree, validate, bisect and nightly make
 * before any build: 2 for bad input, 0 for a KASAN fragment and a real
 * .config.
 */
START_TEST(tree_config_check_exits)
{
	struct tree_config cfg = { .from = "6.1", .fragments = STRVEC_INIT };
	char *bad =
		write_tmp("bad2.config", "# CONFIG_VIRTIO_BLK is not set\n");
	char *dbg = testdata_path("kconfig/debug-7.2.config");
	char *deb = unpacked("debian-6.1.config");

	strvec_push(&cfg.fragments, bad);
	ck_assert_int_eq(tree_config_check(&cfg), 2);
	strvec_clear(&cfg.fragments);
	strvec_push(&cfg.fragments, dbg);
	cfg.config = deb;
	ck_assert_int_eq(tree_config_check(&cfg), 0);
	cfg.config = tmpdir; /* a directory */
	ck_assert_int_eq(tree_config_check(&cfg), 2);
	cfg.config = NULL;
	cfg.from = "debian-6.1"; /* prebuilt: no config of its own */
	ck_assert_int_eq(tree_config_check(&cfg), 2);
	strvec_clear(&cfg.fragments);
	free(bad);
	free(dbg);
	free(deb);
}
END_TEST

/* Two configs never share a cached kernel: the key hashes the contents. */
START_TEST(cache_key_holds_the_config)
{
	struct kernel_spec s = { .name = "k",
				 .path = "k.yaml",
				 .source_package = "linux-source-7.2",
				 .suite = "sid",
				 .version = "7.2.13-1" };
	char *a = write_tmp("a.config", "CONFIG_X=y\n");
	char *b = write_tmp("b.config", "CONFIG_X=m\n");
	char *dbg = testdata_path("kconfig/debug-7.2.config");
	char ka[HASH_HEX_LEN + 1], kb[HASH_HEX_LEN + 1], kc[HASH_HEX_LEN + 1];
	char kd[HASH_HEX_LEN + 1];

	s.config_base = a;
	ck_assert_int_eq(kernel_cache_key(&s, ka), 0);
	s.config_base = b;
	ck_assert_int_eq(kernel_cache_key(&s, kb), 0);
	ck_assert_str_ne(ka, kb);
	/* The same path, other contents: another key. */
	ck_assert_int_eq(write_string_atomic(a, "CONFIG_X=m\n"), 0);
	s.config_base = a;
	ck_assert_int_eq(kernel_cache_key(&s, kc), 0);
	ck_assert_str_ne(ka, kc);
	spec_strlist_add(&s.fragments, dbg);
	ck_assert_int_eq(kernel_cache_key(&s, kd), 0);
	ck_assert_str_ne(kc, kd);
	spec_strlist_free(&s.fragments);
	free(a);
	free(b);
	free(dbg);
}
END_TEST

static Suite *kconfig_suite(void)
{
	Suite *s = suite_create("kconfig");
	TCase *tc = tcase_create("merge");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, debian_config_overridden);
	tcase_add_test(tc, lab_config_unchanged);
	tcase_add_test(tc, not_a_config);
	tcase_add_test(tc, debug_fragment_accepted);
	tcase_add_test(tc, conflicting_fragment_named);
	tcase_add_test(tc, tree_config_check_exits);
	tcase_add_test(tc, cache_key_holds_the_config);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (!mkdtemp(tmpdir))
		return 1;
	setenv("WBLAB_HOME", testdata_home(), 0);
	sr = srunner_create(kconfig_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (rm_rf(tmpdir))
		failed++;
	return failed ? 1 : 0;
}
