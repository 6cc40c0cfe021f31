// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <time.h>

#include "util/fs.h"
#include "util/io.h"
#include "util/log.h"

/*
 * A character device a whole-file write may stream into: /dev/null and
 * /dev/full (1:3, 1:7) and terminals. Anything else (/dev/mem, a disk's
 * sg node) is refused: a path given to -o is a place for a report, and
 * root writing into an arbitrary device can do what renaming over
 * /dev/null did (every domain start on the host failed).
 */
static bool stream_chrdev(dev_t rdev)
{
	unsigned int maj = major(rdev), min = minor(rdev);

	if (maj == 1)
		return min == 3 || min == 7;
	return maj == 4 || maj == 5 || (maj >= 136 && maj <= 143);
}

/*
 * Where a whole-file write of path goes. Nothing there, or a regular file:
 * a new file renamed into place (*where = path). A symbolic link to a
 * regular file: the same at the link's target, so the link stays. A FIFO
 * or a device stream_chrdev() allows: written in place (*stream). Anything
 * else is never replaced: -1 with errno EINVAL (a device, directory or
 * socket) or ELOOP (a link that leads nowhere), which
 * open_regular_strerror() names.
 */
static int write_target(const char *path, char **where, bool *stream)
{
	struct stat st;

	*where = NULL;
	*stream = false;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return -1;
		*where = xstrdup(path);
		return 0;
	}
	if (S_ISLNK(st.st_mode) && stat(path, &st) < 0) {
		errno = ELOOP;
		return -1;
	}
	if (S_ISREG(st.st_mode)) {
		*where = realpath(path, NULL);
		return *where ? 0 : -1;
	}
	if (S_ISFIFO(st.st_mode) ||
	    (S_ISCHR(st.st_mode) && stream_chrdev(st.st_rdev))) {
		*stream = true;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

/*
 * Write into what write_target() allowed in place. O_NONBLOCK only for the
 * open, so a FIFO nobody reads fails (ENXIO) instead of hanging; no
 * O_CREAT and no O_TRUNC: the node is the target's, never made or cut.
 */
static int write_in_place(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	int saved;

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETFL, 0) < 0 || write_in_full(fd, data, len) < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

static int write_replace(const char *path, const void *data, size_t len,
			 int mode)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	int fd, saved;

	/*
	 * O_EXCL: never through a link planted under the temporary name (a
	 * results directory may be someone else's); a stale one of ours, left
	 * by a process with the same pid, is removed once.
	 */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		goto fail;
	if (write_in_full(fd, data, len) < 0)
		goto fail_close;
	if (fsync(fd) < 0 || close(fd) < 0) {
		fd = -1;
		goto fail_unlink;
	}
	if (rename(tmp, path) < 0)
		goto fail_unlink;
	free(tmp);
	return 0;

fail_close:
	close(fd);
fail_unlink:
	saved = errno;
	unlink(tmp);
	errno = saved;
fail:
	saved = errno;
	free(tmp);
	errno = saved;
	return -1;
}

/*
 * write_replace() with the signals that end a process by default while it
 * writes held back: ^C, kill, hangup, quit, a file size limit (SIGXFSZ,
 * the write then fails with EFBIG). The temporary file is renamed or
 * removed before one of them acts, so none is left behind (#47: a
 * report.html.tmp.PID stayed). SIGKILL is not held: nothing can be then.
 */
static int write_replace_held(const char *path, const void *data, size_t len,
			      int mode)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ };
	sigset_t hold, old;
	int ret, saved;

	sigemptyset(&hold);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&hold, sigs[i]);
	pthread_sigmask(SIG_BLOCK, &hold, &old);
	ret = write_replace(path, data, len, mode);
	saved = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return ret;
}

int write_file_atomic(const char *path, const void *data, size_t len, int mode)
{
	char *where;
	bool stream;
	int ret, saved;

	if (write_target(path, &where, &stream) < 0)
		return -1;
	if (stream)
		return write_in_place(path, data, len);
	ret = write_replace_held(where, data, len, mode);
	saved = errno;
	free(where);
	errno = saved;
	return ret;
}

int write_string_atomic(const char *path, const char *s)
{
	return write_file_atomic(path, s, strlen(s), 0644);
}

