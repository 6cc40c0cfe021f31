// SPDX-License-Identifier: GPL-2.0
/* THREAD_SIZE from a kernel symbol table (System.map, /proc/kallsyms). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/kallsyms.h"

#define START "__start_init_task"
#define END "__end_init_task"

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

long ksyms_thread_size(const char *text, size_t len)
{
	const char *p = text, *end = text ? text + len : NULL;
	uint64_t start = 0, stop = 0, d;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!sym_line(p, n, START, &start))
			sym_line(p, n, END, &stop);
		p = nl ? nl + 1 : end;
	}
	if (!start || stop <= start)
		return 0;
	d = stop - start;
	if (d < 4096 || d > 65536 || (d & (d - 1)))
		return 0;
	return (long)d;
}
