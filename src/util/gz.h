/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_GZ_H
#define WBLAB_GZ_H

/*
 * Compress path into path.gz as `gzip -n` does (no name, no time stamp,
 * level 6), in this process (zlib): a gzip exec per file cost about 10 ms
 * of a cell's host time, and a dirty-flood cell keeps three traces.
 * Neither end may be a link: the source is opened O_NOFOLLOW and path.gz
 * O_EXCL (a results directory may be someone else's); a stale path.gz is
 * the caller's to remove. The source is removed once path.gz is
 * complete; on failure path.gz is. Returns 0, or -1 with errno set.
 */
int gz_compress_file(const char *path);

#endif
