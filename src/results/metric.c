// SPDX-License-Identifier: GPL-2.0
/*
 * The metric registry (metric.h): one row per figure, cell.json path first.
 *
 * The metric table keeps one row per family of figures that move together
 * (throughput, write latency, reclaim stalls, writes from reclaim, ...),
 * because the stars of correlated rows are not independent evidence and
 * `wblab aa` measured what many such rows do to a report's false alarms
 * (docs/report.md). The Ops table is mmtests' view of the vmstat deltas
 * and the trace summaries, with the same marks. No two rows carry the same
 * quantity: tests/test_results.c checks every pair on the captured cells.
 *
 * The test of each row was chosen on the captured runs (tests/data/report:
 * the A/B pair, the A/A runs and the deadlocked swap run, ok cells as the
 * report takes them; `./wblab metrics --json | tests/ref/metric_shape.py`
 * prints the figures): per kernel, the share of zeros, the
 * coefficient of variation and the skewness of the standardised values,
 * raw and on log(1 + x). Counts are log1p-welch: they are >= 0, pile at 0
 * (reclaim-wr-direct is 0 in every 6.1 cell and 32..1322 in the revert's,
 * CV 77%) and spread with their mean, which a log scale evens out while
 * keeping 0. Near-normal continuous figures are welch; heavy-tailed ones
 * log1p-welch; percentages piled at a bound and figures with many ties
 * permutation; an event a cell has or has not, fisher.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/metric.h"
#include "util/json.h"
#include "util/log.h"

#define KIB_MIB (1.0 / 1024)
#define US_MS 1e-3
#define US_S 1e-6

#define COUNT MK_COUNT
#define CONT MK_CONTINUOUS
#define PCT MK_PERCENTAGE
#define WELCH MTEST_WELCH
#define LOG1P MTEST_LOG1P_WELCH
#define PERM MTEST_PERMUTATION

/*
 * A seek row (collect/seek.c) of one writer class: metrics.io.seek's
 * figure FIELD, in the Ops table, family seek-reclaim or
 * seek-flusher, only where that writer wrote.
 */
#define SEEK_ROW(cls, fam, only_, name_, field, unit_, kind_, better_, test_, \
		 help_)                                                       \
	{                                                                     \
		name_, "metrics.io.seek.classes." cls "." field, unit_, 1,    \
			better_, kind_, test_, MT_OPS, fam, false,            \
			.help = help_, .only = only_                          \
	}
#define SEEK_MEMCG(...)                             \
	SEEK_ROW("memcg", "seek-reclaim",           \
		 "cells where memcg reclaim wrote " \
		 "(io.seek)",                       \
		 __VA_ARGS__)
#define SEEK_FLUSHER(...)                                        \
	SEEK_ROW("flusher", "seek-flusher",                      \
		 "cells whose trace saw the flusher's requests " \
		 "(io.seek)",                                    \
		 __VA_ARGS__)

