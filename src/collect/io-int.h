/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_IO_INT_H
#define WBLAB_IO_INT_H

#include <stdbool.h>

#define SECTORS_PER_PAGE 8 /* 4 KiB pages, 512-byte sectors */

/*
 * Private to the io unit: io.c (attribution from the trace), io-hist.c
 * (the hist triggers) and io-fsdev.c (the test mount's device).
 */

/* "MAJ:MIN" as the kernel's dev_t (major << 20 | minor); false if not one. */
bool io_parse_devstr(const char *s, unsigned int *dev);

#endif
