// SPDX-License-Identifier: GPL-2.0
/*
 * The private apt fetch (artifact/debfetch.c) against a real apt: a
 * file-based repository this test makes itself (served with apt's copy:
 * method, so our lists are copies that go stale as a mirror's do) (packages built with
 * dpkg-deb, Packages and Release written by hand, [trusted=yes] for this
 * repository only), and a cache root of its own. What is checked: a
 * pinned version is fetched with its SHA-256; a version the suite does
 * not carry fails naming the versions it does, and leaves nothing under
 * downloads/; a suite that moved on after our lists were made is noticed
 * (the lists are refreshed) rather than failing on a missing file; a
 * split image's exact-version parts are found. Also the spec rules of
 * suite: and version:, and the shipped 7.x specs.
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/debfetch.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

#define SUITE "wblabtest"

static char home[PATH_MAX];
static char tmp[PATH_MAX];
static char repo[PATH_MAX + 16];
static char mirror[PATH_MAX + 32];

static void put(const char *path, const char *text)
{
	char *dir = xstrdup(path);

	*strrchr(dir, '/') = '\0';
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	ck_assert_int_eq(write_string_atomic(path, text), 0);
	free(dir);
}

/* Build pool/NAME_VERSION_amd64.deb with dpkg-deb; its Packages stanza. */
static void make_deb(const char *name, const char *version, const char *deps,
		     struct strbuf *packages)
{
	char *root = xasprintf("%s/pkgroot-%s-%s", tmp, name, version);
	char *control = xasprintf("%s/DEBIAN/control", root);
	char *payload = xasprintf("%s/usr/share/%s/VERSION", root, name);
	char *rel = xasprintf("pool/%s_%s_amd64.deb", name, version);
	char *deb = xasprintf("%s/%s", repo, rel);
	char *text = xasprintf("Package: %s\nVersion: %s\nArchitecture: amd64\n"
			       "Maintainer: wblab <wblab@localhost>\n%s%s%s"
			       "Description: wblab test package\n",
			       name, version, deps ? "Depends: " : "",
			       deps ? deps : "", deps ? "\n" : "");
	const char *argv[] = { "dpkg-deb", "--root-owner-group",
			       "-b",	   root,
			       deb,	   NULL };
	char hex[HASH_HEX_LEN + 1];
	struct stat st;
	struct strbuf err = STRBUF_INIT;

	put(control, text);
	put(payload, version);
	{
		char *pool = xasprintf("%s/pool", repo);

		mkdir_p(pool, 0755);
		free(pool);
	}
	ck_assert_msg(run_capture(argv, NULL, &err) == 0, "dpkg-deb: %s",
		      err.buf);
	ck_assert_int_eq(sha256_file_hex(deb, hex), 0);
	ck_assert_int_eq(stat(deb, &st), 0);
	strbuf_addf(packages, "%sFilename: %s\nSize: %lld\nSHA256: %s\n\n",
		    text, rel, (long long)st.st_size, hex);
	strbuf_release(&err);
	free(root);
	free(control);
	free(payload);
	free(rel);
	free(deb);
	free(text);
}

/* dists/SUITE/{Release, main/binary-amd64/Packages}, as a mirror has. */
static void write_index(const struct strbuf *packages)
{
	char *pk = xasprintf("%s/dists/%s/main/binary-amd64/Packages", repo,
			     SUITE);
	char *rel = xasprintf("%s/dists/%s/Release", repo, SUITE);
	char hex[HASH_HEX_LEN + 1];
	char *text;

	put(pk, packages->buf);
	ck_assert_int_eq(sha256_file_hex(pk, hex), 0);
	text = xasprintf(
		"Suite: %s\nCodename: %s\nArchitectures: amd64\n"
		"Components: main\nDate: Mon, 07 Dec 2026 00:00:00 UTC\n"
		"SHA256:\n %s %zu main/binary-amd64/Packages\n",
		SUITE, SUITE, hex, packages->len);
	put(rel, text);
	free(text);
	free(pk);
	free(rel);
}