/* clang-format off */
const struct metric metric_rows[] = {
	/*
	 * speed. fio-write: a throughput, 3x between a kernel's fastest
	 * and slowest cell, skewness 1.59 raw, 0.89 on log1p:
	 * multiplicative noise, log1p-welch (its mean the Gmean). write-lat-p99 (skew -0.06) and
	 * workload-time (-0.18; -0.79 on log1p) are near normal: welch.
	 * memcg-stall-p95: 4 of 25 cells 0, skew 0.83 raw, 0.27 log1p:
	 * log1p-welch. psi-mem-some: skew 0.39, CV 20-42%: welch.
	 * dirty-throttle: 0 in 14 of 25 cells, CV 166-224%, skew 1.74 raw,
	 * 0.53 log1p: log1p-welch.
	 */
	[METRIC_FIO_WRITE] =
	{ "fio-write", "metrics.fio.0.write.bw_kib_s", "MiB/s", KIB_MIB,
	  BETTER_HIGHER, CONT, LOG1P, MT_METRIC, "speed", false,
	  .help = "first fio job's write bandwidth" },
	[METRIC_FIO_READ] =
	{ "fio-read", "metrics.fio.1.read.bw_kib_s", "MiB/s", KIB_MIB,
	  BETTER_HIGHER, CONT, LOG1P, MT_METRIC, "speed", false,
	  .help = "second fio job's read bandwidth (smoke)",
	  .only = "workloads with a second fio job that reads (smoke)" },
	[METRIC_WRITE_LAT_P99] =
	{ "write-lat-p99", "metrics.fio.0.write.clat_p99_us", "ms", US_MS,
	  BETTER_LOWER, CONT, WELCH, MT_METRIC, "speed", false,
	  .help = "first fio job's 99th percentile write completion latency" },
	[METRIC_WORKLOAD_TIME] =
	{ "workload-time", "timings.workload_s", "s", 1,
	  BETTER_LOWER, CONT, WELCH, MT_METRIC, "speed", false,
	  .help = "workload phase, pre: commands included" },
	[METRIC_MEMCG_STALL_P95] =
	{ "memcg-stall-p95", "metrics.trace.memcg_reclaim.stall_us.p95", "ms",
	  US_MS, BETTER_LOWER, CONT, LOG1P, MT_METRIC, "speed",
	  false, .help = "95th percentile memcg reclaim stall (trace)" },
	/*
	 * direct: global direct reclaim. 0 in 21 of 25 cells (only the swap
	 * run enters it): counts, and a stall that is 0 or not, all
	 * log1p-welch.
	 */
	[METRIC_DIRECT_STALL_P95] =
	{ "direct-stall-p95", "metrics.trace.direct_reclaim.stall_us.p95",
	  "ms", US_MS, BETTER_LOWER, CONT, LOG1P, MT_METRIC,
	  "direct", false,
	  .help = "95th percentile global direct reclaim stall (trace)" },
	/*
	 * reclaim-writes: 0 on one kernel and 32..1322 on the other in the
	 * A/B (20 of 25 cells 0, CV 77%): log1p-welch, which resampled n=5 reports
	 * of tests/data/report/ab find 98% of the time (issue #27), and the
	 * presence rate by Fisher. `Reclaim writes` (nr_vmscan_write) is its
	 * own quantity: anonymous and kswapd writes too (75176 pages in a
	 * swap-direct cell where reclaim-wr-direct is 0).
	 */
	[METRIC_RECLAIM_WR_DIRECT] =
	{ "reclaim-wr-direct", "metrics.vmscan_write_file_direct", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_METRIC, "reclaim-writes",
	  true, .help = "file folios written by direct/memcg reclaim (trace)" },
	/* kswapd: counts, 0 outside the swap run: log1p-welch. */
	[METRIC_RECLAIM_WR_KSWAPD] =
	{ "reclaim-wr-kswapd", "metrics.vmscan_write_file_kswapd", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_METRIC, "kswapd", true,
	  .help = "file folios written by kswapd (trace)" },
	[METRIC_ALLOCSTALL] =
	{ "allocstall", "metrics.allocstall", "count", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_METRIC, "direct", false,
	  .help = "global direct reclaim entries (vmstat allocstall_*)" },
	/* free: the same to 0.2 MiB in the A/B and A/A cells (CV 0%), 33%
	 * in the swap run, skew 0.34: welch. */
	[METRIC_MIN_FREE] =
	{ "min-free", "metrics.min_free_kb", "MiB", KIB_MIB,
	  BETTER_HIGHER, CONT, WELCH, MT_METRIC, "free", false,
	  .help = "lowest MemFree of the 1 s samples" },
	[METRIC_PSI_MEM_SOME] =
	{ "psi-mem-some", "metrics.psi.memory.some.total_delta_us", "s", US_S,
	  BETTER_LOWER, CONT, WELCH, MT_METRIC, "speed", false,
	  .help = "time some task stalled on memory (PSI)" },
	[METRIC_DIRTY_THROTTLE] =
	{ "dirty-throttle", "metrics.trace.balance_dirty_pages.pause_ms_total",
	  "ms", 1, BETTER_LOWER, CONT, LOG1P, MT_METRIC, "speed",
	  false, .help = "balance_dirty_pages pauses, summed (trace)" },

	/*
	 * reclaim (Ops): counters of pages and events, log1p-welch. Large
	 * and steady ones (Minor faults, CV 0-2%, skew 0.23 and 0.22)
	 * lose nothing on the log scale; Reclaim immediate (13157 pages
	 * against 0 in the A/B) needs it. Memcg efficiency, a share in the
	 * middle of its range (75-80%, CV 6-9%, skew -0.30): welch.
	 */
	[METRIC_MINOR_FAULTS] =
	{ "Minor faults", "metrics.ops.minor_faults", "count", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "pgfault - pgmajfault" },
	[METRIC_MAJOR_FAULTS] =
	{ "Major faults", "metrics.ops.major_faults", "count", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "pgmajfault" },
	/* swap: a count, 0 outside the swap run: log1p-welch. */
	[METRIC_SWAP_OUTS] =
	{ "Swap outs", "metrics.ops.swap_outs", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "swap", false,
	  .help = "pswpout" },
	[METRIC_DIRECT_SCANNED] =
	{ "Direct scanned", "metrics.ops.direct_pages_scanned", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "direct", false,
	  .help = "pgscan_direct" },
	[METRIC_KSWAPD_SCANNED] =
	{ "Kswapd scanned", "metrics.ops.kswapd_pages_scanned", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "kswapd", false,
	  .help = "pgscan_kswapd" },
	/* A share piled at 0 (11 of 15 cells): permutation. */
	[METRIC_KSWAPD_EFFICIENCY] =
	{ "Kswapd efficiency", "metrics.ops.kswapd_efficiency_pct", "%", 1,
	  BETTER_HIGHER, PCT, PERM, MT_OPS, "kswapd", false,
	  .help = "pgsteal_kswapd / pgscan_kswapd" },
	[METRIC_RECLAIM_WRITES] =
	{ "Reclaim writes", "metrics.ops.page_writes_by_reclaim", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim-writes",
	  false, .help = "nr_vmscan_write: file and anon, every reclaimer" },
	[METRIC_RECLAIM_IMMEDIATE] =
	{ "Reclaim immediate", "metrics.ops.page_reclaim_immediate", "pages",
	  1, BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "nr_vmscan_immediate_reclaim" },
	/*
	 * io: Pgpgout is a count of KiB (CV 1-5% per kernel): log1p-welch. (Flusher seq,
	 * the flawed share of contiguous bios, gave way to the seek rows.)
	 */
	[METRIC_PGPGOUT] =
	{ "Pgpgout", "metrics.ops.pgpgout_kib", "KiB", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "io", false,
	  .help = "pgpgout: KiB submitted at the top device",
	  .old_path = "metrics.ops.sector_writes" },
	/* slab: a count, CV up to 222%: log1p-welch. */
	[METRIC_SLABS_SCANNED] =
	{ "Slabs scanned", "metrics.ops.slabs_scanned", "count", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "slab", false,
	  .help = "slabs_scanned" },
	[METRIC_FILE_REFAULTS] =
	{ "File refaults", "metrics.ops.workingset_refault_file", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "workingset_refault_file" },
	/*
	 * seek (issue #26, collect/seek.c): how seeky memcg reclaim's and the
	 * flusher's writes are, per writer at the leaf device after merging.
	 * A run and a request are sizes (log1p-welch); the share of gaps over
	 * 1 MiB a percentage (permutation); Spearman's rho of write order
	 * against file offset (reclaim: its folios joined to their page-cache
	 * insertion) or sector (the flusher) a bounded figure (permutation).
	 * Replaces "Flusher seq": bios before merging, all pids of a class as
	 * one stream, a 4 KiB hole counted as a seek.
	 */
	[METRIC_MEMCG_RUN] =
	SEEK_MEMCG("Memcg run", "run_kib_mean", "KiB", CONT, BETTER_HIGHER,
		   LOG1P,
		   "memcg reclaim's runs of contiguous write requests (mean)"),
	[METRIC_MEMCG_RQ_SIZE] =
	SEEK_MEMCG("Memcg rq size", "req_kib_mean", "KiB", CONT, BETTER_HIGHER,
		   LOG1P, "memcg reclaim's write requests at the leaf (mean)"),
	[METRIC_MEMCG_SEEKS] =
	SEEK_MEMCG("Memcg seeks", "seek_pct", "%", PCT, BETTER_LOWER, PERM,
		   "memcg reclaim's request gaps over 1 MiB, per writer"),
	[METRIC_MEMCG_OFFSET_RHO] =
	SEEK_MEMCG("Memcg offset rho", "offset_rho", "rho", CONT,
		   BETTER_HIGHER, PERM,
		   "Spearman: memcg reclaim's write order v file offset"),
	[METRIC_MEMCG_RHO_W32] =
	SEEK_MEMCG("Memcg rho w32", "offset_rho_w32", "rho", CONT,
		   BETTER_HIGHER, PERM,
		   "the same over windows of 32 writes (mean)"),
	[METRIC_FLUSHER_RUN] =
	SEEK_FLUSHER("Flusher run", "run_kib_mean", "KiB", CONT, BETTER_HIGHER,
		     LOG1P,
		     "the flusher's runs of contiguous write requests (mean)"),
	[METRIC_FLUSHER_RQ_SIZE] =
	SEEK_FLUSHER("Flusher rq size", "req_kib_mean", "KiB", CONT,
		     BETTER_HIGHER, LOG1P,
		     "the flusher's write requests at the leaf (mean)"),
	[METRIC_FLUSHER_SEEKS] =
	SEEK_FLUSHER("Flusher seeks", "seek_pct", "%", PCT, BETTER_LOWER, PERM,
		     "the flusher's request gaps over 1 MiB, per writer"),
	[METRIC_FLUSHER_RHO_W32] =
	SEEK_FLUSHER("Flusher rho w32", "sector_rho_w32", "rho", CONT,
		     BETTER_HIGHER, PERM,
		     "Spearman: the flusher's issue order v sector, 32 at a time"),
	[METRIC_MEMCG_SCANNED] =
	{ "Memcg scanned", "metrics.memcg.ops.direct_pages_scanned", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "memory.stat pgscan_direct",
	  .only = "workloads that run in a memory cgroup" },
	[METRIC_MEMCG_EFFICIENCY] =
	{ "Memcg efficiency", "metrics.memcg.ops.direct_efficiency_pct", "%", 1,
	  BETTER_HIGHER, PCT, WELCH, MT_OPS, "reclaim", false,
	  .help = "memory.stat pgsteal_direct / pgscan_direct",
	  .only = "workloads that run in a memory cgroup" },
	[METRIC_MEMCG_RECLAIMS] =
	{ "Memcg reclaims", "metrics.trace.memcg_reclaim.count", "count", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "memcg reclaim begin/end pairs" },
	[METRIC_DIRECT_RECLAIMS] =
	{ "Direct reclaims", "metrics.trace.direct_reclaim.count", "count", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "direct", false,
	  .help = "direct reclaim begin/end pairs" },
	[METRIC_DIRTY_MET_DIRECT] =
	{ "Dirty met direct",
	  "metrics.trace.shrink_inactive.direct.file.nr_dirty", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "dirty file folios direct reclaim met at the LRU tail" },
	[METRIC_WBACK_MET_DIRECT] =
	{ "Wback met direct",
	  "metrics.trace.shrink_inactive.direct.file.nr_writeback", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "folios under writeback direct reclaim met" },
	[METRIC_DIRTY_MET_MEMCG] =
	{ "Dirty met memcg",
	  "metrics.trace.shrink_inactive.memcg.file.nr_dirty", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "dirty file folios memcg reclaim met at the LRU tail",
	  .only = "workloads that run in a memory cgroup" },
	[METRIC_WBACK_MET_MEMCG] =
	{ "Wback met memcg",
	  "metrics.trace.shrink_inactive.memcg.file.nr_writeback", "pages", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "folios under writeback memcg reclaim met",
	  .only = "workloads that run in a memory cgroup" },
	[METRIC_FLUSH_FOR_VMSCAN] =
	{ "Flush for vmscan", "metrics.trace.writeback.by_reason.vmscan.pages",
	  "pages", 1, BETTER_LOWER, COUNT, LOG1P, MT_OPS,
	  "reclaim", false,
	  .help = "flusher pages written because reclaim asked (reason vmscan)" },
	[METRIC_THROTTLED_WBACK] =
	{ "Throttled wback",
	  "metrics.trace.throttled.VMSCAN_THROTTLE_WRITEBACK.count", "count", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "reclaim", false,
	  .help = "reclaim throttled waiting for writeback",
	  .only = "cells where reclaim throttled on writeback (the key is "
		  "absent while it never did)" },
	[METRIC_KSWAPD_WAKES] =
	{ "Kswapd wakes", "metrics.trace.kswapd_wake", "count", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_OPS, "kswapd", false,
	  .help = "mm_vmscan_kswapd_wake" },
	/*
	 * dirty: levels from the 1 s samples, welch. Peak dirty: CV 1-9%
	 * per kernel (59% in the swap run), skew -0.89. Peak writeback: CV
	 * 32-102%, skew 0.86 raw and -1.05 on log1p (the log overcorrects).
	 */
	[METRIC_PEAK_DIRTY] =
	{ "Peak dirty", "metrics.peak_dirty_kb", "MiB", KIB_MIB,
	  BETTER_LOWER, CONT, WELCH, MT_OPS, "dirty", false,
	  .help = "highest Dirty of the 1 s samples" },
	[METRIC_PEAK_WRITEBACK] =
	{ "Peak writeback", "metrics.peak_writeback_kb", "MiB", KIB_MIB,
	  BETTER_LOWER, CONT, WELCH, MT_OPS, "dirty", false,
	  .help = "highest Writeback of the 1 s samples" },

	/*
	 * In no table: the report shows the deepest stack in its own
	 * section and OOM kills as the `oom` event rate. stack-max: all 10
	 * A/B cells at 3128 B, the same chain: ties, permutation.
	 * oom-kills: whether a cell killed (0 in every captured cell; 1 in
	 * the oom workloads): fisher.
	 */
	[METRIC_STACK_MAX] =
	{ "stack-max", "metrics.stack_max_bytes", "bytes", 1,
	  BETTER_LOWER, CONT, PERM, MT_NONE, "stack", false,
	  .help = "deepest stack the stack tracer saw" },
	/*
	 * The deepest point a reclaim write reached (a chain holding
	 * pageout/swap_writepage/shmem_writepage, storage sites and the
	 * leaves below them), absent on a kernel whose reclaim wrote
	 * nothing: deterministic under TCG (3 of 3 cells at 2480 B on the
	 * revert), so ties: permutation.
	 */
	[METRIC_RECLAIM_WR_STACK] =
	{ "reclaim-wr-stack", "metrics.stack.reclaim_write_max_bytes", "bytes",
	  1, BETTER_LOWER, CONT, PERM, MT_NONE, "stack", false,
	  .help = "deepest stack a reclaim write reached (kprobes)",
	  .only = "cells whose reclaim wrote deeper than 2048 bytes" },
	[METRIC_OOM_KILLS] =
	{ "oom-kills", "metrics.oom_kill", "count", 1,
	  BETTER_LOWER, MK_RATE, MTEST_FISHER, MT_NONE, "oom",
	  false, .help = "OOM kills (vmstat oom_kill)" },
	/*
	 * oom: the memcg's kills while it held more than 1/16 of its limit
	 * dirty or under writeback (collect/oom.c, the agent's oomwatch
	 * reading memory.stat on each memory.events change), a count that
	 * is 0 where cleaning kept up: log1p-welch, and whether a cell had
	 * one at all (presence, Fisher). The dirty and writeback MiB at the
	 * kills, averaged over a cell's kills: a level, welch.
	 */
	[METRIC_OOM_PREMATURE] =
	{ "oom-premature", "metrics.memcg_oom.premature_kills", "count", 1,
	  BETTER_LOWER, COUNT, LOG1P, MT_METRIC, "oom", true,
	  .help = "memcg OOM kills with > 1/16 of its limit dirty or under "
		  "writeback (memory.events, memory.stat)",
	  .only = "workloads in a memcg, cells since 2026-12-04 (memcg_oom)" },
	[METRIC_OOM_DIRTY_AT_KILL] =
	{ "oom-dirty-at-kill", "metrics.memcg_oom.kill_dirty_wb_kb_mean",
	  "MiB", KIB_MIB, BETTER_LOWER, CONT, WELCH, MT_METRIC,
	  "oom", false,
	  .help = "the memcg's dirty + writeback file pages at its OOM kills "
		  "(mean over a cell's kills)",
	  .only = "cells whose memcg killed (memcg_oom)" },
	/*
	 * Work left undone: (dirty + writeback) pages when the measured
	 * window ended over the pages fio wrote. The A/B workloads end with
	 * end_fsync, so it should be ~0; the report flags a cell above 1%:
	 * its throughput measured less work than the other side's.
	 */
	[METRIC_END_DIRTY] =
	{ "end-dirty", "metrics.end_of_workload.dirty_share", "%", 100,
	  BETTER_LOWER, PCT, PERM, MT_NONE, "equal-work", false,
	  .help = "pages still dirty or under writeback when the workload "
		  "ended, % of what it wrote",
	  .only = "fio workloads, cells since 2026-12-04 (end_of_workload)" },
};
/* clang-format on */
const char *const metric_id_names[] = {
#define METRIC_ID_NAME_(id) #id,
	METRIC_IDS(METRIC_ID_NAME_)
#undef METRIC_ID_NAME_
};

