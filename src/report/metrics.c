// SPDX-License-Identifier: GPL-2.0
/*
 * The report's rows: one line per row, cell.json path first. A collector
 * that records a new figure adds its row here; the loader, the tables,
 * the legend, the JSON and `wblab aa` all read this table.
 *
 * The metric table keeps one row per family of figures that move
 * together (throughput, write latency, reclaim stalls, writes from
 * reclaim, ...), because the stars of correlated rows are not independent
 * evidence and `wblab aa` measured what many such rows do to a report's
 * false alarms (docs/report.md). The Ops table is mmtests' view of the
 * vmstat deltas and the trace summaries, with the same marks.
 */
#include "report/report.h"

#define KIB_MIB (1.0 / 1024)
#define US_MS 1e-3
#define US_S 1e-6

/* clang-format off */
const struct rpt_metric rpt_metrics[] = {
	/* name, path, unit, scale, better, stat, table, help */
	{ "fio-write", "metrics.fio.0.write.bw_kib_s", "MiB/s", KIB_MIB,
	  BETTER_HIGHER, RSTAT_HMEAN, RT_METRIC,
	  "first fio job's write bandwidth" },
	{ "fio-read", "metrics.fio.1.read.bw_kib_s", "MiB/s", KIB_MIB,
	  BETTER_HIGHER, RSTAT_HMEAN, RT_METRIC,
	  "second fio job's read bandwidth (smoke)" },
	{ "write-lat-p99", "metrics.fio.0.write.clat_p99_us", "ms", US_MS,
	  BETTER_LOWER, RSTAT_AMEAN, RT_METRIC,
	  "first fio job's 99th percentile write completion latency" },
	{ "workload-time", "timings.workload_s", "s", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_METRIC,
	  "workload phase, pre: commands included" },
	{ "memcg-stall-p95", "metrics.trace.memcg_reclaim.stall_us.p95", "ms",
	  US_MS, BETTER_LOWER, RSTAT_AMEAN, RT_METRIC,
	  "95th percentile memcg reclaim stall (trace)" },
	{ "direct-stall-p95", "metrics.trace.direct_reclaim.stall_us.p95",
	  "ms", US_MS, BETTER_LOWER, RSTAT_AMEAN, RT_METRIC,
	  "95th percentile global direct reclaim stall (trace)" },
	{ "reclaim-wr-direct", "metrics.vmscan_write_file_direct", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_METRIC,
	  "file folios written by direct/memcg reclaim (trace)" },
	{ "reclaim-wr-kswapd", "metrics.vmscan_write_file_kswapd", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_METRIC,
	  "file folios written by kswapd (trace)" },
	{ "allocstall", "metrics.allocstall", "count", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_METRIC,
	  "global direct reclaim entries (vmstat allocstall_*)" },
	{ "min-free", "metrics.min_free_kb", "MiB", KIB_MIB,
	  BETTER_HIGHER, RSTAT_AMEAN, RT_METRIC,
	  "lowest MemFree of the 1 s samples" },
	{ "psi-mem-some", "metrics.psi.memory.some.total_delta_us", "s", US_S,
	  BETTER_LOWER, RSTAT_AMEAN, RT_METRIC,
	  "time some task stalled on memory (PSI)" },
	{ "dirty-throttle", "metrics.trace.balance_dirty_pages.pause_ms_total",
	  "ms", 1, BETTER_LOWER, RSTAT_AMEAN, RT_METRIC,
	  "balance_dirty_pages pauses, summed (trace)" },

	{ "Minor faults", "metrics.ops.minor_faults", "count", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "pgfault - pgmajfault" },
	{ "Major faults", "metrics.ops.major_faults", "count", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "pgmajfault" },
	{ "Swap outs", "metrics.ops.swap_outs", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "pswpout" },
	{ "Direct scanned", "metrics.ops.direct_pages_scanned", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "pgscan_direct" },
	{ "Kswapd scanned", "metrics.ops.kswapd_pages_scanned", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "pgscan_kswapd" },
	{ "Kswapd efficiency", "metrics.ops.kswapd_efficiency_pct", "%", 1,
	  BETTER_HIGHER, RSTAT_AMEAN, RT_OPS, "pgsteal_kswapd / pgscan_kswapd" },
	{ "Reclaim writes", "metrics.ops.page_writes_by_reclaim", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "nr_vmscan_write" },
	{ "Reclaim immediate", "metrics.ops.page_reclaim_immediate", "pages",
	  1, BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "nr_vmscan_immediate_reclaim" },
	{ "Pgpgout", "metrics.ops.pgpgout_kib", "KiB", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS,
	  "pgpgout: KiB submitted at the top device",
	  .old_path = "metrics.ops.sector_writes" },
	{ "Slabs scanned", "metrics.ops.slabs_scanned", "count", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "slabs_scanned" },
	{ "File refaults", "metrics.ops.workingset_refault_file", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "workingset_refault_file" },
	{ "Direct wr pages", "metrics.vmscan_write_file_direct_pages", "pages",
	  1, BETTER_LOWER, RSTAT_AMEAN, RT_OPS,
	  "pages direct/memcg reclaim queued at the test fs (block_bio_queue)" },
	{ "Kswapd wr pages", "metrics.vmscan_write_file_kswapd_pages", "pages",
	  1, BETTER_LOWER, RSTAT_AMEAN, RT_OPS,
	  "pages kswapd queued at the test fs (block_bio_queue)" },
	{ "Flusher seq", "metrics.io.writers.flusher.seq_pct", "%", 1,
	  BETTER_HIGHER, RSTAT_AMEAN, RT_OPS,
	  "flusher write bios that continue the previous one" },
	{ "Memcg scanned", "metrics.memcg.ops.direct_pages_scanned", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "memory.stat pgscan_direct" },
	{ "Memcg efficiency", "metrics.memcg.ops.direct_efficiency_pct", "%", 1,
	  BETTER_HIGHER, RSTAT_AMEAN, RT_OPS,
	  "memory.stat pgsteal_direct / pgscan_direct" },
	{ "Memcg reclaims", "metrics.trace.memcg_reclaim.count", "count", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "memcg reclaim begin/end pairs" },
	{ "Memcg stall total", "metrics.trace.memcg_reclaim.stall_us.total",
	  "ms", US_MS, BETTER_LOWER, RSTAT_AMEAN, RT_OPS,
	  "time in memcg reclaim, summed" },
	{ "Direct reclaims", "metrics.trace.direct_reclaim.count", "count", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "direct reclaim begin/end pairs" },
	{ "Dirty met direct",
	  "metrics.trace.shrink_inactive.direct.file.nr_dirty", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS,
	  "dirty file folios direct/memcg reclaim met at the LRU tail" },
	{ "Wback met direct",
	  "metrics.trace.shrink_inactive.direct.file.nr_writeback", "pages", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS,
	  "folios under writeback direct/memcg reclaim met" },
	{ "Flush for vmscan", "metrics.trace.writeback.by_reason.vmscan.pages",
	  "pages", 1, BETTER_LOWER, RSTAT_AMEAN, RT_OPS,
	  "flusher pages written because reclaim asked (reason vmscan)" },
	{ "Throttled wback",
	  "metrics.trace.throttled.VMSCAN_THROTTLE_WRITEBACK.count", "count", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS,
	  "reclaim throttled waiting for writeback" },
	{ "Kswapd wakes", "metrics.trace.kswapd_wake", "count", 1,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "mm_vmscan_kswapd_wake" },
	{ "Peak dirty", "metrics.peak_dirty_kb", "MiB", KIB_MIB,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS, "highest Dirty of the 1 s samples" },
	{ "Peak writeback", "metrics.peak_writeback_kb", "MiB", KIB_MIB,
	  BETTER_LOWER, RSTAT_AMEAN, RT_OPS,
	  "highest Writeback of the 1 s samples" },
};
/* clang-format on */

const size_t rpt_nr_metrics = sizeof(rpt_metrics) / sizeof(rpt_metrics[0]);

const char *const rpt_test_names[] = { "welch", "welch-bh", "bands", NULL };
