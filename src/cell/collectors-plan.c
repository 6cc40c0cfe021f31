// SPDX-License-Identifier: GPL-2.0
/*
 * The cell's collectors, guest side (docs/collectors.md): the plan steps
 * that record reclaim/writeback tracepoints into the tracefs ring buffer,
 * the stack tracer, PSI before/after, a 1 s time series of free memory and
 * dirty/writeback pages, the memcg's events. collectors.c makes metrics of
 * what they bring back. Every collector is best effort: a write or read
 * that fails is only logged by the agent, and the host records why in
 * collector_errors.
 */
#include <stdlib.h>
#include <string.h>

#include "cell/collectors-plan.h"
#include "cell/step.h"
#include "collect/trace.h"
#include "util/log.h"

#define TRACEFS "/sys/kernel/tracing"
/* Per CPU; allocated before vmstat.before, so part of the baseline. */
#define TRACE_BUFFER_KB "16384"
#define TRACE_CMDLINES "8192"
#define MEMCG "/sys/fs/cgroup/wblab" /* plan.c's workload cgroup */
/* Most certain first: a name the kernel lacks fails the rest of the write. */
#define STACK_FILTER                                                      \
	"should_failslab __alloc_pages __kmem_cache_alloc_node "          \
	"__kmalloc kmem_cache_alloc submit_bio_noacct try_to_free_pages " \
	"try_to_free_mem_cgroup_pages"

static void put(struct strbuf *plan, const char *path, const char *text)
{
	plan_step(plan, "put", path, text, NULL);
}

void collectors_plan_arm(struct strbuf *plan)
{
	put(plan, TRACEFS "/tracing_on", "0");
	put(plan, TRACEFS "/events/enable", "0");
	put(plan, TRACEFS "/trace", "");
	put(plan, TRACEFS "/buffer_size_kb", TRACE_BUFFER_KB);
	/* When full, drop new events (counted) rather than the oldest. */
	put(plan, TRACEFS "/options/overwrite", "0");
	/* Enough comm slots that kswapd and the flushers keep their names. */
	put(plan, TRACEFS "/saved_cmdlines_size", TRACE_CMDLINES);
	for (size_t i = 0; trace_filters[i].event; i++) {
		char *p = xasprintf(TRACEFS "/events/%s/filter",
				    trace_filters[i].event);

		put(plan, p, trace_filters[i].filter);
		free(p);
	}
	for (size_t i = 0; trace_events[i]; i++) {
		char *p =
			xasprintf(TRACEFS "/events/%s/enable", trace_events[i]);

		put(plan, p, "1");
		free(p);
	}
	/*
	 * Hist triggers count in the kernel, without the ring buffer, so
	 * these counts survive a full buffer. They count from here to the
	 * collect phase whatever tracing_on says: the same window as the
	 * vmstat snapshots.
	 */
	for (size_t i = 0; trace_hists[i].event; i++) {
		char *p = xasprintf(TRACEFS "/events/%s/trigger",
				    trace_hists[i].event);

		put(plan, p, trace_hists[i].trigger);
		free(p);
	}
	/*
	 * The stack tracer traces only where allocations, reclaim and bio
	 * submission start: turning it on for every function patches ~40000
	 * call sites, which under TCG with 2 vCPUs hung guests (soft lockup
	 * with RIP on a site being patched). With the filter it measures the
	 * stack depth on entry to these functions, not at every leaf. It is
	 * turned on here, out of the workload's time; its maximum is reset
	 * when the workload starts, and it stays on until power off (turning
	 * it off is more patching).
	 */
	put(plan, TRACEFS "/stack_trace_filter", STACK_FILTER);
	put(plan, STACK_SYSCTL, "1");
	plan_step(plan, "get", "pressure.memory.before",
		  "/proc/pressure/memory", NULL);
	plan_step(plan, "get", "pressure.io.before", "/proc/pressure/io", NULL);
}

void collectors_plan_workload(struct strbuf *plan)
{
	plan_step_argv(plan, "bg", "sampler", NULL,
		       (const char *const[]){ "/run/wblab-agent", "sample",
					      "/tmp/wblab-out/timeseries.tsv",
					      "1000", NULL });
	put(plan, TRACEFS "/stack_max_size", "0");
	put(plan, TRACEFS "/tracing_on", "1");
}

static void capture(struct strbuf *plan, const char *label,
		    const char *const *argv)
{
	plan_step_argv(plan, "capture", "trace_stats.txt", label, argv);
}

void collectors_plan_collect(struct strbuf *plan, const char *mount)
{
	plan_step(plan, "get", "stack_max_size", TRACEFS "/stack_max_size",
		  NULL);
	plan_step(plan, "get", "stack_trace", TRACEFS "/stack_trace", NULL);
	plan_step(plan, "get", "stack_trace_filter",
		  TRACEFS "/stack_trace_filter", NULL);
	put(plan, TRACEFS "/tracing_on", "0");
	plan_step(plan, "get", "pressure.memory.after", "/proc/pressure/memory",
		  NULL);
	plan_step(plan, "get", "pressure.io.after", "/proc/pressure/io", NULL);
	plan_step(plan, "get", "memcg.events", MEMCG "/memory.events", NULL);
	plan_step(plan, "get", "memcg.peak", MEMCG "/memory.peak", NULL);
	plan_step(plan, "get", "memcg.stat", MEMCG "/memory.stat", NULL);
	capture(plan, "set_event",
		(const char *const[]){ "cat", TRACEFS "/set_event", NULL });
	capture(plan, "buffer_size_kb",
		(const char *const[]){ "cat", TRACEFS "/buffer_size_kb",
				       NULL });
	capture(plan, "per_cpu stats",
		(const char *const[]){ "find", TRACEFS "/per_cpu", "-name",
				       "stats", "-exec", "grep", "-H", ".",
				       "{}", "+", NULL });
	for (size_t i = 0; trace_hists[i].event; i++) {
		char *p = xasprintf(TRACEFS "/events/%s/hist",
				    trace_hists[i].event);

		plan_step(plan, "get", trace_hists[i].file, p, NULL);
		free(p);
	}
	if (mount) {
		plan_step_argv(plan, "capture", "fsdev.txt", "findmnt",
			       (const char *const[]){ "findmnt", "-n", "-r",
						      "-o",
						      "MAJ:MIN,FSTYPE,TARGET",
						      "-T", mount, NULL });
		plan_step_argv(plan, "capture", "fsdev.txt", "mountinfo",
			       (const char *const[]){
				       "cat", "/proc/self/mountinfo", NULL });
	}
	plan_step(plan, "get", "trace", TRACEFS "/trace", NULL);
	put(plan, TRACEFS "/events/enable", "0");
	put(plan, TRACEFS "/trace", "");
	put(plan, TRACEFS "/buffer_size_kb", "16");
}
