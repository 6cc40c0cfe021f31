/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_KALLSYMS_H
#define WBLAB_KALLSYMS_H

#include <stddef.h>

/*
 * A kernel's task stack size (THREAD_SIZE) from its symbol table: a
 * System.map, or the guest's /proc/kallsyms (CONFIG_KALLSYMS_ALL, and
 * read as root so addresses are not zeroed). include/asm-generic/
 * vmlinux.lds.h places two symbols exactly THREAD_SIZE apart around
 * init_task's stack on every architecture: __start_init_task and
 * __end_init_task in 6.1, __start_init_stack and __end_init_stack in
 * 6.12 (renamed in between). Returns the size in bytes from the first
 * pair the table has whole, or 0 when neither pair is there, an address
 * is unreadable or zero, or the difference is not a power of two between
 * 4 KiB and 64 KiB.
 */
long ksyms_thread_size(const char *text, size_t len);

/* The two pairs, start and end each: what a symbol grep must ask for. */
#define KSYMS_STACK_SYMS 4
extern const char *const ksyms_stack_syms[KSYMS_STACK_SYMS];

#endif
