// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel artifacts: the cache key, the cached record (kernel.json), the
 * Debian prebuilt fetch, and the steps every kernel shares (depmod, the
 * read-only modules disk).
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kernel.h"
#include "artifact/seal.h"
#include "artifact/toolver.h"
#include "util/fs.h"
#include "util/kallsyms.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

static char *lab_file(const char *sub, const char *name)
{
	if (name[0] == '/')
		return xstrdup(name);
	return xasprintf("%s/lab/%s/%s", wblab_home(), sub, name);
}

static void hash_toolchain(struct hasher *h)
{
	const char *argv[] = { "gcc", "--version", NULL };
	struct strbuf out = STRBUF_INIT;

	tool_output(argv, &out);
	hasher_add_str(h, "toolchain", out.buf);
	strbuf_release(&out);
}

/* Source identity: the installed package's version, or the git commit. */
static int hash_source(struct hasher *h, const struct kernel_spec *s)
{
	struct strbuf out = STRBUF_INIT;
	int ret = 0;

	if (s->source_package && s->suite) {
		/* Pinned: the key needs neither the network nor the host. */
		hasher_add_str(h, "source-package", s->source_package);
		hasher_add_str(h, "source-suite", s->suite);
		hasher_add_str(h, "source-version", s->version);
	} else if (s->source_package) {
		const char *argv[] = { "dpkg-query",	  "-W",
				       "-f=${Version}",	  "--",
				       s->source_package, NULL };

		if (tool_output(argv, &out) || !out.len)
			ret = error(
				"%s: source package %s is not installed (make deps installs linux-source-6.1)",
				s->path, s->source_package);
		hasher_add_str(h, "source-package", s->source_package);
		hasher_add_str(h, "source-version", out.buf);
	} else if (s->source_git) {
		char *rev = xasprintf("%s^{commit}",
				      s->source_ref ? s->source_ref : "HEAD");
		const char *argv[] = { "git",	      "-C",
				       s->source_git, "rev-parse",
				       "--verify",    "--end-of-options",
				       rev,	      NULL };

		if (run_capture(argv, &out, NULL))
			ret = error("%s: source.git: cannot resolve %s in %s",
				    s->path, rev, s->source_git);
		strbuf_trim_trailing(&out);
		hasher_add_str(h, "source-git-commit", out.buf);
		free(rev);
	}
	strbuf_release(&out);
	return ret;
}

int kernel_cache_key(const struct kernel_spec *s, char *hex)
{
	struct hasher *h = hasher_new();
	int ret = 0;

	hasher_add_str(h, "wblab-kernel", "1");
	if (s->package) {
		hasher_add_str(h, "package", s->package);
		/* Absent for the host's packages: their keys stay as they were. */
		if (s->suite) {
			hasher_add_str(h, "suite", s->suite);
			hasher_add_str(h, "version", s->version);
		}
		hasher_finish(h, hex);
		return 0;
	}
	if (s->base) {
		struct kernel_spec base;
		char bhex[HASH_HEX_LEN + 1];

		if (!strcmp(s->base, s->name) ||
		    kernel_spec_find(s->base, &base))
			ret = error("%s: base: cannot load kernel '%s'",
				    s->path, s->base);
		else if (kernel_cache_key(&base, bhex))
			ret = -1;
		else
			hasher_add_str(h, "base", bhex);
		/* A module variant of a prebuilt kernel builds from its source. */
		if (base.package && hash_source(h, &base))
			ret = -1;
		kernel_spec_free(&base);
	}
	if (hash_source(h, s))
		ret = -1;
	/* A user's .config (an absolute path) is hashed by its contents. */
	if (s->config_base && s->config_base[0] == '/') {
		if (hasher_add_file(h, "config-base", s->config_base) < 0)
			ret = error("%s: cannot read %s: %s", s->path,
				    s->config_base, strerror(errno));
	} else {
		hasher_add_str(h, "config-base",
			       s->config_base ? s->config_base : "");
	}
	for (size_t i = 0; i < s->fragments.n; i++) {
		char *p = lab_file("configs", s->fragments.v[i]);

		/* Fragments from the kernel tree itself (kvm_guest.config) hash by name. */
		if (path_exists(p) &&
		    hasher_add_file(h, s->fragments.v[i], p) < 0)
			ret = error("%s: cannot read %s", s->path, p);
		else if (!path_exists(p))
			hasher_add_str(h, "tree-fragment", s->fragments.v[i]);
		free(p);
	}
	for (size_t i = 0; i < s->patches.n; i++) {
		char *p = lab_file("patches", s->patches.v[i]);

		if (hasher_add_file(h, s->patches.v[i], p) < 0)
			ret = error("%s: patches: cannot read %s: %s", s->path,
				    p, strerror(errno));
		free(p);
	}
	hasher_add_str(h, "localversion",
		       s->localversion ? s->localversion : "");
	hash_toolchain(h);
	hasher_finish(h, hex);
	return ret;
}

