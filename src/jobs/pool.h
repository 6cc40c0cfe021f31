/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_POOL_H
#define WBLAB_JOBS_POOL_H

#include <stddef.h>

#include "jobs/decide.h"
#include "results/cell.h"
#include "results/metric.h"
#include "spec/matrix.h"
#include "util/strvec.h"

/*
 * The cells a job has measured so far, from one or more run directories
 * (their run.json lists the cells; each cell.json is read from disk), by
 * kernel and group (topology/workload/memory, and the levers that differ
 * from the defaults: "ext4-disk/dirty-flood/512/pin=on"). infra-error
 * cells are counted apart and never enter a decision.
 */
struct pool_cell {
	char *run_dir;
	char *kernel;
	char *group; /* "ext4-disk/dirty-flood/512" */
	struct cell_result *cell;
};

struct pool {
	struct pool_cell *v;
	size_t n, alloc;
	int infra; /* infra-error cells seen (left out) */
	struct strvec runs;
	int *run_infra; /* runs.v[i]'s share of infra (a reload replaces it) */
	struct strvec real; /* runs[i]'s real path */
	struct strvec groups; /* distinct, in first-seen order */
};

#define POOL_INIT                                         \
	{                                                 \
		.runs = STRVEC_INIT, .real = STRVEC_INIT, \
		.groups = STRVEC_INIT                     \
	}

/*
 * (Re)load run_dir: its earlier cells are replaced. A run is its real
 * path: R/ or a link to R loaded after R replaces R's cells (they never
 * count twice), keeps R's name and is warned about. 0, or -1 with a
 * message.
 */
int pool_load_run(struct pool *p, const char *run_dir);
void pool_free(struct pool *p);
/*
 * Sides by topology instead of kernel (`wblab decide --by topology`): a
 * cell's label becomes its topology and its group kernel/workload/memory
 * (and levers), so that one kernel on two topologies is an A/B, as the
 * known 10% slowdown of a throttled disk (bench/known-10) needs.
 */
void pool_by_topology(struct pool *p);
/* Name the cells of run_dir's kernel label (two nights of one commit). */
void pool_relabel(struct pool *p, const char *run_dir, const char *label);

/* Cells of a kernel in a group (group NULL: all). */
size_t pool_count(const struct pool *p, const char *kernel, const char *group);
/*
 * The fewest cells with a kernel result of ka or kb (kb NULL: ka alone)
 * in any of the pool's groups, 0 when it has none: the look a job's
 * cells are at. A round of repetitions that leaves it where it was
 * brought the job nothing (every new cell infra-error): the lab failed.
 */
size_t pool_fewest(const struct pool *p, const char *ka, const char *kb);
/* The metric's values of kernel in group (NaN where absent); caller frees. */
double *pool_values(const struct pool *p, const char *kernel, const char *group,
		    const struct metric *m, size_t *n);
/* fail:runs of an event (decide_cell_event) of kernel in group. */
void pool_rate(const struct pool *p, const char *kernel, const char *group,
	       const char *kind, const char *title, int *fail, int *runs);

/*
 * Without thresholds: the primary rows the cells' workloads name
 * (workload_primary), 10% either way, appended to t[0..*n-1] (each row
 * once; metric and bad are the caller's to free).
 */
void pool_primary_rows(const struct pool *p, struct matrix_threshold **t,
		       size_t *n);

/*
 * "Worst cell: ID (OUTCOME)" and "reproduce with: wblab repro
 * RUN/cells/ID" (results_repro_line(), 80 columns): the pool's worst cell of kernel (NULL: any) by results_cell_worse(),
 * appended with a newline; nothing when the pool has none, or when its
 * worst cell ended ok without a console event (nothing to reproduce).
 */
void pool_repro_line(const struct pool *p, const char *kernel,
		     struct strbuf *out);

void pool_decide_metric(const struct pool *p, const char *ka, const char *kb,
			const char *group, const struct metric *m,
			const struct verdict_opts *o, struct decision *d);
/*
 * Whether kb's cells have the event more often than ka's: one-sided
 * (verdict_opts.greater), whatever o says; a bisection asks nothing else.
 */
void pool_decide_event(const struct pool *p, const char *ka, const char *kb,
		       const char *group, const char *kind, const char *title,
		       const struct verdict_opts *o, struct decision *d);

#endif
