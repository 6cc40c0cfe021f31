// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's stall watcher (agent/stallwatch.c) on a tree of captured
 * files laid out as / is in a guest: /proc/vmstat of a swap-over-iSCSI
 * cell (tests/data/io/swap-raid1-iscsi-6.1), /proc/stat and a disk's
 * /sys/block/DEV/stat and inflight captured on the lab host, one
 * /proc/stat while a task waited for I/O (procs_blocked 1) and one while
 * none did (tests/data/stall/README.md). The files do not change between
 * seconds unless a test rewrites them: nothing moves.
 *
 * The bug: once the counters stood still the watcher scanned /proc,
 * opening /proc/PID/stat for every task, and in a guest stuck in reclaim
 * that open blocked in reclaim too (run 20261205-033306-2dd9): no dump.
 * Here every open fails once the watcher has started (RLIMIT_NOFILE at
 * the lowest free descriptor), as an open that never returns would: the
 * watcher must still take both dumps.
 *
 * The same bug a second way: tasks stalled in reclaim need not wait for
 * I/O (throttle_direct_reclaim's wait is killable, not io_schedule, and
 * mempool_alloc's waiters wake every 5 s), so procs_blocked can read 0
 * while the guest is stuck, and the watcher scanned /proc then. Run
 * 20261205-083330-7fbb cell 2 (debian-6.1, swap on md RAID1 over iSCSI)
 * stood 71 s with no block I/O at all; its /proc/pressure/memory "some"
 * total grew from 0 to 145.6 s over its 150 s workload
 * (tests/data/stall/README.md).
 */
#include <check.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/stallwatch.h"
#include "util/num.h"
#include "util/strbuf.h"

#include "testdata.h"

#define VMSTAT_BEFORE "io/swap-raid1-iscsi-6.1/vmstat.before"
#define VMSTAT_AFTER "io/swap-raid1-iscsi-6.1/vmstat.after"

/* Write tests/data/FROM over DIR/TO (truncated in place: fds stay). */
static void put(const char *dir, const char *to, const char *from)
{
	struct strbuf sb = STRBUF_INIT;
	char p[512];
	int fd;

	testdata_read(&sb, "%s", from);
	snprintf(p, sizeof(p), "%s%s", dir, to);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, sb.buf, sb.len), (ssize_t)sb.len);
	close(fd);
	strbuf_release(&sb);
}

/* A guest's / in a temporary directory: /proc has no task directories. */
static char *tree(const char *proc_stat)
{
	static const char *const dirs[] = { "/proc",	      "/proc/pressure",
					    "/sys",	      "/sys/block",
					    "/sys/block/vda", "/dev" };
	char *dir = strdup("/tmp/wblab-watch-XXXXXX");
	char p[512];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", dir, dirs[i]);
		ck_assert_int_eq(mkdir(p, 0755), 0);
	}
	put(dir, "/proc/vmstat", VMSTAT_AFTER);
	put(dir, "/proc/stat", proc_stat);
	put(dir, "/proc/pressure/memory", "stall/watch/psi-memory.before");
	put(dir, "/sys/block/vda/stat", "stall/watch/vda.stat.1");
	put(dir, "/sys/block/vda/inflight", "stall/watch/vda.inflight");
	put(dir, "/dev/kmsg", "stall/watch/empty");
	put(dir, "/proc/sysrq-trigger", "stall/watch/empty");
	return dir;
}

static void slurp(struct strbuf *sb, const char *dir, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", dir, name);
	strbuf_reset(sb);
	ck_assert_int_ge(strbuf_read_file(sb, p), 0);
}

/* One second of fn's watching in which every open() fails (EMFILE). */
static bool no_files(struct watch *w, bool (*fn)(struct watch *))
{
	struct rlimit rl, low;
	int fd = dup(0);
	bool done;

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	low.rlim_cur = fd;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	ck_assert_int_lt(open("/dev/null", O_RDONLY), 0);
	done = fn(w);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	return done;
}

static bool tick_no_files(struct watch *w)
{
	return no_files(w, watch_tick);
}

/*
 * n seconds of watching while DIR/TO alternates between tests/data files
 * a (even seconds) and b (odd): true once the watcher is done.
 */
static bool ticks_toggling(struct watch *w, const char *dir, const char *to,
			   const char *a, const char *b, int n)
{
	bool done = false;

	for (int i = 0; i < n && !done; i++) {
		put(dir, to, i % 2 ? b : a);
		done = watch_tick(w);
	}
	return done;
}

/*
 * DIR/TO toggling as above while the watcher (window 3 s, gap 2 s) must
 * not count it as progress: dump 1 after 3 s, dump 2 after the gap, so
 * done in the fifth second and not before.
 */
