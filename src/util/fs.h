/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_FS_H
#define WBLAB_FS_H

#include <stddef.h>
#include <stdint.h>

/* Write a whole file as temp-then-rename, so readers never see half of it. */
int write_file_atomic(const char *path, const void *data, size_t len, int mode);
int write_string_atomic(const char *path, const char *s);
int mkdir_p(const char *path, int mode);
/* rm -rf that never crosses a mount point (fails with EBUSY there). */
int rm_rf(const char *path);
int path_exists(const char *path);
int copy_file(const char *src, const char *dst, int mode);
/* Free bytes on the filesystem holding path (or its nearest existing parent). */
int64_t fs_free_bytes(const char *path);
/* Directory of this executable's checkout (the parent of the wblab binary). */
const char *wblab_home(void);

#endif
