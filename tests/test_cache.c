// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel and image cache under concurrency and corruption (#20 items
 * 3 and 4). The prebuilt fetch runs for real: a small Debian package made
 * here with dpkg-deb --build is put in the cache's downloads/, where
 * kernel_fetch_prebuilt() finds it instead of calling apt-get download,
 * and the rest (dpkg-deb -x, depmod, mkfs.ext4 for the modules disk, the
 * seal, the rename) is the code every prebuilt kernel goes through.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild.h"
#include "artifact/kernel.h"
#include "artifact/seal.h"
#include "artifact/toolver.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

#include "testdata.h"

#define KVER "9.9.9-wblab-test"

static void put(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	ck_assert_int_eq(write_file_atomic(path, data, len, 0644), 0);
	free(path);
}

/* A kernel package: a 1 MiB "vmlinuz", a config, a module directory. */
static void make_deb(const char *cache)
{
	char *pkg = xasprintf("%s/pkgsrc", cache);
	char *deb =
		xasprintf("%s/downloads/wblab-test-kernel_1.0_all.deb", cache);
	char *d, *img = xmalloc(1 << 20);
	const char *argv[] = { "dpkg-deb", "--build", "-Zgzip", pkg, deb, NULL };
	struct strbuf err = STRBUF_INIT;

	for (size_t i = 0; i < 1 << 20; i++)
		img[i] = (char)(i * 2654435761u >> 24);
	d = xasprintf("%s/DEBIAN", pkg);
	put(d, "control",
	    "Package: wblab-test-kernel\nVersion: 1.0\nArchitecture: all\n"
	    "Maintainer: wblab <wblab@localhost>\nDescription: test\n",
	    strlen("Package: wblab-test-kernel\nVersion: 1.0\n"
		   "Architecture: all\nMaintainer: wblab <wblab@localhost>\n"
		   "Description: test\n"));
	free(d);
	d = xasprintf("%s/boot", pkg);
	put(d, "vmlinuz-" KVER, img, 1 << 20);
	put(d, "config-" KVER, "CONFIG_X=y\n", 11);
	free(d);
	d = xasprintf("%s/lib/modules/" KVER "/kernel", pkg);
	put(d, "README", "no modules\n", 11);
	free(d);
	d = xasprintf("%s/downloads", cache);
	ck_assert_int_eq(mkdir_p(d, 0755), 0);
	free(d);
	ck_assert_msg(run_capture(argv, NULL, &err) == 0, "dpkg-deb: %s",
		      err.buf);
	rm_rf(pkg);
	strbuf_release(&err);
	free(img);
	free(deb);
	free(pkg);
}

static struct kernel_spec spec = { .name = "wblab-test",
				   .path = "test.yaml",
				   .package = "wblab-test-kernel" };

struct result {
	int rc;
	ino_t ino;
};

/*
 * Two processes run kernel_ensure() at once (released together through a
 * pipe); each reports its result and the inode of the bzImage it got.
 */
