/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_HISTORY_H
#define WBLAB_JOBS_HISTORY_H

#include <sqlite3.h>
#include <stdio.h>

/*
 * The nights in the results database (DIR/wblab.db, next to runs and
 * cells):
 *   nights(id, tree, commit_id, subject, kernel, started, run_dir, verdict)
 *     verdict: good, regression, build-failed or infra
 *   night_metrics(night, grp, metric, n, mean, sd)
 *     one row per group (topology/workload/memory) and thresholded metric
 */
int history_schema(sqlite3 *db);
/* Record a night; its id goes to *id. */
int history_add_night(sqlite3 *db, const char *tree, const char *commit,
		      const char *subject, const char *kernel,
		      const char *started, const char *run_dir,
		      const char *verdict, long long *id);
int history_add_metric(sqlite3 *db, long long night, const char *group,
		       const char *metric, int n, double mean, double sd);
/*
 * The last good night of tree: its run_dir, commit and kernel (caller
 * frees). 1 if there is none, 0 found, -1 error.
 */
int history_last_good(sqlite3 *db, const char *tree, char **run_dir,
		      char **commit, char **kernel);
/*
 * The means of a metric over the last `last` nights of tree (oldest
 * first, the newest excluded when skip_newest); returns how many.
 */
int history_means(sqlite3 *db, const char *tree, const char *group,
		  const char *metric, int last, double *out);
/* "+2.1%/night over 6 nights" (least squares on the means), or "-". */
void history_trend(const double *means, int n, char *buf, size_t len);

/* wblab history: a table, and optionally HTML with gnuplot plots. */
struct history_opts {
	const char *results;
	const char *metric; /* only this one (NULL: all) */
	const char *tree; /* only this tree (NULL: all) */
	const char *html; /* write HTML here */
	int last; /* nights, newest last */
};

int history_print(const struct history_opts *o, FILE *out);

#endif
