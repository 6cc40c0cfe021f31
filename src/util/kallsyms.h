/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_KALLSYMS_H
#define WBLAB_KALLSYMS_H

#include <stddef.h>

/*
 * A kernel's task stack size (THREAD_SIZE) from its symbol table: a
 * System.map, or the guest's /proc/kallsyms (CONFIG_KALLSYMS_ALL, and
 * read as root so addresses are not zeroed). include/asm-generic/
 * vmlinux.lds.h places __start_init_task and __end_init_task exactly
 * THREAD_SIZE apart around init_task's stack on every architecture.
 * Returns the size in bytes, or 0 when either symbol is missing, an
 * address is unreadable or zero, or the difference is not a power of two
 * between 4 KiB and 64 KiB.
 */
long ksyms_thread_size(const char *text, size_t len);

#endif
