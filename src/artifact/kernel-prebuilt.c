// SPDX-License-Identifier: GPL-2.0
/*
 * Prebuilt Debian kernels: the package's .deb(s) fetched and unpacked,
 * the kernel, its config, System.map and modules staged into a cache
 * entry (kernel_commit()).
 *
 * Two package layouts exist. Debian 12's (6.1, 6.12) is one package:
 * boot/vmlinuz-VER, boot/config-VER, boot/System.map-VER and
 * lib/modules/VER/. Debian 14's (7.x, sid and experimental) splits it:
 * linux-image-VER is empty and depends at its exact version on
 * linux-binary-VER (usr/lib/modules/VER/vmlinuz), linux-modules-VER (the
 * modules, .ko.xz) and linux-base-VER (config, System.map in the same
 * directory). A spec names the image; its exact-version dependencies come
 * with it (debfetch_exact_deps), and both layouts are looked for.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/debfetch.h"
#include "artifact/kernel.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

/* Find the single name in dir starting with prefix. */
static char *find_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;

	if (!d)
		return NULL;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && !found &&
		    !strncmp(de->d_name, prefix, strlen(prefix)))
			found = xstrdup(de->d_name);
	closedir(d);
	return found;
}

/* The host's package: downloads/<package>_*.deb, apt-get download'ed once. */
static char *host_deb(const struct kernel_spec *s, const char *dl)
{
	char *pfx = xasprintf("%s_", s->package);
	char *deb = find_prefixed(dl, pfx), *path = NULL;
	struct strbuf err = STRBUF_INIT;

	if (!deb) {
		const char *argv[] = { "apt-get", "download", "--", s->package,
				       NULL };
		struct run_opts o = { .dir = dl, .out = &err, .err = &err };

		info("kernel %s: downloading %s", s->name, s->package);
		if (run_argv(argv, &o))
			error("%s: apt-get download %s failed: %s", s->path,
			      s->package, err.buf);
		else if (!(deb = find_prefixed(dl, pfx)))
			error("apt-get download %s left no .deb in %s",
			      s->package, dl);
	}
	if (deb)
		path = xasprintf("%s/%s", dl, deb);
	strbuf_release(&err);
	free(pfx);
	free(deb);
	return path;
}

static int extract(const char *deb, const char *root)
{
	const char *x[] = { "dpkg-deb", "-x", deb, root, NULL };
	struct strbuf err = STRBUF_INIT;
	int ret = run_capture(x, NULL, &err);

	if (ret)
		error("dpkg-deb -x %s failed: %s", deb, err.buf);
	strbuf_release(&err);
	return ret ? -1 : 0;
}

/* The host's one package: a->source "PACKAGE VERSION". */
static int unpack_host(const struct kernel_spec *s, const char *root,
		       struct kernel_artifact *a)
{
	char *dl = cache_path("downloads", "");
	char *deb = NULL;
	struct strbuf out = STRBUF_INIT;
	int ret = -1;

	if (cache_make_dir(dl) || cache_check_space(dl, 1LL << 30))
		goto out;
	deb = host_deb(s, dl);
	if (!deb || extract(deb, root))
		goto out;
	{
		const char *f[] = { "dpkg-deb", "-f", deb, "Version", NULL };

		if (run_capture(f, &out, NULL))
			goto out;
	}
	strbuf_trim_trailing(&out);
	a->source = xasprintf("%s %s", s->package, out.buf);
	ret = 0;
out:
	strbuf_release(&out);
	free(deb);
	free(dl);
	return ret;
}

/*
 * "PACKAGE VERSION (SUITE; FILE sha256 HEX, ...)": kernel.json's and so
 * every cell.json's source names each .deb it booted, to the byte.
 */
static char *suite_ident(const struct kernel_spec *s,
			 const struct kernel_artifact *a)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s %s (%s", s->package, s->version, s->suite);
	for (int i = 0; i < a->nr_debs; i++)
		strbuf_addf(&sb, "%s %s sha256 %s", i ? "," : ";",
			    strrchr(a->debs[i].path, '/') + 1,
			    a->debs[i].sha256);
	strbuf_addch(&sb, ')');
	return strbuf_detach(&sb, NULL);
}

/* A suite's package and its exact-version parts, through the private apt. */
static int unpack_suite(const struct kernel_spec *s, const char *root,
			struct kernel_artifact *a)
{
	const struct debfetch_source src = { .spec = s->path,
					     .suite = s->suite };
	struct strvec pkgs = STRVEC_INIT;
	struct deb_file image;
	int ret = -1;

	strvec_push(&pkgs, s->package);
	/* The version must be carried before its dependencies are asked. */
	if (debfetch_get(&src, s->version, pkgs.v, 1, &image))
		goto out;
	deb_file_free(&image);
	if (debfetch_exact_deps(&src, s->package, s->version, &pkgs))
		goto out;
	a->debs = xzalloc(pkgs.nr * sizeof(*a->debs));
	if (debfetch_get(&src, s->version, pkgs.v, (int)pkgs.nr, a->debs))
		goto out;
	a->nr_debs = (int)pkgs.nr;
	for (int i = 0; i < a->nr_debs; i++)
		if (extract(a->debs[i].path, root))
			goto out;
	a->source = suite_ident(s, a);
	ret = 0;
out:
	strvec_clear(&pkgs);
	return ret;
}

/* Where the package put the kernel, for either layout (see above). */
struct layout {
	char *moddir; /* ROOT/lib or ROOT/usr/lib: holds modules/VER */
	char *ver;
	char *vmlinuz, *config, *map;
};

