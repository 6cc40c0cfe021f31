// SPDX-License-Identifier: GPL-2.0
/* The one write loop (util/io.h), for the host and the guest agent. */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "util/io.h"

ssize_t write_in_full(int fd, const void *buf, size_t count)
{
	const char *p = buf;
	size_t left = count;

	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			poll(&pfd, 1, -1);
			continue;
		}
		if (n < 0)
			return -1;
		if (!n) {
			errno = ENOSPC;
			return -1;
		}
		p += n;
		left -= n;
	}
	return count;
}