_Static_assert(ARRAY_SIZE(metric_rows) == METRIC_NR_IDS,
	       "a row for each METRIC_ id, and an id for each row");

const size_t metric_nr_rows = sizeof(metric_rows) / sizeof(metric_rows[0]);

/* Equal but for case, and '-' where the name has ' '. */
static bool same_spelling(const char *name, const char *s)
{
	for (; *name && *s; name++, s++) {
		char a = *name == ' ' ? '-' : *name, b = *s == ' ' ? '-' : *s;

		if (tolower((unsigned char)a) != tolower((unsigned char)b))
			return false;
	}
	return !*name && !*s;
}

const struct metric *metric_by_name(const char *name)
{
	for_each_metric(m) if (!strcmp(m->name, name)) return m;
	for_each_metric(m) if (same_spelling(m->name, name)) return m;
	return NULL;
}

const struct metric *metric_by_path(const char *path)
{
	for_each_metric(
		m) if (!strcmp(m->path, path) ||
		       (m->old_path && !strcmp(m->old_path, path))) return m;
	return NULL;
}

/* Levenshtein distance, case folded, ' ' and '_' read as '-'. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row, d;

	row = xmalloc((lb + 1) * sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			int ca = tolower((unsigned char)a[i - 1]),
			    cb = tolower((unsigned char)b[j - 1]);

			ca = ca == ' ' || ca == '_' ? '-' : ca;
			cb = cb == ' ' || cb == '_' ? '-' : cb;
			row[j] = diag + (ca != cb);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

/* s lowercased, ' ' and '_' as '-'. */
static char *folded(const char *s)
{
	char *f = xstrdup(s);

	for (char *p = f; *p; p++)
		*p = *p == ' ' || *p == '_' ? '-' : tolower((unsigned char)*p);
	return f;
}

