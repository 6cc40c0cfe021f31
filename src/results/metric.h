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

/*
 * The rows C names (a writer, or a reader that picks one row): METRIC_X
 * is the index in metric_rows[] of the row named x, spelt in upper case
 * with each run of other characters made '_' ("reclaim-wr-direct" is
 * RECLAIM_WR_DIRECT, "Minor faults" MINOR_FAULTS). metric.c initialises
 * each row at its id, so a row out of place, or a row or an id missing,
 * does not compile; test_results ties each id to its row's name.
 * METRIC(RECLAIM_WR_DIRECT) is the row: cell_metric(c, METRIC(STACK_MAX)).
 */
#define METRIC_IDS(X)        \
	X(FIO_WRITE)         \
	X(FIO_READ)          \
	X(WRITE_LAT_P99)     \
	X(WORKLOAD_TIME)     \
	X(MEMCG_STALL_P95)   \
	X(DIRECT_STALL_P95)  \
	X(RECLAIM_WR_DIRECT) \
	X(RECLAIM_WR_KSWAPD) \
	X(ALLOCSTALL)        \
	X(MIN_FREE)          \
	X(PSI_MEM_SOME)      \
	X(DIRTY_THROTTLE)    \
	X(MINOR_FAULTS)      \
	X(MAJOR_FAULTS)      \
	X(SWAP_OUTS)         \
	X(DIRECT_SCANNED)    \
	X(KSWAPD_SCANNED)    \
	X(KSWAPD_EFFICIENCY) \
	X(RECLAIM_WRITES)    \
	X(RECLAIM_IMMEDIATE) \
	X(PGPGOUT)           \
	X(SLABS_SCANNED)     \
	X(FILE_REFAULTS)     \
	X(MEMCG_RUN)         \
	X(MEMCG_RQ_SIZE)     \
	X(MEMCG_SEEKS)       \
	X(MEMCG_OFFSET_RHO)  \
	X(MEMCG_RHO_W32)     \
	X(FLUSHER_RUN)       \
	X(FLUSHER_RQ_SIZE)   \
	X(FLUSHER_SEEKS)     \
	X(FLUSHER_RHO_W32)   \
	X(MEMCG_SCANNED)     \
	X(MEMCG_EFFICIENCY)  \
	X(MEMCG_RECLAIMS)    \
	X(DIRECT_RECLAIMS)   \
	X(DIRTY_MET_DIRECT)  \
	X(WBACK_MET_DIRECT)  \
	X(DIRTY_MET_MEMCG)   \
	X(WBACK_MET_MEMCG)   \
	X(FLUSH_FOR_VMSCAN)  \
	X(THROTTLED_WBACK)   \
	X(KSWAPD_WAKES)      \
	X(PEAK_DIRTY)        \
	X(PEAK_WRITEBACK)    \
	X(STACK_MAX)         \
	X(RECLAIM_WR_STACK)  \
	X(OOM_KILLS)         \
	X(OOM_PREMATURE)     \
	X(OOM_DIRTY_AT_KILL) \
	X(END_DIRTY)

enum metric_id {
#define METRIC_ID_(id) METRIC_##id,
	METRIC_IDS(METRIC_ID_)
#undef METRIC_ID_
		METRIC_NR_IDS
};

/* The ids as spelt, "RECLAIM_WR_DIRECT" at METRIC_RECLAIM_WR_DIRECT. */
extern const char *const metric_id_names[];

#define METRIC(id) (&metric_rows[METRIC_##id])

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
 * The writer of a row whose figure a host collector records at the top of
 * cell.json's metrics (its path "metrics.KEY"): metrics[KEY] = v (taken;
 * NULL writes null), so the key is spelt once, in the row. metric_top_key()
 * is KEY (for null_reasons), or NULL for a row whose figure lies deeper, in
 * a collector's own object.
 */
const char *metric_top_key(const struct metric *m);
void metric_put(json_object *metrics, const struct metric *m, json_object *v);

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
