// SPDX-License-Identifier: GPL-2.0
/* The sampler's timeseries.tsv, checked (collect/timeseries.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "collect/timeseries.h"
#include "util/log.h"
#include "util/num.h"

#define TS_VALUE_MAX 9007199254740992.0 /* 2^53 */

/* Column names become cell.json keys: [a-z0-9_], short, no duplicates. */
static bool valid_cols(const char *const *cols, int n)
{
	for (int i = 0; i < n; i++) {
		size_t len = strlen(cols[i]);

		if (!len || len > 40 ||
		    strspn(cols[i], "abcdefghijklmnopqrstuvwxyz0123456789_") !=
			    len)
			return false;
		for (int j = 0; j < i; j++)
			if (!strcmp(cols[i], cols[j]))
				return false;
	}
	return true;
}

/* The 1-based line number of offset off in text. */
static size_t line_of(const char *text, size_t off)
{
	size_t n = 1;

	for (size_t i = 0; i < off; i++)
		n += text[i] == '\n';
	return n;
}

/* One sample row into v: true when every column is a number in range. */
static bool parse_row(const char *line, int ncols, double *v)
{
	const char *p = line, *e;
	int n = 0;

	while (n < ncols) {
		/* -1 (not found) up to 2^53: a sample, else torn. */
		if (num_double(NULL, p, -1, TS_VALUE_MAX, &v[n], &e))
			break;
		n++;
		if (*e != '\t')
			break;
		p = e + 1;
	}
	return n == ncols;
}

static void add_row(struct timeseries *ts, size_t *alloc, const double *v)
{
	if (ts->nrows == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 64;
		ts->v = xrealloc(ts->v, *alloc * ts->ncols * sizeof(*ts->v));
	}
	memcpy(ts->v + ts->nrows * ts->ncols, v, ts->ncols * sizeof(*v));
	ts->nrows++;
}

int timeseries_parse(const char *text, size_t len, struct timeseries *ts)
{
	char *save = NULL, *line, *s2 = NULL;
	size_t alloc = 0;

	memset(ts, 0, sizeof(*ts));
	ts->buf = xstrndup(text, len);
	line = strtok_r(ts->buf, "\n", &save);
	if (!line)
		goto bad;
	for (char *c = strtok_r(line, "\t", &s2); c && ts->ncols < TS_MAX_COLS;
	     c = strtok_r(NULL, "\t", &s2))
		ts->cols[ts->ncols++] = c;
	if (!ts->ncols || !valid_cols(ts->cols, ts->ncols))
		goto bad;
	while ((line = strtok_r(NULL, "\n", &save))) {
		double v[TS_MAX_COLS];

		if (parse_row(line, ts->ncols, v)) {
			add_row(ts, &alloc, v);
			continue;
		}
		/* A last line without its newline is torn, not bad. */
		if (line + strlen(line) == ts->buf + len &&
		    text[len - 1] != '\n')
			continue;
		if (!ts->malformed++)
			ts->first_bad = line_of(text, line - ts->buf);
	}
	return 0;
bad:
	timeseries_release(ts);
	return -1;
}

int timeseries_col(const struct timeseries *ts, const char *name)
{
	for (int i = 0; i < ts->ncols; i++)
		if (!strcmp(ts->cols[i], name))
			return i;
	return -1;
}

void timeseries_release(struct timeseries *ts)
{
	free(ts->buf);
	free(ts->v);
	memset(ts, 0, sizeof(*ts));
}
