// SPDX-License-Identifier: GPL-2.0
/*
 * Stack sites, reclaim windows, SysRq-t and OOM facts on real cell files
 * (tests/data/stack/README.md says where they come from). The expected
 * figures were computed independently of wblab from the same files.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/blocked.h"
#include "collect/console.h"
#include "collect/oom.h"
#include "collect/stack.h"
#include "collect/stackprobe.h"
#include "collect/stackwrite.h"
#include "util/json.h"
#include "util/kallsyms.h"
#include "util/log.h"
#include "util/num.h"
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

static const char *sat(json_object *o, const char *path)
{
	json_object *v = at(o, path);

	ck_assert_msg(v != NULL, "no %s", path);
	return json_object_get_string(v);
}

#define DEB "stack/debian-6.1-ext4-memcg/"
#define OVL "stack/debian-6.1-overlay-raid-iscsi-ext4/"
#define KV "stack/6.1-ext4-dirty-flood-kver/"
#define LAB "stack/lab-6.1-ext4-stack-reclaim-write/"
#define LABDW "stack/lab-6.1-dw-ext4-stack-reclaim-write/"
#define SWAP "io/swap-raid1-iscsi-6.1/"
#define LEAF "stack/lab-6.1-dw-ext4-leaf/"

static const struct stack_site *site(const char *name)
{
	for (size_t i = 0; i < nr_stack_sites; i++)
		if (!strcmp(stack_sites[i].name, name))
			return &stack_sites[i];
	ck_abort_msg("no site %s", name);
	return NULL;
}

START_TEST(test_hist)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *h;

	testdata_read(&sb, DEB "stack_hist.submit_bio_noacct");
	h = stack_hist_summary(sb.buf, sb.len, 16384, NULL);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(iat(h, "samples"), 14094);
	ck_assert_int_eq(iat(h, "max_bytes"), 3184);
	ck_assert_int_eq(iat(h, "p99_bytes"), 2144);
	ck_assert_int_eq(iat(h, "min_bytes"), 656);
	ck_assert_int_eq(iat(h, "dropped"), 0);
	json_object_put(h);

	testdata_read(&sb, DEB "stack_hist.try_to_free_mem_cgroup_pages");
	h = stack_hist_summary(sb.buf, sb.len, 16384, NULL);
	ck_assert_int_eq(iat(h, "samples"), 3663);
	ck_assert_int_eq(iat(h, "max_bytes"), 2552);
	ck_assert_int_eq(iat(h, "p99_bytes"), 2368);
	json_object_put(h);

	/* Armed but never hit: zero samples, no depth at all. */
	testdata_read(&sb, DEB "stack_hist.balance_pgdat");
	h = stack_hist_summary(sb.buf, sb.len, 16384, NULL);
	ck_assert_int_eq(iat(h, "samples"), 0);
	ck_assert_ptr_null(at(h, "max_bytes"));
	json_object_put(h);

	/* Not a hist file. */
	ck_assert_ptr_null(stack_hist_summary("nothing\n", 8, 16384, NULL));
	strbuf_release(&sb);
}
END_TEST

START_TEST(test_absent)
{
	struct strbuf ev = STRBUF_INIT, ks = STRBUF_INIT, al = STRBUF_INIT;
	char *why;

	testdata_read(&ev, DEB "kprobe_events");
	testdata_read(&ks, DEB "stack_kallsyms.txt");
	testdata_read(&al, DEB "agent.log");
	ck_assert_ptr_null(stack_site_absent(site("submit_bio_noacct"), ev.buf,
					     ks.buf, al.buf, NULL));
	/* A module symbol ("ext4_writepage\t[ext4]") counts as present. */
	ck_assert_ptr_null(stack_site_absent(site("ext4_writepage"), ev.buf,
					     ks.buf, al.buf, NULL));
	why = stack_site_absent(site("raid5_make_request"), ev.buf, ks.buf,
				al.buf, NULL);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, "not in the kernel's symbols"), "%s", why);
	free(why);
	/* Without the kallsyms grep, the agent's refusal is the reason. */
	why = stack_site_absent(site("xfs_vm_writepages"), ev.buf, NULL, al.buf,
				NULL);
	ck_assert_msg(strstr(why, "refused"), "%s", why);
	free(why);
	strbuf_release(&ev);
	strbuf_release(&ks);
	strbuf_release(&al);
}
END_TEST

