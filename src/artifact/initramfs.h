/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_INITRAMFS_H
#define WBLAB_INITRAMFS_H

#include "artifact/kernel.h"
#include "util/strbuf.h"

/* The modules stage 1 needs to mount the root and open the channel. */
extern const char *const initramfs_boot_modules[];

/*
 * Resolve modules (by name) and their dependencies from modules_dir's
 * modules.dep into load order; paths are relative to modules_dir.
 * Built-in or unknown names are skipped. Returns the count.
 */
int module_closure(const char *modules_dir, const char *const *names,
		   struct strbuf *order);
/* Append a newc cpio entry. */
void cpio_add(struct strbuf *out, const char *name, unsigned int mode,
	      const void *data, size_t len, unsigned int rmaj,
	      unsigned int rmin);
void cpio_finish(struct strbuf *out);
/*
 * The per kernel+agent initramfs, cached as ROOT/initrd/<hash12>.cpio.
 * Returns its path (malloc'd) or NULL.
 */
char *initramfs_ensure(const struct kernel_artifact *k, const char *agent_path);
/* The agent binary next to the wblab executable. */
char *agent_binary_path(void);

#endif
