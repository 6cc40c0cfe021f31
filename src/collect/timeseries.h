/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_TIMESERIES_H
#define WBLAB_TIMESERIES_H

#include <stddef.h>

#define TS_MAX_COLS 32

/*
 * The agent sampler's timeseries.tsv, checked (pure): a header line of
 * column names ([a-z0-9_], at most 40 bytes, none twice: they become
 * cell.json keys), then tab-separated samples, each field a number from -1
 * (the sampler did not find it) to 2^53. A row with a field missing or out
 * of range is malformed and left out (counted, its line kept); a last line
 * without its newline is torn (the guest stopped mid-write), left out and
 * not counted. The one reader of the file: the cell's summary
 * (timeseries_summary(), collect/ops.h) and the report's plots.
 */
struct timeseries {
	int ncols;
	const char *cols[TS_MAX_COLS]; /* in buf */
	size_t nrows;
	double *v; /* nrows x ncols, row by row */
	size_t malformed, first_bad; /* first_bad: its 1-based line */
	char *buf;
};

/* 0, or -1 with ts empty when the text has no valid header. */
int timeseries_parse(const char *text, size_t len, struct timeseries *ts);
/* The index of the column called name, or -1. */
int timeseries_col(const struct timeseries *ts, const char *name);
static inline double timeseries_at(const struct timeseries *ts, size_t row,
				   int col)
{
	return ts->v[row * ts->ncols + col];
}
void timeseries_release(struct timeseries *ts);

#endif
