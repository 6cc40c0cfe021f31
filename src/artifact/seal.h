/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_SEAL_H
#define WBLAB_SEAL_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * Cache entries are sealed: seal.json holds each of the entry's files'
 * plain SHA-256 (what sha256sum prints) and size, written when the entry
 * is made and before it is renamed into place, so an entry without one is
 * unfinished or not wblab's, and is rebuilt. Before an entry is used it is
 * checked against its seal, so a corrupted image or kernel is found and
 * rebuilt instead of booted. A full hash costs seconds on a 2 GiB image,
 * so a file whose size, inode, mtime and ctime are those of its last good
 * check (verified.json) is not hashed again; anything that writes to a
 * file changes its ctime. A seal from before format 2 (labelled digests)
 * is checked once against its own digests and sealed again.
 */
int cache_seal(const char *dir, const char *const *files);
/*
 * The same with one more member, key: extra (taken), for what the entry
 * was made from rather than holds: a suite kernel's .debs and their
 * SHA-256 ("debs"). cache_verify() checks the files only.
 */
struct json_object;
int cache_seal_with(const char *dir, const char *const *files, const char *key,
		    struct json_object *extra);
/*
 * "size:inode:mtime:ctime" of a file: what verified.json keeps, and what
 * artifact/toolver.c keys its cached answers on. Free the result.
 */
char *seal_stat_stamp(const struct stat *st);
/* 0 if dir matches its seal; -1 with why (a file, what differs) if not. */
int cache_verify(const char *dir, const char *const *files, char *why,
		 size_t len);

/*
 * "WHAT cache entry DIR is corrupt (WHY): rebuilding it", once per entry
 * in a process (a lookup made again under the entry's lock says nothing).
 */
void cache_warn_corrupt(const char *what, const char *dir, const char *why);

#endif
