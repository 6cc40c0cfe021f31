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

/*
 * Ring-buffer losses from tracefs per-CPU stats, as the plan captures them
 * (`grep -H . per_cpu/cpuN/stats`: "PATH/cpuN/stats:key: value" lines).
 * trace_loss_line() adds one line of n bytes to l and returns its CPU
 * when the line reports a loss (overrun, commit overrun, dropped events:
 * with options/overwrite 0 a full buffer drops new events and counts them
 * only as "dropped events"), else -1; numbers that are not go to ns.
 */
struct trace_loss {
	long long entries, overrun, commit_overrun, dropped;
	int cpus; /* CPUs with an "entries:" line */
};
int trace_loss_line(const char *line, size_t n, struct trace_loss *l,
		    struct numsrc *ns);
long long trace_loss_total(const struct trace_loss *l);

/* Events the plan enables, "system/event" (NULL-terminated). */
extern const char *const trace_events[];
/* Enabled besides only for a workload with trace_page_cache: true. */
extern const char *const trace_page_cache_event;

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
