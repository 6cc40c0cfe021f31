// SPDX-License-Identifier: GPL-2.0
/*
 * Guest root images: debootstrap into a staging directory, then
 * mkfs.ext4 -d turns the tree into an image without mounting anything.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/image.h"
#include "artifact/seal.h"
#include "artifact/toolver.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

int image_cache_key(const struct image_spec *s, char *hex)
{
	struct hasher *h = hasher_new();
	const char *argv[] = { "dpkg-query", "-W", "-f=${Version}",
			       "debootstrap", NULL };
	struct strbuf ver = STRBUF_INIT;

	tool_output(argv, &ver);
	hasher_add_str(h, "wblab-image", "1");
	hasher_add_str(h, "suite", s->suite);
	hasher_add_str(h, "mirror", s->mirror);
	hasher_add_str(h, "variant", s->variant);
	for (size_t i = 0; i < s->packages.n; i++)
		hasher_add_str(h, "package", s->packages.v[i]);
	{
		char size[32];

		snprintf(size, sizeof(size), "%llu",
			 (unsigned long long)s->size);
		hasher_add_str(h, "size", size);
	}
	hasher_add_str(h, "debootstrap", ver.buf);
	hasher_finish(h, hex);
	strbuf_release(&ver);
	return 0;
}

static char *image_dir(const struct image_spec *s, const char *hash)
{
	char *leaf = xasprintf("%s-%.12s", s->name, hash);
	char *dir = cache_path("images", leaf);

	free(leaf);
	return dir;
}

static const char *const image_files[] = { "root.img", NULL };

int image_lookup(const struct image_spec *s, struct image_artifact *out)
{
	char why[160];

	memset(out, 0, sizeof(*out));
	image_cache_key(s, out->hash);
	out->dir = image_dir(s, out->hash);
	out->path = xasprintf("%s/root.img", out->dir);
	if (!path_exists(out->path))
		return 1;
	if (cache_verify(out->dir, image_files, why, sizeof(why))) {
		cache_warn_corrupt("image", out->dir, why);
		return 1;
	}
	return 0;
}

void image_artifact_free(struct image_artifact *a)
{
	free(a->dir);
	free(a->path);
	memset(a, 0, sizeof(*a));
}

/* Small files the guest expects; the agent does the rest at boot. */
static int image_configure(const char *root)
{
	static const struct {
		const char *path, *text;
	} files[] = {
		{ "etc/hostname", "wblab\n" },
		{ "etc/hosts", "127.0.0.1 localhost wblab\n" },
		{ "etc/fstab",
		  "# wblab: mounts are made by the guest agent\n" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *p = xasprintf("%s/%s", root, files[i].path);
		int ret = write_string_atomic(p, files[i].text);

		free(p);
		if (ret)
			return -1;
	}
	return 0;
}

static int image_build(const struct image_spec *s, struct image_artifact *a)
{
	char *tmp = xasprintf("%s.tmp.%d", a->dir, (int)getpid());
	char *root = xasprintf("%s/root", tmp);
	char *log = xasprintf("%s/build.log", tmp);
	char *img = xasprintf("%s/root.img", tmp);
	char *include = NULL, *size = NULL, *dlog = NULL;
	struct strbuf inc = STRBUF_INIT;
	int ret = -1, rc;
	double t0 = now_mono();

	rm_rf(tmp);
	if (cache_make_dir(root) || cache_check_space(tmp, 3LL << 30))
		goto out;
	strbuf_addstr(&inc, "--include=");
	for (size_t i = 0; i < s->packages.n; i++)
		strbuf_addf(&inc, "%s%s", i ? "," : "", s->packages.v[i]);
	include = strbuf_detach(&inc, NULL);
	info("image %s: debootstrap %s (%s), log in %s", s->name, s->suite,
	     s->variant, log);
	{
		char *variant = xasprintf("--variant=%s", s->variant);
		const char *argv[] = { "debootstrap", variant, include,
				       s->suite,      root,    s->mirror,
				       NULL };
		struct run_opts o = { .log_path = log, .timeout = 3600 };

		rc = run_argv(argv, &o);
		free(variant);
	}
	if (rc) {
		error("image %s: debootstrap failed (exit %d); see %s", s->name,
		      rc, log);
		/* Keep the log where the user can read it. */
		dlog = xasprintf("%s.failed.log", a->dir);
		copy_file(log, dlog, 0644);
		error("image %s: log kept as %s", s->name, dlog);
		goto out;
	}
	if (image_configure(root))
		goto out;
	size = xasprintf("%lluk", (unsigned long long)(s->size >> 10));
	{
		const char *argv[] = {
			"mkfs.ext4", "-q",	   "-F",
			"-L",	     "wblab-root", "-d",
			root,	     "-E",	   "root_owner=0:0",
			"--",	     img,	   size,
			NULL
		};
		struct run_opts o = { .log_path = log };

		rc = run_argv(argv, &o);
	}
	if (rc) {
		error("image %s: mkfs.ext4 -d failed (exit %d); see %s",
		      s->name, rc, log);
		goto out;
	}
	rm_rf(root);
	chmod(img, 0444);
	if (cache_seal(tmp, image_files))
		goto out;
	if (cache_install(tmp, a->dir))
		goto out;
	info("image %s: built in %.0f s: %s", s->name, now_mono() - t0,
	     a->path);
	ret = 0;
out:
	if (ret)
		rm_rf(tmp);
	free(tmp);
	free(root);
	free(log);
	free(img);
	free(include);
	free(size);
	free(dlog);
	return ret;
}

/*
 * Built under the entry's lock (DIR.lock), looked up again once it is
 * held: another process may have built it meanwhile.
 */
int image_ensure(const struct image_spec *s, struct image_artifact *out,
		 bool *built)
{
	char *dir, *lockp = NULL;
	int ret, lock = -1;

	if (built)
		*built = false;
	if (image_lookup(s, out) == 0)
		return 0;
	dir = cache_path("images", "");
	ret = cache_make_dir(dir);
	free(dir);
	if (ret)
		return -1;
	lockp = cache_lock_path(out->dir);
	lock = cache_lock(lockp, out->dir);
	free(lockp);
	if (lock < 0)
		return -1;
	image_artifact_free(out);
	ret = image_lookup(s, out);
	if (ret) {
		if (built)
			*built = true;
		ret = image_build(s, out);
	}
	cache_unlock(lock);
	return ret;
}
