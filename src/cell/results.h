/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_RESULTS_H
#define WBLAB_RESULTS_H

#include <json-c/json.h>
#include <sqlite3.h>

#include "cell/plan.h"
#include "cell/types.h"
#include "collect/console.h"
#include "util/json.h"
#include "virt/guest.h"

/*
 * The results layout (a contract: other tools read it):
 *   DIR/wblab.db                          SQLite: runs and cells
 *   DIR/<run>/run.json                    spec, host facts, cell list
 *   DIR/<run>/cells/<cell>/cell.json      one cell: outcome, timings, events, metrics
 *   DIR/<run>/cells/<cell>/console.log    full serial console
 *   DIR/<run>/cells/<cell>/fio.json, vmstat.before, vmstat.after, topology.txt, ...
 * Every file is written temp-then-rename. results_write_cell() writes
 * what it is handed: the cell, its result, the guest's record, the
 * console's events, the command line and the devices the planner chose
 * for the main guest (devs may be NULL: no plan was made).
 */
int results_write_cell(const struct cell_spec *c,
		       const struct cell_run_result *r, const struct guest *g,
		       const struct console_report *con, const char *started,
		       const char *cmdline, const struct plan_devs *devs);
/* Metrics from the files a cell brought back (fio.json, vmstat.*). */
json_object *results_metrics(const char *cell_dir);
/* cell.json's "files": what is in the cell directory, sorted. */
void results_list_files(const char *dir, json_object *arr);

/*
 * DIR/wblab.db through resdb_open() (results/db.h: a regular file with
 * only wblab's schema), its tables made: NULL after an error naming the
 * file. The writers below print "PATH: why" and return -1 on an error.
 */
sqlite3 *results_db_open(const char *dir);
int results_db_run(sqlite3 *db, const char *run_id, const char *started,
		   const char *finished, const char *accel, const char *host);
int results_db_cell(sqlite3 *db, const char *run_id, const char *cell_id,
		    const char *kernel, const char *kernel_hash,
		    const char *topology, const char *workload, int rep,
		    const char *outcome, const char *started, double total_s,
		    double boot_s);
void results_db_close(sqlite3 *db);

#endif
