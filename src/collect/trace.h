/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_TRACE_H
#define WBLAB_TRACE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "collect/traceline.h"
#include "util/num.h"

/*
 * Reclaim and writeback tracepoints: a summary of the text of tracefs'
 * `trace` file (pure parsing; see docs/collectors.md for the events).
 */

/*
 * Summarise a trace. stats is the per-CPU ring buffer statistics as
 * captured by the plan (trace_stats.txt: "PATH:key: value" lines, plus
 * set_event and buffer_size_kb sections), or NULL. Returns a new object;
 * never NULL.
 */
json_object *trace_summary(const char *text, size_t len, const char *stats,
			   size_t stats_len);
/*
 * The same, attributing write bios at the filesystem's device fs_dev
 * ("MAJ:MIN", or NULL: no "io" writers) to their writer class, and
 * recording the numbers that are not (util/num.h) in ns, which has the
 * trace and stats texts registered (or is NULL).
 */
json_object *trace_summary_dev(const char *text, size_t len, const char *stats,
			       size_t stats_len, const char *fs_dev,
			       struct numsrc *ns);

/* Events the plan enables, "system/event" (NULL-terminated). */
extern const char *const trace_events[];

/* Event filters the plan sets before enabling ({NULL} ends). */
struct trace_filter {
	const char *event, *filter;
};
extern const struct trace_filter trace_filters[];

/* Hist triggers: event, the cell file its hist is saved as, trigger. */
struct trace_hist {
	const char *event, *file, *trigger;
};
extern const struct trace_hist trace_hists[];

#endif
