/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_FS_H
#define WBLAB_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/* Write a whole file as temp-then-rename, so readers never see half of it. */
int write_file_atomic(const char *path, const void *data, size_t len, int mode);
int write_string_atomic(const char *path, const char *s);
int mkdir_p(const char *path, int mode);
/*
 * A new directory parent/PREFIX-YYYYmmdd-HHMMSS-RRRR (UTC, RRRR random
 * hex; no "PREFIX-" when prefix is NULL: a run id), made by mkdir(2) so
 * that it is this process's alone: another
 * job's directory of the same second is never reused (time and pid
 * collided in containers). parent is made if missing. 0 with *dir set (to
 * free), or -1 with errno.
 */
int mkdir_stamped(const char *parent, const char *prefix, char **dir);
/* rm -rf that never crosses a mount point (fails with EBUSY there). */
int rm_rf(const char *path);
int path_exists(const char *path);
int copy_file(const char *src, const char *dst, int mode);
/* Free bytes on the filesystem holding path (or its nearest existing parent). */
int64_t fs_free_bytes(const char *path);
/*
 * Files of results a user was handed (an imported or shared run) are
 * untrusted: open_regular() opens path for reading only if it is a
 * regular file, its last component not a symbolic link (O_NOFOLLOW) and
 * no FIFO or device (O_NONBLOCK, so a FIFO cannot hang the open, then
 * fstat). It returns the descriptor, or -1 with errno ELOOP (a symbolic
 * link), EINVAL (not a regular file) or EFBIG (over max bytes, 0 = no
 * cap), or the open's own errno (ENOENT ...).
 */
int open_regular(const char *path, size_t max);
/*
 * sb becomes the contents of path, opened by open_regular(): the size is
 * checked before anything is read, and at most max bytes are read (a file
 * growing meanwhile fails with EFBIG too). 0, or -1 with errno as above.
 */
int read_file_capped(struct strbuf *sb, const char *path, size_t max);
/* Why open_regular() or read_file_capped() refused, for a message. */
const char *open_regular_strerror(int err);
/*
 * name is exactly one path component a results directory may hold:
 * [A-Za-z0-9._-]+, not "." or ".." (run.json's cell dirs).
 */
bool is_one_component(const char *name);
/* Directory of this executable's checkout (the parent of the wblab binary). */
const char *wblab_home(void);

#endif