static void race(struct result res[2])
{
	int go[2], back[2];
	pid_t pid[2];

	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(back), 0);
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (!pid[i]) {
			struct kernel_artifact a;
			struct result r = { 0 };
			struct stat st;
			char c;

			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(3);
			r.rc = kernel_ensure(&spec, &a);
			if (!r.rc && stat(a.bzimage, &st) == 0)
				r.ino = st.st_ino;
			if (write(back[1], &r, sizeof(r)) != sizeof(r))
				_exit(3);
			_exit(0);
		}
	}
	close(go[0]);
	close(back[1]);
	ck_assert_int_eq(write(go[1], "gg", 2), 2);
	close(go[1]);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(read(back[0], &res[i], sizeof(res[i])),
				 sizeof(res[i]));
	close(back[0]);
	for (int i = 0; i < 2; i++) {
		int status;

		ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

/* The entry now in the cache: its bzImage's inode; it verifies. */
static ino_t entry_ino(void)
{
	struct kernel_artifact a;
	struct stat st;
	ino_t ino;

	ck_assert_int_eq(kernel_lookup(&spec, &a), 0);
	ck_assert_int_eq(stat(a.bzimage, &st), 0);
	ino = st.st_ino;
	kernel_artifact_free(&a);
	return ino;
}

/* No directory but the entry (and its lock) is left in kernels/. */
static void assert_no_leftovers(const char *cache)
{
	char *k = xasprintf("%s/kernels", cache);
	struct strbuf out = STRBUF_INIT;
	const char *argv[] = { "ls", "-A", "--", k, NULL };

	ck_assert_int_eq(run_capture(argv, &out, NULL), 0);
	ck_assert_msg(!strstr(out.buf, ".tmp.") && !strstr(out.buf, ".old."),
		      "%s", out.buf);
	strbuf_release(&out);
	free(k);
}

START_TEST(prebuilt_fetched_once_under_a_lock)
{
	char cache[] = "/tmp/wblab-test-cache-XXXXXX";
	struct result res[2];
	struct kernel_artifact a;
	ino_t ino;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(cache));
	setenv("WBLAB_CACHE", cache, 1);
	make_deb(cache);
	/* Cold: both meet no entry; one fetches, the other waits and finds it. */
	race(res);
	ck_assert_int_eq(res[0].rc, 0);
	ck_assert_int_eq(res[1].rc, 0);
	ino = entry_ino();
	ck_assert_msg(res[0].ino == ino && res[1].ino == ino,
		      "fetched twice: inodes %lu %lu, entry %lu",
		      (unsigned long)res[0].ino, (unsigned long)res[1].ino,
		      (unsigned long)ino);
	assert_no_leftovers(cache);
	/* Corrupt: one byte of bzImage flipped in place; both meet it. */
	ck_assert_int_eq(kernel_lookup(&spec, &a), 0);
	f = fopen(a.bzimage, "r+");
	ck_assert_ptr_nonnull(f);
	fputc('K', f);
	fclose(f);
	kernel_artifact_free(&a);
	race(res);
	ck_assert_int_eq(res[0].rc, 0);
	ck_assert_int_eq(res[1].rc, 0);
	ck_assert_uint_ne(entry_ino(), ino);
	ino = entry_ino();
	ck_assert_msg(res[0].ino == ino && res[1].ino == ino,
		      "refetched twice: inodes %lu %lu, entry %lu",
		      (unsigned long)res[0].ino, (unsigned long)res[1].ino,
		      (unsigned long)ino);
	assert_no_leftovers(cache);
	unsetenv("WBLAB_CACHE");
	rm_rf(cache);
}
END_TEST

/*
 * tool_output() answers from CACHE/probe/tools.json while the stamp (the
 * dpkg database and the binary) holds, and asks the tool again when it
 * does not.
 */
START_TEST(tool_output_cached_while_stamp_holds)
{
	char cache[] = "/tmp/wblab-test-tools.XXXXXX";
	const char *argv[] = { "dpkg-query", "-W",   "-f=${Version}",
			       "--",	     "dpkg", NULL };
	const char *key = "dpkg-query\x1f-W\x1f-f=${Version}\x1f--\x1f"
			  "dpkg";
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;
	json_object *db, *e;
	char *path;

	ck_assert_ptr_nonnull(mkdtemp(cache));
	setenv("WBLAB_CACHE", cache, 1);
	path = xasprintf("%s/probe/tools.json", cache);
	ck_assert_int_eq(tool_output(argv, &a), 0);
	ck_assert_uint_gt(a.len, 0);
	db = json_object_from_file(path);
	ck_assert_ptr_nonnull(db);
	ck_assert(json_object_object_get_ex(db, key, &e));
	ck_assert_str_eq(
		json_object_get_string(json_object_object_get(e, "out")),
		a.buf);
	/* Same stamp: the cached answer, not the tool's. */
	json_object_object_add(e, "out", json_object_new_string("cached"));
	ck_assert_int_eq(json_write_atomic(path, db), 0);
	ck_assert_int_eq(tool_output(argv, &b), 0);
	ck_assert_str_eq(b.buf, "cached");
	/* A stamp that no longer holds: the tool again. */
	json_object_object_add(e, "stamp", json_object_new_string("stale"));
	ck_assert_int_eq(json_write_atomic(path, db), 0);
	ck_assert_int_eq(tool_output(argv, &c), 0);
	ck_assert_str_eq(c.buf, a.buf);
	json_object_put(db);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&c);
	free(path);
	unsetenv("WBLAB_CACHE");
	rm_rf(cache);
}
END_TEST

static const char *const files[] = { "kernel.json", "bzImage", "config",
				     "modules.img", NULL };

/* An entry's files as kernel_artifact_load() wants them, no seal. */
static void make_entry(const char *dir, size_t bz)
{
	char *img = xzalloc(bz);

	put(dir, "kernel.json",
	    "{\"name\": \"t\", \"version\": \"" KVER "\", \"hash\": \"0\"}\n",
	    strlen("{\"name\": \"t\", \"version\": \"" KVER
		   "\", \"hash\": \"0\"}\n"));
	put(dir, "bzImage", img, bz);
	put(dir, "config", "CONFIG_X=y\n", 11);
	free(img);
}

START_TEST(unsealed_entry_is_rebuilt)
{
	char dir[] = "/tmp/wblab-test-seal-XXXXXX";
	struct kernel_artifact a;
	char why[160] = "";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* A truncated bzImage and no seal: never trusted, never sealed. */
	make_entry(dir, 4 << 20);
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "no seal.json"), "%s", why);
	ck_assert_int_eq(kernel_artifact_load(dir, &a), -1);
	{
		char *seal = xasprintf("%s/seal.json", dir);

		ck_assert(!path_exists(seal));
		free(seal);
	}
	rm_rf(dir);
}
END_TEST

