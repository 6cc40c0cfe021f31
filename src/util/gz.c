// SPDX-License-Identifier: GPL-2.0
/* gzip -n, in process (util/gz.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "util/gz.h"
#include "util/log.h"

static int copy_gz(int in, gzFile out)
{
	char buf[1 << 16];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || gzwrite(out, buf, n) != n)
			return -1;
	}
	return 0;
}

int gz_compress_file(const char *path)
{
	char *gz = xasprintf("%s.gz", path);
	int in = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int fd = -1, ret = -1, saved;
	gzFile out = NULL;

	if (in < 0)
		goto out;
	fd = open(gz, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0)
		goto out;
	/* zlib's header has no name and a zero time stamp, as gzip -n's. */
	out = gzdopen(fd, "wb6");
	if (!out) {
		close(fd);
		errno = ENOMEM;
		goto fail;
	}
	if (copy_gz(in, out) < 0) {
		gzclose(out);
		errno = errno ? errno : EIO;
		goto fail;
	}
	if (gzclose(out) != Z_OK) {
		errno = EIO;
		goto fail;
	}
	ret = unlink(path);
	goto out;
fail:
	saved = errno;
	unlink(gz);
	errno = saved;
out:
	saved = errno;
	if (in >= 0)
		close(in);
	free(gz);
	errno = saved;
	return ret;
}
