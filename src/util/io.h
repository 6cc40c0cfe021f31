/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_IO_H
#define WBLAB_IO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Write all of buf to fd, as git's write_in_full(): a short write
 * continues, EINTR retries, EAGAIN on a non-blocking fd waits in poll()
 * until fd takes more. Returns count, or -1 with errno set (ENOSPC when
 * write() took nothing). libc only: the guest agent links it too.
 */
ssize_t write_in_full(int fd, const void *buf, size_t count);

#endif