/*
 * A real 6.1 cell whose plan armed only its version's allocator leaves:
 * a *_noprof site was never armed, and says so rather than blaming
 * kallsyms; an armed site is present.
 */
START_TEST(test_absent_not_armed)
{
	struct strbuf ev = STRBUF_INIT, ks = STRBUF_INIT, al = STRBUF_INIT;
	struct strbuf pl = STRBUF_INIT;
	char *why;

	testdata_read(&ev, KV "kprobe_events");
	testdata_read(&ks, KV "stack_kallsyms.txt");
	testdata_read(&al, KV "agent.log");
	testdata_read(&pl, KV "plan.txt");
	why = stack_site_absent(site("__alloc_pages_noprof"), ev.buf, ks.buf,
				al.buf, pl.buf);
	ck_assert_msg(why && strstr(why, "not armed"), "%s", why);
	free(why);
	ck_assert_ptr_null(stack_site_absent(site("__alloc_pages"), ev.buf,
					     ks.buf, al.buf, pl.buf));
	/* Without the plan (an older cell): kallsyms is the reason. */
	why = stack_site_absent(site("__alloc_pages_noprof"), ev.buf, ks.buf,
				al.buf, NULL);
	ck_assert_msg(why && strstr(why, "not in the kernel's symbols"), "%s",
		      why);
	free(why);
	strbuf_release(&ev);
	strbuf_release(&ks);
	strbuf_release(&al);
	strbuf_release(&pl);
}
END_TEST

static json_object *reclaim_write_of(const char *gz, long thread_size)
{
	struct strbuf t = STRBUF_INIT;
	struct stack_rw_input in = { .thread_size = thread_size };
	json_object *o;

	testdata_gunzip(&t, gz);
	in.trace = t.buf;
	in.trace_len = t.len;
	o = stack_reclaim_write(&in);
	strbuf_release(&t);
	return o;
}

START_TEST(test_reclaim_write_none)
{
	json_object *o = reclaim_write_of(DEB "stack_probe_trace.gz", 16384);

	ck_assert_int_eq(iat(o, "samples"), 788);
	ck_assert_int_eq(iat(o, "reclaim_windows"), 3663);
	/* Stock 6.1: memcg reclaim never wrote; 425 deep storage hits did not. */
	ck_assert_int_eq(iat(o, "writes"), 0);
	ck_assert_int_eq(iat(o, "not_write"), 425);
	ck_assert_ptr_null(at(o, "max_bytes"));
	/* Captured before the instance's stats were: loss unknown, said so. */
	ck_assert(json_object_is_type(at(o, "lost_events"), json_type_null));
	ck_assert(!json_object_get_boolean(at(o, "complete")));
	ck_assert_msg(strstr(sat(o, "lossy"), "unknown"), "%s",
		      sat(o, "lossy"));
	json_object_put(o);
}
END_TEST