char *kernel_cache_dir_of(const char *name, const char *hash)
{
	char *leaf = xasprintf("%s-%.12s", name, hash);
	char *dir = cache_path("kernels", leaf);

	free(leaf);
	return dir;
}

char *kernel_cache_dir(const struct kernel_spec *s, const char *hash)
{
	return kernel_cache_dir_of(s->name, hash);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return json_object_get_string(v);
}

static char *jdup(json_object *o, const char *key)
{
	const char *s = jstr(o, key);

	return s ? xstrdup(s) : NULL;
}

/* modules.img and System.map are sealed when the entry has them. */
static const char *const kernel_files[] = { "kernel.json", "bzImage",
					    "config",	   "modules.img",
					    "System.map",  NULL };

int kernel_artifact_load(const char *dir, struct kernel_artifact *a)
{
	char why[160];
	char *path = xasprintf("%s/kernel.json", dir);
	json_object *o = json_object_from_file(path), *ts;
	const char *hash;

	memset(a, 0, sizeof(*a));
	free(path);
	if (!o)
		return -1;
	a->dir = xstrdup(dir);
	a->name = jdup(o, "name");
	a->version = jdup(o, "version");
	a->source = jdup(o, "source");
	a->patches = jdup(o, "patches");
	a->origin = jdup(o, "origin");
	if (json_object_object_get_ex(o, "thread_size", &ts))
		a->thread_size = json_object_get_int64(ts);
	hash = jstr(o, "hash");
	snprintf(a->hash, sizeof(a->hash), "%s", hash ? hash : "");
	a->bzimage = xasprintf("%s/bzImage", dir);
	a->config = xasprintf("%s/config", dir);
	a->modules_img = xasprintf("%s/modules.img", dir);
	if (!path_exists(a->modules_img)) {
		free(a->modules_img);
		a->modules_img = NULL;
	}
	/* Only a map the entry's (sealed) kernel.json names is its own. */
	if (jstr(o, "system_map")) {
		a->system_map = xasprintf("%s/System.map", dir);
		if (!path_exists(a->system_map)) {
			free(a->system_map);
			a->system_map = NULL;
		}
	}
	a->modules_dir = xasprintf("%s/modules/lib/modules/%s", dir,
				   a->version ? a->version : "");
	json_object_put(o);
	if (!a->name || !a->version || !path_exists(a->bzimage)) {
		kernel_artifact_free(a);
		return -1;
	}
	if (cache_verify(dir, kernel_files, why, sizeof(why))) {
		cache_warn_corrupt("kernel", dir, why);
		kernel_artifact_free(a);
		return -1;
	}
	return 0;
}

void kernel_artifact_free(struct kernel_artifact *a)
{
	free(a->name);
	free(a->dir);
	free(a->version);
	free(a->bzimage);
	free(a->config);
	free(a->modules_img);
	free(a->modules_dir);
	free(a->system_map);
	free(a->source);
	free(a->patches);
	free(a->config_inputs);
	free(a->origin);
	for (int i = 0; i < a->nr_debs; i++)
		deb_file_free(&a->debs[i]);
	free(a->debs);
	memset(a, 0, sizeof(*a));
}

int kernel_lookup(const struct kernel_spec *s, struct kernel_artifact *out)
{
	char hash[HASH_HEX_LEN + 1];
	char *dir;
	int ret;

	memset(out, 0, sizeof(*out));
	if (kernel_cache_key(s, hash))
		return -1;
	dir = kernel_cache_dir(s, hash);
	ret = kernel_artifact_load(dir, out) ? 1 : 0;
	free(dir);
	return ret;
}

static int64_t tree_bytes;

static int add_size(const char *p, const struct stat *st, int flag,
		    struct FTW *f)
{
	if (flag == FTW_F)
		tree_bytes += (st->st_size + 4095) & ~4095LL;
	else
		tree_bytes += 4096;
	return 0;
}

/* A read-only ext4 image of lib/modules, built without mounting. */
static int make_modules_img(const char *tmpdir)
{
	char *src = xasprintf("%s/modules/lib/modules", tmpdir);
	char *img = xasprintf("%s/modules.img", tmpdir);
	char size[32];
	const char *argv[] = { "mkfs.ext4", "-q",	 "-F",
			       "-L",	    "wblab-mod", "-d",
			       src,	    "-E",	 "root_owner=0:0",
			       "--",	    img,	 size,
			       NULL };
	struct strbuf err = STRBUF_INIT;
	int ret;

	tree_bytes = 0;
	nftw(src, add_size, 32, FTW_PHYS);
	snprintf(size, sizeof(size), "%lldk",
		 (long long)((tree_bytes * 5 / 4 + (32 << 20)) >> 10));
	ret = run_capture(argv, NULL, &err);
	if (ret)
		error("mkfs.ext4 for the modules disk failed (%d): %s", ret,
		      err.buf);
	strbuf_release(&err);
	free(src);
	free(img);
	return ret ? -1 : 0;
}

