// SPDX-License-Identifier: GPL-2.0
/*
 * Debian packages from suites the host does not use, at pinned versions,
 * through a private apt configuration (debfetch-apt.c): which versions a
 * suite carries, the gone-version error, downloads checked against the
 * index's SHA-256 and renamed into the cache whole. See debfetch.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/debfetch-int.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

static bool last_gone;

bool debfetch_gone(void)
{
	return last_gone;
}

void deb_file_free(struct deb_file *f)
{
	free(f->package);
	free(f->version);
	free(f->suite);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* "pkg | version | uri suite/main amd64 Packages" lines: the versions. */
static void parse_madison(char *text, struct strvec *vers)
{
	char *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *a = strchr(l, '|'), *b;

		if (!a || !(b = strchr(a + 1, '|')))
			continue;
		*b = '\0';
		a++;
		while (*a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			*--b = '\0';
		if (*a && !strvec_has(vers, a))
			strvec_push(vers, a);
	}
}

static int list_versions(const char *dir, const char *package,
			 struct strvec *vers)
{
	const char *argv[] = { "apt-cache", "madison", "--", package, NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int ret = apt_run(dir, argv, NULL, &out, &err);

	if (ret)
		ret = error("apt-cache madison %s failed: %s", package,
			    err.buf);
	else
		parse_madison(out.buf, vers);
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

int debfetch_versions(const struct debfetch_source *src, const char *package,
		      bool refresh, struct strvec *vers)
{
	char *dir = NULL;
	int ret = -1;

	if (apt_setup(src, &dir))
		goto out;
	if ((refresh || !have_lists(dir)) && apt_update(src, dir))
		goto out;
	ret = list_versions(dir, package, vers);
out:
	free(dir);
	return ret;
}

/* A field of package=version's index record ("SHA256", "Depends"). */
static char *show_field(const char *dir, const char *package,
			const char *version, const char *field)
{
	char *pv = xasprintf("%s=%s", package, version);
	const char *argv[] = { "apt-cache", "show", "--", pv, NULL };
	struct strbuf out = STRBUF_INIT;
	size_t flen = strlen(field);
	char *found = NULL, *save = NULL;

	if (apt_run(dir, argv, NULL, &out, NULL))
		goto out;
	for (char *l = strtok_r(out.buf, "\n", &save); l && !found;
	     l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, field, flen) && l[flen] == ':')
			found = xstrdup(l + flen + 1 + (l[flen + 1] == ' '));
out:
	strbuf_release(&out);
	free(pv);
	return found;
}

int debfetch_exact_deps(const struct debfetch_source *src, const char *package,
			const char *version, struct strvec *deps)
{
	char *dir = NULL, *dep = NULL, *want = NULL, *save = NULL;
	int ret = -1;

	if (apt_setup(src, &dir))
		goto out;
	dep = show_field(dir, package, version, "Depends");
	want = xasprintf("(= %s)", version);
	ret = 0;
	/* "a, b (= V), c | d": alternatives are never one build's parts. */
	for (char *t = dep ? strtok_r(dep, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save)) {
		char *sp;

		while (*t == ' ')
			t++;
		sp = strchr(t, ' ');
		if (!sp || strchr(t, '|') || strcmp(sp + 1, want))
			continue;
		*sp = '\0';
		strvec_push(deps, t);
	}
out:
	free(dir);
	free(dep);
	free(want);
	return ret;
}

static void gone_error(const struct debfetch_source *src, const char *dir,
		       const char *package, const char *version)
{
	struct strvec vers = STRVEC_INIT;
	struct strbuf has = STRBUF_INIT;

	list_versions(dir, package, &vers);
	for (size_t i = 0; i < vers.nr; i++)
		strbuf_addf(&has, "%s%s", i ? ", " : "", vers.v[i]);
	if (vers.nr)
		error("%s: version: suite %s no longer carries %s %s; it carries %s.\n"
		      "  Pin one of them with `version: %s` in %s (`wblab kernel list --available` lists them)",
		      src->spec ? src->spec : "kernel", src->suite, package,
		      version, has.buf, vers.v[0],
		      src->spec ? src->spec : "the kernel spec");
	else
		error("%s: suite %s carries no package %s at all (nor version %s): check the package name and the suite",
		      src->spec ? src->spec : "kernel", src->suite, package,
		      version);
	strbuf_release(&has);
	strvec_clear(&vers);
}

/* Does the suite's index carry every package at version? */
static bool all_carried(const char *dir, const char *version,
			const char *const *pkgs, int n, int *missing)
{
	for (int i = 0; i < n; i++) {
		struct strvec vers = STRVEC_INIT;
		bool has = !list_versions(dir, pkgs[i], &vers) &&
			   strvec_has(&vers, version);

		strvec_clear(&vers);
		if (!has) {
			*missing = i;
			return false;
		}
	}
	return true;
}

/* The one entry of dir whose name starts with "PKG_": apt-get's file. */
static char *deb_named(const char *dir, const char *package)
{
	char *pfx = xasprintf("%s_", package);
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;

	while (d && !found && (de = readdir(d)))
		if (!strncmp(de->d_name, pfx, strlen(pfx)) &&
		    strstr(de->d_name, ".deb"))
			found = xasprintf("%s/%s", dir, de->d_name);
	if (d)
		closedir(d);
	free(pfx);
	return found;
}

/* apt-get's file name of a version: ':' (an epoch) is written %3a. */
static char *quoted_version(const char *v)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *v; v++)
		if (*v == ':')
			strbuf_addstr(&sb, "%3a");
		else
			strbuf_addch(&sb, *v);
	return strbuf_detach(&sb, NULL);
}