START_TEST(test_oom_memcg)
{
	struct strbuf c = STRBUF_INIT;
	const char *w;
	size_t wl;
	json_object *o;

	testdata_read(&c, DEB "console.log");
	ck_assert(stack_console_window(c.buf, c.len, STACK_MARK_BEGIN,
				       STACK_MARK_END, &w, &wl));
	o = oom_facts(w, wl, console_line_ts(w, wl), NULL);
	ck_assert_int_eq(iat(o, "reports"), 4);
	/* Each report's kill: none left out by the rate limit here. */
	ck_assert_int_eq(iat(o, "kills"), 4);
	ck_assert_int_eq(iat(o, "unreported_kills"), 0);
	ck_assert_int_eq(iat(o, "premature"), 0);
	/* "memory: usage 262144kB, limit 262144kB, failcnt 7892" */
	ck_assert_int_eq(iat(o, "events.0.limit_kb"), 262144);
	ck_assert(!json_object_get_boolean(at(o, "events.0.premature")));
	ck_assert_double_eq_tol(json_object_get_double(at(o, "first_oom_s")),
				8.971, 0.0005);
	ck_assert_str_eq(sat(o, "events.0.kind"), "memcg");
	ck_assert_str_eq(sat(o, "events.0.memcg"), "/wblab");
	ck_assert_int_eq(iat(o, "events.0.file_kb"), 2408448 / 1024);
	ck_assert_int_eq(iat(o, "events.3.file_kb"), 73728 / 1024);
	ck_assert_int_eq(iat(o, "events.0.dirty_kb"), 0);
	json_object_put(o);
	strbuf_release(&c);
}
END_TEST

/* The console parser's OOM events carry the same memory.stat facts. */
START_TEST(test_console_oom_detail)
{
	struct console_report r;
	char *p = testdata_path(DEB "console.log");

	console_report_init(&r);
	ck_assert_int_eq(console_parse_file(p, &r), 0);
	ck_assert_int_eq(r.nr_events, 4);
	for (size_t i = 0; i < r.nr_events; i++) {
		ck_assert_str_eq(r.events[i].kind, "oom");
		ck_assert_int_eq(iat(r.events[i].detail, "file_dirty_bytes"),
				 0);
		ck_assert_int_eq(
			iat(r.events[i].detail, "file_writeback_bytes"), 0);
	}
	ck_assert_int_eq(r.events[2].line, 626);
	console_report_free(&r);
	free(p);
}
END_TEST

/* The seed's layers, each a module on Debian's kernel: all present. */
START_TEST(test_layers_present)
{
	struct strbuf ev = STRBUF_INIT, ks = STRBUF_INIT, sb = STRBUF_INIT;
	json_object *h;

	testdata_read(&ev, OVL "kprobe_events");
	testdata_read(&ks, OVL "stack_kallsyms.txt");
	static const char *const seed[] = { "try_to_free_mem_cgroup_pages",
					    "ext4_writepage",
					    "submit_bio_noacct",
					    "raid5_make_request",
					    "scsi_queue_rq",
					    "iscsi_queuecommand",
					    "virtio_queue_rq" };
	char *why;

	for (size_t i = 0; i < ARRAY_SIZE(seed); i++) {
		why = stack_site_absent(site(seed[i]), ev.buf, ks.buf, NULL,
					NULL);
		ck_assert_msg(!why, "%s: %s", seed[i], why);
	}
	/* XFS is not in this topology, so its module was never loaded. */
	why = stack_site_absent(site("xfs_vm_writepages"), ev.buf, ks.buf, NULL,
				NULL);
	ck_assert_ptr_nonnull(why);
	free(why);
	testdata_read(&sb, OVL "stack_hist.raid5_make_request");
	h = stack_hist_summary(sb.buf, sb.len, 16384, NULL);
	ck_assert_int_eq(iat(h, "samples"), 304);
	ck_assert_int_eq(iat(h, "max_bytes"), 2800);
	ck_assert_int_eq(iat(h, "p99_bytes"), 2128);
	ck_assert_int_eq(iat(h, "min_bytes"), 400);
	json_object_put(h);
	testdata_read(&sb, OVL "stack_hist.iscsi_queuecommand");
	h = stack_hist_summary(sb.buf, sb.len, 16384, NULL);
	ck_assert_int_eq(iat(h, "samples"), 811);
	ck_assert_int_eq(iat(h, "max_bytes"), 2128);
	json_object_put(h);
	strbuf_release(&ev);
	strbuf_release(&ks);
	strbuf_release(&sb);
}
END_TEST

