// SPDX-License-Identifier: GPL-2.0
/*
 * Module variants of a prebuilt kernel: a spec whose base: is a package:
 * kernel and whose patches change only loadable modules. Debian's
 * configuration builds md, raid1 and virtio_net as modules, so a lab patch
 * to them can be tested on the very kernel that showed a fault, without
 * rebuilding it with another configuration: the bzImage stays the base's,
 * byte for byte.
 *
 * The patched files' directories are copied (hard links) from the source
 * the base's package was built from (its spec's source: package), patched,
 * and built out of tree against the package's headers
 * (linux-headers-<release>, kbuild-headers.c: never installed), with a
 * Kbuild that keeps the directory's own rules but builds only the modules
 * the package ships from that directory. Each module one of whose objects
 * read a patched file (kbuild's .cmd dependency lists) replaces the
 * package's in a hard-linked copy of the
 * base's modules tree, stripped and compressed as the package's are.
 * Because the headers carry Module.symvers and the configuration, the
 * modules get the base's vermagic and symbol versions; they are not
 * signed, and the base does not enforce signatures
 * (CONFIG_MODULE_SIG_FORCE unset), so loading them taints the kernel (E).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild-int.h"
#include "artifact/toolver.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

#define MOD_PATCH_MAX (4 << 20)
#define MOD_FILE_MAX (1 << 20)
#define MOD_CMD_MAX (16 << 20)

struct kmv {
	const struct kernel_spec *s;
	const struct kernel_spec *base;
	struct kernel_artifact ba;
	char *headers; /* /usr/src/linux-headers-<release> */
	char *pristine;
	char *ident; /* "linux-source-6.1 6.1.192-3" */
	char *work; /* build/<name>/mods: the patched directories */
	char *log;
	struct strvec patches; /* absolute paths, in order */
	struct strvec files; /* what they change, relative to the tree */
	struct strvec dirs; /* the files' directories, each once */
	struct strvec mods; /* modules to replace: DIR/NAME, no suffix */
};

static const char *const mod_suffixes[] = { ".ko", ".ko.xz", ".ko.zst",
					    ".ko.gz", NULL };

static void kmv_free(struct kmv *m)
{
	kernel_artifact_free(&m->ba);
	free(m->headers);
	free(m->pristine);
	free(m->ident);
	free(m->work);
	free(m->log);
	strvec_clear(&m->patches);
	strvec_clear(&m->files);
	strvec_clear(&m->dirs);
	strvec_clear(&m->mods);
}

int kbuild_patch_files(const char *text, const char *name, struct strvec *files)
{
	struct kb_diff_line d = { .at = text };
	int ret = 0;

	while (kb_diff_next(&d)) {
		const char *f = d.path;
		size_t len = d.path_len;
		char *path;

		if (d.side != '+')
			continue;
		if (len >= 9 && !strncmp(f, "/dev/null", 9)) {
			ret = error(
				"%s:%d: a patch that deletes a file cannot make a module variant",
				name, d.nr);
			continue;
		}
		if (len < 3 || strncmp(f, "b/", 2) || memmem(f, len, "..", 2)) {
			ret = error(
				"%s:%d: '%.*s' is not a b/PATH inside the tree",
				name, d.nr, (int)(d.len - 4), f);
			continue;
		}
		path = xstrndup(f + 2, len - 2);
		if (!strvec_has(files, path))
			strvec_push(files, path);
		free(path);
	}
	if (!ret && !files->nr)
		ret = error("%s: changes no file (no '+++ b/PATH' line)", name);
	return ret;
}

/* The files the patches change, each a .c file, and their directories. */
static int collect_files(struct kmv *m)
{
	int ret = 0;

	for (size_t i = 0; i < m->s->patches.n; i++) {
		char *p = kbuild_lab_file("patches", m->s->patches.v[i]);
		struct strbuf text = STRBUF_INIT;

		strvec_push(&m->patches, p);
		if (read_file_capped(&text, p, MOD_PATCH_MAX) < 0)
			ret = error("%s: patches: cannot read %s: %s",
				    m->s->path, p, strerror(errno));
		else if (kbuild_patch_files(text.buf, p, &m->files))
			ret = -1;
		strbuf_release(&text);
		free(p);
	}
	for (size_t i = 0; !ret && i < m->files.nr; i++) {
		const char *f = m->files.v[i], *slash = strrchr(f, '/');
		size_t n = strlen(f);
		char *dir;

		if (n < 3 || strcmp(f + n - 2, ".c") || !slash)
			return error(
				"%s: the patches change %s: a module variant of %s rebuilds modules from .c files only (a header may be built in)",
				m->s->path, f, m->base->name);
		dir = xstrndup(f, slash - f);
		if (!strvec_has(&m->dirs, dir))
			strvec_push(&m->dirs, dir);
		free(dir);
	}
	return ret;
}