static void dumps_in_5_s(struct watch *w, const char *dir, const char *to,
			 const char *a, const char *b)
{
	ck_assert(!ticks_toggling(w, dir, to, a, b, 4));
	ck_assert(ticks_toggling(w, dir, to, b, a, 1));
}

START_TEST(test_watch_stuck_opens_nothing)
{
	struct strbuf k = STRBUF_INIT;
	char *dir = tree("stall/watch/proc-stat.blocked");
	struct watch w;

	ck_assert_int_eq(watch_open(&w, dir, 3, 2, getsid(0)), 0);
	ck_assert_int_eq(w.nr_dev, 1);
	ck_assert(!tick_no_files(&w));
	ck_assert(!tick_no_files(&w));
	ck_assert(!tick_no_files(&w)); /* 3 s still: dump 1 */
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_ptr_nonnull(strstr(
		k.buf,
		"wblab: stall dump 1: no progress for 3 s, 1 tasks waiting for I/O\n"));
	/* the counters of the captured files (awk over them) */
	ck_assert_ptr_nonnull(strstr(
		k.buf,
		"wblab: stall dump 1 vm pswpout 76633 pgpgout 306892 nr_free_pages 93064 nr_writeback 0 memstall_us 0 workload 0\n"));
	ck_assert_ptr_nonnull(strstr(
		k.buf,
		"wblab: stall dump 1 dev vda done 13101097 inflight 0 0\n"));
	ck_assert_ptr_null(strstr(k.buf, "dump 2"));
	ck_assert(!tick_no_files(&w));
	ck_assert(tick_no_files(&w)); /* the gap: dump 2, done */
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_ptr_nonnull(strstr(
		k.buf,
		"wblab: stall dump 2: no progress for 5 s, 1 tasks waiting for I/O\n"));
	ck_assert_ptr_nonnull(strstr(k.buf, "wblab: stall dump 2 end\n"));
	ck_assert_ptr_null(strstr(k.buf, "sysrq-trigger:"));
	slurp(&k, dir, "/proc/sysrq-trigger");
	ck_assert_str_eq(k.buf, "tt");
	ck_assert(tick_no_files(&w));
	/*
	 * After dump 2: still stuck for 2 s, opening nothing; swap-out moves
	 * once (the earlier vmstat) and stands still again: not an end. Then
	 * it moves 3 s in a row, and the stall ended after the 3 + 2 + 4 s
	 * nothing moved before them, said once.
	 */
	ck_assert(!no_files(&w, watch_ended));
	ck_assert(!no_files(&w, watch_ended));
	put(dir, "/proc/vmstat", VMSTAT_BEFORE);
	ck_assert(!no_files(&w, watch_ended));
	ck_assert(!no_files(&w, watch_ended));
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_ptr_null(strstr(k.buf, "ended"));
	put(dir, "/proc/vmstat", VMSTAT_AFTER);
	ck_assert(!watch_ended(&w));
	put(dir, "/proc/vmstat", VMSTAT_BEFORE);
	ck_assert(!watch_ended(&w));
	put(dir, "/proc/vmstat", VMSTAT_AFTER);
	ck_assert(no_files(&w, watch_ended));
	ck_assert(watch_ended(&w));
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_ptr_nonnull(
		strstr(k.buf, "wblab: stall ended: progress after 9 s\n"));
	ck_assert_ptr_null(strstr(strstr(k.buf, "ended") + 1, "ended"));
	strbuf_release(&k);
	free(dir);
}
END_TEST

/*
 * Nobody waits for I/O (procs_blocked 0) but tasks stall on memory: the
 * PSI total changes every second (the stuck 6.1 cell's two readings in
 * turn, as it only ever grows in a guest) while nothing else moves. The
 * watcher must dump without scanning /proc: every open fails.
 */
START_TEST(test_watch_memory_stall_opens_nothing)
{
	struct strbuf k = STRBUF_INIT;
	char *dir = tree("stall/watch/proc-stat.idle");
	struct watch w;
	bool done = false;

	put(dir, "/proc/vmstat", "stall/watch/vmstat-6.1-stuck");
	ck_assert_int_eq(watch_open(&w, dir, 3, 2, getsid(0)), 0);
	/* seconds 1-3 read after, before, after; 4 is the gap (no reading) */
	for (int i = 0; i < 5; i++) {
		put(dir, "/proc/pressure/memory",
		    i == 1 || i == 4 ? "stall/watch/psi-memory.before" :
				       "stall/watch/psi-memory.after");
		ck_assert(!done);
		done = tick_no_files(&w);
	}
	ck_assert(done);
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_ptr_nonnull(strstr(
		k.buf,
		"wblab: stall dump 1: no progress for 3 s, 0 tasks waiting for I/O, tasks stalled on memory\n"));
	/* the stuck cell's vmstat.after and PSI reading (awk over them) */
	ck_assert_ptr_nonnull(strstr(
		k.buf,
		"wblab: stall dump 1 vm pswpout 31670 pgpgout 127027 nr_free_pages 83393 nr_writeback 234 memstall_us 145576941 workload 0\n"));
	ck_assert_ptr_nonnull(strstr(
		k.buf,
		"wblab: stall dump 2: no progress for 5 s, 0 tasks waiting for I/O, tasks stalled on memory\n"));
	slurp(&k, dir, "/proc/sysrq-trigger");
	ck_assert_str_eq(k.buf, "tt");
	strbuf_release(&k);
	free(dir);
}
END_TEST

