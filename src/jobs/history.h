/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_HISTORY_H
#define WBLAB_JOBS_HISTORY_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>

#include "jobs/family.h"
#include "stats/stats.h"
#include "util/strbuf.h"

/*
 * The nights in the results database (DIR/wblab.db, next to runs and
 * cells):
 *   nights(id, tree, commit_id, subject, kernel, started, run_dir, verdict,
 *          host, accel)
 *     verdict: good, regression, unconfirmed (a candidate the re-run
 *     left unknown: neither mailed nor a last good night), build-failed
 *     or infra
 *     host, accel: where the night's cells ran (the lab's hostname for
 *     "local", "kvm" or "tcg"; several joined by ','); NULL in nights
 *     recorded before they were (resdb_schema() adds the columns)
 *   night_metrics(night, grp, metric, n, mean, sd)
 *     one row per group (topology/workload/memory) and thresholded metric
 *   candidates(...): the candidates' confirmations (jobs/confirm.h)
 * Their columns are spelt in results/db.c (resdb_schema()), which
 * results_db_open() and history run.
 */
/* Record a night; its id goes to *id. */
int history_add_night(sqlite3 *db, const char *tree, const char *commit,
		      const char *subject, const char *kernel,
		      const char *started, const char *run_dir,
		      const char *verdict, long long *id);
/* Where the night's cells ran: a series never mixes hosts or accelerators. */
int history_night_host(sqlite3 *db, long long night, const char *host,
		       const char *accel);
/* A night's verdict changed (a confirmed or an unconfirmed candidate). */
int history_night_verdict(sqlite3 *db, long long night, const char *verdict);
int history_add_metric(sqlite3 *db, long long night, const char *group,
		       const char *metric, int n, double mean, double sd);
/*
 * The last good night of tree on host and accel (as history_night_host()
 * stored them: a series never mixes hosts or accelerators): its run_dir,
 * commit and kernel (caller frees). 1 if there is none, 0 found, -1 error.
 */
int history_last_good(sqlite3 *db, const char *tree, const char *host,
		      const char *accel, char **run_dir, char **commit,
		      char **kernel);
/*
 * The means of a metric over the last `last` nights of tree on the host
 * and accelerator of its newest night (oldest first); returns how many.
 */
int history_means(sqlite3 *db, const char *tree, const char *group,
		  const char *metric, int last, double *out);
/* "+2.1%/night over 6 nights" (least squares on the means), or "-". */
void history_trend(const double *means, int n, char *buf, size_t len);
/*
 * Where a change point's cut goes (history-series.c): E-divisive can cut
 * a night late; the cut moves back while the left segment's last night
 * departs from every night before it the way the series changed (the
 * left keeps 2 nights or more). mean: the series' nightly means.
 */
size_t history_cut_back(const double *mean, const struct stats_cp *cp);

/* wblab history: a table, and optionally HTML with gnuplot plots. */
struct history_opts {
	const char *results;
	const char *metric; /* only this one (NULL: all) */
	const char *tree; /* only this tree (NULL: all) */
	const char *html; /* write HTML here */
	int last; /* nights, newest last */
	bool changes; /* list the change points instead of the nights */
	bool json; /* as JSON: nights and candidates, or the change points */
	int min_nights; /* the shortest segment (0: STATS_CPD_INIT's) */
};

int history_print(const struct history_opts *o, FILE *out);
/*
 * Per tree, host, accelerator, group and metric, the nights' means cut
 * where they change (stats_cpd()): each change point with the nights
 * either side, the means, the change and its p. 0, or 1 on failure.
 */
int history_changes(sqlite3 *db, const struct history_opts *o, FILE *out);
/*
 * Rows of det (tonight, night, against the last good night) that are no
 * candidate yet but whose series over the nights up to tonight (night's
 * tree, host and accelerator; the row's group and metric) has a change
 * point whose right segment reaches tonight (as history_changes() finds
 * them), in the row's bad direction beyond its threshold
 * (dhyp_bad_change()), with no regression of the row confirmed since the
 * change and no re-run since from the commit before it that found the row
 * the same (confirm_since()): each becomes a candidate (its regression flag
 * set), a line in report says so. A slow drift, or a level shift the one
 * look missed on its first nights (which then became last good nights),
 * is caught this way. The re-run must start before the change: when a
 * change's last night before it is older than the last good night, *ref
 * gets that night's commit (the oldest of them; caller frees), else it
 * is left alone. Returns how many rows were raised, -1 on error.
 */
int history_change_candidates(sqlite3 *db, long long night, struct family *det,
			      struct strbuf *report, char **ref);
/* o->html: a gnuplot SVG per series, its change points marked. */
int history_html(sqlite3 *db, const struct history_opts *o, FILE *out);

#endif
