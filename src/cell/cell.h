/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_H
#define WBLAB_CELL_H

#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>

#include "cell/types.h"

/* Run one cell to completion; always writes cell.json. Returns 0 if written. */
int cell_run(virConnectPtr conn, const struct cell_spec *c,
	     struct cell_result *r);
/* The guest kernel command line of a cell. */
char *cell_cmdline(const struct cell_spec *c);
/* Domain name of a cell: wblab-<run-id>-<cell-id>. */
char *cell_domain_name(const char *run_id, const char *cell_id);

#endif
