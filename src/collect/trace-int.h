/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_TRACE_INT_H
#define WBLAB_TRACE_INT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Private to the trace summary's unit: trace.c (the events),
 * trace-stats.c (trace_stats.txt) and trace-plan.c (what the plan enables).
 */

#define MAX_CPUS 256

struct numsrc;

/* Small growable tables of names and of pids (trace-tab.c). */
struct named {
	char name[64];
	long long a, b;
};

#define NTAB_MAX 256

struct ntab {
	struct named *v;
	size_t n, alloc;
};

/* Per-pid state: the last writeback_start. */
struct task {
	int pid;
	long long wb_pages; /* nr_pages at writeback_start, -1 none */
	char wb_reason[32];
	char wb_bdi[32];
};

/* Tasks by pid: an open-addressing index, since the guest picks the pids. */
struct tasks {
	struct task *v;
	size_t n, alloc;
	int *slot; /* index into v, -1 empty */
	size_t nslots; /* power of two */
};

/*
 * The entry of name (len bytes, cut to 63 on a character boundary; past
 * NTAB_MAX names, "(other)"), made zero if new.
 */
struct named *trace_ntab_get(struct ntab *t, const char *name, size_t len);
/* {name: {ka: a, kb: b}} for every entry of a named table. */
json_object *trace_ntab_json(const struct ntab *t, const char *ka,
			     const char *kb);
/* The task of pid, made (wb_pages -1) if new. */
struct task *trace_task_get(struct tasks *t, int pid);

/*
 * trace_stats.txt into o (buffer_size_kb, cpus, overrun, commit_overrun,
 * dropped_events, enabled_events, missing_events); adds the events lost
 * to *lost and marks the CPUs that lost some in cpu_lost[MAX_CPUS]. A
 * figure that is not a number is recorded in ns.
 */
void trace_parse_stats(const char *text, size_t len, json_object *o,
		       long long *lost, bool *cpu_lost, struct numsrc *ns);

#endif