static void layout_free(struct layout *l)
{
	free(l->moddir);
	free(l->ver);
	free(l->vmlinuz);
	free(l->config);
	free(l->map);
}

static int find_layout(const char *root, struct layout *l)
{
	char *boot = xasprintf("%s/boot", root), *mods, *k;

	memset(l, 0, sizeof(*l));
	l->moddir = xasprintf("%s/usr/lib", root);
	mods = xasprintf("%s/modules", l->moddir);
	l->ver = find_prefixed(mods, "");
	k = l->ver ? xasprintf("%s/%s/vmlinuz", mods, l->ver) : NULL;
	if (k && path_exists(k)) {
		l->vmlinuz = k;
		l->config = xasprintf("%s/%s/config", mods, l->ver);
		l->map = xasprintf("%s/%s/System.map", mods, l->ver);
	} else {
		free(k);
		free(l->moddir);
		free(l->ver);
		free(mods);
		l->moddir = xasprintf("%s/lib", root);
		mods = xasprintf("%s/modules", l->moddir);
		l->ver = find_prefixed(mods, "");
		k = find_prefixed(boot, "vmlinuz-");
		l->vmlinuz = k ? xasprintf("%s/%s", boot, k) : NULL;
		free(k);
		k = find_prefixed(boot, "config-");
		l->config = k ? xasprintf("%s/%s", boot, k) : NULL;
		free(k);
		l->map = l->ver ? xasprintf("%s/System.map-%s", boot, l->ver) :
				  NULL;
	}
	free(mods);
	free(boot);
	if (!l->ver || !l->vmlinuz || !l->config || !path_exists(l->config))
		return -1;
	return 0;
}

/* bzImage, config and System.map at the top, the modules below. */
static int stage(const struct kernel_spec *s, const char *root,
		 const char *tmpdir, struct kernel_artifact *a)
{
	struct layout l;
	char *dst_k = xasprintf("%s/bzImage", tmpdir);
	char *dst_c = xasprintf("%s/config", tmpdir);
	char *moddst = xasprintf("%s/modules/lib", tmpdir);
	int ret = -1;

	if (find_layout(root, &l)) {
		error("%s: package %s has no boot/vmlinuz-* and config-* nor usr/lib/modules/*/vmlinuz and config",
		      s->path, s->package);
		goto out;
	}
	a->version = xstrdup(l.ver);
	kernel_keep_system_map(a, l.map, tmpdir);
	if (rename(l.vmlinuz, dst_k) || rename(l.config, dst_c) ||
	    mkdir_p(moddst, 0755) || rmdir(moddst) || rename(l.moddir, moddst))
		error("cannot stage kernel files in %s: %s", tmpdir,
		      strerror(errno));
	else
		ret = 0;
out:
	layout_free(&l);
	free(dst_k);
	free(dst_c);
	free(moddst);
	return ret;
}

static int fetch_prebuilt(const struct kernel_spec *s, const char *hash,
			  struct kernel_artifact *a)
{
	char *tmpdir = NULL, *root = NULL;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	a->name = xstrdup(s->name);
	snprintf(a->hash, sizeof(a->hash), "%s", hash);
	a->dir = kernel_cache_dir(s, hash);
	tmpdir = xasprintf("%s.tmp.%d", a->dir, (int)getpid());
	root = xasprintf("%s/pkg", tmpdir);
	rm_rf(tmpdir);
	if (cache_make_dir(root))
		goto out;
	if (s->suite ? unpack_suite(s, root, a) : unpack_host(s, root, a))
		goto out;
	a->patches = xstrdup("");
	a->origin = xstrdup("prebuilt");
	if (stage(s, root, tmpdir, a))
		goto out;
	rm_rf(root);
	ret = kernel_commit(tmpdir, a);
	if (!ret) {
		struct kernel_artifact loaded;

		ret = kernel_artifact_load(a->dir, &loaded);
		kernel_artifact_free(a);
		*a = loaded;
	}
out:
	if (ret && tmpdir)
		rm_rf(tmpdir);
	if (ret)
		kernel_artifact_free(a);
	free(tmpdir);
	free(root);
	return ret;
}

/*
 * Under the entry's lock (DIR.lock), as source builds are: two processes
 * meeting a cold or corrupt entry fetch it once, and the second finds
 * what the first made when it gets the lock.
 */
int kernel_fetch_prebuilt(const struct kernel_spec *s, const char *hash,
			  struct kernel_artifact *a)
{
	char *dir = kernel_cache_dir(s, hash), *up = cache_path("kernels", "");
	char *lockp = cache_lock_path(dir);
	int lock = -1, ret = -1;

	memset(a, 0, sizeof(*a));
	if (cache_make_dir(up))
		goto out;
	/* A pinned version the suite dropped must not leave even a lock file. */
	if (s->suite && kernel_artifact_load(dir, a)) {
		const struct debfetch_source src = { .spec = s->path,
						     .suite = s->suite };
		const char *pkgs[] = { s->package };

		if (debfetch_check(&src, s->version, pkgs, 1))
			goto out;
	} else if (s->suite) {
		ret = 0;
		goto out;
	}
	lock = cache_lock(lockp, dir);
	if (lock < 0)
		goto out;
	ret = kernel_artifact_load(dir, a) ? fetch_prebuilt(s, hash, a) : 0;
	cache_unlock(lock);
out:
	free(lockp);
	free(up);
	free(dir);
	return ret;
}
