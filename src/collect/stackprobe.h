/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STACKPROBE_H
#define WBLAB_STACKPROBE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct numsrc;

/*
 * Stack depth at kprobe sites: reclaim entry, filesystem writeback entry,
 * each storage layer's entry, and leaves below them (the allocator, the
 * virtqueue). Each probe records the stack pointer's offset into the task
 * stack, sp & (THREAD_SIZE - 1): vmap'ed task stacks are THREAD_SIZE
 * aligned (THREAD_ALIGN == THREAD_SIZE), so the depth is THREAD_SIZE - sp.
 * THREAD_SIZE is the kernel's own (16 KiB on x86_64 since v3.15, 8 KiB on
 * the lab's 6.1-8k): the plan takes it from the kernel artifact, the host
 * from the guest's /proc/kallsyms (collectors.c). A hist trigger counts
 * every hit of a reclaim, fs or storage site (in the kernel: no ring
 * buffer); only samples deeper than STACK_DEEP_BYTES go to the ring
 * buffer, with their stack trace: the leaves in an instance of their own
 * (STACK_LEAF_INSTANCE), so that the allocator's many deep hits cannot
 * crowd the storage sites' samples out of theirs.
 */

enum stack_layer {
	STACK_LAYER_RECLAIM,
	STACK_LAYER_FS,
	STACK_LAYER_STORAGE,
	STACK_LAYER_LEAF,
};

struct stack_site {
	const char *name; /* event name and metrics key */
	const char *symbol; /* kernel function probed */
	enum stack_layer layer;
	/*
	 * The kernels that have the symbol, KVER()s: since <= version <
	 * until (0: no bound). A kernel without it would only fail the
	 * probe's writes, but under TCG a kprobe on a missing name costs a
	 * scan of every kernel symbol, at each cell.
	 */
	int since, until;
	/*
	 * The layers of the guest's topology that load the code (STACK_NEED_*;
	 * 0: always there). On a modular kernel a site in a module no layer
	 * loaded is missing at arm time, and a missing kprobe costs the same
	 * scan.
	 */
	unsigned int need;
};

enum stack_need {
	STACK_NEED_XFS = 1 << 0,
	STACK_NEED_F2FS = 1 << 1,
	STACK_NEED_RAID1 = 1 << 2,
	STACK_NEED_RAID5 = 1 << 3, /* md levels 4, 5, 6 */
	STACK_NEED_ISCSI = 1 << 4, /* scsi and the iSCSI initiator */
};

extern const struct stack_site stack_sites[];
extern const size_t nr_stack_sites;

/*
 * Whether site s applies to a kernel of version kver (0: unknown: yes)
 * under a topology whose layers are the STACK_NEED_* bits in layers.
 */
bool stack_site_on(const struct stack_site *s, int kver, unsigned int layers);

/* tracefs instances that hold the probes' events, and the probe group. */
#define STACK_INSTANCE "wblab-stack"
#define STACK_LEAF_INSTANCE "wblab-stack-leaf"
#define STACK_PROBE_GROUP "wblab"
/* Ring-buffer samples are only those deeper than this. */
#define STACK_DEEP_BYTES 2048
#define STACK_HIST_SIZE "4096"

const char *stack_layer_name(enum stack_layer l);
/* The tracefs instance a site's events go to. */
const char *stack_site_instance(const struct stack_site *s);
/* Depth in bytes of a probe's sp (its low bits) on a thread_size stack. */
long long stack_depth(long long sp, long thread_size);
/* "p:wblab/NAME SYMBOL sp=$stack:bN@0/64" (kprobe_events syntax). */
char *stack_site_probe(const struct stack_site *s, long thread_size);
/* Event filter for ring-buffer samples: deep, task context (malloc'd). */
char *stack_site_filter(long thread_size);
/*
 * The hist trigger: every task-context hit, keyed by sp. Created paused
 * while arming (its 4096 entries are allocated then, not in the workload's
 * time, and before the allocator's leaf probes fire on each allocation),
 * continued when the workload starts: it counts from there, as before.
 */
const char *stack_site_hist(bool paused);

/*
 * One site's tracefs hist file ("{ sp: N } hitcount: M" lines): {samples,
 * max_bytes, p99_bytes, min_bytes, dropped}. NULL if text holds no
 * histogram header. samples 0 when the site was never hit. A line whose
 * sp or hitcount is not a number in range is left out and recorded in ns
 * (util/num.h; may be NULL).
 */
json_object *stack_hist_summary(const char *text, size_t len, long thread_size,
				struct numsrc *ns);

/*
 * Why a site produced no histogram, from the kprobe_events listing, the
 * grep of /proc/kallsyms for the probed symbols, agent.log and the cell's
 * plan.txt (any may be NULL). Returns a malloc'd reason, or NULL if the
 * probe exists.
 */
char *stack_site_absent(const struct stack_site *s, const char *kprobe_events,
			const char *kallsyms, const char *agent_log,
			const char *plan);

#endif
