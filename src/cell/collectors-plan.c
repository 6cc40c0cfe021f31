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
#include "collect/stack.h"
#include "collect/stackprobe.h"
#include "collect/trace.h"
#include "util/kallsyms.h"
#include "util/log.h"
#include "util/num.h"

#define TRACEFS "/sys/kernel/tracing"
/* Per CPU; allocated before vmstat.before, so part of the baseline. */
#define TRACE_BUFFER_KB "16384"
/*
 * With page-cache insertions traced, a line per page more: seeky-random's
 * 131072 overwrites are about 550000 lines, past what 16 MiB a CPU holds.
 */
#define TRACE_BUFFER_KB_PAGE_CACHE "49152"
#define TRACE_CMDLINES "8192"
#define MEMCG "/sys/fs/cgroup/wblab" /* plan.c's workload cgroup */
#define STACK_INST TRACEFS "/instances/" STACK_INSTANCE
#define LEAF_INST TRACEFS "/instances/" STACK_LEAF_INSTANCE
/* Per CPU and per instance, for the deep samples and their stack traces. */
#define STACK_BUFFER_KB "2048"
/*
 * Where the stack tracer samples. One name per write: a name the kernel
 * lacks fails only its own write (6.12 renamed the allocators *_noprof and
 * dropped __kmem_cache_alloc_node). The first is on every kernel the lab
 * builds (5.9 on) and is written with truncation, so the filter is never
 * left empty: an empty filter means every function, ~40000 patched call
 * sites, which hung and crashed TCG guests.
 */
static const struct stack_site stack_filter[] = {
	{ .symbol = "submit_bio_noacct" },
	{ .symbol = "try_to_free_pages" },
	{ .symbol = "try_to_free_mem_cgroup_pages" },
	{ .symbol = "should_failslab" },
	/* Each write scans every traceable function: only this kernel's. */
	{ .symbol = "__alloc_pages", .until = KVER(6, 10) },
	{ .symbol = "__kmem_cache_alloc_node", .until = KVER(6, 10) },
	{ .symbol = "__kmalloc", .until = KVER(6, 10) },
	{ .symbol = "kmem_cache_alloc", .until = KVER(6, 10) },
	/* 6.10 on (memory allocation profiling) */
	{ .symbol = "__alloc_pages_noprof", .since = KVER(6, 10) },
	{ .symbol = "__kmalloc_noprof", .since = KVER(6, 10) },
	{ .symbol = "kmem_cache_alloc_noprof", .since = KVER(6, 10) },
	{ NULL }
};

static void put(struct strbuf *plan, const char *path, const char *text)
{
	plan_step(plan, VERB_PUT, path, text, NULL);
}

static void append(struct strbuf *plan, const char *path, const char *text)
{
	plan_step(plan, VERB_APPEND, path, text, NULL);
}

static char *site_file(const struct stack_site *s, const char *file)
{
	return xasprintf(TRACEFS "/instances/%s/events/" STACK_PROBE_GROUP
				 "/%s/%s",
			 stack_site_instance(s), s->name, file);
}

/* A tracefs instance for deep samples: off, its own buffer, no overwrite. */
static void make_instance(struct strbuf *plan, const char *dir)
{
	char *f;

	plan_step(plan, VERB_MKDIR, dir, NULL);
	f = xasprintf("%s/tracing_on", dir);
	put(plan, f, "0");
	free(f);
	f = xasprintf("%s/buffer_size_kb", dir);
	put(plan, f, STACK_BUFFER_KB);
	free(f);
	f = xasprintf("%s/options/overwrite", dir);
	put(plan, f, "0");
	free(f);
}

static const char *const stack_vmscan_events[] = {
	"mm_vmscan_direct_reclaim_begin",
	"mm_vmscan_direct_reclaim_end",
	"mm_vmscan_memcg_reclaim_begin",
	"mm_vmscan_memcg_reclaim_end",
	"mm_vmscan_kswapd_wake",
	"mm_vmscan_kswapd_sleep",
	NULL
};

/* Which probed symbols this kernel has, and its THREAD_SIZE's bounds. */
static bool site_on(const struct collectors_opts *o, const struct stack_site *s)
{
	return stack_site_on(s, o->kver, o->layers);
}

/*
 * The probed symbols, then the pairs THREAD_SIZE apart (util/kallsyms.h:
 * a kernel has one of the two, by its version).
 */
