/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_NIGHTLY_H
#define WBLAB_JOBS_NIGHTLY_H

#include <stdio.h>

#include "jobs/tree.h"
#include "matrix/matrix.h"
#include "spec/nightly.h"

struct nightly_opts {
	const struct nightly_spec *spec;
	struct tree_config cfg; /* --config-from, --config, --config-fragment */
	int max_reps;
	struct matrix_opts mo;
	FILE *out;
};

/* 0 no regression anywhere, 1 a regression, 3 the lab failed. */
int nightly_run(const struct nightly_opts *o);

#endif