/* The counters move every second (the two readings of the cell): no dump. */
START_TEST(test_watch_moving_no_dump)
{
	struct strbuf k = STRBUF_INIT;
	char *dir = tree("stall/watch/proc-stat.blocked");
	struct watch w;

	ck_assert_int_eq(watch_open(&w, dir, 3, 2, getsid(0)), 0);
	ck_assert(!ticks_toggling(&w, dir, "/proc/vmstat", VMSTAT_BEFORE,
				  VMSTAT_AFTER, 10));
	/* a disk that completes I/O is progress too */
	ck_assert(!ticks_toggling(&w, dir, "/sys/block/vda/stat",
				  "stall/watch/vda.stat.2",
				  "stall/watch/vda.stat.1", 10));
	ck_assert(watch_ended(&w)); /* no dump 2: nothing to end */
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_str_eq(k.buf, "");
	strbuf_release(&k);
	free(dir);
}
END_TEST

/*
 * Shape A on debian-6.1 (run 20261205-103949-5c22, cell 2, attempt 1):
 * md0 kept 3 writes in flight while swap-in reads still completed, and
 * the watcher, counting those reads as progress, took no dump in the
 * last 35 s of a standstill. Reads complete every second here (a loop
 * device's stat before and after 100 O_DIRECT reads, writes unchanged)
 * while the device holds md0's 3 writes: both dumps must come.
 */
#define STAT_BASE "stall/watch/loop.stat.1"
#define STAT_READ "stall/watch/loop.stat.2"

START_TEST(test_watch_reads_under_held_writes)
{
	struct strbuf k = STRBUF_INIT;
	char *dir = tree("stall/watch/proc-stat.blocked");
	struct watch w;

	put(dir, "/sys/block/vda/stat", STAT_BASE);
	put(dir, "/sys/block/vda/inflight", "stall/watch/md0.inflight.stuck");
	ck_assert_int_eq(watch_open(&w, dir, 3, 2, getsid(0)), 0);
	dumps_in_5_s(&w, dir, "/sys/block/vda/stat", STAT_READ, STAT_BASE);
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_ptr_nonnull(strstr(
		k.buf, "wblab: stall dump 1 dev vda done 250 inflight 0 3\n"));
	ck_assert_ptr_nonnull(strstr(k.buf, "wblab: stall dump 2 end\n"));
	strbuf_release(&k);
	free(dir);
}
END_TEST

/*
 * Swap-out submitted, nothing completed: the lab's 6.12 on a lost network
 * (run 20261206-103428-342a, cell 13) had md0's writes in flight grow from
 * 36 to 588 and pswpout from 58 to 616 while no device completed any I/O
 * for 120 s, and the watcher, counting pswpout as progress, found each of
 * four standstills "recovered": no `stall`. pswpout and pgpgout move every
 * second here (the cell's two readings) while the disk's completions stand
 * and it holds md0's 3 writes: both dumps must come.
 */
START_TEST(test_watch_submissions_under_held_writes)
{
	struct strbuf k = STRBUF_INIT;
	char *dir = tree("stall/watch/proc-stat.blocked");
	struct watch w;

	put(dir, "/sys/block/vda/inflight", "stall/watch/md0.inflight.stuck");
	ck_assert_int_eq(watch_open(&w, dir, 3, 2, getsid(0)), 0);
	dumps_in_5_s(&w, dir, "/proc/vmstat", VMSTAT_BEFORE, VMSTAT_AFTER);
	/* Nor do submissions alone end it: only completions would. */
	for (int i = 0; i < 2 * WATCH_ENDED_S; i++) {
		put(dir, "/proc/vmstat", i % 2 ? VMSTAT_AFTER : VMSTAT_BEFORE);
		ck_assert(!watch_ended(&w));
	}
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_ptr_nonnull(strstr(k.buf, "wblab: stall dump 2 end\n"));
	ck_assert_ptr_null(strstr(k.buf, "stall ended"));
	strbuf_release(&k);
	free(dir);
}
END_TEST