/*
 * The lab kernel has DEBUG_STACK_USAGE: SysRq-t gives every task's free
 * stack, and of the seven "used greatest stack depth" records on the
 * console only the one set during the workload counts.
 */
START_TEST(test_sysrq_and_window)
{
	struct strbuf c = STRBUF_INIT;
	const char *w;
	size_t wl;
	json_object *o;

	testdata_read(&c, LAB "console.log");
	ck_assert(stack_console_window(c.buf, c.len, STACK_MARK_SYSRQ, NULL, &w,
				       &wl));
	o = stack_sysrq_tasks(w, wl, 16384, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(iat(o, "tasks"), 58);
	ck_assert_str_eq(sat(o, "kswapd.0.comm"), "kswapd0");
	ck_assert_int_eq(iat(o, "kswapd.0.free_bytes"), 15008);
	ck_assert_int_eq(iat(o, "kswapd.0.depth_bytes"), 16384 - 15008);
	ck_assert_str_eq(sat(o, "deepest.comm"), "kworker/u4:0");
	ck_assert_int_eq(iat(o, "deepest.free_bytes"), 12504);
	/* No hog in this workload, and fio's workers have exited. */
	ck_assert_int_eq(json_object_array_length(at(o, "workload")), 0);
	json_object_put(o);

	o = stack_console_usage(c.buf, c.len, 16384, NULL);
	ck_assert_int_eq(iat(o, "count"), 7);
	json_object_put(o);
	ck_assert(stack_console_window(c.buf, c.len, STACK_MARK_BEGIN,
				       STACK_MARK_END, &w, &wl));
	o = stack_console_usage(w, wl, 16384, NULL);
	ck_assert_int_eq(iat(o, "count"), 1);
	ck_assert_str_eq(sat(o, "lines.0.comm"), "fio");
	ck_assert_int_eq(iat(o, "lines.0.pid"), 104);
	ck_assert_int_eq(iat(o, "min_bytes_left"), 12760);
	json_object_put(o);
	/* Debian's kernel prints stack:0 for every task: no figures. */
	testdata_read(&c, DEB "console.log");
	ck_assert(stack_console_window(c.buf, c.len, STACK_MARK_SYSRQ, NULL, &w,
				       &wl));
	ck_assert_ptr_null(stack_sysrq_tasks(w, wl, 16384, NULL));
	strbuf_release(&c);
}
END_TEST

/* The D-state tasks of a captured console's SysRq-t dump. */
static json_object *blocked_in(struct strbuf *c, const char *file)
{
	const char *w;
	size_t wl;

	testdata_read(c, file);
	ck_assert(stack_console_window(c->buf, c->len, STACK_MARK_SYSRQ, NULL,
				       &w, &wl));
	return blocked_tasks(w, wl, NULL);
}

/*
 * swap-direct on debian-6.12, swap on md RAID1 of two iSCSI LUNs: the
 * hog's step timed out with three tasks in D state, all in md's bio
 * mempool, among them virtio-net's rx refill worker, whose completions
 * the writes wait for. No other SysRq-t dump of the lab has a D task.
 */
START_TEST(test_blocked_tasks)
{
	struct strbuf c = STRBUF_INIT;
	json_object *o;

	o = blocked_in(&c, "console/swap-deadlock-6.12.log");
	ck_assert_int_eq(iat(o, "count"), 3);
	ck_assert_str_eq(sat(o, "tasks.0.comm"), "kworker/1:0");
	ck_assert_int_eq(iat(o, "tasks.0.pid"), 28);
	ck_assert_str_eq(sat(o, "tasks.0.work"), "refill_work");
	ck_assert_str_eq(sat(o, "tasks.0.wait"), "mempool_alloc_noprof");
	ck_assert_ptr_null(at(o, "tasks.1.work"));
	/* Scheduler frames kept in the chain, "?" frames left out. */
	ck_assert_str_eq(sat(o, "tasks.0.frames.0"), "__schedule");
	ck_assert_str_eq(sat(o, "tasks.0.frames.5"), "bio_alloc_bioset");
	ck_assert_str_eq(sat(o, "tasks.1.comm"), "kswapd0");
	ck_assert_str_eq(sat(o, "tasks.1.wait"), "mempool_alloc_noprof");
	ck_assert_str_eq(sat(o, "tasks.2.comm"), "md0_raid1");
	ck_assert_int_eq(iat(o, "tasks.2.pid"), 178);
	ck_assert_int_eq(json_object_array_length(at(o, "tasks.0.frames")),
			 BLOCKED_MAX_FRAMES);
	json_object_put(o);
	/* An idle kworker's "Workqueue:  0x0 (events_highpri)": no work. */
	o = blocked_in(&c, "console/swap-deadlock-6.12-b.log");
	ck_assert_int_eq(iat(o, "count"), 8);
	ck_assert_str_eq(sat(o, "tasks.1.comm"), "kworker/0:0H");
	ck_assert_ptr_null(at(o, "tasks.1.work"));
	ck_assert_str_eq(sat(o, "tasks.3.work"), "refill_work");
	ck_assert_str_eq(sat(o, "tasks.7.comm"), "wblab-sampler");
	ck_assert_str_eq(sat(o, "tasks.7.wait"), "throttle_direct_reclaim");
	json_object_put(o);
	/* A dump without a D task, and no dump at all. */
	o = blocked_in(&c, LAB "console.log");
	ck_assert_int_eq(iat(o, "count"), 0);
	ck_assert_int_eq(json_object_array_length(at(o, "tasks")), 0);
	json_object_put(o);
	o = blocked_tasks("", 0, NULL);
	ck_assert_int_eq(iat(o, "count"), 0);
	json_object_put(o);
	strbuf_release(&c);
}
END_TEST

/*
 * The revert: memcg reclaim writes ext4 folios down to the block layer.
 * Of the 1934 deep storage-layer hits, 1790 fell in a reclaim window, and
 * only 1783 have pageout() in their chain: 7 were virtio_queue_rqs by fio
 * inside a memcg reclaim window that reclaim did not write (a plug flush).
 */
START_TEST(test_reclaim_write_dw)
{
	json_object *o = reclaim_write_of(LABDW "stack_probe_trace.gz", 16384);
	json_object *chain;
	bool fs = false;

	ck_assert_int_eq(iat(o, "samples"), 3717);
	ck_assert_int_eq(iat(o, "reclaim_windows"), 610);
	ck_assert_int_eq(iat(o, "writes"), 1783);
	ck_assert_int_eq(iat(o, "not_write"), 151);
	ck_assert_int_eq(iat(o, "no_chain"), 0);
	ck_assert_int_eq(iat(o, "by_class.memcg.writes"), 1783);
	ck_assert_int_eq(iat(o, "max_bytes"), 2480);
	ck_assert_int_eq(iat(o, "entry.max_bytes"), 2480);
	ck_assert_int_eq(iat(o, "headroom_bytes"), 16384 - 2480);
	ck_assert_str_eq(sat(o, "site"), "submit_bio_noacct");
	ck_assert_str_eq(sat(o, "class"), "memcg");
	ck_assert_str_eq(sat(o, "comm"), "fio");
	ck_assert_int_eq(iat(o, "pid"), 107);
	chain = at(o, "chain");
	/* From the probed function outwards, the kprobe's own frames gone. */
	ck_assert_str_eq(sat(o, "chain.0"), "submit_bio_noacct");
	for (size_t i = 0; i < json_object_array_length(chain); i++)
		fs |= !strcmp(json_object_get_string(
				      json_object_array_get_idx(chain, i)),
			      "ext4_writepage");
	ck_assert(fs);
	json_object_put(o);
}
END_TEST

/*
 * Swap on md RAID1 over iSCSI (6.1, swap-memcg; tests/data/io/README.md):
 * the instance's buffers filled and dropped 437379 samples (287754 +
 * 149625, stack_trace_stats.txt), so the figure says it is a lower bound.
 * Of the 16457 deep storage samples kept, 16339 hold pageout() (here
 * through __swap_writepage), 2 lost their stack trace; the deepest, 2768
 * B at iscsi_queuecommand, is the hog's page fault's memcg reclaim
 * (tests/data/stack/rw.py gives the same figures). The guest's kallsyms
 * say 16 KiB stacks.
 */
START_TEST(test_reclaim_write_lossy)
{
	struct strbuf t = STRBUF_INIT, st = STRBUF_INIT, ks = STRBUF_INIT;
	struct stack_rw_input in = { 0 };
	json_object *o;

	testdata_read(&ks, SWAP "stack_kallsyms.txt");
	ck_assert_int_eq(ksyms_thread_size(ks.buf, ks.len), 16384);
	testdata_gunzip(&t, SWAP "stack_probe_trace.gz");
	testdata_read(&st, SWAP "stack_trace_stats.txt");
	in = (struct stack_rw_input){ .trace = t.buf,
				      .trace_len = t.len,
				      .stats = st.buf,
				      .stats_len = st.len,
				      .thread_size = 16384 };
	o = stack_reclaim_write(&in);
	ck_assert_int_eq(iat(o, "lost_events"), 437379);
	ck_assert(!json_object_get_boolean(at(o, "complete")));
	ck_assert_msg(strstr(sat(o, "lossy"), "dropped"), "%s",
		      sat(o, "lossy"));
	ck_assert_int_eq(iat(o, "samples"), 16457);
	ck_assert_int_eq(iat(o, "writes"), 16339);
	ck_assert_int_eq(iat(o, "no_chain"), 2);
	ck_assert_int_eq(iat(o, "not_write"), 116);
	ck_assert_int_eq(iat(o, "max_bytes"), 2768);
	ck_assert_str_eq(sat(o, "site"), "iscsi_queuecommand");
	ck_assert_str_eq(sat(o, "class"), "memcg");
	ck_assert_str_eq(sat(o, "comm"), "wblab-hog");
	json_object_put(o);
	strbuf_release(&t);
	strbuf_release(&st);
	strbuf_release(&ks);
}
END_TEST

/*
 * The leaves (tests/data/stack/README.md, lab-6.1-dw-ext4-leaf): on the
 * revert, memcg reclaim's ext4 write went 576 B below its entry to
 * submit_bio_noacct (2480 B): to 3056 B at __alloc_pages, allocating the
 * bio's slab (ext4_bio_write_page -> bio_alloc_bioset -> mempool_alloc ->
 * kmem_cache_alloc). rw.py: 842 of 1540 leaf samples and 278 of 484 deep
 * storage samples hold pageout(); nothing lost. The stack tracer's chain
 * gives __alloc_pages' own frame, 56 B.
 */
START_TEST(test_reclaim_write_leaf)
{
	struct strbuf t = STRBUF_INIT, l = STRBUF_INIT, st = STRBUF_INIT;
	struct stack_rw_input in;
	json_object *o;

	testdata_gunzip(&t, LEAF "stack_probe_trace.gz");
	testdata_gunzip(&l, LEAF "stack_leaf_trace.gz");
	testdata_read(&st, LEAF "stack_trace_stats.txt");
	in = (struct stack_rw_input){ .trace = t.buf,
				      .trace_len = t.len,
				      .leaf = l.buf,
				      .leaf_len = l.len,
				      .stats = st.buf,
				      .stats_len = st.len,
				      .thread_size = 16384 };
	o = stack_reclaim_write(&in);
	ck_assert(json_object_get_boolean(at(o, "complete")));
	ck_assert_int_eq(iat(o, "lost_events"), 0);
	ck_assert_int_eq(iat(o, "leaf_lost_events"), 0);
	ck_assert_int_eq(iat(o, "writes"), 278);
	ck_assert_int_eq(iat(o, "not_write"), 206);
	ck_assert_int_eq(iat(o, "leaf_samples"), 1540);
	ck_assert_int_eq(iat(o, "leaf_writes"), 842);
	ck_assert_int_eq(iat(o, "entry.max_bytes"), 2480);
	ck_assert_str_eq(sat(o, "entry.site"), "submit_bio_noacct");
	ck_assert_int_eq(iat(o, "max_bytes"), 3056);
	ck_assert_str_eq(sat(o, "site"), "__alloc_pages");
	ck_assert_str_eq(sat(o, "layer"), "leaf");
	ck_assert_str_eq(sat(o, "chain.4"), "mempool_alloc");
	ck_assert_str_eq(sat(o, "chain.8"), "pageout");
	json_object_put(o);
	strbuf_release(&t);
	strbuf_release(&l);
	strbuf_release(&st);
}
END_TEST

static const struct stack_site *site_named(const char *name)
{
	for (size_t i = 0; i < nr_stack_sites; i++)
		if (!strcmp(stack_sites[i].name, name))
			return &stack_sites[i];
	ck_abort_msg("no stack site %s", name);
	return NULL;
}

/*
 * 7.x's reclaim writes go through swap_writeout() and shmem_writeout()
 * (mm/vmscan.c pageout() of 7.2.13), and f2fs has no ->writepage: the
 * sites armed for a 7.2 release string, against 6.12's.
 */
START_TEST(test_sites_by_version)
{
	const unsigned int all = ~0u;
	int v72 = kver_parse("7.2.13+deb14-amd64");
	int v73 = kver_parse("7.3.0-rc7-wblab");
	int v612 = kver_parse("6.12.118-wblab");

	ck_assert_int_eq(v72, KVER(7, 2));
	ck_assert_int_eq(v73, KVER(7, 3));
	ck_assert(stack_site_on(site_named("swap_writeout"), v72, all));
	ck_assert(stack_site_on(site_named("shmem_writeout"), v73, all));
	ck_assert(!stack_site_on(site_named("swap_writepage"), v72, all));
	ck_assert(!stack_site_on(site_named("f2fs_write_data_page"), v72, all));
	ck_assert(stack_site_on(site_named("swap_writepage"), v612, all));
	ck_assert(!stack_site_on(site_named("swap_writeout"), v612, all));
	ck_assert(stack_site_on(site_named("f2fs_write_data_page"), v612, all));
	/* Unchanged on 7.2: the reclaim entries and the allocators' names. */
	ck_assert(stack_site_on(site_named("try_to_free_pages"), v72, all));
	ck_assert(stack_site_on(site_named("__alloc_pages_noprof"), v72, all));
	ck_assert(!stack_site_on(site_named("ext4_writepage"), v72, all));
	/* The virtqueue leaf: one frame up on 7.x, where the old is refused. */
	ck_assert(stack_site_on(site_named("virtqueue_add_sgs"), v72, all));
	ck_assert(!stack_site_on(site_named("virtqueue_add_split"), v72, all));
	ck_assert(stack_site_on(site_named("virtqueue_add_split"), v612, all));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stack");
	TCase *tc = tcase_create("stack");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_hist);
	tcase_add_test(tc, test_absent);
	tcase_add_test(tc, test_absent_not_armed);
	tcase_add_test(tc, test_reclaim_write_none);
	tcase_add_test(tc, test_oom_memcg);
	tcase_add_test(tc, test_console_oom_detail);
	tcase_add_test(tc, test_layers_present);
	tcase_add_test(tc, test_sysrq_and_window);
	tcase_add_test(tc, test_blocked_tasks);
	tcase_add_test(tc, test_reclaim_write_dw);
	tcase_add_test(tc, test_reclaim_write_lossy);
	tcase_add_test(tc, test_reclaim_write_leaf);
	tcase_add_test(tc, test_sites_by_version);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
