// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: the spec's source tree build/<name>/linux (reused while its
 * stamp matches) and the install of a finished build into the kernel cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/run.h"

static char *read_stamp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

void kb_stamp_patches(struct kb *k, struct strbuf *sb)
{
	for (size_t i = 0; i < k->plan.patches.n; i++) {
		char hex[HASH_HEX_LEN + 1] = "";

		hash_file_hex(k->patch_paths[i], hex);
		strbuf_addf(sb, "patch %s %s\n", k->plan.patches.v[i], hex);
	}
}

static char *tree_stamp(struct kb *k)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "layout 1\nsource %s\n", k->ident);
	kb_stamp_patches(k, &sb);
	if (k->s->base)
		strbuf_addf(&sb, "base %s %s\n", k->s->base, k->base_hash);
	return strbuf_detach(&sb, NULL);
}

/*
 * The tools/ build (objtool, built during prepare) uses absolute paths in
 * its command lines and dependency files. Every kernel object depends on
 * the objtool binary, so if objtool were relinked in the variant's tree,
 * everything would rebuild: point the copied .cmd and .d files at the new
 * tree, keeping their mtimes. Kbuild's own files use the relative srctree.
 */
static const char *fix_from, *fix_to;
static int fix_count, fix_errors;

static int fix_one(const char *path, const struct stat *st, int flag,
		   struct FTW *f)
{
	const char *base = path + f->base;
	size_t bl = strlen(base);
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	size_t fl = strlen(fix_from);
	const char *p, *hit;