/*
 * The headers must be those of the base's release at the source's Debian
 * version, or the modules would not match the kernel: the host's when
 * installed at that version, else fetched into the cache.
 */
static int find_headers(struct kmv *m)
{
	const char *src_ver = strchr(m->ident, ' ');

	if (!src_ver)
		return error("%s: no Debian version for %s", m->s->path,
			     m->ident);
	m->headers = kb_debian_headers(m->ba.version, src_ver + 1);
	if (!m->headers)
		return error(
			"%s: no linux-headers-%s at %s: the modules of %s are built against it",
			m->s->path, m->ba.version, src_ver + 1, m->base->name);
	return 0;
}

/* build/<name>/mods/DIR: hard links of the pristine DIR, then patched. */
static int prepare_tree(struct kmv *m)
{
	int ret = 0;

	rm_rf(m->work);
	for (size_t i = 0; !ret && i < m->dirs.nr; i++) {
		char *src = xasprintf("%s/%s", m->pristine, m->dirs.v[i]);
		char *dst = xasprintf("%s/%s", m->work, m->dirs.v[i]);
		char *up = xstrndup(dst, strrchr(dst, '/') - dst);
		const char *cp[] = { "cp", "-al", "--", src, dst, NULL };
		struct strbuf err = STRBUF_INIT;

		if (mkdir_p(up, 0755) || run_capture(cp, NULL, &err))
			ret = error("cannot copy %s to %s: %s", src, dst,
				    err.buf);
		strbuf_release(&err);
		free(src);
		free(dst);
		free(up);
	}
	for (size_t i = 0; !ret && i < m->patches.nr; i++) {
		struct strvec argv = STRVEC_INIT;

		kb_patch_argv(&argv, m->work, m->patches.v[i], false);
		if (kb_run_logged(argv.v, m->work, NULL, m->log))
			ret = kb_patch_failed(m->s->name, m->patches.v[i],
					      "does not apply, see the log");
		strvec_clear(&argv);
	}
	return ret;
}

/* The package's modules in DIR, as "NAME.o " for obj-m. */
static int package_modules(struct kmv *m, const char *dir, struct strbuf *objs)
{
	char *path = xasprintf("%s/kernel/%s", m->ba.modules_dir, dir);
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d) {
		error("%s: %s ships no module from %s (%s)", m->s->path,
		      m->base->name, dir, path);
		free(path);
		return -1;
	}
	while ((de = readdir(d)))
		for (int i = 0; mod_suffixes[i]; i++) {
			size_t n = strlen(de->d_name),
			       k = strlen(mod_suffixes[i]);

			if (n > k &&
			    !strcmp(de->d_name + n - k, mod_suffixes[i]))
				strbuf_addf(objs, "%.*s.o ", (int)(n - k),
					    de->d_name);
		}
	closedir(d);
	free(path);
	return 0;
}

/*
 * Build DIR's modules with the directory's own rules (its Kbuild or
 * Makefile, included) but only the package's modules in obj-m and nothing
 * built in or in subdirectories.
 */