/* A part of the name ("wr-direct", "faults") is one edit away. */
static bool part_of_name(const char *name, const char *s)
{
	char *fn = folded(name), *fs = folded(s);
	bool in = strlen(fs) >= 3 && strstr(fn, fs);

	free(fn);
	free(fs);
	return in;
}

/* How far s is from what the row is called or where cell.json has it. */
static size_t row_distance(const struct metric *m, const char *s)
{
	const char *paths[] = { m->path, m->old_path };
	size_t best = part_of_name(m->name, s) ? 1 : distance(m->name, s);

	for (size_t i = 0; i < ARRAY_SIZE(paths) && paths[i]; i++) {
		const char *p = paths[i], *last = strrchr(p, '.');
		size_t d = distance(p, s);

		if (!strncmp(p, "metrics.", 8) && distance(p + 8, s) < d)
			d = distance(p + 8, s);
		if (last && distance(last + 1, s) < d)
			d = distance(last + 1, s);
		best = d < best ? d : best;
	}
	return best;
}

const struct metric *metric_by_old_key(const char *key)
{
	static const char *const under[] = { "metrics.", "metrics.ops." };
	const struct metric *m = metric_by_name(key);

	if (!m)
		m = metric_by_path(key);
	for (size_t i = 0; !m && i < ARRAY_SIZE(under); i++) {
		char *p = xasprintf("%s%s", under[i], key);

		m = metric_by_path(p);
		free(p);
	}
	return m;
}

