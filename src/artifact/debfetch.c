// SPDX-License-Identifier: GPL-2.0
/*
 * Debian packages from suites the host does not use, at pinned versions,
 * through a private apt configuration: see debfetch.h.
 *
 * Every apt-get and apt-cache runs with APT_CONFIG naming the suite's own
 * apt.conf, which points every Dir:: at ROOT/apt/<suite>/ and its parts
 * directory at an empty one there, so not one of the host's apt files is
 * read (its sources, its trusted keys, its apt.conf.d) or written (its
 * lists, its dpkg status, its archive cache). One directory per suite
 * keeps each suite's answer to "which versions" its own.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/debfetch.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

#define DEBIAN_KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg"
#define DEFAULT_MIRROR "http://deb.debian.org/debian"
/* Enough for a 300 MB source .deb on a slow link, not for a hang. */
#define APT_TIMEOUT 1800

static bool last_gone;

bool debfetch_gone(void)
{
	return last_gone;
}

char *debfetch_dir(const char *suite)
{
	return cache_path("apt", suite);
}

void deb_file_free(struct deb_file *f)
{
	free(f->package);
	free(f->version);
	free(f->suite);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* A URI whose path ends in /debian: the main archive, not -security. */
static bool debian_uri(const char *uri, size_t n)
{
	while (n && uri[n - 1] == '/')
		n--;
	return n > 7 && !memcmp(uri + n - 7, "/debian", 7) &&
	       (!strncmp(uri, "http://", 7) || !strncmp(uri, "https://", 8));
}

/* The first Debian archive URI of one sources file (one-line or deb822). */
static char *mirror_in(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *found = NULL, *save = NULL;

	if (read_file_capped(&sb, path, 1 << 20) < 0)
		goto out;
	for (char *l = strtok_r(sb.buf, "\n", &save); l && !found;
	     l = strtok_r(NULL, "\n", &save)) {
		char *tok, *s2 = NULL;

		if (*l == '#')
			continue;
		for (tok = strtok_r(l, " \t", &s2); tok && !found;
		     tok = strtok_r(NULL, " \t", &s2))
			if (debian_uri(tok, strlen(tok)))
				found = xstrdup(tok);
	}
out:
	strbuf_release(&sb);
	return found;
}

/* $WBLAB_APT_MIRROR, else the host's Debian mirror, else deb.debian.org. */
static char *host_mirror(void)
{
	const char *env = getenv("WBLAB_APT_MIRROR");
	const char *dirp = "/etc/apt/sources.list.d";
	char *found;
	DIR *d;
	struct dirent *de;

	if (env && *env)
		return xstrdup(env);
	found = mirror_in("/etc/apt/sources.list");
	d = opendir(dirp);
	while (!found && d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *p;

		/* apt reads only *.list and *.sources (not *.disabled...). */
		if (!(n > 5 && !strcmp(de->d_name + n - 5, ".list")) &&
		    !(n > 8 && !strcmp(de->d_name + n - 8, ".sources")))
			continue;
		p = xasprintf("%s/%s", dirp, de->d_name);
		found = mirror_in(p);
		free(p);
	}
	if (d)
		closedir(d);
	return found ? found : xstrdup(DEFAULT_MIRROR);
}

static int put_file(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	int ret = write_string_atomic(p, text);

	if (ret)
		error("cannot write %s: %s", p, strerror(errno));
	free(p);
	return ret;
}

static int make_dirs(const char *dir)
{
	static const char *const sub[] = { "lists/partial",
					   "archives/partial",
					   "state",
					   "cache",
					   "etc/apt.conf.d",
					   "etc/sources.list.d",
					   "etc/preferences.d",
					   "etc/trusted.gpg.d",
					   NULL };

	for (size_t i = 0; sub[i]; i++) {
		char *p = xasprintf("%s/%s", dir, sub[i]);
		int ret = mkdir_p(p, 0755);

		if (ret)
			error("cannot make %s: %s", p, strerror(errno));
		free(p);
		if (ret)
			return -1;
	}
	return 0;
}

/*
 * The suite's apt.conf: every directory apt reads or writes is the
 * suite's own. Sandbox::User root: _apt cannot enter the cache root.
 */
static char *apt_conf_text(const char *dir)
{
	return xasprintf(
		"// written by wblab (artifact/debfetch.c): a private apt for one suite\n"
		"Dir::Etc::main \"/dev/null\";\n"
		"Dir::Etc::Parts \"%1$s/etc/apt.conf.d\";\n"
		"Dir::Etc::SourceList \"%1$s/etc/sources.list\";\n"
		"Dir::Etc::SourceParts \"%1$s/etc/sources.list.d\";\n"
		"Dir::Etc::Preferences \"%1$s/etc/preferences\";\n"
		"Dir::Etc::PreferencesParts \"%1$s/etc/preferences.d\";\n"
		"Dir::Etc::Trusted \"%1$s/etc/trusted.gpg\";\n"
		"Dir::Etc::TrustedParts \"%1$s/etc/trusted.gpg.d\";\n"
		"Dir::State \"%1$s/state\";\n"
		"Dir::State::Lists \"%1$s/lists\";\n"
		"Dir::State::status \"%1$s/state/status\";\n"
		"Dir::Cache \"%1$s/cache\";\n"
		"Dir::Cache::Archives \"%1$s/archives\";\n"
		"APT::Sandbox::User \"root\";\n"
		"Acquire::Languages \"none\";\n"
		"Acquire::IndexTargets::deb::DEP-11::DefaultEnabled \"false\";\n"
		"Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled \"false\";\n",
		dir);
}

/*
 * The host's own policy for fetching, which is not about what is fetched:
 * its proxies and whether a Release past its Valid-Until is refused (a
 * host that reaches a frozen snapshot of the archive turns that off, and
 * sid's Release is then "expired" too). Taken from `apt-config dump`,
 * which only reads; nothing else of the host's configuration comes in.
 */
static void host_acquire_policy(struct strbuf *conf)
{
	static const char *const keep[] = { "Acquire::Check-Valid-Until ",
					    "Acquire::Check-Date ",
					    "Acquire::http::Proxy",
					    "Acquire::https::Proxy", NULL };
	const char *argv[] = { "apt-config", "dump", NULL };
	struct strbuf out = STRBUF_INIT;
	char *save = NULL;

	if (run_capture(argv, &out, NULL))
		goto out;
	for (char *l = strtok_r(out.buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; keep[i]; i++)
			if (!strncmp(l, keep[i], strlen(keep[i])))
				strbuf_addf(conf, "%s\n", l);
out:
	strbuf_release(&out);
}

/* Write the suite's configuration (every time: the mirror may change). */
static int apt_setup(const struct debfetch_source *src, char **dirp)
{
	char *dir = debfetch_dir(src->suite);
	char *mirror = src->mirror ? xstrdup(src->mirror) : host_mirror();
	struct strbuf conf = STRBUF_INIT;
	char *list = xasprintf("deb [%s] %s %s main\n",
			       src->trusted ? "trusted=yes" :
					      "signed-by=" DEBIAN_KEYRING,
			       mirror, src->suite);
	char *status = xasprintf("%s/state/status", dir);
	int ret = -1;

	{
		char *text = apt_conf_text(dir);

		strbuf_addstr(&conf, text);
		free(text);
	}
	host_acquire_policy(&conf);
	if (cache_make_dir(dir) || make_dirs(dir))
		goto out;
	if (!path_exists(status) && write_string_atomic(status, ""))
		goto out;
	if (put_file(dir, "apt.conf", conf.buf) ||
	    put_file(dir, "etc/sources.list", list))
		goto out;
	ret = 0;
	*dirp = dir;
	dir = NULL;
out:
	free(dir);
	free(mirror);
	strbuf_release(&conf);
	free(list);
	free(status);
	return ret;
}

/* Run an apt tool with the suite's configuration, in cwd (or anywhere). */
static int apt_run(const char *dir, const char *const *argv, const char *cwd,
		   struct strbuf *out, struct strbuf *err)
{
	char *env0 = xasprintf("APT_CONFIG=%s/apt.conf", dir);
	const char *env[] = { env0, "LC_ALL=C", NULL };
	struct run_opts o = { .dir = cwd,
			      .env = env,
			      .out = out,
			      .err = err,
			      .timeout = APT_TIMEOUT,
			      .quiet = !out };
	int ret = run_argv(argv, &o);

	free(env0);
	return ret;
}

static int apt_update(const struct debfetch_source *src, const char *dir)
{
	const char *argv[] = { "apt-get", "-q", "update", NULL };
	struct strbuf err = STRBUF_INIT;
	int ret;

	info("apt (private, %s): updating the lists of suite %s", dir,
	     src->suite);
	ret = apt_run(dir, argv, NULL, &err, &err);
	/* apt-get update exits 0 on a failed fetch: "W:"/"E:" lines say it. */
	if (ret || strstr(err.buf, "\nE: ") || !strncmp(err.buf, "E: ", 3))
		ret = error("apt-get update of suite %s (private lists in %s/lists) failed: %s",
			    src->suite, dir, err.buf);
	strbuf_release(&err);
	return ret;
}

/* Has the suite's lists directory a Packages index? */
static bool have_lists(const char *dir)
{
	char *p = xasprintf("%s/lists", dir);
	DIR *d = opendir(p);
	struct dirent *de;
	bool found = false;

	while (d && !found && (de = readdir(d)))
		found = strstr(de->d_name, "_Packages") != NULL;
	if (d)
		closedir(d);
	free(p);
	return found;
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

int debfetch_exact_deps(const struct debfetch_source *src,
			const char *package, const char *version,
			struct strvec *deps)
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
	if (path && (sha256_file_hex(path, f->sha256) ||
		     strcmp(f->sha256, want))) {
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
