/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_MATRIX_H
#define WBLAB_MATRIX_H

/*
 * The matrix engine: expand a matrix spec into cells, order them, and run
 * them in parallel slots on one or more libvirt hosts, recording each in
 * the results layout (docs/results.md). `wblab run` is a one-off matrix,
 * `wblab matrix run` a spec file; validate, bisect and nightly call the
 * same functions.
 *
 *	struct matrix_spec m;           // matrix_spec_find("seed", &m), or built
 *	struct matrix_opts o = MATRIX_OPTS_INIT;
 *	struct matrix_run r;
 *
 *	o.results = "results";
 *	ret = matrix_run(&m, &o, &r);   // 0: every cell has a kernel result
 *	for (size_t i = 0; i < r.n; i++)
 *		use(r.cells[i].outcome, r.cells[i].dir);   // dir has cell.json
 *	matrix_add_reps(r.run_dir, 3, &o, &r2);  // three more reps, same run
 *	matrix_run_free(&r);
 *
 * Cells that end infra-error are retried (bounded) and never count as a
 * result: their outcome stays OUTCOME_INFRA_ERROR with have_result false.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cell/outcome.h"
#include "spec/matrix.h"
#include "spec/specs.h"

/* One cell of an expanded matrix. */
struct matrix_cell {
	char *id; /* <kernel>_<topology>_<workload>[_<size>]_<rep> */
	char *kernel, *topology, *workload;
	int rep;
	long long memory; /* MiB, 0 = the workload's (else 1024) */
	long long vcpus; /* 0 = 2 */
	char *levers; /* levers_text(): "default", "pin=on", ... */
	int block; /* cells of a block differ only in kernel and levers */
};

struct matrix_plan {
	struct matrix_cell *cells; /* in run order */
	size_t n;
	uint64_t seed;
};

/*
 * Expand m into cells for reps rep_from..rep_to (1-based, inclusive) and
 * order them: each block (topology x workload x size x rep) holds one cell
 * per kernel and lever setting (m->levers), adjacent, in a shuffled
 * order; the blocks are shuffled too. The same seed gives the same order. Pure.
 */
void matrix_expand(const struct matrix_spec *m, uint64_t seed, int rep_from,
		   int rep_to, struct matrix_plan *out);
void matrix_plan_free(struct matrix_plan *p);
/* A seed from the clock and pid, for runs without --seed. */
uint64_t matrix_random_seed(void);

enum matrix_progress {
	MATRIX_PROGRESS_AUTO, /* status lines on a TTY, else plain */
	MATRIX_PROGRESS_TTY,
	MATRIX_PROGRESS_PLAIN, /* timestamped lines */
	MATRIX_PROGRESS_QUIET,
};

struct matrix_opts {
	const char *results; /* results directory (default "results") */
	int jobs; /* cap on cells at once; 0 = what the hosts allow */
	const char *hosts; /* hosts.yaml, or NULL: one host at uri */
	const char *uri; /* default virt_default_uri() */
	uint64_t seed;
	bool has_seed; /* else matrix_random_seed() */
	const char *accel; /* auto, kvm, tcg */
	int boot_timeout; /* s, default 120 */
	int timeout; /* workload s, 0 = the workload's */
	bool keep; /* keep staging dirs */
	const char *cmdline_extra;
	int deadline; /* s per cell, 0 = the sum of its phase timers */
	int max_retries; /* infra-error retries per cell, default 2 */
	enum matrix_progress progress;
	const char *command; /* recorded in run.json: "run", "matrix", ... */
	/* Kernels made in code, found by name before lab/kernels (jobs). */
	const struct kernel_spec *kernels;
	size_t nr_kernels;
};

/* The one place the engine's defaults are set: start every matrix_opts here. */
#define MATRIX_OPTS_INIT                                                    \
	{                                                                   \
		.results = "results", .accel = "auto", .boot_timeout = 120, \
		.max_retries = 2, .command = "matrix"                       \
	}

/* A cell's end, as recorded in its cell.json. */
struct matrix_cell_result {
	struct matrix_cell cell;
	bool ran; /* has a cell.json from this or an earlier invocation */
	bool have_result; /* a kernel outcome (not infra-error) */
	enum cell_outcome outcome;
	char *dir; /* DIR/<run>/cells/<cell> */
	char *host; /* hosts.yaml name of the host it ran on */
	int slot;
	int attempts; /* 1 + infra-error retries */
};

struct matrix_run {
	char run_id[64];
	char *run_dir;
	uint64_t seed;
	struct matrix_cell_result *cells; /* in run order */
	size_t n;
	int nr_results, nr_infra; /* cells with / without a kernel result */
	bool interrupted; /* SIGINT/SIGTERM: resumable */
	bool stopped; /* the run stopped early (results disk full, no host) */
};

/*
 * Run m. Returns 0 when every cell has a kernel result, 1 when some ended
 * infra-error or the run was interrupted (r is filled: resume with
 * matrix_resume), 2 on bad input (a spec that does not load; r is empty).
 */
int matrix_run(const struct matrix_spec *m, const struct matrix_opts *o,
	       struct matrix_run *r);
/*
 * Continue the run in run_dir (DIR/<run-id>): cells with a kernel result
 * are kept, the others run. Same returns as matrix_run.
 */
int matrix_resume(const char *run_dir, const struct matrix_opts *o,
		  struct matrix_run *r);
/* Add extra repetitions of every cell to the run in run_dir, and run them. */
int matrix_add_reps(const char *run_dir, int extra, const struct matrix_opts *o,
		    struct matrix_run *r);
void matrix_run_free(struct matrix_run *r);
/* Print DIR/<run>/run.json to stdout (--json). */
int matrix_print_run_json(const char *run_dir);

#endif
