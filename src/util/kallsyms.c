// SPDX-License-Identifier: GPL-2.0
/* THREAD_SIZE from a kernel symbol table (System.map, /proc/kallsyms). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/kallsyms.h"

const char *const ksyms_stack_syms[KSYMS_STACK_SYMS] = {
	"__start_init_task",
	"__end_init_task",
	"__start_init_stack",
	"__end_init_stack",
};

/* "ffffffff82a00000 D __start_init_task": the address if name matches. */
static bool sym_line(const char *l, size_t n, const char *name, uint64_t *addr)
{
	size_t nl = strlen(name);
	char buf[24], *e;

	/* 16 hex digits, a space, a type letter, a space, the name. */
	if (n != 16 + 3 + nl || l[16] != ' ' || l[18] != ' ' ||
	    memcmp(l + 19, name, nl))
		return false;
	memcpy(buf, l, 16);
	buf[16] = '\0';
	*addr = strtoull(buf, &e, 16);
	return *e == '\0';
}

/* The distance of one pair (ksyms_stack_syms[2 * pair]), or 0. */
static long pair_size(const char *text, const char *end, int pair)
{
	const char *p = text;
	uint64_t start = 0, stop = 0, d;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!sym_line(p, n, ksyms_stack_syms[2 * pair], &start))
			sym_line(p, n, ksyms_stack_syms[2 * pair + 1], &stop);
		p = nl ? nl + 1 : end;
	}
	if (!start || stop <= start)
		return 0;
	d = stop - start;
	if (d < 4096 || d > 65536 || (d & (d - 1)))
		return 0;
	return (long)d;
}

long ksyms_thread_size(const char *text, size_t len)
{
	long d = 0;

	for (int i = 0; text && !d && i < KSYMS_STACK_SYMS / 2; i++)
		d = pair_size(text, text + len, i);
	return d;
}