#define MAX_SUGGEST 3

const struct metric *metric_lookup(const char *name, struct strbuf *err)
{
	const struct metric *m = metric_by_name(name), *pick[MAX_SUGGEST];
	size_t dist[MAX_SUGGEST], n = 0, len = strlen(name);
	size_t limit = len / 3 > 2 ? len / 3 : 2;

	if (m)
		return m;
	for_each_metric(r)
	{
		size_t d = row_distance(r, name), i;

		if (d > limit)
			continue;
		/* Insert by distance, table order among equals. */
		for (i = n; i > 0 && dist[i - 1] > d; i--)
			if (i < MAX_SUGGEST) {
				pick[i] = pick[i - 1];
				dist[i] = dist[i - 1];
			}
		if (i < MAX_SUGGEST) {
			pick[i] = r;
			dist[i] = d;
			n += n < MAX_SUGGEST;
		}
	}
	/* Where cell.json keeps it, exactly: that row is the answer. */
	while (n > 1 && !dist[0] && dist[n - 1])
		n--;
	strbuf_addf(err, "unknown metric '%s'", name);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(err, "%s%s", i ? ", " : "; did you mean ",
			    pick[i]->name);
	strbuf_addstr(err, n ? "?" : " (wblab metrics lists them)");
	return NULL;
}

