/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CMD_RUN_REPRO_H
#define WBLAB_CMD_RUN_REPRO_H

#include "cell/repro.h"

/*
 * wblab run --repro DIR: the bundle's kernel, topology and workload, each
 * checked to be the one the bundle names (the kernel's cache key, the
 * spec files byte for byte). 0, or -1 with why in err (exit 2).
 */
int run_repro_load(const char *dir, struct repro_spec *s, struct strbuf *err);
/*
 * After the run: each cell against the bundle's signature, and how many
 * of the cells with a kernel result show it. Returns the count.
 */
int run_repro_tally(const char *run_dir, json_object *sig);

#endif