/* What seal.json calls SHA-256 is what sha256sum prints. */
START_TEST(seal_digest_is_sha256sum)
{
	char dir[] = "/tmp/wblab-test-seal-XXXXXX";
	char *bz, *sp, why[160] = "";
	const char *argv[] = { "sha256sum", "--", NULL, NULL };
	struct strbuf out = STRBUF_INIT;
	json_object *seal;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	make_entry(dir, 12345);
	bz = xasprintf("%s/bzImage", dir);
	sp = xasprintf("%s/seal.json", dir);
	ck_assert_int_eq(cache_seal(dir, files), 0);
	argv[2] = bz;
	ck_assert_int_eq(run_capture(argv, &out, NULL), 0);
	seal = json_object_from_file(sp);
	ck_assert_ptr_nonnull(seal);
	ck_assert_int_eq(out.len > 64, 1);
	out.buf[64] = '\0';
	ck_assert_str_eq(
		json_object_get_string(json_path(seal, "files.bzImage.sha256")),
		out.buf);
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), 0);
	json_object_put(seal);
	strbuf_release(&out);
	free(bz);
	free(sp);
	rm_rf(dir);
}
END_TEST

/* A seal of the old format (labelled digests): checked, then resealed. */
static void put_legacy_seal(const char *dir, const char *bz_digest)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "{\"bzImage\": {\"sha256\": \"%s\", \"size\": 1}}\n",
		    bz_digest);
	put(dir, "seal.json", sb.buf, sb.len);
	strbuf_release(&sb);
}

START_TEST(legacy_seal_checked_then_resealed)
{
	char dir[] = "/tmp/wblab-test-seal-XXXXXX";
	char *bz, *sp, hex[HASH_HEX_LEN + 1], plain[HASH_HEX_LEN + 1];
	char why[160] = "";
	json_object *seal;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	make_entry(dir, 4096);
	bz = xasprintf("%s/bzImage", dir);
	sp = xasprintf("%s/seal.json", dir);
	ck_assert_int_eq(hash_file_hex(bz, hex), 0);
	ck_assert_int_eq(sha256_file_hex(bz, plain), 0);
	ck_assert_str_ne(hex, plain);
	/* Its own digest does not match: corrupt. */
	put_legacy_seal(dir, plain);
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "labelled digest"), "%s", why);
	/* It matches: sealed again, with the plain SHA-256. */
	put_legacy_seal(dir, hex);
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), 0);
	seal = json_object_from_file(sp);
	ck_assert_int_eq(json_object_get_int(json_path(seal, "format")), 2);
	ck_assert_str_eq(
		json_object_get_string(json_path(seal, "files.bzImage.sha256")),
		plain);
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), 0);
	json_object_put(seal);
	free(bz);
	free(sp);
	rm_rf(dir);
}
END_TEST

/* A corrupt entry met twice in one process is reported once (#20). */
START_TEST(corruption_warned_once)
{
	char cache[] = "/tmp/wblab-test-cache-XXXXXX";
	struct kernel_artifact a;
	struct strbuf err = STRBUF_INIT;
	const char *p;
	int n = 0;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(cache));
	setenv("WBLAB_CACHE", cache, 1);
	make_deb(cache);
	ck_assert_int_eq(kernel_ensure(&spec, &a), 0);
	f = fopen(a.bzimage, "r+");
	ck_assert_ptr_nonnull(f);
	fputc('K', f);
	fclose(f);
	kernel_artifact_free(&a);
	stderr_begin();
	/* The lookup, then kernel_ensure's own and the one under the lock. */
	ck_assert_int_eq(kernel_lookup(&spec, &a), 1);
	ck_assert_int_eq(kernel_ensure(&spec, &a), 0);
	stderr_end(&err);
	for (p = err.buf; (p = strstr(p, "is corrupt")); p++)
		n++;
	ck_assert_msg(n == 1, "%d warnings: %s", n, err.buf);
	kernel_artifact_free(&a);
	strbuf_release(&err);
	unsetenv("WBLAB_CACHE");
	rm_rf(cache);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("cache");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, prebuilt_fetched_once_under_a_lock);
	tcase_add_test(tc, tool_output_cached_while_stamp_holds);
	tcase_add_test(tc, unsealed_entry_is_rebuilt);
	tcase_add_test(tc, seal_digest_is_sha256sum);
	tcase_add_test(tc, legacy_seal_checked_then_resealed);
	tcase_add_test(tc, corruption_warned_once);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