/* The same reads with no write in flight (a reader): progress, no dump. */
START_TEST(test_watch_reads_alone_progress)
{
	struct strbuf k = STRBUF_INIT;
	char *dir = tree("stall/watch/proc-stat.blocked");
	struct watch w;

	put(dir, "/sys/block/vda/stat", STAT_BASE);
	ck_assert_int_eq(watch_open(&w, dir, 3, 2, getsid(0)), 0);
	ck_assert(!ticks_toggling(&w, dir, "/sys/block/vda/stat", STAT_READ,
				  STAT_BASE, 10));
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_str_eq(k.buf, "");
	strbuf_release(&k);
	free(dir);
}
END_TEST

/* Nothing moves, nobody waits for I/O and /proc has no task: no dump. */
START_TEST(test_watch_idle_no_dump)
{
	struct strbuf k = STRBUF_INIT;
	char *dir = tree("stall/watch/proc-stat.idle");
	struct watch w;

	ck_assert_int_eq(watch_open(&w, dir, 3, 2, getsid(0)), 0);
	for (int i = 0; i < 10; i++)
		ck_assert(!watch_tick(&w));
	slurp(&k, dir, "/dev/kmsg");
	ck_assert_str_eq(k.buf, "");
	strbuf_release(&k);
	free(dir);
}
END_TEST

/*
 * num_field() (util/num.h), which the watcher, the sampler (hog.c) and the
 * oomwatch read their counters with, on the guests' own files. A key
 * that is only a prefix of a line's key, or a part of one, is not in the
 * file and reads -1: matching the prefix alone (strtoll after it) reads 0
 * for "workingset_refault" (the name before 5.9, now _anon and _file),
 * "oom_group" and "MemFree"; hog.c's strstr() anywhere also read 659,
 * nr_zone_inactive_anon's, for memory.stat's "inactive_anon".
 */
static long long field_of(const char *file, const char *key)
{
	struct strbuf sb = STRBUF_INIT;
	long long v;

	testdata_read(&sb, "%s", file);
	v = num_field(sb.buf, key);
	strbuf_release(&sb);
	return v;
}

START_TEST(test_watch_num_field)
{
	const char *vm = "stall/watch/vmstat-6.1-stuck";
	const char *mi = "cell-smoke/meminfo.after";
	const char *ev = "collect/mixed-reclaim-memcg/memcg.events";

	ck_assert_int_eq(field_of(vm, "nr_free_pages"), 83393); /* line 1 */
	ck_assert_int_eq(field_of(vm, "pgpgout"), 127027);
	ck_assert_int_eq(field_of(vm, "nr_writeback"), 234);
	ck_assert_int_eq(field_of(vm, "nr_writeback_temp"), 0);
	ck_assert_int_eq(field_of(vm, "pgscan_direct"), 43901);
	ck_assert_int_eq(field_of(vm, "workingset_refault_anon"), 25);
	ck_assert_int_eq(field_of(vm, "workingset_refault"), -1);
	ck_assert_int_eq(field_of(vm, "inactive_anon"), -1);
	ck_assert_int_eq(field_of(vm, "pgpgoutclean"), -1); /* longer */
	/* meminfo's keys are spelt with their colon, values in kB */
	ck_assert_int_eq(field_of(mi, "MemFree:"), 625028);
	ck_assert_int_eq(field_of(mi, "MemAvailable:"), 810712);
	ck_assert_int_eq(field_of(mi, "Cached:"), 308992);
	ck_assert_int_eq(field_of(mi, "Dirty:"), 16);
	ck_assert_int_eq(field_of(mi, "MemFree"), -1);
	ck_assert_int_eq(field_of(ev, "oom"), 8);
	ck_assert_int_eq(field_of(ev, "oom_kill"), 4);
	ck_assert_int_eq(field_of(ev, "oom_group_kill"), 0);
	ck_assert_int_eq(field_of(ev, "oom_group"), -1);
	ck_assert_int_eq(
		field_of("stall/watch/proc-stat.blocked", "procs_blocked"), 1);
	ck_assert_int_eq(field_of("stall/watch/proc-pid-io", "read_bytes:"),
			 135168);
	ck_assert_int_eq(field_of("stall/watch/proc-pid-io", "write_bytes:"),
			 1081344);
	ck_assert_int_eq(field_of("stall/watch/empty", "pgpgout"), -1);
}
END_TEST

static Suite *watch_suite(void)
{
	Suite *s = suite_create("watch");
	TCase *t = tcase_create("core");

	tcase_add_test(t, test_watch_stuck_opens_nothing);
	tcase_add_test(t, test_watch_memory_stall_opens_nothing);
	tcase_add_test(t, test_watch_moving_no_dump);
	tcase_add_test(t, test_watch_idle_no_dump);
	tcase_add_test(t, test_watch_reads_under_held_writes);
	tcase_add_test(t, test_watch_reads_alone_progress);
	tcase_add_test(t, test_watch_submissions_under_held_writes);
	tcase_add_test(t, test_watch_num_field);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(watch_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
