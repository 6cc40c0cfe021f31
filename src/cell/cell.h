/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_H
#define WBLAB_CELL_H

#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>

#include "cell/types.h"

/*
 * How long a guest may stay in a phase of its plan before the host calls
 * it hung; run-by-hand.sh of a reproducer bundle applies the same.
 */
#define SETUP_TIMEOUT 600 /* s: building the storage stack */
#define COLLECT_TIMEOUT 180 /* s: snapshots, captures, teardown */
/*
 * s: the agent kills the workload at its timeout and moves on to collect;
 * a guest still in the workload this long after is hung (docs/design.md).
 */
#define WORKLOAD_GRACE 10

/* Run one cell to completion; always writes cell.json. Returns 0 if written. */
int cell_run(virConnectPtr conn, const struct cell_spec *c,
	     struct cell_run_result *r);
/* The guest kernel command line of a cell. */
char *cell_cmdline(const struct cell_spec *c);
/*
 * Domain name of a cell: wblab-<run-id>-<cell-id>, or, where that would
 * not fit the channel socket path under run_root (108 bytes with
 * "-target/agent.sock"), the cell id's start and a short hash of it.
 */
char *cell_domain_name(const char *run_id, const char *cell_id);
/* The default overall deadline of a cell, seconds. */
int cell_default_deadline(const struct cell_spec *c);

#endif