/* The repository carries these versions of wblab-test-image and parts. */
static void make_repo(const char *const *versions)
{
	struct strbuf packages = STRBUF_INIT;
	char *pool = xasprintf("%s/pool", repo);

	rm_rf(pool);
	for (size_t i = 0; versions[i]; i++) {
		const char *v = versions[i];
		char *deps = xasprintf(
			"wblab-test-binary (= %s), kmod | busybox, wblab-test-base (= %s), wblab-test-base (>= 0.1)",
			v, v);

		make_deb("wblab-test-binary", v, NULL, &packages);
		make_deb("wblab-test-base", v, NULL, &packages);
		make_deb("wblab-test-image", v, deps, &packages);
		free(deps);
	}
	write_index(&packages);
	strbuf_release(&packages);
	free(pool);
}

static void setup(void)
{
	char *cache;

	snprintf(tmp, sizeof(tmp), "/tmp/wblab-test-debfetch.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(repo, sizeof(repo), "%s/repo", tmp);
	/*
	 * copy:, not file:, which apt reads in place (its lists are then the
	 * repository's own files, never stale): a mirror's lists are copies.
	 */
	snprintf(mirror, sizeof(mirror), "copy:%s", repo);
	cache = xasprintf("%s/cache", tmp);
	setenv("WBLAB_CACHE", cache, 1);
	setenv("WBLAB_HOME", home, 1);
	free(cache);
}

static void teardown(void)
{
	rm_rf(tmp);
	unsetenv("WBLAB_CACHE");
}

static const struct debfetch_source test_src = { .spec = "lab/kernels/test.yaml",
						 .suite = SUITE,
						 .trusted = true };

static struct debfetch_source src(void)
{
	struct debfetch_source s = test_src;

	s.mirror = mirror;
	return s;
}

/* Entries of dir (recursively) other than "." and "..": 0 if absent. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			char *p = xasprintf("%s/%s", dir, de->d_name);

			n += 1 + entries(p);
			free(p);
		}
	closedir(d);
	return n;
}

START_TEST(test_fetch_pinned)
{
	const char *const vers[] = { "1.0-1", "1.0-2", NULL };
	const char *pkgs[] = { "wblab-test-image", "wblab-test-binary" };
	struct debfetch_source s = src();
	struct deb_file out[2];
	char hex[HASH_HEX_LEN + 1];

	make_repo(vers);
	ck_assert_int_eq(debfetch_get(&s, "1.0-1", pkgs, 2, out), 0);
	ck_assert(!debfetch_gone());
	for (int i = 0; i < 2; i++) {
		ck_assert_str_eq(out[i].package, pkgs[i]);
		ck_assert_str_eq(out[i].version, "1.0-1");
		ck_assert_str_eq(out[i].suite, SUITE);
		ck_assert_ptr_nonnull(
			strstr(out[i].path, "/downloads/" SUITE "/"));
		/* What sha256sum prints of the file in the cache. */
		ck_assert_int_eq(sha256_file_hex(out[i].path, hex), 0);
		ck_assert_str_eq(out[i].sha256, hex);
		ck_assert_int_gt(out[i].size, 0);
		deb_file_free(&out[i]);
	}
	/* Fetched again: the cached files, nothing downloaded beside them. */
	ck_assert_int_eq(debfetch_get(&s, "1.0-1", pkgs, 2, out), 0);
	{
		char *dl = cache_path("downloads", SUITE);

		ck_assert_int_eq(entries(dl), 2);
		free(dl);
	}
	for (int i = 0; i < 2; i++)
		deb_file_free(&out[i]);
}
END_TEST

/* Read stderr of a call: the error names versions and how to pin. */
static char *stderr_of_gone(struct debfetch_source *s, const char *version,
			    int *ret)
{
	const char *pkgs[] = { "wblab-test-image" };
	struct deb_file out[1];
	char *path = xasprintf("%s/stderr", tmp);
	struct strbuf sb = STRBUF_INIT;
	int saved = dup(2);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fflush(stderr);
	dup2(fileno(f), 2);
	*ret = debfetch_get(s, version, pkgs, 1, out);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(f);
	ck_assert_int_ge(strbuf_read_file(&sb, path), 0);
	free(path);
	return strbuf_detach(&sb, NULL);
}