/* The cached .deb of package at version, if its SHA-256 is want's. */
static char *cached_deb(const char *dl, const char *package,
			const char *version, const char *want,
			struct deb_file *f)
{
	char *qv = quoted_version(version);
	char *pfx = xasprintf("%s_%s", package, qv);
	char *path = deb_named(dl, pfx);

	free(qv);
	free(pfx);
	if (path &&
	    (sha256_file_hex(path, f->sha256) || strcmp(f->sha256, want))) {
		warn("%s: SHA-256 %s is not the index's %s: fetching it again",
		     path, f->sha256, want);
		free(path);
		path = NULL;
	}
	return path;
}

static int fill(struct deb_file *f, const char *package, const char *version,
		const char *suite, char *path)
{
	struct stat st;

	f->package = xstrdup(package);
	f->version = xstrdup(version);
	f->suite = xstrdup(suite);
	f->path = path;
	if (stat(path, &st))
		return error("%s: %s", path, strerror(errno));
	f->size = st.st_size;
	return 0;
}

/*
 * Download into tmp (inside dl), check each file against the index's
 * SHA-256, and only then rename them into dl: a failure leaves dl as it
 * was.
 */
static int download(const char *dir, const char *dl, const char *version,
		    const char *const *pkgs, int n, char **want,
		    struct deb_file *out)
{
	char *tmp = xasprintf("%s/.tmp.%d", dl, (int)getpid());
	struct strvec argv = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char **got = xzalloc(n * sizeof(*got));
	int ret = -1;

	rm_rf(tmp);
	if (mkdir_p(tmp, 0755)) {
		error("cannot make %s: %s", tmp, strerror(errno));
		goto out;
	}
	strvec_pushl(&argv, "apt-get", "-q", "download", "--", NULL);
	for (int i = 0; i < n; i++)
		if (!out[i].path)
			strvec_pushf(&argv, "%s=%s", pkgs[i], version);
	if (apt_run(dir, argv.v, tmp, &err, &err)) {
		error("apt-get download failed: %s", err.buf);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (out[i].path)
			continue;
		got[i] = deb_named(tmp, pkgs[i]);
		if (!got[i] || sha256_file_hex(got[i], out[i].sha256) ||
		    strcmp(out[i].sha256, want[i])) {
			error("apt-get download %s=%s: %s", pkgs[i], version,
			      got[i] ? "its SHA-256 is not the index's" :
				       "no .deb");
			goto out;
		}
	}
	for (int i = 0; i < n; i++) {
		char *dst;

		if (!got[i])
			continue;
		dst = xasprintf("%s/%s", dl, strrchr(got[i], '/') + 1);
		if (rename(got[i], dst)) {
			error("cannot move %s to %s: %s", got[i], dst,
			      strerror(errno));
			free(dst);
			goto out;
		}
		if (fill(&out[i], pkgs[i], version, "", dst))
			goto out;
	}
	ret = 0;
out:
	rm_rf(tmp);
	for (int i = 0; i < n; i++)
		free(got[i]);
	free(got);
	strvec_clear(&argv);
	strbuf_release(&err);
	free(tmp);
	return ret;
}

