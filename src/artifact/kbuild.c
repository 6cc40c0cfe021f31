// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels built from source.
 *
 * Layout under the cache root:
 *   src/<package>-<version>/     the pristine tree, unpacked once from /usr/src
 *   build/<name>/linux/          the spec's source: a git source's clone,
 *                                checked out in place (kbuild-tree.c), or a
 *                                hardlink copy of the
 *                                pristine tree with the spec's patches applied
 *                                (patch writes files by rename, so a patched
 *                                file gets its own inode and a new mtime)
 *   build/<name>/linux/obj/      the O= tree
 *   build/<name>/build.log       make's output of the last build
 *   build/<name>/tree.stamp      what the source tree was made of
 *
 * The O= tree sits directly inside the source tree so kbuild uses the
 * relative srctree "..": command lines and dependency files then carry no
 * absolute path, and a variant (base: another kernel) starts from a copy of
 * its base's O= tree (cp -a keeps mtimes) and rebuilds only what its patches
 * touch. The compiler is plain "gcc" in every command line; ccache comes in
 * through PATH (/usr/lib/ccache), so turning it off does not change command
 * lines and force a full rebuild.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

#define BUILD_SPACE (6LL << 30)
#define MAX_BASE_DEPTH 8

static void plan_free(struct kb_plan *p)
{
	free(p->source_package);
	free(p->source_suite);
	free(p->source_version);
	free(p->source_spec);
	free(p->source_git);
	free(p->source_ref);
	free(p->config_base);
	spec_strlist_free(&p->fragments);
	spec_strlist_free(&p->patches);
	free(p->localversion);
	memset(p, 0, sizeof(*p));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int plan_resolve(const struct kernel_spec *s, struct kb_plan *p,
			int depth)
{
	if (s->package)
		return error(
			"%s: kernel %s is prebuilt (package:), there is nothing to build",
			s->path, s->name);
	if (s->base) {
		struct kernel_spec base;
		int ret;

		if (depth >= MAX_BASE_DEPTH || !strcmp(s->base, s->name))
			return error("%s: base: '%s' loops", s->path, s->base);
		if (kernel_spec_find(s->base, &base))
			return error("%s: base: cannot load kernel '%s'",
				     s->path, s->base);
		ret = plan_resolve(&base, p, depth + 1);
		kernel_spec_free(&base);
		if (ret)
			return ret;
		if (s->config_base) {
			free(p->config_base);
			p->config_base = xstrdup(s->config_base);
		}
	} else {
		p->source_package = dup_or_null(s->source_package);
		p->source_suite = dup_or_null(s->suite);
		p->source_version = dup_or_null(s->version);
		p->source_spec = dup_or_null(s->path);
		p->source_git = dup_or_null(s->source_git);
		p->source_ref = dup_or_null(s->source_ref);
		p->config_base =
			xstrdup(s->config_base ? s->config_base : "defconfig");
	}
	for (size_t i = 0; i < s->fragments.n; i++)
		spec_strlist_add(&p->fragments, s->fragments.v[i]);
	for (size_t i = 0; i < s->patches.n; i++)
		spec_strlist_add(&p->patches, s->patches.v[i]);
	if (s->localversion) {
		free(p->localversion);
		p->localversion = xstrdup(s->localversion);
	}
	return 0;
}

static void kb_free(struct kb *k)
{
	plan_free(&k->plan);
	free(k->pristine);
	free(k->ident);
	free(k->bdir);
	free(k->srctree);
	free(k->obj);
	free(k->log);
	for (size_t i = 0; k->patch_paths && k->patch_paths[i]; i++)
		free(k->patch_paths[i]);
	free(k->patch_paths);
	strvec_clear(&k->env);
	free(k->base_obj);
	free(k->base_hash);
	free(k->commit);
	free(k->seed);
}

int kernel_build(const struct kernel_spec *s, const char *hash,
		 struct kernel_artifact *out)
{
	struct kb k = { .s = s, .env = STRVEC_INIT };
	char *lockp = NULL, *builddir = NULL;
	int lock = -1, ret = -1;
	double t0 = now_mono();

	memset(out, 0, sizeof(*out));
	kb_fail_reset();
	{
		struct kernel_spec base;
		int modules = kernel_spec_module_base(s, &base);

		if (modules)
			ret = kb_build_modules(s, &base, hash, out);
		kernel_spec_free(&base);
		if (modules)
			return ret;
	}
	if (plan_resolve(s, &k.plan, 0))
		goto out;
	if (k.plan.source_package && k.plan.source_suite)
		k.pristine = kbuild_suite_source(
			k.plan.source_spec, k.plan.source_package,
			k.plan.source_suite, k.plan.source_version, &k.ident);
	else if (k.plan.source_package)
		k.pristine =
			kbuild_package_source(k.plan.source_package, &k.ident);
	else if (k.plan.source_git && !kb_git_resolve(&k))
		k.pristine = NULL; /* built in place (kbuild-tree.c) */
	else if (!k.plan.source_git)
		error("%s: no source: (package: or git:)", s->path);
	if (!k.pristine && !k.commit)
		goto out;

	/* Patches first: a patch that does not apply must cost nothing. */
	k.patch_paths = xzalloc((k.plan.patches.n + 1) * sizeof(char *));
	for (size_t i = 0; i < k.plan.patches.n; i++)
		k.patch_paths[i] =
			kbuild_lab_file("patches", k.plan.patches.v[i]);
	builddir = cache_path("build", "");
	if (cache_make_dir(builddir))
		goto out;
	/* A git tree checks them on its checkout of the commit, named alike. */
	if (k.pristine && kb_check_patches(s->name, k.pristine, k.patch_paths,
					   k.plan.patches.n))
		goto out;

	if (s->base) {
		struct kernel_spec base;
		struct kernel_artifact ba;

		if (kernel_spec_find(s->base, &base)) {
			error("%s: base: cannot load kernel '%s'", s->path,
			      s->base);
			goto out;
		}
		info("kernel %s: needs its base %s first", s->name, s->base);
		if (kernel_ensure(&base, &ba)) {
			error("kernel %s: building its base %s failed", s->name,
			      s->base);
			kernel_spec_free(&base);
			goto out;
		}
		k.base_hash = xstrdup(ba.hash);
		if (!base.package) {
			char *bb = cache_path("build", base.name);

			k.base_obj = xasprintf("%s/linux/obj", bb);
			free(bb);
			if (!path_exists(k.base_obj)) {
				/* Cached kernel, but its tree is gone: build from scratch. */
				info("kernel %s: the base's object tree is gone; building from scratch",
				     s->name);
				free(k.base_obj);
				k.base_obj = NULL;
			}
		}
		kernel_artifact_free(&ba);
		kernel_spec_free(&base);
	}
	/* A git tree is checked out in place, not copied: no base O= tree. */
	if (k.commit && k.base_obj) {
		free(k.base_obj);
		k.base_obj = NULL;
	}
	if (k.commit && s->seed)
		k.seed = xstrdup(s->seed);

	{
		char *leaf = xasprintf("%s.lock", s->tree ? s->tree : s->name);

		lockp = cache_path("build", leaf);
		free(leaf);
	}
	lock = cache_lock(lockp, lockp);
	if (lock < 0)
		goto out;
	if (kb_already_built(s, hash, out)) {
		ret = 0;
		goto out;
	}
	if (cache_check_space(cache_root(), BUILD_SPACE))
		goto out;
	k.bdir = cache_path("build", s->tree ? s->tree : s->name);
	k.srctree = xasprintf("%s/linux", k.bdir);
	k.obj = xasprintf("%s/obj", k.srctree);
	k.log = xasprintf("%s/build.log", k.bdir);
	if (cache_make_dir(k.bdir))
		goto out;
	{
		FILE *f = fopen(k.log, "w");
		char when[64];

		now_iso8601(when, sizeof(when));
		if (f) {
			fprintf(f,
				"wblab kernel build %s (%s), %s\nsource: %s\n",
				s->name, hash, when, k.ident);
			fclose(f);
		}
	}
	info("kernel %s: building from %s%s%s; log: %s", s->name, k.ident,
	     k.plan.patches.n ? " + patches" : "", s->base ? " (variant)" : "",
	     k.log);
	kb_env(&k);
	/* Hold the base's lock while copying its tree so it does not change under us. */
	if (k.base_obj) {
		char *bl = xasprintf("%s.lock", s->base);
		char *blp = cache_path("build", bl);
		int bfd = cache_lock(blp, blp);

		free(bl);
		free(blp);
		if (bfd < 0)
			goto out;
		ret = kb_prepare_tree(&k);
		cache_unlock(bfd);
		if (ret)
			goto out;
		ret = -1;
	} else if (k.commit ? kb_prepare_git_tree(&k) : kb_prepare_tree(&k)) {
		goto out;
	}
	if (kb_configure(&k)) {
		kb_fail(KBUILD_CONFIG, NULL, "configuring failed, see %s",
			k.log);
		goto out;
	}
	if (kb_make_kernel(&k)) {
		char msg[sizeof(kbuild_last_failure()->msg)];

		kb_compile_errors(k.log, msg, sizeof(msg));
		kb_fail(KBUILD_COMPILE, NULL, "%s", msg);
		goto out;
	}
	if (kb_install(&k, hash, out))
		goto out;
	{
		char *t = kb_fmt_secs(now_mono() - t0);

		info("kernel %s: %s built in %s -> %s", s->name, out->version,
		     t, out->dir);
		free(t);
	}
	ret = 0;
out:
	if (ret)
		kb_fail(KBUILD_INFRA, NULL, "the build failed (see above)");
	cache_unlock(lock);
	free(lockp);
	free(builddir);
	kb_free(&k);
	return ret;
}

int kernel_ensure(const struct kernel_spec *s, struct kernel_artifact *out)
{
	char hash[HASH_HEX_LEN + 1];
	int ret = kernel_lookup(s, out);

	if (ret <= 0)
		return ret;
	if (kernel_cache_key(s, hash))
		return -1;
	if (s->package)
		return kernel_fetch_prebuilt(s, hash, out);
	return kernel_build(s, hash, out);
}