START_TEST(test_gone_names_versions_and_leaves_cache_clean)
{
	const char *const vers[] = { "1.0-2", "1.0-3", NULL };
	struct debfetch_source s = src();
	char *dl = cache_path("downloads", SUITE);
	char *msg;
	int ret;

	make_repo(vers);
	msg = stderr_of_gone(&s, "1.0-1", &ret);
	ck_assert_int_eq(ret, -1);
	ck_assert(debfetch_gone());
	ck_assert_msg(strstr(msg, "no longer carries wblab-test-image 1.0-1"),
		      "%s", msg);
	ck_assert_msg(strstr(msg, "1.0-3, 1.0-2") ||
			      strstr(msg, "1.0-2, 1.0-3"),
		      "%s", msg);
	ck_assert_msg(strstr(msg, "version: 1.0-3"), "%s", msg);
	ck_assert_msg(strstr(msg, "lab/kernels/test.yaml: version:"), "%s",
		      msg);
	ck_assert_msg(strstr(msg, "wblab kernel list --available"), "%s", msg);
	/* Nothing half-written: no downloads at all, not even a temp dir. */
	ck_assert_int_eq(entries(dl), 0);
	free(msg);
	free(dl);
}
END_TEST

/*
 * Our lists carry 1.0-1, then the suite moves on to 1.0-2 (its 1.0-1
 * files gone): the fetch refreshes the lists and reports the version gone
 * instead of failing on a file the mirror no longer has.
 */
START_TEST(test_suite_moved_after_lists)
{
	const char *const old[] = { "1.0-1", NULL };
	const char *const moved[] = { "1.0-2", NULL };
	struct debfetch_source s = src();
	struct strvec v = STRVEC_INIT;
	char *dl = cache_path("downloads", SUITE);
	char *msg;
	int ret;

	make_repo(old);
	ck_assert_int_eq(debfetch_versions(&s, "wblab-test-image", true, &v),
			 0);
	ck_assert_uint_eq(v.nr, 1);
	ck_assert_str_eq(v.v[0], "1.0-1");
	strvec_clear(&v);
	make_repo(moved);
	msg = stderr_of_gone(&s, "1.0-1", &ret);
	ck_assert_msg(ret == -1, "fetched a version the suite dropped: %s",
		      msg);
	ck_assert_msg(debfetch_gone(), "%s", msg);
	ck_assert_msg(strstr(msg, "it carries 1.0-2"), "%s", msg);
	ck_assert_int_eq(entries(dl), 0);
	/* And the listing sees the suite as it is now. */
	ck_assert_int_eq(debfetch_versions(&s, "wblab-test-image", false, &v),
			 0);
	ck_assert_uint_eq(v.nr, 1);
	ck_assert_str_eq(v.v[0], "1.0-2");
	strvec_clear(&v);
	free(msg);
	free(dl);
}
END_TEST

START_TEST(test_exact_deps)
{
	const char *const vers[] = { "1.0-1", NULL };
	struct debfetch_source s = src();
	struct strvec deps = STRVEC_INIT;

	make_repo(vers);
	ck_assert_int_eq(debfetch_versions(&s, "wblab-test-image", true, &deps),
			 0);
	strvec_clear(&deps);
	ck_assert_int_eq(
		debfetch_exact_deps(&s, "wblab-test-image", "1.0-1", &deps), 0);
	/* Not "kmod | busybox", not ">= 0.1": only the build's own parts. */
	ck_assert_uint_eq(deps.nr, 2);
	ck_assert_str_eq(deps.v[0], "wblab-test-binary");
	ck_assert_str_eq(deps.v[1], "wblab-test-base");
	strvec_clear(&deps);
}
END_TEST

