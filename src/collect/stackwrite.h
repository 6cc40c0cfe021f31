/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STACKWRITE_H
#define WBLAB_STACKWRITE_H

#include <json-c/json.h>
#include <stddef.h>

/*
 * What the stack sites' tracefs instances brought back (collectors.c): the
 * entry instance's trace (reclaim, fs and storage sites' deep samples with
 * their stack traces, and vmscan reclaim begin/end events), the leaf
 * instance's trace (allocator and virtqueue samples; NULL when absent),
 * both instances' per-CPU ring-buffer stats (NULL when not captured), and
 * the THREAD_SIZE of the kernel that ran (0: unknown, 16 KiB assumed).
 */
struct numsrc;

struct stack_rw_input {
	const char *trace, *leaf, *stats;
	size_t trace_len, leaf_len, stats_len;
	long thread_size;
	/* Numbers in the traces that are not (util/num.h); may be NULL. */
	struct numsrc *nums;
};

/*
 * The deepest reclaim write: a deep sample at a storage or leaf site whose
 * chain holds pageout(), swap_writepage() or shmem_writepage().
 * {threshold_bytes, thread_size, samples, leaf_samples, reclaim_windows,
 * not_write, no_chain, entry_margin, writes, leaf_writes, lost_events,
 * leaf_lost_events, complete, lossy, by_class: {class: {writes,
 * max_bytes}}, entry: {..}, leaf: {..}} and, for the deepest of entry
 * and leaf: max_bytes, fraction, headroom_bytes, site, layer, comm, pid,
 * class, t_s, chain. Never NULL.
 */
json_object *stack_reclaim_write(const struct stack_rw_input *in);

#endif
