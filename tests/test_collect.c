// SPDX-License-Identifier: GPL-2.0
/*
 * The collectors' host-side parsers on real files captured from cells of
 * this lab (tests/data/collect/README.md says how). Expected figures were
 * computed independently of wblab (grep/awk/python over the same files).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cell/collectors.h"
#include "collect/fio.h"
#include "collect/ops.h"
#include "collect/stack.h"
#include "collect/trace.h"
#include "collect/vmstat.h"
#include "results/metric.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"

#include "testdata.h"

/* Dotted path into a JSON object: util/json.c's json_path. */
static json_object *at(json_object *o, const char *path)
{
	return json_path(o, path);
}

static long long iat(json_object *o, const char *path)
{
	json_object *v = at(o, path);

	ck_assert_msg(v != NULL, "no %s", path);
	return json_object_get_int64(v);
}

static double dat(json_object *o, const char *path)
{
	json_object *v = at(o, path);

	ck_assert_msg(v != NULL, "no %s", path);
	return json_object_get_double(v);
}

START_TEST(test_vmstat_ops)
{
	struct strbuf b = STRBUF_INIT, a = STRBUF_INIT;
	struct kvset before, after;
	json_object *o;

	testdata_read(&b, "collect/mixed-reclaim/vmstat.before");
	testdata_read(&a, "collect/mixed-reclaim/vmstat.after");
	kvset_parse(&before, b.buf, b.len);
	kvset_parse(&after, a.buf, a.len);
	o = vmstat_ops_json(&before, &after, 100);
	/* allocstall_normal 3 + allocstall_movable 465 */
	ck_assert_int_eq(iat(o, "allocation_stalls"), 468);
	ck_assert_int_eq(iat(o, "direct_pages_scanned"), 17542);
	ck_assert_int_eq(iat(o, "kswapd_pages_scanned"), 118531);
	ck_assert_int_eq(iat(o, "direct_pages_reclaimed"), 15156);
	ck_assert_int_eq(iat(o, "kswapd_pages_reclaimed"), 61916);
	ck_assert_double_eq_tol(dat(o, "kswapd_efficiency_pct"), 52.24, 0.01);
	ck_assert_double_eq_tol(dat(o, "direct_efficiency_pct"), 86.40, 0.01);
	ck_assert_double_eq_tol(dat(o, "percentage_direct_scans"), 12.89, 0.01);
	ck_assert_double_eq_tol(dat(o, "direct_velocity"), 175.42, 0.01);
	ck_assert_int_eq(iat(o, "page_writes_by_reclaim"), 0);
	ck_assert_int_eq(iat(o, "page_writes_file"), 0);
	ck_assert_int_eq(iat(o, "page_writes_anon"), 0);
	ck_assert_int_eq(iat(o, "page_reclaim_immediate"), 534);
	ck_assert_int_eq(iat(o, "oom_kills"), 1);
	ck_assert_int_eq(iat(o, "pages_dirtied"), 70594);
	ck_assert_int_eq(iat(o, "pages_written"), 70598);
	/* The scan counter of 6.1 is not mistaken for its _throttle sibling. */
	ck_assert_int_eq(iat(o, "direct_scan_throttled"), 0);
	/* User pages stall as movable allocations, not normal ones. */
	ck_assert_int_eq(iat(o, "allocation_stalls_normal"), 3);
	ck_assert_int_eq(iat(o, "allocation_stalls_movable"), 465);
	ck_assert_int_eq(iat(o, "allocation_stalls_dma32"), 0);
	/* pgpgin/pgpgout are KiB; 6.1 has no pgrescued. */
	ck_assert_int_eq(iat(o, "pgpgin_kib"), 323845);
	ck_assert_int_eq(iat(o, "pgpgout_kib"), 282682);
	ck_assert_ptr_null(at(o, "page_rescued_immediate"));
	ck_assert_ptr_null(at(o, "sector_writes"));
	ck_assert_ptr_nonnull(at(o, "caveats.page_reclaim_immediate"));
	json_object_put(o);
	/* Nothing scanned: efficiency is undefined (null), not 0%. */
	o = vmstat_ops_json(&before, &before, 100);
	ck_assert_ptr_nonnull(at(o, "direct_pages_scanned"));
	ck_assert_int_eq(iat(o, "direct_pages_scanned"), 0);
	ck_assert(json_object_object_get_ex(o, "direct_efficiency_pct", NULL));
	ck_assert_ptr_null(at(o, "direct_efficiency_pct"));
	ck_assert_ptr_null(at(o, "percentage_direct_scans"));
	json_object_put(o);
	kvset_free(&before);
	kvset_free(&after);
	strbuf_release(&a);
	strbuf_release(&b);
}
END_TEST

