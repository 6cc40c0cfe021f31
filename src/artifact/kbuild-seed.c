// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build: a git tree's first build starts from a built kernel's
 * object tree (the seed: --config-from's kernel of validate and bisect).
 *
 * A clean build of a 7.x tree is the expensive step of the jobs (about
 * 10 minutes at idle on two cores, an hour at load 5), while the tree's
 * base commit is usually the very source the seed was built from. So when
 * the O= tree does not exist yet, every checked-out file whose content is
 * the seed source's file at the same path gets that file's mtime (older
 * than the seed's objects), the seed's O= tree is copied in (cp -a keeps
 * its mtimes) and make rebuilds only what differs: files that differ, or
 * exist only in the checkout, keep their new checkout mtimes, so make's
 * own dependency tracking (kbuild's .cmd files name every header) decides
 * what to rebuild, exactly as for a variant (kbuild-install.c). Content is
 * compared byte for byte, never guessed from size or time.
 *
 * git's index then holds stale stat data for every file whose mtime moved,
 * and the next `checkout -f` would rewrite them all (new mtimes: a full
 * rebuild). So the index is refreshed at once: git hashes those files
 * again (a few seconds of reading what the comparison just read) and
 * records their new stat data.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "artifact/kbuild-int.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/run.h"

static struct {
	const char *from; /* the checkout */
	const char *seed; /* the seed's source tree */
	size_t from_len;
	int same, differ, errors;
} walk;

static bool read_exact(int fd, char *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/* 1 when the two regular files hold the same bytes, 0 if not, -1 on error. */
static int same_bytes(const char *a, const char *b, off_t size)
{
	static char ba[1 << 16], bb[1 << 16];
	int fa = open(a, O_RDONLY | O_CLOEXEC);
	int fb = open(b, O_RDONLY | O_CLOEXEC);
	int ret = -1;

	if (fa < 0 || fb < 0)
		goto out;
	for (off_t left = size; left > 0;) {
		size_t want = left < (off_t)sizeof(ba) ? (size_t)left :
							 sizeof(ba);

		if (!read_exact(fa, ba, want) || !read_exact(fb, bb, want))
			goto out;
		if (memcmp(ba, bb, want)) {
			ret = 0;
			goto out;
		}
		left -= want;
	}
	ret = 1;
out:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return ret;
}

static int align_one(const char *path, const struct stat *st, int flag,
		     struct FTW *f)
{
	const char *rel = path + walk.from_len;
	struct stat ss;
	char *other;
	int r;

	if (flag == FTW_D && (!strcmp(rel, "/.git") || !strcmp(rel, "/obj")))
		return FTW_SKIP_SUBTREE;
	if (flag != FTW_F || !S_ISREG(st->st_mode))
		return FTW_CONTINUE;
	other = xasprintf("%s%s", walk.seed, rel);
	if (lstat(other, &ss) || !S_ISREG(ss.st_mode) ||
	    ss.st_size != st->st_size) {
		walk.differ++;
		goto out;
	}
	r = same_bytes(path, other, st->st_size);
	if (r < 0) {
		walk.errors++;
	} else if (!r) {
		walk.differ++;
	} else {
		struct timespec ts[2] = { ss.st_atim, ss.st_mtim };

		if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW))
			walk.errors++;
		else
			walk.same++;
	}
out:
	free(other);
	return FTW_CONTINUE;
}

/* The seed's source and O= tree when it is built, else NULL. */
static char *seed_source(const char *seed)
{
	char *bdir = cache_path("build", seed);
	char *src = xasprintf("%s/linux", bdir);
	char *obj = xasprintf("%s/obj/vmlinux", src);

	free(bdir);
	if (!path_exists(obj)) {
		free(obj);
		free(src);
		return NULL;
	}
	free(obj);
	return src;
}

/*
 * Record the moved mtimes in git's index. It exits 1 when files differ
 * from the index (a patch applied): expected. A failure only costs time:
 * the next checkout rewrites the files and make rebuilds from them.
 */
static void refresh_index(struct kb *k)
{
	const char *argv[] = { "git", "-C",	   k->srctree, "update-index",
			       "-q",  "--refresh", NULL };

	int r = kb_run_logged(argv, NULL, NULL, k->log);

	if (r < 0 || r > 1)
		warn("kernel %s: git update-index --refresh failed in %s: the next checkout rewrites its files",
		     k->s->name, k->srctree);
}

static int seed_copy(struct kb *k, const char *src)
{
	char *sobj = xasprintf("%s/obj", src);
	const char *cp[] = { "cp",   "-a", "--reflink=auto", "--", sobj,
			     k->obj, NULL };
	struct strbuf err = STRBUF_INIT;
	int ret = -1;

	memset(&walk, 0, sizeof(walk));
	walk.from = k->srctree;
	walk.from_len = strlen(k->srctree);
	walk.seed = src;
	nftw(k->srctree, align_one, 64, FTW_PHYS | FTW_ACTIONRETVAL);
	if (walk.errors) {
		error("kernel %s: cannot compare %d files with %s", k->s->name,
		      walk.errors, src);
		goto out;
	}
	if (run_capture(cp, NULL, &err)) {
		error("cp -a %s %s failed: %s", sobj, k->obj, err.buf);
		goto out;
	}
	if (kb_fix_abs_paths(k->obj, src, k->srctree) < 0)
		goto out;
	refresh_index(k);
	ret = 0;
out:
	if (ret)
		rm_rf(k->obj);
	strbuf_release(&err);
	free(sobj);
	return ret;
}

int kb_seed_git_tree(struct kb *k)
{
	char *src, *leaf, *lockp;
	double t0 = now_mono();
	int lock, ret;

	if (!k->seed || path_exists(k->obj))
		return 0;
	src = seed_source(k->seed);
	if (!src) {
		info("kernel %s: %s is not built: building from scratch",
		     k->s->name, k->seed);
		return 0;
	}
	/* Hold the seed's lock so its tree does not change under us. */
	leaf = xasprintf("%s.lock", k->seed);
	lockp = cache_path("build", leaf);
	lock = cache_lock(lockp, lockp);
	ret = lock < 0 ? -1 : seed_copy(k, src);
	if (lock >= 0)
		cache_unlock(lock);
	if (!ret) {
		char *t = kb_fmt_secs(now_mono() - t0);

		info("kernel %s: started from %s's object tree in %s: %d files as built there, %d to rebuild from",
		     k->s->name, k->seed, t, walk.same, walk.differ);
		free(t);
	} else {
		kb_fail(KBUILD_INFRA, NULL,
			"cannot start from %s's object tree", k->seed);
	}
	free(leaf);
	free(lockp);
	free(src);
	return ret;
}
