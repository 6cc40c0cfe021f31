// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/fs.h"
#include "util/log.h"

int write_file_atomic(const char *path, const void *data, size_t len, int mode)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	const char *p = data;
	int fd, saved;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		goto fail;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail_close;
		p += n;
		len -= n;
	}
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

int rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		if (rm_rf(sub) < 0)
			ret = -1;
		free(sub);
	}
	closedir(d);
	if (rmdir(path) < 0)
		ret = -1;
	return ret;
}

int path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int copy_file(const char *src, const char *dst, int mode)
{
	char buf[1 << 16];
	char *tmp = xasprintf("%s.tmp.%d", dst, (int)getpid());
	int in, out, ret = -1;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		goto out_free;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0)
		goto out_in;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			goto out_out;
	if (n < 0)
		goto out_out;
	if (close(out) < 0) {
		out = -1;
		goto out_out;
	}
	out = -1;
	ret = rename(tmp, dst);
out_out:
	if (out >= 0)
		close(out);
	if (ret)
		unlink(tmp);
out_in:
	close(in);
out_free:
	free(tmp);
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
				       (int64_t)sv.f_bavail * sv.f_frsize;
		*slash = '\0';
	}
	return (int64_t)sv.f_bavail * sv.f_frsize;
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
