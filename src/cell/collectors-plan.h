/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_COLLECTORS_PLAN_H
#define WBLAB_COLLECTORS_PLAN_H

#include <stdbool.h>

#include "util/strbuf.h"

/*
 * Collectors, guest side: plan fragments the planner inserts at fixed
 * points of every main guest's plan.
 */

/* Turned on in arm; the host looks for its failure in agent.log. */
#define STACK_SYSCTL "/proc/sys/kernel/stack_tracer_enabled"
/* Recorded in arm: MGLRU on or off (absent: not built). */
#define LRU_GEN "/sys/kernel/mm/lru_gen/enabled"

/* What the collectors' plan fragments depend on. */
struct collectors_opts {
	/*
	 * The kernel's THREAD_SIZE (kernel.json; 0: unknown, 16 KiB
	 * assumed): the stack probes record sp modulo it and filter on depth.
	 */
	long thread_size;
	/*
	 * Its version, KVER() (0: unknown, every name is tried), and the
	 * guest's layers, STACK_NEED_* (collect/stackprobe.h): probes and
	 * filter names the kernel cannot have are left out.
	 */
	int kver;
	unsigned int layers;
	bool page_cache; /* also trace page-cache insertions */
	/*
	 * The kernel's System.map (NULL: not kept), and whether it names
	 * every symbol the guest can have (no modules). When it holds the
	 * probed symbols, their lines go to host_ksyms, for the host to keep
	 * as stack_kallsyms.txt, and the guest does not read /proc/kallsyms
	 * (about 0.6 s of a cell under TCG).
	 */
	const char *system_map;
	bool map_complete;
	struct strbuf *host_ksyms;
};

/* End of setup, before vmstat.before: arm tracers, reset maxima. */
void collectors_plan_arm(struct strbuf *plan, const struct collectors_opts *o);
/* Start of the workload phase: background samplers. */
void collectors_plan_workload(struct strbuf *plan,
			      const struct collectors_opts *o);
/* End of the workload phase, background jobs still running. */
void collectors_plan_workload_end(struct strbuf *plan);
/*
 * Start of the collect phase, right after vmstat.after: fetch everything.
 * mount (or NULL) is the test mount, whose block device the I/O
 * attribution watches.
 */
void collectors_plan_collect(struct strbuf *plan, const char *mount,
			     const struct collectors_opts *o);

#endif
