/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_BISECT_H
#define WBLAB_JOBS_BISECT_H

#include <stdbool.h>
#include <stdio.h>

#include "jobs/tree.h"
#include "matrix/matrix.h"
#include "results/metric.h"

/*
 * Noise-aware bisection of a git tree between a good and a bad commit,
 * on a metric (--metric NAME [--threshold PCT]) or an event rate
 * (--event KIND[:TITLE]). The ends are confirmed first; each step builds
 * the commit incrementally (one O= tree for the tree, ccache), reuses the
 * verdict of a commit whose kernel image is identical to one already
 * tested, runs cells until its comparison with the ends is not unknown
 * (at most max_reps), and marks it good, bad or skip. Build failures and
 * boot failures are skip, never bad; a round of cells all infra-error
 * (the ends' or a step's) stops it with BISECT_INFRA, the step left
 * untested in the log for --resume.
 */
struct bisect_opts {
	const char *tree, *good, *bad;
	const char *matrix;
	const char *results;
	struct tree_config cfg; /* --config-from, --config, --config-fragment */
	const struct metric *metric; /* the registry's row, or NULL */
	double threshold; /* %, or pp for events; 0: half the ends' change */
	const char *event; /* KIND[:TITLE] */
	int max_reps;
	const char *resume; /* a log to continue from */
	struct matrix_opts mo;
	FILE *out;
	/* The mail (jobs/lkmail.h): the tree's name in its subject (NULL:
	 * the tree directory's last component), its From and To (NULL: the
	 * lab's "wblab <wblab@HOST>", no To). */
	const char *tree_name, *mail_from, *mail_to;
	/*
	 * Set when the first bad commit is found: it, the mail's subject and
	 * body (the caller frees them; bisect_opts_release()), the mail file
	 * written in the bisection's directory.
	 */
	char first_bad[41];
	char *subject, *body, *mail_path;
};

void bisect_opts_release(struct bisect_opts *o);

enum bisect_exit {
	BISECT_FOUND = 0,
	BISECT_NOT_FOUND = 1, /* ends not confirmed, or only skips left */
	BISECT_USAGE = 2,
	BISECT_INFRA = 3,
};

int bisect_run(struct bisect_opts *o);

/*
 * The next commit to test between lo (good, or -1) and hi (bad): the
 * middle one, else the nearest that is not skipped; -1 when every commit
 * strictly between them is skipped. Pure.
 */
long bisect_pick(const bool *skipped, long lo, long hi);

/*
 * One step for `git bisect run`: the tree's HEAD against the ends (which
 * are measured once, then found again through a state file in results).
 * Returns 0 good, 1 bad, 125 skip, 128 abort (ends not confirmed, the lab
 * failed): never 127.
 */
int bisect_step(struct bisect_opts *o);

#endif
