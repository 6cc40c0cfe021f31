/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_REPARSE_H
#define WBLAB_REPARSE_H

#include <stdbool.h>

#include "results/reader.h"
#include "util/strbuf.h"

/*
 * Re-derive a cell's cell.json from the files in its directory with the
 * code a live cell uses (results_metrics() for the metrics, the console
 * parser for the events), so an older cell gains new metrics without a
 * guest. What only the live cell knew (agent status, timings, the
 * channel, the kernel) is kept. The outcome is kept unless the console
 * parser's verdict (a crash, a hang) changed; then the outcome is decided
 * again by cell_outcome() from the recorded facts and the new console,
 * and note says so. An infra-error outcome (a host fault) is always kept.
 */
struct reparse_result {
	bool console_changed; /* crash/hang verdict differs */
	bool kind_changed; /* console_kind differs */
	bool outcome_changed;
	char old_outcome[32], new_outcome[32];
};

/*
 * A results directory may come from elsewhere: its files are read only
 * if regular, never through a link, run.json and cell.json up to
 * RESULTS_JSON_MAX (results/reader.h), the others up to CELL_FILE_MAX
 * (cell/collectors.h).
 */

/* 0 on success; -1 and an error message in note otherwise. */
int cell_reparse(const char *cell_dir, struct reparse_result *r,
		 struct strbuf *note);

#endif
