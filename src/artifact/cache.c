// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact/cache.h"
#include "util/fs.h"
#include "util/log.h"

const char *cache_root(void)
{
	const char *env = getenv("WBLAB_CACHE");

	return env && *env ? env : "/var/lib/wblab/cache";
}

const char *run_root(void)
{
	const char *env = getenv("WBLAB_RUNDIR");

	return env && *env ? env : "/var/lib/wblab/run";
}

char *cache_path(const char *sub, const char *name)
{
	return xasprintf("%s/%s/%s", cache_root(), sub, name);
}

int cache_make_dir(const char *dir)
{
	if (mkdir_p(dir, 0755) < 0)
		return error("cannot create %s: %s", dir, strerror(errno));
	return 0;
}

int cache_check_space(const char *dir, int64_t need)
{
	int64_t free_bytes = fs_free_bytes(dir);

	if (free_bytes >= 0 && free_bytes < need)
		return error(
			"%s has %lld MiB free, %lld MiB needed; free some space or set WBLAB_CACHE",
			dir, (long long)(free_bytes >> 20),
			(long long)(need >> 20));
	return 0;
}

int cache_lock(const char *path, const char *what)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		error("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		info("waiting for another wblab process using %s", what);
		if (flock(fd, LOCK_EX) < 0) {
			error("cannot lock %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

void cache_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

char *cache_lock_path(const char *dir)
{
	return xasprintf("%s.lock", dir);
}

int cache_install(const char *tmp, const char *dir)
{
	if (rename(tmp, dir) == 0)
		return 0;
	if (errno != EEXIST && errno != ENOTEMPTY)
		goto fail;
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) < 0) {
		/* A filesystem without exchange: the old one aside first. */
		char *old = xasprintf("%s.old.%d", dir, (int)getpid());
		int ret = rename(dir, old);

		if (!ret && rename(tmp, dir) < 0) {
			ret = -1;
			rename(old,
			       dir); /* the old entry back: still corrupt */
		}
		if (!ret)
			rm_rf(old);
		free(old);
		if (ret)
			goto fail;
		return 0;
	}
	if (rm_rf(tmp) < 0)
		warn("cannot remove the replaced entry, now %s: %s", tmp,
		     strerror(errno));
	return 0;
fail:
	return error("cannot move %s to %s: %s", tmp, dir, strerror(errno));
}

/* $WBLAB_QEMU_USER: the user a host's QEMU runs as (a session daemon's). */
void chown_to_qemu(const char *path)
{
	const char *env = getenv("WBLAB_QEMU_USER");
	const char *user = env && *env ? env : "libvirt-qemu";
	struct passwd *pw = getpwnam(user);

	if (pw && chown(path, pw->pw_uid, pw->pw_gid) < 0 && errno != ENOENT)
		warn("cannot chown %s to %s: %s", path, user, strerror(errno));
}
