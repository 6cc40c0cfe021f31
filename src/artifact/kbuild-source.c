// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: pristine source trees in ROOT/src, unpacked once from a
 * source package's tarball (linux-source-6.1), under the source cache's
 * lock. Git sources are built in place instead (kbuild-tree.c). A source
 * package pinned in another suite (sid, experimental) is fetched through
 * the private apt (debfetch.h) and its tarball taken out of the .deb,
 * never installed on the host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/debfetch.h"
#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

static char *find_tarball(const char *package)
{
	const char *exts[] = { "tar.xz", "tar.bz2", "tar.gz" };
	const char *argv[] = { "dpkg-query", "-L", "--", package, NULL };
	struct strbuf out = STRBUF_INIT;
	char *found = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(exts); i++) {
		char *p = xasprintf("/usr/src/%s.%s", package, exts[i]);

		if (path_exists(p))
			return p;
		free(p);
	}
	if (!run_capture(argv, &out, NULL)) {
		char *save = NULL;

		for (char *l = strtok_r(out.buf, "\n", &save); l && !found;
		     l = strtok_r(NULL, "\n", &save))
			if (strstr(l, ".tar.") && path_exists(l))
				found = xstrdup(l);
	}
	strbuf_release(&out);
	return found;
}

/* Unpack into dir via dir.tmp.PID, under the src lock; dir appears whole. */
/* The source cache (ROOT/src), created if needed and locked; -1 on failure. */
static int lock_source_cache(void)
{
	char *srcdir = cache_path("src", ""), *lockp;
	int lock = -1;

	if (!cache_make_dir(srcdir)) {
		lockp = cache_path("src", ".lock");
		lock = cache_lock(lockp, "the source cache");
		free(lockp);
	}
	free(srcdir);
	return lock;
}

static int unpack_tree(const char *dir, const char *const *extract,
		       const char *tmp, const char *what)
{
	char *marker = xasprintf("%s/.wblab-unpacked", dir);
	struct strbuf err = STRBUF_INIT;
	double t0 = now_mono();
	int ret = -1;

	if (path_exists(marker)) {
		ret = 0;
		goto out;
	}
	info("unpacking %s into %s (once)", what, dir);
	rm_rf(tmp);
	if (cache_make_dir(tmp))
		goto out;
	if (run_capture(extract, NULL, &err)) {
		error("unpacking %s failed: %s", what, err.buf);
		rm_rf(tmp);
		goto out;
	}
	{
		char *m = xasprintf("%s/.wblab-unpacked", tmp);

		write_string_atomic(m, what);
		free(m);
	}
	if (cache_install(tmp, dir)) {
		rm_rf(tmp);
		goto out;
	}
	{
		char *t = kb_fmt_secs(now_mono() - t0);

		info("unpacked %s in %s", what, t);
		free(t);
	}
	ret = 0;
out:
	strbuf_release(&err);
	free(marker);
	return ret;
}

char *kbuild_package_source(const char *package, char **ident)
{
	const char *q[] = { "dpkg-query", "-W",	   "-f=${Version}",
			    "--",	  package, NULL };
	struct strbuf ver = STRBUF_INIT;
	char *dir = NULL, *tarball = NULL, *leaf, *tmp = NULL;
	int lock = -1;

	if (run_capture(q, &ver, NULL) || !ver.len) {
		error("source package %s is not installed (make deps installs linux-source-6.1)",
		      package);
		goto fail;
	}
	tarball = find_tarball(package);
	if (!tarball) {
		error("package %s %s has no source tarball in /usr/src",
		      package, ver.buf);
		goto fail;
	}
	leaf = xasprintf("%s-%s", package, ver.buf);
	dir = cache_path("src", leaf);
	free(leaf);
	tmp = xasprintf("%s.tmp.%d", dir, (int)getpid());
	lock = lock_source_cache();
	if (lock < 0)
		goto fail;
	{
		const char *x[] = { "tar", "-xf", tarball,
				    "-C",  tmp,	  "--strip-components=1",
				    NULL };

		if (unpack_tree(dir, x, tmp, tarball))
			goto fail;
	}
	cache_unlock(lock);
	if (ident)
		*ident = xasprintf("%s %s", package, ver.buf);
	strbuf_release(&ver);
	free(tarball);
	free(tmp);
	return dir;
fail:
	cache_unlock(lock);
	strbuf_release(&ver);
	free(tarball);
	free(tmp);
	free(dir);
	return NULL;
}

