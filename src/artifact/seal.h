/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_SEAL_H
#define WBLAB_SEAL_H

#include <stddef.h>

/*
 * Cache entries are sealed: seal.json holds the SHA-256 and size of each
 * of the entry's files, written when the entry is made. Before an entry
 * is used it is checked against its seal, so a corrupted image or kernel
 * is found and rebuilt instead of booted. A full hash costs seconds on a
 * 2 GiB image, so a file whose size, inode, mtime and ctime are those of
 * its last good check (verified.json) is not hashed again; anything that
 * writes to a file changes its ctime. An entry made before seals existed
 * is sealed on its first use.
 */
int cache_seal(const char *dir, const char *const *files);
/* 0 if dir matches its seal; -1 with why (a file, what differs) if not. */
int cache_verify(const char *dir, const char *const *files, char *why,
		 size_t len);

#endif