/* The private configuration: the host's sources are not read. */
START_TEST(test_private_config)
{
	const char *const vers[] = { "1.0-1", NULL };
	struct debfetch_source s = src();
	struct strvec v = STRVEC_INIT;
	char *dir = debfetch_dir(SUITE);
	char *conf = xasprintf("%s/apt.conf", dir);
	char *list = xasprintf("%s/etc/sources.list", dir);
	struct strbuf sb = STRBUF_INIT;

	make_repo(vers);
	ck_assert_int_eq(debfetch_versions(&s, "wblab-test-image", true, &v),
			 0);
	ck_assert_int_ge(strbuf_read_file(&sb, conf), 0);
	ck_assert_ptr_nonnull(strstr(sb.buf, "Dir::Etc::main \"/dev/null\""));
	ck_assert_ptr_nonnull(strstr(sb.buf, "Dir::State::status"));
	strbuf_reset(&sb);
	ck_assert_int_ge(strbuf_read_file(&sb, list), 0);
	ck_assert_ptr_nonnull(strstr(sb.buf, "[trusted=yes] copy:"));
	/* A package only the host's own suites have is not seen here. */
	strvec_clear(&v);
	ck_assert_int_eq(debfetch_versions(&s, "dpkg", false, &v), 0);
	ck_assert_uint_eq(v.nr, 0);
	strbuf_release(&sb);
	strvec_clear(&v);
	free(conf);
	free(list);
	free(dir);
}
END_TEST

static int load_err(const char *text, struct strbuf *err)
{
	char *p = xasprintf("%s/k.yaml", tmp);
	struct kernel_spec s;
	int ret;

	put(p, text);
	ret = kernel_spec_load_err(p, "k", &s, err);
	kernel_spec_free(&s);
	free(p);
	return ret;
}

START_TEST(test_spec_rules)
{
	struct strbuf err = STRBUF_INIT;

	ck_assert_int_ne(load_err("package: linux-image-x\nsuite: sid\n", &err),
			 0);
	ck_assert_ptr_nonnull(
		strstr(err.buf, "suite: and version: go together"));
	strbuf_reset(&err);
	ck_assert_int_ne(
		load_err("base: \"7.2\"\nsuite: sid\nversion: 1-1\n", &err), 0);
	ck_assert_ptr_nonnull(
		strstr(err.buf, "takes its packages from its base"));
	strbuf_reset(&err);
	ck_assert_int_ne(load_err("package: linux-image-x\nsuite: sid\n"
				  "version: x1\n",
				  &err),
			 0);
	ck_assert_ptr_nonnull(strstr(err.buf, "k.yaml:3"));
	ck_assert_ptr_nonnull(strstr(err.buf, "is not a Debian version"));
	strbuf_reset(&err);
	ck_assert_int_eq(load_err("package: linux-image-x\nsuite: sid\n"
				  "version: 7.2.13-1\n",
				  &err),
			 0);
	strbuf_release(&err);
}
END_TEST

/* The shipped 7.x specs pin a suite and version, the 6.x ones do not. */
START_TEST(test_shipped_specs)
{
	static const char *const names[] = { "debian-7.2", "7.2", "7.3-rc" };
	struct kernel_spec s;

	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(kernel_spec_find(names[i], &s), 0);
		ck_assert_ptr_nonnull(s.suite);
		ck_assert_ptr_nonnull(s.version);
		kernel_spec_free(&s);
	}
	ck_assert_int_eq(kernel_spec_find("6.12", &s), 0);
	ck_assert_ptr_null(s.suite);
	kernel_spec_free(&s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("debfetch");
	TCase *tc = tcase_create("apt");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fetch_pinned);
	tcase_add_test(tc, test_gone_names_versions_and_leaves_cache_clean);
	tcase_add_test(tc, test_suite_moved_after_lists);
	tcase_add_test(tc, test_exact_deps);
	tcase_add_test(tc, test_private_config);
	tcase_add_test(tc, test_spec_rules);
	tcase_add_test(tc, test_shipped_specs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	if (!getcwd(home, sizeof(home)))
		return 1;
	if (getenv("WBLAB_HOME"))
		snprintf(home, sizeof(home), "%s", getenv("WBLAB_HOME"));
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