/*
 * A figure of cell.json, NAN when missing. wblab writes a non-finite
 * number as null; an Infinity or NaN json-c read from a cell.json made
 * elsewhere is no measurement either (gnuplot stopped the HTML report on
 * "undefined variable: inf"), so it is missing too.
 */
static double number_at(json_object *cell, const char *path)
{
	json_object *v = path ? json_path(cell, path) : NULL;
	double d;

	if (!v || !(json_object_is_type(v, json_type_int) ||
		    json_object_is_type(v, json_type_double)))
		return NAN;
	d = json_object_get_double(v);
	return isfinite(d) ? d : NAN;
}

double metric_value(json_object *cell, const struct metric *m)
{
	double v = number_at(cell, m->path);

	if (isnan(v))
		v = number_at(cell, m->old_path);
	return v * m->scale;
}

/*
 * The absolute floor of a count row: one reclaim batch, SWAP_CLUSTER_MAX
 * (32) pages, in the row's unit (128 KiB; 1 for a count of events, the
 * smallest change it can show). Reclaim scans, writes and frees in
 * batches of 32 pages, so a difference of a few pages from a reference of
 * 0 is one batch's remainder, not a change in behaviour. Other kinds have
 * none: their threshold is a percentage only.
 */
double metric_abs_floor(const struct metric *m)
{
	if (m->kind != MK_COUNT)
		return 0;
	if (!strcmp(m->unit, "pages"))
		return 32;
	if (!strcmp(m->unit, "KiB"))
		return 32 * 4;
	return 1;
}

