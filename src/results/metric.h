/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_RESULTS_METRIC_H
#define WBLAB_RESULTS_METRIC_H

/*
 * The metric registry: every figure of a cell a user can name, once.
 *
 * A row's name is the name everywhere: the report's row, `wblab show`'s
 * column, a matrix threshold's key, `--metric` of bisect and history, the
 * jobs' decisions. The row says where cell.json keeps the figure (old runs
 * are read as they are), its unit, which way is better, what kind of
 * number it is and the test that fits it. `wblab metrics` lists the rows;
 * docs/results.md holds that listing.
 *
 * A collector that records a new figure adds one row to metric.c, and the
 * report, show, the specs' name checks and the jobs pick it up.
 */
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

enum metric_better { BETTER_HIGHER, BETTER_LOWER };

/* Where the report prints the row. */
enum metric_table {
	MT_METRIC, /* the metric table (Min..Max lines) */
	MT_OPS, /* the Ops table (one Amean line) */
	MT_NONE, /* no table: shown in its own section (stack depth, the
		  * outcome table); nameable by show, thresholds, --metric */
};

enum metric_kind {
	MK_COUNT, /* events, pages, bytes counted: >= 0, often 0 */
	MK_CONTINUOUS, /* a time, a size, a level, a throughput */
	MK_RATE, /* whether a cell saw it counts, not how often: fail:runs */
	MK_PERCENTAGE, /* a share in [0, 100] */
};

/* The test that fits the row's data (the comment of each family in
 * metric.c says why; tests/data/report/{ab,aa} measured it). */
enum metric_test {
	MTEST_WELCH, /* Welch's t on the values: near-normal figures */
	MTEST_LOG1P_WELCH, /* Welch's t on log(1 + value): counts, skews */
	MTEST_PERMUTATION, /* exact permutation test of the means: ties,
			    * piles at a bound */
	MTEST_FISHER, /* Fisher's exact test of cells with value > 0 */
};

struct metric {
	const char *name; /* <= 18 characters (the mail's row column) */
	const char *path; /* cell.json path (util/json.h json_path) */
	const char *unit; /* after scaling */
	double scale; /* cell.json value times this is in unit */
	enum metric_better better;
	enum metric_kind kind;
	enum metric_test test;
	enum metric_table table;
	/* Rows that move together: a family earns at most one star. */
	const char *family;
	/* Also count the cells where it is > 0, as an outcome rate (Fisher):
	 * "never" against "every time" is a rate, not a mean. */
	bool presence;
	const char *help; /* one line for the legend */
	const char *old_path; /* where cells written before a rename have it */
	/* Only some workloads record it (NULL: every workload's cells). */
	const char *only;
};

extern const struct metric metric_rows[];
extern const size_t metric_nr_rows;

#define for_each_metric(m)                         \
	for (const struct metric *m = metric_rows; \
	     m < metric_rows + metric_nr_rows; m++)

static inline size_t metric_index(const struct metric *m)
{
	return (size_t)(m - metric_rows);
}

/*
 * The row of a name: exactly as the report prints it, or with the case
 * folded and '-' for ' ' ("minor-faults" is "Minor faults"). NULL if none.
 */
const struct metric *metric_by_name(const char *name);
/* The row that reads path (its path or old_path). NULL if none. */
const struct metric *metric_by_path(const char *path);
/*
 * A metric as run.json recorded a threshold before the registry: a name,
 * a cell.json path, or a key under metrics. or metrics.ops. (what the jobs
 * once guessed). For reading old records only: specs and options take
 * names (metric_lookup).
 */
const struct metric *metric_by_old_key(const char *key);
/*
 * The check of a name a user gave: its row, or NULL with
 * "unknown metric 'X'; did you mean A, B?" (rows whose name, cell.json
 * path or path's last key is a few edits away) appended to err.
 */
const struct metric *metric_lookup(const char *name, struct strbuf *err);

/*
 * The row's value in a cell.json, in the row's unit (scaled), read at its
 * path or old_path: NaN if absent or not a number. Whether the cell counts
 * is the reader's question (results/reader.h), not this one's.
 */
double metric_value(json_object *cell, const struct metric *m);

/*
 * The smallest change of the row that can be beyond any threshold, in its
 * unit: a threshold from a reference of 0 (or near it) is this, not a
 * percentage. 0 for a row with none (every kind but a count).
 */
double metric_abs_floor(const struct metric *m);
const char *metric_kind_name(enum metric_kind k); /* "count", ... */
const char *metric_test_name(enum metric_test t); /* "log1p-welch", ... */
const char *metric_table_name(enum metric_table t); /* "metric", ... */
/*
 * The offset c of a log1p-welch row in the row's unit: its test works on
 * log(1 + x / c), c one physical quantity whatever unit the row is
 * recorded in (one page for sizes: 1 in pages, 4 in KiB; one event; 1 ms;
 * 1 MiB/s; a point), so that its p-values do not depend on the unit.
 */
double metric_log_offset(const struct metric *m);
/*
 * The row's one mean, the one its test compares; the table, the Verdict,
 * the claims and every decision line print it: for log1p-welch the
 * geometric mean of c + x less c (c = metric_log_offset(); "Gmean"), for
 * Welch and the permutation test the arithmetic mean ("Amean"). NAN for
 * no values. metric_test_mean() is the same for a test and an offset.
 */
double metric_mean(const struct metric *m, const double *x, size_t n);
double metric_test_mean(enum metric_test t, double c, const double *x,
			size_t n);
const char *metric_mean_name(const struct metric *m); /* "Gmean", "Amean" */
/* One row as a JSON object (`wblab metrics --json`). */
json_object *metric_json(const struct metric *m);

#endif
