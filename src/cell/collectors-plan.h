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

/*
 * End of setup, before vmstat.before: arm tracers, reset maxima.
 * thread_size is the kernel's THREAD_SIZE (kernel.json; 0: unknown, 16 KiB
 * assumed): the stack probes record sp modulo it and filter on depth.
 * kver is its version, KVER() (0: unknown, every probe and filter name
 * is tried): names the kernel cannot have are left out.
 * page_cache: also trace page-cache insertions (the workload asks).
 */
void collectors_plan_arm(struct strbuf *plan, long thread_size, int kver,
			 bool page_cache);
/* Start of the workload phase: background samplers. */
void collectors_plan_workload(struct strbuf *plan);
/* End of the workload phase, background jobs still running. */
void collectors_plan_workload_end(struct strbuf *plan);
/*
 * Start of the collect phase, right after vmstat.after: fetch everything.
 * mount (or NULL) is the test mount, whose block device the I/O
 * attribution watches.
 */
void collectors_plan_collect(struct strbuf *plan, const char *mount);

#endif