START_TEST(test_psi)
{
	struct strbuf b = STRBUF_INIT, a = STRBUF_INIT;
	json_object *o;

	testdata_read(&b, "collect/mixed-reclaim/pressure.memory.before");
	testdata_read(&a, "collect/mixed-reclaim/pressure.memory.after");
	o = psi_json(b.buf, b.len, a.buf, a.len, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(iat(o, "some.total_delta_us"), 19552396);
	ck_assert_int_eq(iat(o, "full.total_delta_us"), 10741207);
	ck_assert_double_eq_tol(dat(o, "some.after.avg10"), 18.18, 0.001);
	ck_assert_double_eq_tol(dat(o, "full.after.avg60"), 7.51, 0.001);
	json_object_put(o);
	/* io: some and full, before absent is allowed. */
	testdata_read(&a, "collect/mixed-reclaim/pressure.io.after");
	o = psi_json(NULL, 0, a.buf, a.len, NULL);
	ck_assert_ptr_nonnull(at(o, "some.after.total"));
	ck_assert_ptr_null(at(o, "some.total_delta_us"));
	json_object_put(o);
	ck_assert_ptr_null(psi_json(NULL, 0, "junk\n", 5, NULL));
	strbuf_release(&a);
	strbuf_release(&b);
}
END_TEST

START_TEST(test_stack_trace)
{
	struct strbuf t = STRBUF_INIT, m = STRBUF_INIT;
	json_object *o, *chain;

	testdata_read(&t, "collect/mixed-reclaim/stack_trace");
	testdata_read(&m, "collect/mixed-reclaim/stack_max_size");
	o = stack_trace_summary(t.buf, t.len, m.buf, m.len, 0, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(iat(o, "max_bytes"), 4328);
	ck_assert_int_eq(iat(o, "thread_size"), 16384);
	ck_assert_double_eq_tol(dat(o, "fraction"), 4328.0 / 16384, 0.0001);
	chain = at(o, "chain");
	ck_assert_int_eq(iat(o, "entries"), 33);
	ck_assert_int_eq(json_object_array_length(chain), 33);
	ck_assert_int_eq(iat(json_object_array_get_idx(chain, 0), "depth"),
			 4328);
	ck_assert_str_eq(
		json_object_get_string(
			at(json_object_array_get_idx(chain, 0), "location")),
		"_raw_spin_lock+0x5/0x30");
	json_object_put(o);
	/* Without stack_max_size, the chain's first depth. */
	o = stack_trace_summary(t.buf, t.len, NULL, 0, 0, NULL);
	ck_assert_int_eq(iat(o, "max_bytes"), 4328);
	json_object_put(o);
	ck_assert_ptr_null(stack_trace_summary("", 0, NULL, 0, 0, NULL));
	strbuf_release(&t);
	strbuf_release(&m);
}
END_TEST

/*
 * DEBUG_STACK_USAGE lines of a KASAN kernel: an excerpt of the syzkaller
 * corpus' logs/317.log (tests/data/console/README.md).
 */
START_TEST(test_stack_console)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o, *l;

	o = stack_console_usage("[ 1.0] no such lines\n", 21, 0, NULL);
	ck_assert_int_eq(iat(o, "count"), 0);
	ck_assert_ptr_null(at(o, "max_depth_bytes"));
	json_object_put(o);
	testdata_read(&sb, "console/stack-usage-317.log");
	o = stack_console_usage(sb.buf, sb.len, 0, NULL);
	ck_assert_int_eq(iat(o, "count"), 5);
	l = json_object_array_get_idx(at(o, "lines"), 0);
	ck_assert_str_eq(json_object_get_string(at(l, "comm")), "kworker/u4:0");
	ck_assert_int_eq(iat(l, "pid"), 23);
	ck_assert_int_eq(iat(l, "bytes_left"), 23936);
	/* More than 16 KiB left: a KASAN kernel's 32 KiB stack. */
	ck_assert_int_eq(iat(o, "thread_size"), 32768);
	ck_assert_int_eq(iat(l, "depth_bytes"), 32768 - 23936);
	ck_assert_int_eq(iat(o, "min_bytes_left"), 16664);
	json_object_put(o);
	strbuf_release(&sb);
}
END_TEST

START_TEST(test_trace_line)
{
	static const char l1[] =
		"    kworker/u4:0-9       [000] ...1.    66.821046: writeback_start: "
		"bdi 254:32: sb_dev 0:0 nr_pages=9223372036854775807 sync_mode=0 "
		"kupdate=0 range_cyclic=1 background=1 reason=background cgroup_ino=1";
	static const char l2[] =
		"         kswapd0-44      [000] .....    69.146000: "
		"mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=5 nr_reclaimed=5 "
		"nr_dirty=0 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC";
	struct trace_line l;
	long long v;
	char buf[64];

	ck_assert(trace_parse_line(l1, strlen(l1), &l, NULL));
	ck_assert_str_eq(l.comm, "kworker/u4:0");
	ck_assert_int_eq(l.pid, 9);
	ck_assert_int_eq(l.cpu, 0);
	ck_assert_double_eq_tol(l.ts, 66.821046, 1e-9);
	ck_assert_int_eq(l.event_len, strlen("writeback_start"));
	ck_assert(!memcmp(l.event, "writeback_start", l.event_len));
	ck_assert(trace_arg_num(&l, "nr_pages", &v));
	ck_assert(v == 9223372036854775807LL);
	ck_assert(trace_arg_str(&l, "reason", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "background");
	ck_assert(!trace_arg_num(&l, "pages", &v)); /* not nr_pages */
	ck_assert(trace_parse_line(l2, strlen(l2), &l, NULL));
	ck_assert_str_eq(l.comm, "kswapd0");
	ck_assert_int_eq(l.pid, 44);
	ck_assert(trace_arg_str(&l, "flags", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "RECLAIM_WB_FILE|RECLAIM_WB_ASYNC");
	ck_assert(!trace_parse_line("# tracer: nop", 13, &l, NULL));
	ck_assert(!trace_parse_line("garbage - [x] y", 15, &l, NULL));
}
END_TEST

START_TEST(test_trace_summary)
{
	static const char stats[] =
		"# per_cpu stats\n"
		"/sys/kernel/tracing/per_cpu/cpu0/stats:entries: 10\n"
		"/sys/kernel/tracing/per_cpu/cpu0/stats:overrun: 3\n"
		"/sys/kernel/tracing/per_cpu/cpu0/stats:dropped events: 4\n";
	struct strbuf t = STRBUF_INIT, s = STRBUF_INIT;
	json_object *o;

	testdata_gunzip(&t, "collect/mixed-reclaim/trace.gz");
	testdata_read(&s, "collect/mixed-reclaim/trace_stats.txt");
	o = trace_summary(t.buf, t.len, s.buf, s.len);
	ck_assert_int_eq(iat(o, "lines"), 11255);
	ck_assert_int_eq(iat(o, "entries_written"), 11255);
	ck_assert_int_eq(iat(o, "lost_events"), 0);
	ck_assert(json_object_get_boolean(at(o, "complete")));
	ck_assert_int_eq(iat(o, "cpus"), 2);
	ck_assert_int_eq(iat(o, "buffer_size_kb"), 16387);
	/*
	 * 6.1 has write_folio: the old writepage name is not "missing". The
	 * cell predates the block, ext4 and single_inode events: those 7 are.
	 */
	ck_assert_int_eq(json_object_array_length(at(o, "missing_events")), 7);
	ck_assert_ptr_null(
		strstr(json_object_to_json_string(at(o, "missing_events")),
		       "mm_vmscan_write"));
	/* Complete: nothing is cut. */
	ck_assert_int_eq(iat(o, "cut_lines"), 0);
	ck_assert_int_eq(json_object_array_length(at(o, "enabled_events")), 14);
	ck_assert_int_eq(iat(o, "events.balance_dirty_pages"), 5597);
	ck_assert_int_eq(iat(o, "events.mm_vmscan_kswapd_wake"), 235);
	/* Stalls: begin/end paired per pid, nearest-rank percentiles. */
	ck_assert_int_eq(iat(o, "direct_reclaim.count"), 432);
	ck_assert_int_eq(iat(o, "direct_reclaim.unfinished"), 0);
	ck_assert_double_eq_tol(dat(o, "direct_reclaim.stall_us.mean"),
				36463.646, 0.01);
	ck_assert_double_eq_tol(dat(o, "direct_reclaim.stall_us.p50"), 4296,
				0.01);
	ck_assert_double_eq_tol(dat(o, "direct_reclaim.stall_us.p95"), 171711,
				0.01);
	ck_assert_double_eq_tol(dat(o, "direct_reclaim.stall_us.max"), 995000,
				0.01);
	ck_assert_int_eq(iat(o, "memcg_reclaim.count"), 0);
	/* No swap, and 6.1 leaves dirty file pages to the flushers. */
	ck_assert_int_eq(iat(o, "vmscan_write.direct.file"), 0);
	ck_assert_int_eq(iat(o, "vmscan_write.kswapd.file"), 0);
	/* shrink_inactive agrees with /proc/vmstat's pgscan/pgsteal. */
	ck_assert_int_eq(iat(o, "shrink_inactive.direct.file.nr_scanned"),
			 17542);
	ck_assert_int_eq(iat(o, "shrink_inactive.direct.file.nr_reclaimed"),
			 15156);
	ck_assert_int_eq(iat(o, "shrink_inactive.kswapd.file.nr_scanned"),
			 118531);
	ck_assert_int_eq(iat(o, "shrink_inactive.direct.file.nr_dirty"), 323);
	ck_assert_int_eq(iat(o, "shrink_inactive.kswapd.file.nr_dirty"), 1014);
	ck_assert_int_eq(iat(o, "oom_victims"), 1);
	ck_assert_int_eq(iat(o, "throttled.VMSCAN_THROTTLE_ISOLATED.count"),
			 11);
	/* Flusher pages per reason sum to writeback_pages_written. */
	ck_assert_int_eq(iat(o, "writeback.by_reason.background.pages"), 29844);
	ck_assert_int_eq(iat(o, "writeback.by_reason.periodic.pages"), 27410);
	ck_assert_int_eq(iat(o, "writeback.by_reason.vmscan.pages"), 12811);
	ck_assert_int_eq(iat(o, "writeback.by_reason.vmscan.works"), 25);
	ck_assert_int_eq(iat(o, "writeback.pages_written"), 70065);
	ck_assert_int_eq(iat(o, "balance_dirty_pages.paused"), 10);
	ck_assert_int_eq(iat(o, "balance_dirty_pages.pause_ms_total"), 1880);
	ck_assert_int_eq(iat(o, "balance_dirty_pages.pause_ms_max"), 200);
	json_object_put(o);

	/* The stats' overrun and dropped events count as lost. */
	o = trace_summary(t.buf, t.len / 2, stats, strlen(stats));
	ck_assert_int_eq(iat(o, "lost_events"), 7);
	ck_assert(!json_object_get_boolean(at(o, "complete")));
	json_object_put(o);
	strbuf_release(&t);
	strbuf_release(&s);
}
END_TEST

/* Reclaim inside a memcg: memcg_reclaim_*, not direct_reclaim_*. */
START_TEST(test_trace_memcg)
{
	struct strbuf t = STRBUF_INIT, s = STRBUF_INIT;
	json_object *o;

	testdata_gunzip(&t, "collect/mixed-reclaim-memcg/trace.gz");
	testdata_read(&s, "collect/mixed-reclaim-memcg/trace_stats.txt");
	o = trace_summary(t.buf, t.len, s.buf, s.len);
	ck_assert_int_eq(iat(o, "lost_events"), 0);
	ck_assert_int_eq(iat(o, "direct_reclaim.count"), 0);
	ck_assert_int_eq(iat(o, "memcg_reclaim.count"), 3568);
	ck_assert_double_eq_tol(dat(o, "memcg_reclaim.stall_us.mean"),
				19366.809, 0.01);
	ck_assert_double_eq_tol(dat(o, "memcg_reclaim.stall_us.p50"), 1778,
				0.01);
	ck_assert_double_eq_tol(dat(o, "memcg_reclaim.stall_us.p95"), 90696,
				0.01);
	ck_assert_double_eq_tol(dat(o, "memcg_reclaim.stall_us.max"), 870681,
				0.01);
	/* The charging tasks reclaim: counted as memcg, not direct or other. */
	ck_assert_int_eq(iat(o, "shrink_inactive.memcg.file.nr_scanned"),
			 147685);
	ck_assert_int_eq(iat(o, "shrink_inactive.memcg.file.nr_dirty"), 24636);
	ck_assert_int_eq(iat(o, "shrink_inactive.direct.file.nr_scanned"), 0);
	ck_assert_int_eq(iat(o, "shrink_inactive.other.file.nr_scanned"), 0);
	ck_assert_int_eq(iat(o, "kswapd_wake"), 0);
	ck_assert_int_eq(iat(o, "oom_victims"), 4);
	json_object_put(o);
	testdata_read(&s, "collect/mixed-reclaim-memcg/memcg.events");
	{
		struct kvset ev;

		kvset_parse(&ev, s.buf, s.len);
		ck_assert_int_eq(kvset_get(&ev, "oom_kill", -1), 4);
		ck_assert_int_eq(kvset_get(&ev, "max", -1), 3568);
		kvset_free(&ev);
	}
	strbuf_release(&t);
	strbuf_release(&s);
}
END_TEST

/*
 * A WB_SYNC_ALL ext4_writepages (fsync: fio's end_fsync) asks for
 * nr_to_write LONG_MAX, "write it all": an unbounded call, as
 * writeback_start's nr_pages of the same value is, never a bad number
 * (every dirty-flood cell of 6.1 had "number trace" in its errors).
 */
START_TEST(test_trace_ext4_sync_all)
{
	struct strbuf t = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	json_object *o;

	testdata_read(&t, "collect/ext4-sync-all/trace-excerpt");
	numsrc_add(&ns, "trace", t.buf, t.len);
	o = trace_summary_dev(t.buf, t.len, NULL, 0, NULL, &ns);
	ck_assert_msg(!ns.nr_bad, "%s", ns.first);
	ck_assert_int_eq(
		iat(o, "writeback_context.other.ext4_writepages.count"), 1);
	ck_assert_int_eq(
		iat(o, "writeback_context.other.ext4_writepages.sync_all"), 1);
	ck_assert_int_eq(
		iat(o, "writeback_context.other.ext4_writepages.unbounded"), 1);
	ck_assert_int_eq(
		iat(o, "writeback_context.other.ext4_writepages.nr_to_write"),
		0);
	json_object_put(o);
	numsrc_release(&ns);
	strbuf_release(&t);
}
END_TEST

/* Swap on zram: reclaim writes anon folios, by direct reclaim and kswapd. */
START_TEST(test_trace_swap_writes)
{
	struct strbuf t = STRBUF_INIT, b = STRBUF_INIT, a = STRBUF_INIT;
	struct kvset before, after;
	json_object *o;

	/* The first 20000 lines of the cell's trace. */
	testdata_gunzip(&t, "collect/mixed-reclaim-zram/trace-head.gz");
	o = trace_summary(t.buf, t.len, NULL, 0);
	ck_assert_int_eq(iat(o, "vmscan_write.direct.anon"), 6725);
	ck_assert_int_eq(iat(o, "vmscan_write.kswapd.anon"), 5425);
	ck_assert_int_eq(iat(o, "vmscan_write.other.anon"), 0);
	ck_assert_int_eq(iat(o, "vmscan_write.direct.file"), 0);
	ck_assert_int_eq(iat(o, "vmscan_write.kswapd.file"), 0);
	/*
	 * The same writes by comm (counted with awk over the file): the
	 * direct class is the hog's and fio's reclaim together.
	 */
	ck_assert_int_eq(iat(o, "vmscan_write_by_comm.wblab-hog.anon"), 4337);
	ck_assert_int_eq(iat(o, "vmscan_write_by_comm.fio.anon"), 2388);
	ck_assert_int_eq(iat(o, "vmscan_write_by_comm.kswapd0.anon"), 5425);
	ck_assert_int_eq(iat(o, "vmscan_write_by_comm.fio.file"), 0);
	ck_assert_int_eq(iat(o, "shrink_file_by_comm.wblab-hog.nr_dirty"), 76);
	ck_assert_int_eq(iat(o, "shrink_file_by_comm.wblab-hog.nr_scanned"),
			 3620);
	ck_assert_int_eq(iat(o, "shrink_file_by_comm.kswapd0.nr_scanned"),
			 25495);
	ck_assert_int_eq(iat(o, "direct_reclaim.count"), 258);
	/* Cut mid-stall: two begins without their end. */
	ck_assert_int_eq(iat(o, "direct_reclaim.unfinished"), 2);
	json_object_put(o);
	/*
	 * mmtests' split: file = nr_vmscan_write - pswpout. Here it says 63
	 * file pages where the whole trace has none (63 anon writes did not
	 * become pswpout): the trace's split is the one to trust.
	 */
	testdata_read(&b, "collect/mixed-reclaim-zram/vmstat.before");
	testdata_read(&a, "collect/mixed-reclaim-zram/vmstat.after");
	kvset_parse(&before, b.buf, b.len);
	kvset_parse(&after, a.buf, a.len);
	o = vmstat_ops_json(&before, &after, 0);
	ck_assert_int_eq(iat(o, "page_writes_by_reclaim"), 136202);
	ck_assert_int_eq(iat(o, "page_writes_anon"), 136139);
	ck_assert_int_eq(iat(o, "page_writes_file"), 63);
	ck_assert_ptr_null(at(o, "direct_velocity"));
	json_object_put(o);
	kvset_free(&before);
	kvset_free(&after);
	strbuf_release(&t);
	strbuf_release(&a);
	strbuf_release(&b);
}
END_TEST

START_TEST(test_fio)
{
	struct strbuf sb = STRBUF_INIT;
	char err[128];
	json_object *o, *j;

	testdata_read(&sb, "collect/mixed-reclaim/fio.json");
	o = fio_summary(sb.buf, sb.len, err, sizeof(err));
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_object_array_length(o), 3);
	j = json_object_array_get_idx(o, 0);
	ck_assert_str_eq(json_object_get_string(at(j, "job")), "stream-write");
	ck_assert_ptr_null(at(j, "read"));
	ck_assert_double_eq_tol(dat(j, "write.bw_kib_s"), 2651, 0.001);
	ck_assert_int_eq(iat(j, "write.ios"), 1870);
	ck_assert_double_eq_tol(dat(j, "write.clat_p50_us"), 1433.6, 0.001);
	ck_assert_double_eq_tol(dat(j, "write.clat_p95_us"), 114819.072, 0.001);
	ck_assert_double_eq_tol(dat(j, "write.clat_p99_us"), 283115.52, 0.001);
	j = json_object_array_get_idx(o, 2);
	ck_assert_str_eq(json_object_get_string(at(j, "job")), "stream-read");
	ck_assert_ptr_nonnull(at(j, "read.clat_max_us"));
	json_object_put(o);
	ck_assert_ptr_null(fio_summary("{}", 2, err, sizeof(err)));
	strbuf_release(&sb);
}
END_TEST

START_TEST(test_timeseries)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o;

	testdata_read(&sb, "collect/mixed-reclaim/timeseries.tsv");
	o = timeseries_summary(sb.buf, sb.len);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(iat(o, "samples"), 103);
	ck_assert_int_eq(iat(o, "peak_dirty_kb"), 51384);
	ck_assert_int_eq(iat(o, "min_free_kb"), 4004);
	ck_assert_int_eq(iat(o, "peak_writeback_kb"), 33604);
	ck_assert_int_eq(iat(o, "max_oom_kill"), 1);
	json_object_put(o);
	/* A torn last line is skipped. */
	o = timeseries_summary("t_s\ta_kb\n1.0\t5\n2.0\t", 18);
	ck_assert_int_eq(iat(o, "samples"), 1);
	json_object_put(o);
	ck_assert_ptr_null(timeseries_summary("", 0));
	strbuf_release(&sb);
}
END_TEST

/* The whole host side over a copy of the cell's files. */
START_TEST(test_collectors_metrics)
{
	static const char *const files[] = { "vmstat.before",
					     "vmstat.after",
					     "pressure.memory.before",
					     "pressure.memory.after",
					     "pressure.io.before",
					     "pressure.io.after",
					     "stack_trace",
					     "stack_max_size",
					     "trace.gz",
					     "trace_stats.txt",
					     "timeseries.tsv",
					     "fio.json",
					     "agent.log",
					     NULL };
	char tmp[] = "/tmp/wblab-test-collect.XXXXXX";
	json_object *m = json_object_new_object();

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	testdata_copy(tmp, "collect/mixed-reclaim", files);
	collectors_metrics(tmp, m);
	ck_assert_int_eq(iat(m, "allocstall"), 468);
	ck_assert_int_eq(iat(m, "oom_kill"), 1);
	ck_assert_int_eq(iat(m, "vmscan_write_file_direct"), 0);
	ck_assert_int_eq(iat(m, "vmscan_write_file_kswapd"), 0);
	ck_assert_int_eq(iat(m, "stack_max_bytes"), 4328);
	ck_assert_int_eq(iat(m, "peak_dirty_kb"), 51384);
	ck_assert_int_eq(iat(m, "trace.direct_reclaim.count"), 432);
	ck_assert_int_eq(iat(m, "psi.memory.some.total_delta_us"), 19552396);
	ck_assert_int_eq(iat(m, "ops.oom_kills"), 1);
	/*
	 * Every registry row at the top of metrics has its writer here, and
	 * it wrote under the row's key (metric_put()): none is left out.
	 */
	for_each_metric(row)
	{
		const char *key = metric_top_key(row);

		ck_assert_msg(!key || at(m, key), "%s: no %s written",
			      row->name, key);
	}
	/* No console.log in the copy; the stack tracer worked. */
	ck_assert_ptr_null(at(m, "collector_errors.stack_tracer"));
	ck_assert_ptr_null(at(m, "collector_errors.trace"));
	json_object_put(m);
	rm_rf(tmp);
}
END_TEST

/* A cell whose guest had no tracefs: errors recorded, others kept. */
START_TEST(test_collectors_missing)
{
	static const char *const files[] = { "fio.json", NULL };
	char tmp[] = "/tmp/wblab-test-collect.XXXXXX";
	json_object *m = json_object_new_object();
	char *dst;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	testdata_copy(tmp, "collect/mixed-reclaim", files);
	dst = xasprintf("%s/agent.log", tmp);
	write_string_atomic(
		dst, "[   10.935] put /proc/sys/kernel/stack_tracer_enabled: "
		     "No such file or directory\n");
	free(dst);
	collectors_metrics(tmp, m);
	ck_assert_ptr_nonnull(at(m, "fio"));
	ck_assert_ptr_null(at(m, "vmscan_write_file_direct"));
	ck_assert_ptr_null(at(m, "trace"));
	ck_assert_ptr_nonnull(strstr(
		json_object_get_string(at(m, "collector_errors.stack_tracer")),
		"No such file"));
	ck_assert_ptr_nonnull(at(m, "collector_errors.trace"));
	ck_assert_ptr_nonnull(at(m, "collector_errors.psi_memory"));
	json_object_put(m);
	rm_rf(tmp);
}
END_TEST

static Suite *collect_suite(void)
{
	Suite *s = suite_create("collect");
	TCase *tc = tcase_create("parsers");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_vmstat_ops);
	tcase_add_test(tc, test_psi);
	tcase_add_test(tc, test_stack_trace);
	tcase_add_test(tc, test_stack_console);
	tcase_add_test(tc, test_trace_line);
	tcase_add_test(tc, test_trace_summary);
	tcase_add_test(tc, test_trace_memcg);
	tcase_add_test(tc, test_trace_swap_writes);
	tcase_add_test(tc, test_trace_ext4_sync_all);
	tcase_add_test(tc, test_fio);
	tcase_add_test(tc, test_timeseries);
	tcase_add_test(tc, test_collectors_metrics);
	tcase_add_test(tc, test_collectors_missing);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	sr = srunner_create(collect_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
