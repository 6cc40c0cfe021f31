/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_FAMILY_H
#define WBLAB_JOBS_FAMILY_H

#include <stdio.h>

#include "decide/procedure.h"
#include "jobs/pool.h"
#include "spec/matrix.h"

/*
 * What a job decides about kernel kb against the reference ka: one
 * hypothesis per thresholded row and group, and one per event kind (an
 * outcome, or a console event with its title) that either kernel showed,
 * one-sided: does kb show it more often. validate, nightly and `wblab decide` build it here and decide it
 * with decide_family() (decide/procedure.h) at the look their cells are
 * at, so that all three reach the same verdict from the same cells.
 */
struct family {
	struct dhyp *h;
	size_t n;
	int look; /* the fewest cells of a side in any group */
};

void family_build(struct family *f, const struct pool *p, const char *ka,
		  const char *kb, const struct matrix_threshold *t, size_t nt);
/* family_build() then decide_family() at the look. */
void family_decide(struct family *f, const struct pool *p, const char *ka,
		   const char *kb, const struct matrix_threshold *t, size_t nt,
		   const struct dlooks *l);
/*
 * family_decide() with every event of asked (a night's detection) tested
 * too, whether these cells show it or not: a re-run where neither side
 * shows a candidate's crash decides it as 0 of n against 0 of n, `same`
 * only once the cells bound its rise (before: no hypothesis, "not seen
 * again", rejected at 3 cells a side).
 */
void family_decide_with(struct family *f, const struct pool *p, const char *ka,
			const char *kb, const struct matrix_threshold *t,
			size_t nt, const struct dlooks *l,
			const struct family *asked);
void family_release(struct family *f);

size_t family_regressions(const struct family *f);
/*
 * Rows and events still unknown that had cells (the caller adds
 * repetitions; at its last look, they make its exit code 4).
 */
size_t family_unknown(const struct family *f);
size_t family_same(const struct family *f);

/*
 * The exit code of a job's (or `wblab decide`'s) last look: a regression
 * (1) first; else any row or event still unknown (4: nothing found, and
 * nothing ruled out either: not a pass); else 0, every row and event
 * `same` or different in the good direction.
 */
enum {
	FAMILY_EXIT_OK = 0,
	FAMILY_EXIT_REGRESSION = 1,
	FAMILY_EXIT_UNKNOWN = 4,
};
int family_exit(const struct family *f);

/* The rows, grouped, one line each, a '*' before a regression. */
void family_print(FILE *out, const struct family *f);

#endif
