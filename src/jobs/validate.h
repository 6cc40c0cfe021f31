/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_VALIDATE_H
#define WBLAB_JOBS_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "decide/procedure.h"
#include "jobs/family.h"
#include "jobs/pool.h"
#include "jobs/tree.h"
#include "matrix/matrix.h"
#include "util/strvec.h"

/*
 * Pre-merge validation of a patch or a series: build the base and the
 * patched kernel (incrementally, in the tree's one O= tree), run the
 * matrix with both, decide every thresholded metric and every new event
 * kind, add repetitions while a decision is unknown, print the mail.
 */
enum validate_exit {
	VALIDATE_OK = 0, /* no regression */
	VALIDATE_REGRESSION = 1,
	VALIDATE_NO_APPLY = 2, /* a patch does not apply or build */
	VALIDATE_INFRA = 3,
	/*
	 * Rows or events still unknown at --max-reps: no regression found,
	 * none ruled out (FAMILY_EXIT_UNKNOWN).
	 */
	VALIDATE_UNKNOWN = 4,
};

/*
 * How validate spends alpha over its looks unless told (--boundary):
 * Pocock's function, level 0.0226 at n = 3 a side, 0.0181 at the last
 * look. O'Brien-Fleming's 0.000207 at n = 3 is nearly out of reach at 3
 * cells a side (Welch on 3 log values against zeros needs |t| > 69 at 2
 * df; the permutation test's smallest p is 0.1): the direct-writeback
 * revert (0 -> 44..940 pages) was named there in 9% of the draws of real
 * cells and otherwise paid for 2 more cells a side, 19 s at idle. The
 * overall alpha is the same; docs/jobs.md has the trade-off,
 * tests/test_calibration.c the simulated validates that check it.
 */
#define VALIDATE_BOUNDARY DBOUND_POCOCK

struct validate_opts {
	const char *tree;
	const char *base;
	struct strvec patches; /* in order (from --patch, or the mbox) */
	const char *mbox;
	const char *matrix; /* name under lab/matrices, or a path */
	const char *results;
	struct tree_config cfg; /* --config-from, --config, --config-fragment */
	int max_reps; /* per side and group */
	enum dboundary boundary; /* alpha spent over the looks */
	bool build_only; /* build base (and patched), run nothing */
	/*
	 * --mbox: the result is also a reply to the mbox's first message
	 * (WORK/reply.mail, jobs/lkmail.h), From this (NULL: wblab@HOST).
	 */
	const char *mail_from;
	struct matrix_opts mo;
	FILE *out; /* the mail report */
};

int validate_run(struct validate_opts *o);

/*
 * Where a validate's cells come from: the matrix engine (validate_run()),
 * or captured cells (tests/test_calibration.c, which so drives the real
 * procedure, not a copy). more() adds extra cells a side and group to p:
 * 0, or -1 when they could not be had.
 */
struct validate_cells {
	int (*more)(void *ctx, struct pool *p, int extra);
	/* Each look's family as decided, when not NULL (what a look said). */
	void (*look)(void *ctx, const struct family *fam, int n);
	void *ctx;
};

/*
 * validate's looks, the one procedure: with *reps cells a side in p, plan
 * the looks (*reps, *reps + 2, ... up to max_reps, by looks->boundary and
 * looks->alpha), decide fam (base against patched, every threshold and
 * event kind), and while a row or event is unknown or unsettled and
 * *reps < max_reps add 2 cells a side and decide again. fam holds the last
 * look's family (the caller releases it), *reps the cells it had. 0;
 * VALIDATE_LOOKS_LOST when a round of 2 more a side brought no cell with
 * a kernel result on a side (pool_fewest() did not move: every new cell
 * infra-error), where it stops: more rounds would only repeat the
 * failure, and their unknown is the lab's, not the patch's; -1 when src
 * could not add cells.
 */
#define VALIDATE_LOOKS_LOST 1
int validate_looks(struct family *fam, struct pool *p, const char *base,
		   const char *patched, const struct matrix_threshold *t,
		   size_t nt, struct dlooks *looks, int *reps, int max_reps,
		   const struct validate_cells *src);

/*
 * The exit code of validate's measured verdict, decided here and only
 * here: a regression (1) first, whatever else; then the lab's failures
 * (3): fewer than STATS_MIN_N cells with a kernel result on a side
 * (short), or a row or event still unknown after a round the lab lost
 * (lost: VALIDATE_LOOKS_LOST); then unknown at --max-reps (4); else 0.
 */
int validate_exit(const struct family *fam, bool short_of_cells, bool lost);

#endif
