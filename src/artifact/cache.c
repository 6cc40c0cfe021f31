// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* $WBLAB_QEMU_USER: the user a host's QEMU runs as (a session daemon's). */
void chown_to_qemu(const char *path)
{
	const char *env = getenv("WBLAB_QEMU_USER");
	const char *user = env && *env ? env : "libvirt-qemu";
	struct passwd *pw = getpwnam(user);

	if (pw && chown(path, pw->pw_uid, pw->pw_gid) < 0 && errno != ENOENT)
		warn("cannot chown %s to %s: %s", path, user, strerror(errno));
}