static const char **ksyms_wanted(const struct collectors_opts *o, size_t *nr)
{
	const char **v =
		xzalloc((nr_stack_sites + KSYMS_STACK_SYMS + 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < nr_stack_sites; i++)
		if (site_on(o, &stack_sites[i]))
			v[n++] = stack_sites[i].symbol;
	for (size_t i = 0; i < KSYMS_STACK_SYMS; i++)
		v[n++] = ksyms_stack_syms[i];
	*nr = n;
	return v;
}

/* Every probed symbol seen, and one pair of the stack's bounds whole. */
static bool ksyms_all_seen(const bool *seen, size_t nr)
{
	size_t probes = nr - KSYMS_STACK_SYMS;
	bool pair = false;

	for (size_t i = 0; i < probes; i++)
		if (!seen[i])
			return false;
	for (size_t i = probes; i < nr; i += 2)
		pair |= seen[i] && seen[i + 1];
	return pair;
}

/*
 * The System.map lines of the wanted symbols into out; false when one is
 * missing and the map may not be the whole kernel (a module may have it).
 */
static bool ksyms_from_map(const struct collectors_opts *o, const char **want,
			   size_t nr, struct strbuf *out)
{
	bool *seen = xzalloc(nr * sizeof(*seen));
	const char *line = o->system_map;
	bool all;

	while (*line) {
		const char *eol = strchrnul(line, '\n');
		const char *sym = memrchr(line, ' ', eol - line);

		for (size_t i = 0; sym && i < nr; i++) {
			size_t len = strlen(want[i]);

			if (seen[i] || (size_t)(eol - sym - 1) != len ||
			    memcmp(sym + 1, want[i], len))
				continue;
			strbuf_add(out, line, eol - line);
			strbuf_addch(out, '\n');
			seen[i] = true;
		}
		line = *eol ? eol + 1 : eol;
	}
	all = ksyms_all_seen(seen, nr);
	free(seen);
	return all || o->map_complete;
}

static void grep_kallsyms(struct strbuf *plan, const struct collectors_opts *o)
{
	size_t n = 0, nr;
	const char **want = ksyms_wanted(o, &nr);
	const char **grep = xzalloc((2 * nr + 4) * sizeof(*grep));

	if (o->system_map && o->host_ksyms) {
		strbuf_addstr(
			o->host_ksyms,
			"# System.map, on the host: the kernel's symbols the stack probes name\n");
		if (ksyms_from_map(o, want, nr, o->host_ksyms))
			goto out;
		strbuf_reset(o->host_ksyms);
	}
	grep[n++] = "grep";
	grep[n++] = "-w";
	for (size_t i = 0; i < nr; i++) {
		grep[n++] = "-e";
		grep[n++] = want[i];
	}
	grep[n++] = "/proc/kallsyms";
	plan_step_argv(plan, VERB_CAPTURE, "stack_kallsyms.txt", "kallsyms",
		       grep);
out:
	free(want);
	free(grep);
}

/*
 * kprobes at the stack sites, in tracefs instances of their own so that
 * a flood of deep samples cannot crowd the main trace out (and the
 * allocator leaves, in theirs, not the storage sites'). Each site gets:
 * a ring-buffer filter (deep, task context) with a stack trace trigger
 * under the same condition (fs, storage and leaf sites), and a hist
 * trigger that counts every task-context hit in the kernel (not the
 * leaves: the allocator is hit on every path), created paused here and
 * continued at the workload's start (stack_site_hist()). The
 * reclaim begin/end events go to the entry instance too, so its samples
 * can be placed in reclaim windows. A site whose symbol the kernel lacks
 * fails its append (logged); the host names the reason.
 */
static void arm_stack_sites(struct strbuf *plan,
			    const struct collectors_opts *o)
{
	struct strbuf cond = STRBUF_INIT;
	char *filter = stack_site_filter(o->thread_size);

	make_instance(plan, STACK_INST);
	make_instance(plan, LEAF_INST);
	strbuf_addf(&cond, "stacktrace if %s\n", filter);
	for (size_t i = 0; i < nr_stack_sites; i++) {
		const struct stack_site *s = &stack_sites[i];
		char *probe, *f;

		if (!site_on(o, s))
			continue;
		probe = stack_site_probe(s, o->thread_size);
		append(plan, TRACEFS "/kprobe_events", probe);
		free(probe);
		f = site_file(s, "filter");
		put(plan, f, filter);
		free(f);
		if (s->layer != STACK_LAYER_RECLAIM) {
			f = site_file(s, "trigger");
			append(plan, f, cond.buf);
			free(f);
		}
		f = site_file(s, "enable");
		put(plan, f, "1");
		free(f);
		/* Continued at the workload's start (collectors_plan_workload). */
		if (s->layer != STACK_LAYER_LEAF) {
			f = site_file(s, "trigger");
			append(plan, f, stack_site_hist(true));
			free(f);
		}
	}
	for (size_t i = 0; stack_vmscan_events[i]; i++) {
		char *f = xasprintf(STACK_INST "/events/vmscan/%s/enable",
				    stack_vmscan_events[i]);

		put(plan, f, "1");
		free(f);
	}
	grep_kallsyms(plan, o);
	free(filter);
	strbuf_release(&cond);
}

void collectors_plan_arm(struct strbuf *plan, const struct collectors_opts *o)
{
	const struct stack_site *f;

	put(plan, TRACEFS "/tracing_on", "0");
	put(plan, TRACEFS "/events/enable", "0");
	put(plan, TRACEFS "/trace", "");
	put(plan, TRACEFS "/buffer_size_kb",
	    o->page_cache ? TRACE_BUFFER_KB_PAGE_CACHE : TRACE_BUFFER_KB);
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
	if (o->page_cache) {
		char *p = xasprintf(TRACEFS "/events/%s/enable",
				    trace_page_cache_event);

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
	put(plan, TRACEFS "/stack_trace_filter", stack_filter[0].symbol);
	for (f = stack_filter + 1; f->symbol; f++)
		if (site_on(o, f))
			append(plan, TRACEFS "/stack_trace_filter", f->symbol);
	put(plan, STACK_SYSCTL, "1");
	arm_stack_sites(plan, o);
	/* Under MGLRU the direct-reclaim writeback patch has nothing to do. */
	plan_step(plan, VERB_GET, "lru_gen.enabled", LRU_GEN, NULL);
	plan_step(plan, VERB_GET, "pressure.memory.before",
		  "/proc/pressure/memory", NULL);
	plan_step(plan, VERB_GET, "pressure.io.before", "/proc/pressure/io",
		  NULL);
}

/*
 * The sampler's interval: 100 ms, because the A/B workloads' measured
 * windows last seconds (dirty-flood's was 2.3 s: three points at 1 s,
 * too few to see the dirty and writeback curves or their peaks).
 */
#define SAMPLE_INTERVAL_MS "100"

/*
 * The stall watcher (agent/watch.c): SysRq-t twice when no progress
 * counter moved for WATCH_WINDOW_S seconds with tasks in D state, the
 * second dump WATCH_GAP_S later. The gap is three of mempool_alloc's 5 s
 * sleeps, and time for a 115200-baud console to drain the first dump
 * (about 2000 lines of SysRq-t in the swap deadlock's cells) before the
 * second one fills the kernel's log buffer. The window: the deadlocked
 * swap-direct cells stood still from 12 s into the workload to its
 * 150 s timeout; a healthy hog's hold (10 s) has no task in D state.
 */
#define WATCH_WINDOW_S "20"
#define WATCH_GAP_S "15"

void collectors_plan_workload(struct strbuf *plan,
			      const struct collectors_opts *o)
{
	plan_step_argv(plan, VERB_BG, "sampler", NULL,
		       (const char *const[]){ "/run/wblab-agent", "sample",
					      "/tmp/wblab-out/timeseries.tsv",
					      SAMPLE_INTERVAL_MS, MEMCG,
					      NULL });
	/* Started before the workload's steps: their sessions are new. */
	plan_step_argv(plan, VERB_BG, "watch", NULL,
		       (const char *const[]){ "/run/wblab-agent", "watch",
					      WATCH_WINDOW_S, WATCH_GAP_S,
					      NULL });
	put(plan, TRACEFS "/stack_max_size", "0");
	put(plan, "/dev/kmsg", STACK_MARK_BEGIN "\n");
	for (size_t i = 0; i < nr_stack_sites; i++) {
		char *f;

		if (stack_sites[i].layer == STACK_LAYER_LEAF ||
		    !site_on(o, &stack_sites[i]))
			continue;
		f = site_file(&stack_sites[i], "trigger");
		append(plan, f, stack_site_hist(false));
		free(f);
	}
	put(plan, STACK_INST "/tracing_on", "1");
	put(plan, LEAF_INST "/tracing_on", "1");
	put(plan, TRACEFS "/tracing_on", "1");
}

/*
 * End of the workload, while its background tasks (the hog) still live:
 * SysRq-t prints every task's never-used stack (DEBUG_STACK_USAGE), the
 * low-water mark of kswapd and of the hog. fio's workers have exited by
 * now; their marks show only as "used greatest stack depth" records.
 */
void collectors_plan_workload_end(struct strbuf *plan)
{
	put(plan, "/dev/kmsg", STACK_MARK_END "\n");
	put(plan, "/dev/kmsg", STACK_MARK_SYSRQ "\n");
	put(plan, "/proc/sysrq-trigger", "t");
}

/*
 * The agent reads these files itself (capfile, caplines): starting cat,
 * find and grep cost 40-270 ms each under TCG, ~0.8 s of the collect phase at
 * load 3.8.
 */
static void capfile(struct strbuf *plan, const char *name, const char *label,
		    const char *path)
{
	plan_step(plan, VERB_CAPFILE, name, label, path, NULL);
}

void collectors_plan_collect(struct strbuf *plan, const char *mount,
			     const struct collectors_opts *o)
{
	put(plan, STACK_INST "/tracing_on", "0");
	put(plan, LEAF_INST "/tracing_on", "0");
	for (size_t i = 0; i < nr_stack_sites; i++) {
		char *f, *name;

		if (stack_sites[i].layer == STACK_LAYER_LEAF ||
		    !site_on(o, &stack_sites[i]))
			continue;
		f = site_file(&stack_sites[i], "hist");
		name = xasprintf("stack_hist.%s", stack_sites[i].name);
		plan_step(plan, VERB_GET, name, f, NULL);
		free(f);
		free(name);
	}
	plan_step(plan, VERB_GET, "kprobe_events", TRACEFS "/kprobe_events",
		  NULL);
	plan_step(plan, VERB_GET, "stack_probe_trace", STACK_INST "/trace",
		  NULL);
	plan_step(plan, VERB_GET, "stack_leaf_trace", LEAF_INST "/trace", NULL);
	/* What the instances lost: a full buffer drops new samples. */
	plan_step(plan, VERB_CAPLINES, "stack_trace_stats.txt", "per_cpu stats",
		  STACK_INST "/per_cpu/cpu*/stats",
		  LEAF_INST "/per_cpu/cpu*/stats", NULL);
	plan_step(plan, VERB_GET, "stack_max_size", TRACEFS "/stack_max_size",
		  NULL);
	plan_step(plan, VERB_GET, "stack_trace", TRACEFS "/stack_trace", NULL);
	plan_step(plan, VERB_GET, "stack_trace_filter",
		  TRACEFS "/stack_trace_filter", NULL);
	put(plan, TRACEFS "/tracing_on", "0");
	plan_step(plan, VERB_GET, "pressure.memory.after",
		  "/proc/pressure/memory", NULL);
	plan_step(plan, VERB_GET, "pressure.io.after", "/proc/pressure/io",
		  NULL);
	plan_step(plan, VERB_GET, "memcg.events", MEMCG "/memory.events", NULL);
	plan_step(plan, VERB_GET, "memcg.peak", MEMCG "/memory.peak", NULL);
	plan_step(plan, VERB_GET, "memcg.stat", MEMCG "/memory.stat", NULL);
	capfile(plan, "trace_stats.txt", "set_event", TRACEFS "/set_event");
	capfile(plan, "trace_stats.txt", "buffer_size_kb",
		TRACEFS "/buffer_size_kb");
	plan_step(plan, VERB_CAPLINES, "trace_stats.txt", "per_cpu stats",
		  TRACEFS "/per_cpu/cpu*/stats", NULL);
	for (size_t i = 0; trace_hists[i].event; i++) {
		char *p = xasprintf(TRACEFS "/events/%s/hist",
				    trace_hists[i].event);

		plan_step(plan, VERB_GET, trace_hists[i].file, p, NULL);
		free(p);
	}
	/* Where a cell without a test filesystem counts writes: its swap. */
	capfile(plan, "fsdev.txt", "swaps", "/proc/swaps");
	capfile(plan, "fsdev.txt", "partitions", "/proc/partitions");
	if (mount) {
		plan_step_argv(plan, VERB_CAPTURE, "fsdev.txt", "findmnt",
			       (const char *const[]){ "findmnt", "-n", "-r",
						      "-o",
						      "MAJ:MIN,FSTYPE,TARGET",
						      "-T", mount, NULL });
		capfile(plan, "fsdev.txt", "mountinfo", "/proc/self/mountinfo");
	}
	plan_step(plan, VERB_GET, "trace", TRACEFS "/trace", NULL);
	put(plan, TRACEFS "/events/enable", "0");
	put(plan, TRACEFS "/trace", "");
	put(plan, TRACEFS "/buffer_size_kb", "16");
}