int mkdir_p(const char *path, int mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int mkdir_stamped(const char *parent, const char *prefix, char **dir)
{
	time_t t = time(NULL);
	struct tm tm;
	char ts[32];

	*dir = NULL;
	if (mkdir_p(parent, 0755) < 0)
		return -1;
	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
	for (int i = 0; i < 64; i++) {
		uint16_t rnd;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (uint16_t)(getpid() * 31 + i);
		free(*dir);
		*dir = xasprintf("%s/%s%s%s-%04x", parent, prefix ? prefix : "",
				 prefix ? "-" : "", ts, (unsigned int)rnd);
		if (!mkdir(*dir, 0755))
			return 0;
		if (errno != EEXIST)
			break;
	}
	free(*dir);
	*dir = NULL;
	return -1;
}

/*
 * A directory that is the root of a mount (another filesystem, or a bind
 * mount of the same one: st_dev alone misses those).
 */
static bool is_mount_root(int at, const char *name, dev_t parent_dev)
{
	struct statx stx;

	if (statx(at, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stx))
		return false;
	if (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
		return stx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
	return makedev(stx.stx_dev_major, stx.stx_dev_minor) != parent_dev;
}

/*
 * Remove dirfd/name and below, never crossing into a mount (a guest's
 * disk image loop-mounted by hand, a bind mount left by a dead build):
 * such a directory is left with everything above it, and an error.
 */
static int rm_at(int at, const char *name, dev_t dev, const char *shown)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int fd, ret = 0;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0);
	if (st.st_dev != dev || is_mount_root(at, name, dev)) {
		warn("not removing %s: a filesystem is mounted there", shown);
		errno = EBUSY;
		return -1;
	}
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", shown, de->d_name);

		if (rm_at(dirfd(d), de->d_name, dev, sub) < 0)
			ret = -1;
		free(sub);
	}
	closedir(d);
	if (unlinkat(at, name, AT_REMOVEDIR) < 0)
		ret = -1;
	return ret;
}

int rm_rf(const char *path)
{
	struct stat st;
	char *parent, *slash;
	int ret;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	/* The device of path's parent: path itself must not be a mount. */
	parent = xstrdup(path);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	else
		strcpy(parent, slash ? "/" : ".");
	if (stat(parent, &st) < 0) {
		free(parent);
		return -1;
	}
	free(parent);
	ret = rm_at(AT_FDCWD, path, st.st_dev, path);
	return ret;
}

int path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/*
 * Through write_file_atomic(), so a copy obeys the same rule for what it
 * may replace. What wblab copies (a kernel, a config, a console log) fits
 * in memory many times over.
 */
int copy_file(const char *src, const char *dst, int mode)
{
	struct strbuf sb = STRBUF_INIT;
	int fd = open(src, O_RDONLY | O_CLOEXEC), ret = -1, saved;

	if (fd < 0)
		return -1;
	if (strbuf_read_fd(&sb, fd) >= 0)
		ret = write_file_atomic(dst, sb.buf, sb.len, mode);
	saved = errno;
	close(fd);
	strbuf_release(&sb);
	errno = saved;
	return ret;
}

int64_t fs_free_bytes(const char *path)
{
	char buf[PATH_MAX];
	struct statvfs sv;

	snprintf(buf, sizeof(buf), "%s", path);
	while (statvfs(buf, &sv) < 0) {
		char *slash = strrchr(buf, '/');

		if (!slash || slash == buf)
			return statvfs("/", &sv) < 0 ?
				       -1 :
				       (int64_t)sv.f_bavail *
					       (int64_t)sv.f_frsize;
		*slash = '\0';
	}
	return (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;
}

int open_regular(const char *path, size_t max)
{
	struct stat st;
	int fd, err = 0;

	/* Look first: opening a device can do things (a tape rewinds). */
	if (lstat(path, &st) < 0)
		return -1;
	if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
		return -1;
	}
	/* And check what was opened: the name may have changed meanwhile. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EINVAL;
	else if (max && (uint64_t)st.st_size > max)
		err = EFBIG;
	if (err) {
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int read_file_capped(struct strbuf *sb, const char *path, size_t max)
{
	int fd = open_regular(path, max);
	ssize_t n = 0;
	int err = 0;

	strbuf_reset(sb);
	if (fd < 0)
		return -1;
	/* Never more than max + 1 bytes: a file that grows is refused. */
	while (!max || sb->len <= max) {
		size_t want = max ? max + 1 - sb->len : 1 << 16;

		strbuf_grow(sb, want < (1 << 16) ? want : 1 << 16);
		n = read(fd, sb->buf + sb->len,
			 want < sb->alloc - sb->len - 1 ?
				 want :
				 sb->alloc - sb->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sb->len += n;
	}
	sb->buf[sb->len] = '\0';
	if (n < 0)
		err = errno;
	else if (max && sb->len > max)
		err = EFBIG;
	close(fd);
	if (err) {
		strbuf_reset(sb);
		errno = err;
		return -1;
	}
	return 0;
}

const char *open_regular_strerror(int err)
{
	switch (err) {
	case ELOOP:
		return "a symbolic link (not followed)";
	case EINVAL:
		return "not a regular file";
	case EFBIG:
		return "larger than its cap";
	default:
		return strerror(err);
	}
}

bool is_one_component(const char *name)
{
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return false;
	return true;
}

const char *wblab_home(void)
{
	static char home[PATH_MAX];
	const char *env = getenv("WBLAB_HOME");
	ssize_t n;
	char *slash;

	if (env && *env)
		return env;
	if (home[0])
		return home;
	n = readlink("/proc/self/exe", home, sizeof(home) - 1);
	if (n <= 0)
		return ".";
	home[n] = '\0';
	slash = strrchr(home, '/');
	if (slash)
		*slash = '\0';
	return home;
}