/* [{package, version, suite, file, sha256, size}] of a suite kernel's .debs. */
static json_object *kernel_debs_json(const struct kernel_artifact *a)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < a->nr_debs; i++) {
		const struct deb_file *d = &a->debs[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "package",
				       json_object_new_string(d->package));
		json_object_object_add(o, "version",
				       json_object_new_string(d->version));
		json_object_object_add(o, "suite",
				       json_object_new_string(d->suite));
		json_object_object_add(
			o, "file",
			json_object_new_string(strrchr(d->path, '/') + 1));
		json_object_object_add(o, "sha256",
				       json_object_new_string(d->sha256));
		json_object_object_add(o, "size",
				       json_object_new_int64(d->size));
		json_object_array_add(arr, o);
	}
	return arr;
}

static int write_kernel_json(const char *tmpdir,
			     const struct kernel_artifact *a)
{
	json_object *o = json_object_new_object();
	char *path = xasprintf("%s/kernel.json", tmpdir);
	const char *text;
	int ret;

	json_object_object_add(o, "name", json_object_new_string(a->name));
	json_object_object_add(o, "hash", json_object_new_string(a->hash));
	json_object_object_add(o, "version",
			       json_object_new_string(a->version));
	json_object_object_add(o, "origin", json_object_new_string(a->origin));
	json_object_object_add(o, "source",
			       json_object_new_string(a->source ? a->source :
								  ""));
	json_object_object_add(o, "patches",
			       json_object_new_string(a->patches ? a->patches :
								   ""));
	if (a->system_map)
		json_object_object_add(o, "system_map",
				       json_object_new_string("System.map"));
	if (a->thread_size)
		json_object_object_add(o, "thread_size",
				       json_object_new_int64(a->thread_size));
	if (a->nr_debs)
		json_object_object_add(o, "debs", kernel_debs_json(a));
	if (a->config_inputs)
		json_object_object_add(
			o, "config_inputs",
			json_object_new_string(a->config_inputs));
	json_object_object_add(o, "bzimage", json_object_new_string("bzImage"));
	json_object_object_add(o, "config", json_object_new_string("config"));
	json_object_object_add(o, "modules",
			       json_object_new_string("modules.img"));
	text = json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	ret = write_string_atomic(path, text);
	json_object_put(o);
	free(path);
	return ret;
}

void kernel_keep_system_map(struct kernel_artifact *a, const char *path,
			    const char *tmpdir)
{
	struct strbuf map = STRBUF_INIT;
	char *dst = xasprintf("%s/System.map", tmpdir);

	if (strbuf_read_file(&map, path) < 0) {
		warn("kernel %s: no System.map at %s: THREAD_SIZE not recorded",
		     a->name, path);
		goto out;
	}
	/*
	 * Debian 14's linux-base ships a one-line stub ("The real System.map
	 * is in the ...-dbg package"): kept, it would hide every symbol from
	 * the stack probes, so a map without the bounds is not kept and the
	 * cell reads the guest's /proc/kallsyms instead.
	 */
	if (!(a->thread_size = ksyms_thread_size(map.buf, map.len))) {
		warn("kernel %s: %s has no bounds of init_task's stack THREAD_SIZE apart (__start_init_task or __start_init_stack): THREAD_SIZE not recorded, and cells read the guest's /proc/kallsyms instead",
		     a->name, path);
		goto out;
	}
	/* Without the copy a cell reads the guest's /proc/kallsyms instead. */
	if (write_file_atomic(dst, map.buf, map.len, 0644))
		warn("kernel %s: cannot keep System.map in %s: %s", a->name,
		     tmpdir, strerror(errno));
	else
		a->system_map = xstrdup(dst);
out:
	free(dst);
	strbuf_release(&map);
}

int kernel_commit(const char *tmpdir, struct kernel_artifact *a)
{
	char *moddir = xasprintf("%s/modules", tmpdir);
	const char *depmod[] = {
		"depmod", "-b", moddir, "--", a->version, NULL
	};
	struct strbuf err = STRBUF_INIT;
	int ret = -1;

	if (run_capture(depmod, NULL, &err)) {
		error("depmod -b %s %s failed: %s", moddir, a->version,
		      err.buf);
		goto out;
	}
	if (make_modules_img(tmpdir) || write_kernel_json(tmpdir, a))
		goto out;
	if (a->nr_debs ? cache_seal_with(tmpdir, kernel_files, "debs",
					 kernel_debs_json(a)) :
			 cache_seal(tmpdir, kernel_files))
		goto out;
	if (cache_install(tmpdir, a->dir))
		goto out;
	ret = 0;
out:
	strbuf_release(&err);
	free(moddir);
	return ret;
}