const char *metric_kind_name(enum metric_kind k)
{
	static const char *const names[] = { "count", "continuous", "rate",
					     "percentage" };

	return names[k];
}

const char *metric_test_name(enum metric_test t)
{
	static const char *const names[] = { "welch", "log1p-welch",
					     "permutation", "fisher" };

	return names[t];
}

const char *metric_table_name(enum metric_table t)
{
	static const char *const names[] = { "metric", "ops", "none" };

	return names[t];
}

/*
 * A log1p-welch row's offset, one physical quantity per dimension: one
 * page for sizes (so the same count in pages, KiB or bytes tests alike:
 * before, log1p of a KiB count and of the same count in pages gave two
 * p-values), one event for counts, 1 ms for times and 1 MiB/s for
 * throughputs (the offset each of those rows has always had), a point
 * for a percentage.
 */
static const struct {
	const char *unit;
	double c;
} log_offsets[] = {
	{ "pages", 1 },	   { "KiB", 4 },   { "MiB", 1.0 / 256 },
	{ "bytes", 4096 }, { "count", 1 }, { "ms", 1 },
	{ "s", 1e-3 },	   { "us", 1e3 },  { "MiB/s", 1 },
	{ "KiB/s", 1024 }, { "%", 1 },
};

double metric_log_offset(const struct metric *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(log_offsets); i++)
		if (!strcmp(m->unit, log_offsets[i].unit))
			return log_offsets[i].c;
	return 1;
}