	if (flag != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	if (!((base[0] == '.' && bl > 4 && !strcmp(base + bl - 4, ".cmd")) ||
	      (bl > 2 && !strcmp(base + bl - 2, ".d"))))
		return 0;
	if (strbuf_read_file(&in, path) < 0) {
		fix_errors++;
		goto out;
	}
	if (!strstr(in.buf, fix_from))
		goto out;
	for (p = in.buf; (hit = strstr(p, fix_from)); p = hit + fl) {
		strbuf_add(&out, p, hit - p);
		strbuf_addstr(&out, fix_to);
	}
	strbuf_addstr(&out, p);
	{
		struct timespec ts[2] = { st->st_atim, st->st_mtim };

		if (write_file_atomic(path, out.buf, out.len,
				      st->st_mode & 07777) ||
		    utimensat(AT_FDCWD, path, ts, 0))
			fix_errors++;
		else
			fix_count++;
	}
out:
	strbuf_release(&in);
	strbuf_release(&out);
	return 0;
}

int kb_fix_abs_paths(const char *obj, const char *from, const char *to)
{
	fix_from = from;
	fix_to = to;
	fix_count = fix_errors = 0;
	nftw(obj, fix_one, 64, FTW_PHYS);
	if (fix_errors)
		return error("cannot rewrite %d dependency files under %s",
			     fix_errors, obj);
	return fix_count;
}

/*
 * Make build/<name>/linux: reuse it when its stamp matches, else a hardlink
 * copy of the pristine tree with the patches applied and, for a variant, a
 * copy of the base's O= tree.
 */
int kb_prepare_tree(struct kb *k)
{
	char *stamp = tree_stamp(k);
	char *stamp_path = xasprintf("%s/tree.stamp", k->bdir);
	char *old = read_stamp(stamp_path);
	char *newt = xasprintf("%s/linux.new", k->bdir);
	struct strbuf err = STRBUF_INIT;
	int ret = -1;

	if (old && !strcmp(old, stamp) && path_exists(k->srctree)) {
		info("kernel %s: reusing the object tree %s", k->s->name,
		     k->obj);
		ret = 0;
		goto out;
	}
	if (cache_make_dir(k->bdir))
		goto out;
	unlink(stamp_path);
	rm_rf(newt);
	{
		const char *cp[] = {
			"cp", "-al", "--", k->pristine, newt, NULL
		};

		if (run_capture(cp, NULL, &err)) {
			error("cp -al %s %s failed: %s", k->pristine, newt,
			      err.buf);
			goto out;
		}
	}
	{
		char *m = xasprintf("%s/.wblab-unpacked", newt);

		unlink(m);
		free(m);
	}
	for (size_t i = 0; i < k->plan.patches.n; i++) {
		struct strbuf msg = STRBUF_INIT;
		struct strvec argv = STRVEC_INIT;
		int r = kbuild_patch_check(newt, k->patch_paths[i], &msg), bad;

		if (r) {
			kb_patch_failed(k->s->name, k->patch_paths[i], msg.buf);
			strbuf_release(&msg);
			goto out;
		}
		strbuf_release(&msg);
		kb_patch_argv(&argv, newt, k->patch_paths[i], false);
		info("kernel %s: applying %s", k->s->name,
		     k->plan.patches.v[i]);
		bad = kb_run_logged(argv.v, NULL, NULL, k->log);
		strvec_clear(&argv);
		if (bad) {
			error("kernel %s: applying %s failed, see %s",
			      k->s->name, k->patch_paths[i], k->log);
			goto out;
		}
	}
	if (k->base_obj) {
		char *dst = xasprintf("%s/obj", newt);
		const char *cp[] = { "cp", "-a",	"--reflink=auto",
				     "--", k->base_obj, dst,
				     NULL };
		double t0 = now_mono();

		info("kernel %s: starting from a copy of %s", k->s->name,
		     k->base_obj);
		strbuf_reset(&err);
		if (run_capture(cp, NULL, &err)) {
			error("cp -a %s %s failed: %s", k->base_obj, dst,
			      err.buf);
			free(dst);
			goto out;
		}
		{
			/* build/<base>/linux/obj -> build/<base>/linux */
			char *from =
				xstrndup(k->base_obj, strlen(k->base_obj) - 4);
			int n = kb_fix_abs_paths(dst, from, k->srctree);

			free(from);
			free(dst);
			if (n < 0)
				goto out;
		}
		{
			char *t = kb_fmt_secs(now_mono() - t0);

			info("kernel %s: copied the base's object tree in %s",
			     k->s->name, t);
			free(t);
		}
	}
	rm_rf(k->srctree);
	if (rename(newt, k->srctree) < 0) {
		error("cannot rename %s to %s: %s", newt, k->srctree,
		      strerror(errno));
		goto out;
	}
	if (write_string_atomic(stamp_path, stamp))
		goto out;
	ret = 0;
out:
	if (ret)
		rm_rf(newt);
	strbuf_release(&err);
	free(stamp);
	free(stamp_path);
	free(old);
	free(newt);
	return ret;
}

int kb_install(struct kb *k, const char *hash, struct kernel_artifact *a)
{
	char *leaf = xasprintf("%s-%.12s", k->s->name, hash);
	char *dir = cache_path("kernels", leaf);
	char *tmpdir = xasprintf("%s.tmp.%d", dir, (int)getpid());
	char *moddir = xasprintf("%s/modules", tmpdir);
	char *objarg = xasprintf("O=%s", k->obj);
	char *modarg = xasprintf("INSTALL_MOD_PATH=%s", moddir);
	char *relpath = xasprintf("%s/include/config/kernel.release", k->obj);
	char *src_k = xasprintf("%s/arch/x86/boot/bzImage", k->obj);
	char *src_c = xasprintf("%s/.config", k->obj);
	char *dst_k = xasprintf("%s/bzImage", tmpdir);
	char *dst_c = xasprintf("%s/config", tmpdir);
	struct strbuf rel = STRBUF_INIT, pl = STRBUF_INIT;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	rm_rf(tmpdir);
	if (cache_make_dir(moddir))
		goto out;
	if (strbuf_read_file(&rel, relpath) < 0 ||
	    (strbuf_trim_trailing(&rel), !rel.len)) {
		error("kernel %s: no kernel release in %s", k->s->name,
		      relpath);
		goto out;
	}
	{
		const char *mk[] = { "make",
				     "-C",
				     k->srctree,
				     objarg,
				     modarg,
				     "INSTALL_MOD_STRIP=1",
				     "modules_install",
				     NULL };

		if (kb_run_logged(mk, NULL, k->env.v, k->log)) {
			error("kernel %s: make modules_install failed, see %s",
			      k->s->name, k->log);
			goto out;
		}
	}
	{
		/* build and source point into the host's build tree: not for the guest. */
		char *mv = xasprintf("%s/lib/modules/%s", moddir, rel.buf);
		char *b = xasprintf("%s/build", mv);
		char *s = xasprintf("%s/source", mv);

		mkdir_p(mv, 0755);
		unlink(b);
		unlink(s);
		free(mv);
		free(b);
		free(s);
	}
	if (copy_file(src_k, dst_k, 0644) || copy_file(src_c, dst_c, 0644)) {
		error("kernel %s: cannot copy %s and %s into %s: %s",
		      k->s->name, src_k, src_c, tmpdir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < k->plan.patches.n; i++)
		strbuf_addf(&pl, "%s%s", i ? "," : "", k->plan.patches.v[i]);
	a->name = xstrdup(k->s->name);
	snprintf(a->hash, sizeof(a->hash), "%s", hash);
	a->dir = xstrdup(dir);
	a->version = xstrdup(rel.buf);
	a->source = xstrdup(k->ident);
	a->patches = strbuf_detach(&pl, NULL);
	a->config_inputs = kb_config_inputs(k);
	a->origin = xstrdup("built");
	{
		char *map = xasprintf("%s/System.map", k->obj);

		kernel_keep_system_map(a, map, tmpdir);
		free(map);
	}
	if (kernel_commit(tmpdir, a))
		goto out;
	{
		struct kernel_artifact loaded;

		if (kernel_artifact_load(dir, &loaded)) {
			error("kernel %s: %s/kernel.json unreadable after commit",
			      k->s->name, dir);
			goto out;
		}
		kernel_artifact_free(a);
		*a = loaded;
	}
	ret = 0;
out:
	if (ret) {
		rm_rf(tmpdir);
		kernel_artifact_free(a);
	}
	strbuf_release(&rel);
	strbuf_release(&pl);
	free(leaf);
	free(dir);
	free(tmpdir);
	free(moddir);
	free(objarg);
	free(modarg);
	free(relpath);
	free(src_k);
	free(src_c);
	free(dst_k);
	free(dst_c);
	return ret;
}

/* After waiting for a lock: another process may have built it meanwhile. */
bool kb_already_built(const struct kernel_spec *s, const char *hash,
		      struct kernel_artifact *out)
{
	char *leaf = xasprintf("%s-%.12s", s->name, hash);
	char *dir = cache_path("kernels", leaf);
	int ret = kernel_artifact_load(dir, out);

	free(leaf);
	free(dir);
	return ret == 0;
}
