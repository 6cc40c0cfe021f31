/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CACHE_H
#define WBLAB_CACHE_H

#include <stdint.h>

/*
 * The artifact cache: content-addressed directories under the cache root
 * (default /var/lib/wblab/cache, or $WBLAB_CACHE). It lives under /var/lib
 * because QEMU runs as libvirt-qemu and must reach every file a domain uses.
 *   images/<name>-<hash12>/     guest root images
 *   kernels/<name>-<hash12>/    kernel.json, bzImage, config, modules.img
 *   initrd/<hash12>.cpio        per kernel+agent initramfs
 *   downloads/                  fetched .deb files
 *   build/<tree>/               kernel object trees (O=)
 * An entry becomes visible only by rename of its finished temp directory.
 */
const char *cache_root(void);
/* Path under the cache root: cache_path("kernels", "x") -> ROOT/kernels/x */
char *cache_path(const char *sub, const char *name);
/* The run-time directory for domains' sockets and consoles (libvirt-qemu owned). */
const char *run_root(void);
/* Make dir and its parents reachable (o+x) by the QEMU user. */
int cache_make_dir(const char *dir);
/* Warn and return -1 when free space under dir is below need bytes. */
int cache_check_space(const char *dir, int64_t need);
/*
 * An flock()ed lock file: serialises the making of one cache entry (or
 * build tree) between processes. Waits, saying for what. -1 on error.
 */
int cache_lock(const char *path, const char *what);
void cache_unlock(int fd);
/* The lock of the cache entry at dir: DIR.lock beside it (to free). */
char *cache_lock_path(const char *dir);
/*
 * Put the finished entry tmp (a sibling of dir) at dir, under dir's lock:
 * a rename when dir is absent, else an exchange of the two (renameat2
 * RENAME_EXCHANGE), so that dir names a whole entry at every moment and a
 * process that already resolved a file of the old entry keeps it; then
 * the old entry, now at tmp, is removed.
 */
int cache_install(const char *tmp, const char *dir);
/* Give a file or directory to the QEMU user (libvirt-qemu), if it exists. */
void chown_to_qemu(const char *path);

#endif
