// SPDX-License-Identifier: GPL-2.0
/*
 * What the guest plan turns on for the trace summary (collect/trace.h):
 * the events, their filters, and the hist triggers. The plan writes them
 * (cell/collectors-plan.c); the summary checks the kernel had them.
 */
#include <stddef.h>

#include "collect/trace.h"

const char *const trace_events[] = {
	"vmscan/mm_vmscan_direct_reclaim_begin",
	"vmscan/mm_vmscan_direct_reclaim_end",
	"vmscan/mm_vmscan_memcg_reclaim_begin",
	"vmscan/mm_vmscan_memcg_reclaim_end",
	"vmscan/mm_vmscan_write_folio",
	"vmscan/mm_vmscan_writepage", /* the name before 5.19 */
	"vmscan/mm_vmscan_kswapd_wake",
	"vmscan/mm_vmscan_kswapd_sleep",
	"vmscan/mm_vmscan_lru_shrink_inactive",
	"vmscan/mm_vmscan_throttled",
	"writeback/writeback_start",
	"writeback/writeback_written",
	"writeback/writeback_pages_written",
	"writeback/balance_dirty_pages",
	"writeback/writeback_single_inode",
	"ext4/ext4_writepages",
	"ext4/ext4_writepages_result",
	"block/block_bio_queue",
	"block/block_bio_remap",
	"block/block_rq_issue",
	"block/block_rq_complete",
	"oom/mark_victim",
	NULL
};

/*
 * pfn -> (inode, offset) of every page-cache folio: joins reclaim's
 * written folios (mm_vmscan_write_folio's pfn) to their file offsets
 * (collect/seek.c). A line per page inserted (dirty-hog-memcg's 2 GiB of
 * writes would be 524288 lines, more than the ring buffer holds with the
 * rest), so only a workload with trace_page_cache: true turns it on.
 */
const char *const trace_page_cache_event =
	"filemap/mm_filemap_add_to_page_cache";

/*
 * Only writes matter for attribution: reads would fill the buffer. The
 * pattern is anchored at the front on purpose: 6.1 matches "*W*" with
 * strnstr() over the whole 8-byte rwbs array, past its NUL, so a read
 * ("RA\0" + stale bytes of an earlier event holding a 'W') passed, and
 * so did write-zeroes ("NS"), seen on a real cell. A write's rwbs starts
 * with 'W', or with 'F' then 'W' for a preflush write.
 */
#define WRITES_ONLY "rwbs ~ \"W*\" || rwbs ~ \"FW*\""
const struct trace_filter trace_filters[] = {
	{ "block/block_bio_queue", WRITES_ONLY },
	{ "block/block_bio_remap", WRITES_ONLY },
	{ "block/block_rq_issue", WRITES_ONLY },
	{ "block/block_rq_complete", WRITES_ONLY },
	{ NULL, NULL }
};

/*
 * In-kernel counts keyed by task and kernel stack: the stack says which
 * reclaim context (try_to_free_mem_cgroup_pages, try_to_free_pages,
 * balance_pgdat) or the flusher (wb_workfn) queued the bio. The stack is
 * HIST_STACKTRACE_DEPTH (16) frames deep, enough from submit_bio up to
 * the reclaim entry on the stacks seen here; a stack cut short is counted
 * as reclaim_unresolved, never guessed.
 */
const struct trace_hist trace_hists[] = {
	{ "block/block_bio_queue", "hist.block_bio_queue",
	  "hist:keys=common_pid.execname,dev,stacktrace:"
	  "vals=hitcount,nr_sector:size=8192 if " WRITES_ONLY },
	{ "vmscan/mm_vmscan_write_folio", "hist.mm_vmscan_write_folio",
	  "hist:keys=common_pid.execname,reclaim_flags,stacktrace:"
	  "vals=hitcount:size=4096" },
	{ NULL, NULL, NULL }
};
