/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_H
#define WBLAB_CELL_H

#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>

#include "artifact/kernel.h"
#include "cell/outcome.h"
#include "spec/specs.h"

/* Everything one cell needs, resolved by the caller (cmd/run.c). */
struct cell_spec {
	const char *run_id;
	const char *cell_id;
	const char *cell_dir; /* results: DIR/<run>/cells/<cell> */
	const struct kernel_artifact *kernel; /* NULL: kernel unavailable */
	const struct topology_spec *topo;
	const struct workload_spec *wl;
	int rep;
	const char *image; /* base root image (raw, read-only) */
	const char *initrd;
	const char *accel; /* "kvm" or "tcg" */
	unsigned int memory_mib;
	unsigned int vcpus;
	int boot_timeout; /* s: create -> agent hello */
	int workload_timeout; /* s: the workload's own wall clock */
	bool keep; /* keep the staging dir (overlay, disks) */
	const char *infra_error; /* set: the cell cannot start; record why */
	const char *cmdline_extra;
};

struct cell_result {
	enum cell_outcome outcome;
	char reason[512];
	double total_s, boot_s, workload_s;
	char release[128];
};

/* Run one cell to completion; always writes cell.json. Returns 0 if written. */
int cell_run(virConnectPtr conn, const struct cell_spec *c,
	     struct cell_result *r);
/* The guest kernel command line of a cell. */
char *cell_cmdline(const struct cell_spec *c);
/* Domain name of a cell: wblab-<run-id>-<cell-id>. */
char *cell_domain_name(const char *run_id, const char *cell_id);

#endif