double metric_test_mean(enum metric_test t, double c, const double *x, size_t n)
{
	double acc = 0;

	if (!n)
		return NAN;
	if (c <= 0)
		c = 1;
	for (size_t i = 0; i < n; i++)
		acc += t == MTEST_LOG1P_WELCH ? log1p(x[i] / c) : x[i];
	return t == MTEST_LOG1P_WELCH ? c * expm1(acc / n) : acc / n;
}

double metric_mean(const struct metric *m, const double *x, size_t n)
{
	return metric_test_mean(m->test, metric_log_offset(m), x, n);
}

const char *metric_mean_name(const struct metric *m)
{
	return m->test == MTEST_LOG1P_WELCH ? "Gmean" : "Amean";
}

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *metric_json(const struct metric *m)
{
	json_object *o = json_object_new_object();
	struct {
		const char *key;
		json_object *v;
	} f[] = {
		{ "name", json_object_new_string(m->name) },
		{ "path", json_object_new_string(m->path) },
		{ "old_path", str_or_null(m->old_path) },
		{ "unit", json_object_new_string(m->unit) },
		{ "scale", json_object_new_double(m->scale) },
		{ "better", json_object_new_string(m->better == BETTER_HIGHER ?
							   "higher" :
							   "lower") },
		{ "kind", json_object_new_string(metric_kind_name(m->kind)) },
		{ "test", json_object_new_string(metric_test_name(m->test)) },
		{ "stat", json_object_new_string(metric_mean_name(m)) },
		{ "table",
		  json_object_new_string(metric_table_name(m->table)) },
		{ "family", json_object_new_string(m->family) },
		{ "presence", json_object_new_boolean(m->presence) },
		{ "only", str_or_null(m->only) },
		{ "help", json_object_new_string(m->help) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		json_object_object_add(o, f[i].key, f[i].v);
	return o;
}
