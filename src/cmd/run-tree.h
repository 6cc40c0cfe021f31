/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CMD_RUN_TREE_H
#define WBLAB_CMD_RUN_TREE_H

#include "spec/specs.h"
#include "jobs/tree.h"
#include "util/strvec.h"

/* wblab run --tree: a user's git tree as the run's kernels. */
struct run_tree {
	const char *tree; /* --tree DIR, NULL when not given */
	struct strvec refs; /* --ref, in order: the first is the baseline */
	struct tree_config cfg; /* --config-from, --config, --config-fragment */
	struct tree_kernel *built; /* [nr], or NULL: --kernel PATH's specs */
	struct kernel_spec *specs; /* [nr]: for matrix_opts.kernels */
	size_t nr;
};

/*
 * Build each ref of t->tree (HEAD with its uncommitted changes when no
 * ref is given) and append the kernels' names to kernels, in order.
 * 0; 2 (bad input: not a git work tree, a ref that names no commit)
 * or 1 (a build failed), with the error printed.
 */
int run_tree_build(struct run_tree *t, struct strvec *kernels);
void run_tree_free(struct run_tree *t);

#endif