/* The tarball inside an unpacked source .deb: usr/src/<package>.tar.*. */
static char *deb_tarball(const char *root, const char *package)
{
	const char *exts[] = { "tar.xz", "tar.bz2", "tar.gz" };

	for (size_t i = 0; i < ARRAY_SIZE(exts); i++) {
		char *p = xasprintf("%s/usr/src/%s.%s", root, package, exts[i]);

		if (path_exists(p))
			return p;
		free(p);
	}
	return NULL;
}

/*
 * Unpack the .deb into a scratch directory beside dir, then its tarball
 * into dir (through unpack_tree's tmp and rename); the scratch goes
 * either way, so a failure leaves nothing under src/. The tree's marker
 * holds ident, so a later build of the same version (a variant) needs
 * neither the .deb nor the suite.
 */
static int unpack_deb_source(const char *dir, const struct deb_file *deb,
			     const char *package, const char *ident)
{
	char *x = xasprintf("%s.deb.tmp.%d", dir, (int)getpid());
	char *tmp = xasprintf("%s.tmp.%d", dir, (int)getpid());
	const char *xargv[] = { "dpkg-deb", "-x", deb->path, x, NULL };
	struct strbuf err = STRBUF_INIT;
	char *tarball = NULL;
	int ret = -1;

	rm_rf(x);
	if (cache_make_dir(x) || run_capture(xargv, NULL, &err)) {
		error("dpkg-deb -x %s failed: %s", deb->path, err.buf);
		goto out;
	}
	tarball = deb_tarball(x, package);
	if (!tarball) {
		error("%s has no usr/src/%s.tar.*", deb->path, package);
		goto out;
	}
	{
		const char *t[] = { "tar", "-xf", tarball,
				    "-C",  tmp,	  "--strip-components=1",
				    NULL };

		ret = unpack_tree(dir, t, tmp, ident);
	}
out:
	rm_rf(x);
	strbuf_release(&err);
	free(tarball);
	free(tmp);
	free(x);
	return ret;
}

/* The ident an unpacked suite tree's marker holds, or NULL. */
static char *unpacked_ident(const char *dir, const char *package)
{
	char *marker = xasprintf("%s/.wblab-unpacked", dir);
	struct strbuf sb = STRBUF_INIT;
	char *ident = NULL;

	if (read_file_capped(&sb, marker, 4096) >= 0 &&
	    !strncmp(sb.buf, package, strlen(package)) &&
	    sb.buf[strlen(package)] == ' ')
		ident = strbuf_detach(&sb, NULL);
	strbuf_release(&sb);
	free(marker);
	return ident;
}

char *kbuild_suite_source(const char *spec, const char *package,
			  const char *suite, const char *version, char **ident)
{
	const struct debfetch_source src = { .spec = spec, .suite = suite };
	const char *pkgs[] = { package };
	struct deb_file deb;
	char *leaf = xasprintf("%s-%s", package, version);
	char *dir = cache_path("src", leaf);
	char *id = NULL;
	int lock = -1;

	free(leaf);
	id = unpacked_ident(dir, package);
	if (id)
		goto done;
	if (debfetch_get(&src, version, pkgs, 1, &deb))
		goto fail;
	/* The .deb's digest: what a cell booted, to the byte. */
	id = xasprintf("%s %s (%s, .deb sha256 %s)", package, version, suite,
		       deb.sha256);
	lock = lock_source_cache();
	if (lock < 0 || unpack_deb_source(dir, &deb, package, id)) {
		deb_file_free(&deb);
		goto fail;
	}
	cache_unlock(lock);
	deb_file_free(&deb);
done:
	if (ident)
		*ident = id;
	else
		free(id);
	return dir;
fail:
	cache_unlock(lock);
	free(id);
	free(dir);
	return NULL;
}
