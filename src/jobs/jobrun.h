/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_JOBRUN_H
#define WBLAB_JOBS_JOBRUN_H

#include "jobs/pool.h"
#include "matrix/matrix.h"
#include "spec/matrix.h"

/*
 * Cells for the jobs, through the matrix engine: a matrix spec names the
 * topologies, workloads, sizes and reps; the job puts its own kernels in
 * (the commit under test, base and patched), runs it, and adds
 * repetitions to a run while a decision is unknown. Every finished run is
 * loaded into the job's pool.
 */
struct jobrun {
	const struct matrix_spec *tmpl;
	struct matrix_opts mo;
	struct pool pool; /* pool.n + pool.infra: the cells that ran */
	struct kernel_spec *kernels; /* made in code, for the engine */
	size_t nr_kernels;
};

/*
 * A kernel made in code (tree_kernel.spec) the job's runs may name: the
 * engine gets every one added (matrix_opts.kernels). A copy is kept; one
 * of the same name is replaced. -1 if its name cannot name a kernel.
 */
int jobrun_add_kernel(struct jobrun *j, const struct kernel_spec *s);

/* Run kernels[0..n-1] x the template, reps each; *run_dir gets the run. */
int jobrun_kernels(struct jobrun *j, const char *const *kernels, size_t n,
		   int reps, char **run_dir);
/* extra more reps of every cell of run_dir. */
int jobrun_more(struct jobrun *j, const char *run_dir, int extra);
void jobrun_free(struct jobrun *j);

#endif
