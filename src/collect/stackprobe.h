/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STACKPROBE_H
#define WBLAB_STACKPROBE_H

#include <json-c/json.h>
#include <stddef.h>

struct numsrc;

/*
 * Stack depth at a dozen kprobe sites: reclaim entry, filesystem writeback
 * entry and each storage layer's entry. Each probe records the low 14 bits
 * of the stack pointer: the offset into the 16 KiB, 16 KiB-aligned task
 * stack (VMAP_STACK, THREAD_ALIGN == THREAD_SIZE), so the depth is
 * 16384 - sp. A hist trigger counts every hit (in the kernel: no ring
 * buffer); only samples deeper than STACK_DEEP_BYTES go to the ring
 * buffer, with their stack trace, to be placed in reclaim windows.
 */

enum stack_layer { STACK_LAYER_RECLAIM, STACK_LAYER_FS, STACK_LAYER_STORAGE };

struct stack_site {
	const char *name; /* event name and metrics key */
	const char *symbol; /* kernel function probed */
	enum stack_layer layer;
};

extern const struct stack_site stack_sites[];
extern const size_t nr_stack_sites;

/* tracefs instance that holds the probes' events, and the probe group. */
#define STACK_INSTANCE "wblab-stack"
#define STACK_PROBE_GROUP "wblab"
/* Ring-buffer samples are only those deeper than this. */
#define STACK_DEEP_BYTES 2048
#define STACK_HIST_SIZE "4096"

const char *stack_layer_name(enum stack_layer l);
/* "p:wblab/NAME SYMBOL sp=$stack:b14@0/64" (kprobe_events syntax). */
char *stack_site_probe(const struct stack_site *s);
/* Event filter for ring-buffer samples: deep, task context. */
const char *stack_site_filter(void);
/* The hist trigger: every task-context hit, keyed by sp. */
const char *stack_site_hist(void);

/*
 * One site's tracefs hist file ("{ sp: N } hitcount: M" lines): {samples,
 * max_bytes, p99_bytes, min_bytes, dropped}. NULL if text holds no
 * histogram header. samples 0 when the site was never hit. A line whose
 * sp or hitcount is not a number in range is left out and recorded in ns
 * (util/num.h; may be NULL), as are the bad numbers of the trace below.
 */
json_object *stack_hist_summary(const char *text, size_t len,
				struct numsrc *ns);

/*
 * Why a site produced no histogram, from the kprobe_events listing, the
 * grep of /proc/kallsyms for the probed symbols and agent.log (any may be
 * NULL). Returns a malloc'd reason, or NULL if the probe exists.
 */
char *stack_site_absent(const struct stack_site *s, const char *kprobe_events,
			const char *kallsyms, const char *agent_log);

/*
 * The instance's trace: probe events deeper than STACK_DEEP_BYTES, each
 * followed by its "<stack trace>", and vmscan reclaim begin/end events.
 * Returns {threshold_bytes, samples, in_reclaim, max_bytes, site, layer,
 * comm, pid, window, t_s, chain: [frame]} for the deepest storage-layer
 * sample inside a reclaim window (direct, memcg, or a kswapd task);
 * max_bytes and what follows are absent when there is none.
 */
json_object *stack_reclaim_write(const char *trace, size_t len,
				 struct numsrc *ns);

#endif