static int build_dir(struct kmv *m, const char *dir)
{
	char *mdir = xasprintf("%s/%s", m->work, dir);
	char *kbuild = xasprintf("%s/Kbuild", mdir);
	char *orig = xasprintf("%s/Kbuild.wblab-orig", mdir);
	char *jobs = xasprintf("-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	char *marg = xasprintf("M=%s", mdir);
	const char *argv[] = { "make", "-C",	  m->headers, marg,
			       jobs,   "modules", NULL };
	struct strbuf objs = STRBUF_INIT, text = STRBUF_INIT;
	int ret = -1;

	if (package_modules(m, dir, &objs))
		goto out;
	if (path_exists(kbuild) && rename(kbuild, orig)) {
		error("cannot rename %s: %s", kbuild, strerror(errno));
		goto out;
	}
	strbuf_addf(&text, "include $(src)/%s\nobj-m := %s\nobj-y :=\n",
		    path_exists(orig) ? "Kbuild.wblab-orig" : "Makefile",
		    objs.buf);
	if (write_string_atomic(kbuild, text.buf))
		goto out;
	info("kernel %s: building %s against %s", m->s->name, dir, m->headers);
	if (kb_run_logged(argv, NULL, NULL, m->log)) {
		char msg[sizeof(kbuild_last_failure()->msg)];

		kb_compile_errors(m->log, msg, sizeof(msg));
		kb_fail(KBUILD_COMPILE, NULL, "%s", msg);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&objs);
	strbuf_release(&text);
	free(mdir);
	free(kbuild);
	free(orig);
	free(jobs);
	free(marg);
	return ret;
}

/* Is tok in text as a whole word (between blanks, '=' or line ends)? */
static bool has_token(const char *text, const char *tok)
{
	size_t n = strlen(tok);

	for (const char *p = strstr(text, tok); p; p = strstr(p + 1, tok)) {
		char before = p == text ? ' ' : p[-1], after = p[n];

		if (strchr(" \t\n=", before) && strchr(" \t\n\\", after))
			return true;
	}
	return false;
}

/*
 * Does object obj read src? Its kbuild .cmd file (DIR/.NAME.o.cmd) names
 * its source and every file it included: raid1-10.c is compiled only
 * inside raid1.o and raid10.o.
 */
static bool object_reads(const char *obj, const char *src)
{
	const char *slash = strrchr(obj, '/');
	char *cmd =
		xasprintf("%.*s/.%s.cmd", (int)(slash - obj), obj, slash + 1);
	struct strbuf text = STRBUF_INIT;
	bool found = read_file_capped(&text, cmd, MOD_CMD_MAX) >= 0 &&
		     has_token(text.buf, src);

	strbuf_release(&text);
	free(cmd);
	return found;
}

/* Is the module whose .mod (kbuild's list of its objects) is mod built from src? */
static bool module_reads(const char *mod, const char *src)
{
	struct strbuf text = STRBUF_INIT;
	bool found = false;
	char *tok, *save;

	if (read_file_capped(&text, mod, MOD_FILE_MAX) < 0) {
		strbuf_release(&text);
		return false;
	}
	for (tok = strtok_r(text.buf, " \t\n", &save); tok && !found;
	     tok = strtok_r(NULL, " \t\n", &save))
		found = object_reads(tok, src);
	strbuf_release(&text);
	return found;
}

/* For each patched file, the modules built from it. */
static int find_modules(struct kmv *m)
{
	int ret = 0;

	for (size_t i = 0; i < m->files.nr; i++) {
		const char *f = m->files.v[i];
		char *src = xasprintf("%s/%s", m->work, f);
		char *dir = xstrndup(f, strrchr(f, '/') - f);
		char *mdir = xasprintf("%s/%s", m->work, dir);
		DIR *d = opendir(mdir);
		struct dirent *de;
		int hits = 0;

		while (d && (de = readdir(d))) {
			size_t n = strlen(de->d_name);
			char *mod, *name;

			if (n < 5 || strcmp(de->d_name + n - 4, ".mod"))
				continue;
			mod = xasprintf("%s/%s", mdir, de->d_name);
			name = xasprintf("%s/%.*s", dir, (int)n - 4,
					 de->d_name);
			if (module_reads(mod, src)) {
				hits++;
				if (!strvec_has(&m->mods, name))
					strvec_push(&m->mods, name);
			}
			free(mod);
			free(name);
		}
		if (d)
			closedir(d);
		if (!hits)
			ret = error(
				"%s: no module of %s is built from %s (it is built in, or not a module in its configuration)",
				m->s->path, m->base->name, f);
		free(src);
		free(dir);
		free(mdir);
	}
	return ret;
}

/* The package's file for module NAME (DIR/NAME plus its suffix), or NULL. */
static char *package_module(struct kmv *m, const char *name, const char *root,
			    const char **suffix)
{
	for (int i = 0; mod_suffixes[i]; i++) {
		char *p = xasprintf("%s/kernel/%s%s", root, name,
				    mod_suffixes[i]);

		if (path_exists(p)) {
			*suffix = mod_suffixes[i];
			return p;
		}
		free(p);
	}
	return NULL;
}

/* Strip and compress like the package's module, then rename over it. */
static int install_module(struct kmv *m, const char *moddir, const char *name)
{
	const char *suffix = NULL;
	char *dst = package_module(m, name, moddir, &suffix);
	char *src = xasprintf("%s/%s.ko", m->work, name);
	char *tmp = dst ? xasprintf("%s.wblab.ko", dst) : NULL;
	char *packed = tmp ? xasprintf("%s%s", tmp, suffix + 3) : NULL;
	const char *strip[] = { "strip", "--strip-debug", "-o", tmp, "--", src,
				NULL };
	const char *xz[] = {
		"xz", "--check=crc32", "--lzma2=dict=1MiB", "-f", "--", tmp,
		NULL
	};
	const char *zst[] = {
		"zstd", "-q", "-f", "--rm", "-T0", "--", tmp, NULL
	};
	const char *gz[] = { "gzip", "-9", "-n", "-f", "--", tmp, NULL };
	struct strbuf err = STRBUF_INIT;
	int ret = -1;

	if (!dst) {
		error("%s: %s has no module %s", m->s->path, m->base->name,
		      name);
		goto out;
	}
	if (run_capture(strip, NULL, &err) ||
	    (!strcmp(suffix, ".ko.xz") && run_capture(xz, NULL, &err)) ||
	    (!strcmp(suffix, ".ko.zst") && run_capture(zst, NULL, &err)) ||
	    (!strcmp(suffix, ".ko.gz") && run_capture(gz, NULL, &err))) {
		error("cannot strip or compress %s: %s", src, err.buf);
		goto out;
	}
	/* A new inode: the base's hard-linked file is left as it was. */
	if (rename(packed, dst)) {
		error("cannot rename %s to %s: %s", packed, dst,
		      strerror(errno));
		goto out;
	}
	info("kernel %s: %s%s replaced", m->s->name, name, suffix);
	ret = 0;
out:
	strbuf_release(&err);
	free(dst);
	free(src);
	free(tmp);
	free(packed);
	return ret;
}

/*
 * depmod's outputs in the copy are hard links to the base's: unlink them
 * so that depmod writes new files (its inputs, modules.order and
 * modules.builtin*, stay).
 */
static void unlink_depmod_outputs(const char *moddir)
{
	DIR *d = opendir(moddir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *p;

		if (strncmp(de->d_name, "modules.", 8) ||
		    !strcmp(de->d_name, "modules.order") ||
		    !strcmp(de->d_name, "modules.builtin") ||
		    !strcmp(de->d_name, "modules.builtin.modinfo"))
			continue;
		p = xasprintf("%s/%s", moddir, de->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
}

static int stage(struct kmv *m, const char *tmpdir, struct kernel_artifact *a)
{
	char *bz = xasprintf("%s/bzImage", tmpdir);
	char *cfg = xasprintf("%s/config", tmpdir);
	char *mods = xasprintf("%s/modules", tmpdir);
	char *moddir = xasprintf("%s/lib/modules/%s", mods, m->ba.version);
	char *srcmods = xasprintf("%s/modules", m->ba.dir);
	const char *cp[] = { "cp", "-al", "--", srcmods, mods, NULL };
	struct strbuf err = STRBUF_INIT;
	int ret = -1;

	if (mkdir_p(tmpdir, 0755) || copy_file(m->ba.bzimage, bz, 0644) ||
	    copy_file(m->ba.config, cfg, 0644)) {
		error("cannot copy %s's kernel to %s", m->base->name, tmpdir);
		goto out;
	}
	if (run_capture(cp, NULL, &err)) {
		error("cannot copy %s to %s: %s", srcmods, mods, err.buf);
		goto out;
	}
	unlink_depmod_outputs(moddir);
	for (size_t i = 0; i < m->mods.nr; i++)
		if (install_module(m, moddir, m->mods.v[i]))
			goto out;
	if (m->ba.system_map)
		kernel_keep_system_map(a, m->ba.system_map, tmpdir);
	ret = 0;
out:
	strbuf_release(&err);
	free(bz);
	free(cfg);
	free(mods);
	free(moddir);
	free(srcmods);
	return ret;
}

static void fill_artifact(struct kmv *m, const char *hash, const char *dir,
			  struct kernel_artifact *a)
{
	struct strbuf p = STRBUF_INIT;

	for (size_t i = 0; i < m->s->patches.n; i++)
		strbuf_addf(&p, "%s%s", i ? "," : "", m->s->patches.v[i]);
	a->name = xstrdup(m->s->name);
	snprintf(a->hash, sizeof(a->hash), "%s", hash);
	a->dir = xstrdup(dir);
	a->version = xstrdup(m->ba.version);
	a->source = xasprintf("%s; modules rebuilt from %s", m->ba.source,
			      m->ident);
	a->patches = strbuf_detach(&p, NULL);
	a->origin = xstrdup("built");
}

static int build_locked(struct kmv *m, const char *hash, const char *dir,
			struct kernel_artifact *a)
{
	char bhash[HASH_HEX_LEN + 1];
	char *tmpdir = NULL;
	int ret = -1;

	if (kernel_cache_key(m->base, bhash) ||
	    kernel_fetch_prebuilt(m->base, bhash, &m->ba) || collect_files(m))
		goto out;
	if (m->base->suite)
		m->pristine = kbuild_suite_source(m->base->path,
						  m->base->source_package,
						  m->base->suite,
						  m->base->version, &m->ident);
	else
		m->pristine = kbuild_package_source(m->base->source_package,
						    &m->ident);
	if (!m->pristine || find_headers(m) || prepare_tree(m))
		goto out;
	for (size_t i = 0; i < m->dirs.nr; i++)
		if (build_dir(m, m->dirs.v[i]))
			goto out;
	if (find_modules(m))
		goto out;
	fill_artifact(m, hash, dir, a);
	tmpdir = xasprintf("%s.tmp.%d", dir, (int)getpid());
	rm_rf(tmpdir);
	if (stage(m, tmpdir, a) || kernel_commit(tmpdir, a))
		goto out;
	kernel_artifact_free(a);
	ret = kernel_artifact_load(dir, a);
out:
	if (ret && tmpdir)
		rm_rf(tmpdir);
	free(tmpdir);
	return ret;
}

static void modvar_error(const char *field, const char *msg, void *arg)
{
	const struct kernel_spec *s = arg;

	error("%s: %s: base %s: %s", s->path, field, s->base, msg);
}

int kb_build_modules(const struct kernel_spec *s,
		     const struct kernel_spec *base, const char *hash,
		     struct kernel_artifact *out)
{
	struct kmv m = { .s = s, .base = base };
	char *dir = kernel_cache_dir(s, hash), *lockp = cache_lock_path(dir);
	char *bdir = cache_path("build", s->name);
	int lock = -1, ret = -1;
	double t0 = now_mono();

	memset(out, 0, sizeof(*out));
	strvec_init(&m.patches);
	strvec_init(&m.files);
	strvec_init(&m.dirs);
	strvec_init(&m.mods);
	/* Specs made in code have not been through the loader's check. */
	if (kernel_module_variant_check(s, base, modvar_error, (void *)s) ||
	    cache_make_dir(bdir))
		goto out;
	m.work = xasprintf("%s/mods", bdir);
	m.log = xasprintf("%s/build.log", bdir);
	unlink(m.log);
	lock = cache_lock(lockp, dir);
	if (lock < 0)
		goto out;
	ret = kernel_artifact_load(dir, out) ?
		      build_locked(&m, hash, dir, out) :
		      0;
	cache_unlock(lock);
	if (!ret) {
		char *t = kb_fmt_secs(now_mono() - t0);

		info("kernel %s: %s's modules with %zu patch(es) in %s -> %s",
		     s->name, base->name, s->patches.n, t, out->dir);
		free(t);
	}
out:
	if (ret)
		kb_fail(KBUILD_INFRA, NULL, "the build failed (see above)");
	kmv_free(&m);
	free(dir);
	free(lockp);
	free(bdir);
	return ret;
}
