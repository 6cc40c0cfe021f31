/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_TYPES_H
#define WBLAB_CELL_TYPES_H

#include <stdbool.h>

#include "artifact/kernel.h"
#include "cell/outcome.h"
#include "results/levers.h"
#include "spec/specs.h"

struct virt_host_facts;

/*
 * What a cell is and what became of it: a leaf, so that results.c can
 * write a cell without depending on cell.c, which runs it.
 */

/* Everything one cell needs, resolved by the caller (the matrix engine). */
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
	struct levers levers; /* how the guest runs on its host */
	/* Where it runs (recorded in cell.json). */
	const char *host; /* hosts.yaml name, "local" without one */
	const char *uri;
	int slot;
	int attempt; /* 1-based; > 1 after infra-error retries */
	int deadline; /* s for the whole cell; 0 = the sum of its phase timers */
	/*
	 * A remote host: console and channel over libvirt streams, every
	 * disk a volume of its wblab pool, nothing by path.
	 */
	bool remote;
	const struct virt_host_facts *facts; /* the host's, NULL unknown */
};

/*
 * What cell_run() ended with, for cell.json's writer (a cell read back
 * from its cell.json is results/cell.h's struct cell_result).
 */
struct cell_run_result {
	enum cell_outcome outcome;
	char reason[512];
	double total_s, boot_s, workload_s;
	char release[128];
};

#endif
