/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_RESULTS_READER_H
#define WBLAB_RESULTS_READER_H

/*
 * The one reader of finished runs: RUN/run.json, then each
 * RUN/cells/ID/cell.json its "cells" list names, for every command that
 * reads results back (report, compare, aa, show, the jobs' pools, a
 * resumed matrix). A results directory may come from elsewhere (an
 * imported or shared run), so it is untrusted input, read with one set of
 * checks:
 *
 *   - a cell's "dir" is exactly cells/ID, ID one path component
 *     ([A-Za-z0-9._-], not "." or ".."; no '/', so no "../x");
 *   - neither cells/ nor cells/ID is a symbolic link, and a JSON file is
 *     read only if it is a regular file that is no link (O_NOFOLLOW), no
 *     FIFO or device;
 *   - its size is checked before it is read: RESULTS_JSON_MAX at most.
 *
 * Whether a cell counts (enters comparisons and decisions) is decided here
 * and only here: results_cell_counts().
 */
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "results/cell.h"
#include "results/outcome.h"
#include "util/strbuf.h"

/* run.json and cell.json: a 10000-cell run.json is about 5 MiB. */
#define RESULTS_JSON_MAX (64u << 20)

struct results_run {
	char *dir; /* as given, without trailing '/' */
	/*
	 * Its real path (realpath(3); dir if that fails): the run's
	 * identity, one for R, R/ and a link to R.
	 */
	char *real;
	json_object *json; /* run.json, owned */
	json_object *cells; /* its "cells" array (in json) */
	struct run_result info; /* run.json decoded (results/cell.h) */
};

/* One entry of run.json's "cells", as handed to a results_cell_fn. */
struct results_cell {
	size_t idx; /* in run.json's cells */
	json_object *entry; /* that entry (the run's) */
	const char *rel; /* its "dir", "cells/ID"; NULL when absent */
	const struct run_entry *info; /* that entry decoded (run->info) */
	char *dir; /* RUN/cells/ID; NULL when refused */
	/* The parsed cell.json; NULL when it could not be read (why says
	 * why). Put after the callback: json_object_get() to keep it. */
	json_object *json;
	/* json decoded (results/cell.h), NULL with json; cell_result_get()
	 * to keep it past the callback. */
	struct cell_result *res;
	const char *why; /* "FILE: reason" or "RUN/run.json: cells.N: ..." */
	bool absent; /* no cell.json: listed, but the cell never finished */
	bool counts; /* read, and results_cell_counts() */
};

/*
 * Read DIR/run.json through the checks above. 0, or -1 with
 * "DIR/run.json: why" (or "DIR/run.json:LINE: parse error") in err.
 */
int results_open_run(const char *dir, struct results_run *run,
		     struct strbuf *err);
void results_close_run(struct results_run *run);

/*
 * wblab reparse's change of a cell's outcome: run.json's cells entry idx
 * (and run->info) records o; results_run_write() writes run.json back
 * (temp-then-rename). 0, or -1 with "DIR/run.json: cannot write" in err.
 */
void results_run_set_outcome(struct results_run *run, size_t idx,
			     enum cell_outcome o);
int results_run_write(const struct results_run *run, struct strbuf *err);

/*
 * Call fn for every entry of the run's cells, in order, with its cell.json
 * read (or why not). A non-zero return of fn stops the walk and is
 * returned; 0 otherwise.
 */
typedef int (*results_cell_fn)(const struct results_run *run,
			       const struct results_cell *cell, void *data);
int results_for_each_cell(const struct results_run *run, results_cell_fn fn,
			  void *data);

/*
 * RUN/cells/NAME for a run.json "dir" of cells/NAME that passes the checks
 * above, or NULL with why appended ("dir \"../x\" is not cells/NAME").
 */
char *results_cell_dir(const char *run_dir, const char *rel,
		       struct strbuf *why);

/*
 * A JSON object from path, read through the checks above (the caller has
 * checked the directories): NULL with "path: why" or "path:LINE: parse
 * error" appended to why.
 */
json_object *results_read_json(const char *path, struct strbuf *why);

/*
 * A cell counts when its cell.json has an outcome and that outcome is not
 * infra-error: a host fault is never a kernel's result.
 */
bool results_cell_counts(json_object *cell);

/*
 * How bad an outcome is, for picking a group's worst cell (the one a mail
 * names a reproducer for): crashed 5, hung 4, boot-failed 3,
 * workload-failed 2, ok 1, infra-error and anything else 0.
 */
int results_outcome_severity(const char *outcome);
/*
 * Of two cells, is a worse than b: a more severe outcome, then more
 * console events. NULL b: any a is.
 */
bool results_cell_worse(const struct cell_result *a,
			const struct cell_result *b);
/*
 * The line every mail gives for its worst cell: "reproduce with: wblab
 * repro RUN/cells/ID" (docs/repro.md), appended with a newline. A path of
 * [A-Za-z0-9._/-] longer than width columns (0: no limit) is continued
 * with backslash-newline, which sh removes, so the lines paste as one
 * command; any other path is single-quoted whole.
 */
void results_repro_line(struct strbuf *out, const char *cell_dir, size_t width);

#endif
