// SPDX-License-Identifier: GPL-2.0
/*
 * The private apt of artifact/debfetch.c: one directory per suite under
 * the cache root, ROOT/apt/<suite>, holding the apt.conf every apt-get
 * and apt-cache of wblab's runs with (APT_CONFIG), which points every
 * Dir:: at that directory and its parts directory at an empty one there,
 * so not one of the host's apt files is read (its sources, its trusted
 * keys, its apt.conf.d) or written (its lists, its dpkg status, its
 * archive cache). One directory per suite keeps each suite's answer to
 * "which versions" its own.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/debfetch-int.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

#define DEBIAN_KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg"
#define DEFAULT_MIRROR "http://deb.debian.org/debian"
/* Enough for a 300 MB source .deb on a slow link, not for a hang. */
#define APT_TIMEOUT 1800

char *debfetch_dir(const char *suite)
{
	return cache_path("apt", suite);
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
 * suite's own. Sandbox::User root: _apt cannot enter the cache root. No
 * binary package cache: apt trusts one whose lists kept their size and
 * mtime second, so a list rewritten within a second would be read stale;
 * built from the lists each time instead (about a second for sid).
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
		"Dir::Cache::pkgcache \"\";\n"
		"Dir::Cache::srcpkgcache \"\";\n"
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
int apt_setup(const struct debfetch_source *src, char **dirp)
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
int apt_run(const char *dir, const char *const *argv, const char *cwd,
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

int apt_update(const struct debfetch_source *src, const char *dir)
{
	const char *argv[] = { "apt-get", "-q", "update", NULL };
	struct strbuf err = STRBUF_INIT;
	int ret;

	info("apt (private, %s): updating the lists of suite %s", dir,
	     src->suite);
	ret = apt_run(dir, argv, NULL, &err, &err);
	/* apt-get update exits 0 on a failed fetch: "W:"/"E:" lines say it. */
	if (ret || strstr(err.buf, "\nE: ") || !strncmp(err.buf, "E: ", 3))
		ret = error(
			"apt-get update of suite %s (private lists in %s/lists) failed: %s",
			src->suite, dir, err.buf);
	strbuf_release(&err);
	return ret;
}

/* Has the suite's lists directory a Packages index? */
bool have_lists(const char *dir)
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
