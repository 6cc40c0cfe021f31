/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CELL_JOB_H
#define WBLAB_CELL_JOB_H

#include <stdbool.h>

#include "util/strbuf.h"

/*
 * One cell as the matrix engine hands it to a worker process
 * (`wblab cell-run JOB.json`): names and paths only, the worker loads the
 * specs and the kernel artifact itself. Kept in DIR/<run>/jobs/, so any
 * cell can be rerun by hand.
 */
struct cell_job {
	char *run_id, *cell_id, *cell_dir;
	char *kernel; /* spec name */
	char *kernel_dir; /* cached artifact dir; "" if unavailable */
	char *topology, *workload;
	int rep;
	int memory_mib, vcpus;
	/* Paths as the host's QEMU sees them (pool volumes on remote hosts). */
	char *image, *initrd, *bzimage, *modules_img;
	char *accel, *uri, *host, *run_dir, *qemu_user;
	int slot, attempt;
	int boot_timeout, workload_timeout, deadline;
	bool keep;
	bool remote; /* streams and pool volumes only (spec/hosts.h) */
	char *cmdline_extra;
	char *levers; /* results/levers.h text; NULL: the defaults */
	char *infra_error; /* the cell cannot run: record why */
};

int cell_job_write(const char *path, const struct cell_job *j);
int cell_job_read(const char *path, struct cell_job *j, struct strbuf *err);
void cell_job_free(struct cell_job *j);
/*
 * Run the job's cell in this process: writes cell.json. Returns 0 when
 * cell.json was written.
 */
int cell_job_run(const struct cell_job *j);

#endif