/*
 * The lists carry everything (refreshed once if not), or the gone error.
 * *updated says whether they were refreshed here.
 */
static int resolve(const struct debfetch_source *src, const char *dir,
		   const char *version, const char *const *pkgs, int n,
		   bool *updated)
{
	int missing = 0;

	*updated = false;
	if (!have_lists(dir)) {
		if (apt_update(src, dir))
			return -1;
		*updated = true;
	}
	if (all_carried(dir, version, pkgs, n, &missing))
		return 0;
	/* Our lists may be older than the mirror: ask again once. */
	if (!*updated && apt_update(src, dir))
		return -1;
	*updated = true;
	if (all_carried(dir, version, pkgs, n, &missing))
		return 0;
	last_gone = true;
	gone_error(src, dir, pkgs[missing], version);
	return -1;
}

static int fetch_all(const struct debfetch_source *src, const char *dir,
		     const char *version, const char *const *pkgs, int n,
		     struct deb_file *out)
{
	char *dl = cache_path("downloads", src->suite);
	char **want = xzalloc(n * sizeof(*want));
	int ret = -1, todo = 0;

	if (cache_make_dir(dl) || cache_check_space(dl, 2LL << 30))
		goto out;
	for (int i = 0; i < n; i++) {
		char *path;

		want[i] = show_field(dir, pkgs[i], version, "SHA256");
		if (!want[i]) {
			error("the index of suite %s has no SHA256 for %s=%s",
			      src->suite, pkgs[i], version);
			goto out;
		}
		path = cached_deb(dl, pkgs[i], version, want[i], &out[i]);
		if (path && fill(&out[i], pkgs[i], version, src->suite, path))
			goto out;
		todo += !path;
	}
	if (todo) {
		info("apt (private): downloading %d package(s) of %s at %s",
		     todo, src->suite, version);
		if (download(dir, dl, version, pkgs, n, want, out))
			goto out;
	}
	for (int i = 0; i < n; i++) {
		free(out[i].suite);
		out[i].suite = xstrdup(src->suite);
	}
	ret = 0;
out:
	for (int i = 0; i < n; i++)
		free(want[i]);
	free(want);
	free(dl);
	return ret;
}

int debfetch_check(const struct debfetch_source *src, const char *version,
		   const char *const *pkgs, int n)
{
	char *dir = NULL;
	bool updated;
	int ret = -1;

	last_gone = false;
	if (!apt_setup(src, &dir))
		ret = resolve(src, dir, version, pkgs, n, &updated);
	free(dir);
	return ret;
}

int debfetch_get(const struct debfetch_source *src, const char *version,
		 const char *const *pkgs, int n, struct deb_file *out)
{
	char *dir = NULL;
	bool updated;
	int ret = -1;

	last_gone = false;
	memset(out, 0, n * sizeof(*out));
	if (apt_setup(src, &dir))
		goto out;
	if (resolve(src, dir, version, pkgs, n, &updated))
		goto out;
	ret = fetch_all(src, dir, version, pkgs, n, out);
	/*
	 * Lists older than the mirror name files it has dropped (sid moved
	 * on since): refresh them, and either the version is gone (said so)
	 * or it is fetched from where the mirror has it now.
	 */
	if (ret && !updated) {
		for (int i = 0; i < n; i++)
			deb_file_free(&out[i]);
		if (apt_update(src, dir) ||
		    resolve(src, dir, version, pkgs, n, &updated))
			goto out;
		ret = fetch_all(src, dir, version, pkgs, n, out);
	}
out:
	if (ret)
		for (int i = 0; i < n; i++)
			deb_file_free(&out[i]);
	free(dir);
	return ret;
}
