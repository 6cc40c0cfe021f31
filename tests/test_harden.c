// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile guest input: every parser of guest data on inputs built to hurt
 * it (huge lines and counts, deep nesting, NaN, overflowing numbers,
 * names that alias host keys), and the channel's frame decoder on
 * garbage, truncation and files it must refuse. Each fuzz finding is
 * added here too (tests/fuzz/README.md).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <unistd.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "artifact/seal.h"
#include "cell/cell.h"
#include "cell/collectors.h"
#include "cell/results.h"
#include "collect/console.h"
#include "collect/fio.h"
#include "collect/ops.h"
#include "collect/stack.h"
#include "collect/trace.h"
#include "collect/vmstat.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "virt/capture.h"
#include "virt/frames.h"
#include "virt/guest.h"

#include "testdata.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- frame decoder ---- */

struct seen {
	struct strbuf log; /* "T name len\n" per frame, "skip name why\n" */
	struct spec_strlist allow;
};

static const char *t_accept(void *arg, char type, const char *name, size_t len)
{
	struct seen *s = arg;

	if (type != 'F')
		return NULL;
	if (!spec_strlist_has(&s->allow, name))
		return "not asked for";
	return len > 1000 ? "over cap" : NULL;
}

static void t_frame(void *arg, char type, const char *name, const char *data,
		    size_t len)
{
	struct seen *s = arg;

	strbuf_addf(&s->log, "%c %s %zu %.*s\n", type, name, len,
		    (int)(len > 8 ? 8 : len), data);
}

static void t_skip(void *arg, char type, const char *name, size_t len,
		   const char *why)
{
	struct seen *s = arg;

	strbuf_addf(&s->log, "skip %s %zu %s\n", name, len, why);
}

static void dec_setup(struct frame_decoder *d, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	strbuf_init(&s->log, 0);
	spec_strlist_add(&s->allow, "fio.json");
	frame_decoder_init(d);
	d->accept = t_accept;
	d->on_frame = t_frame;
	d->on_skip = t_skip;
	d->arg = s;
}

static void dec_done(struct frame_decoder *d, struct seen *s)
{
	frame_decoder_release(d);
	strbuf_release(&s->log);
	spec_strlist_free(&s->allow);
}

START_TEST(frames_any_split_same_result)
{
	static const char in[] = "WBL1 H 5 hello\nabcdeWBL1 F 3 fio.json\n{}\n"
				 "WBL1 F 4 evil\nxxxxWBL1 X 0 ok\n";
	struct frame_decoder d;
	struct seen s;
	char *whole;

	dec_setup(&d, &s);
	ck_assert_int_eq(frame_feed(&d, in, sizeof(in) - 1), 0);
	ck_assert(frame_idle(&d));
	whole = xstrdup(s.log.buf);
	ck_assert_str_eq(whole, "H hello 5 abcde\nF fio.json 3 {}\n\n"
				"skip evil 4 not asked for\nX ok 0 \n");
	dec_done(&d, &s);
	/* Byte by byte: the same frames. */
	dec_setup(&d, &s);
	for (size_t i = 0; i < sizeof(in) - 1; i++)
		ck_assert_int_eq(frame_feed(&d, in + i, 1), 0);
	ck_assert_str_eq(s.log.buf, whole);
	dec_done(&d, &s);
	free(whole);
}
END_TEST

START_TEST(frames_garbage_is_an_error_with_a_reason)
{
	static const char *const bad[] = {
		"GET / HTTP/1.0\n",	  "WBL1 Q 1 x\nx",
		"WBL1 F -1 fio.json\n",	  "WBL1 F 1 ../etc/passwd\nx",
		"WBL1 F 99999999999 a\n", "WBL1 F 1 .hidden\nx",
		"WBL1 F 1x a\n",
	};
	struct frame_decoder d;
	struct seen s;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		dec_setup(&d, &s);
		ck_assert_int_eq(frame_feed(&d, bad[i], strlen(bad[i])), -1);
		ck_assert_msg(d.error && strstr(d.why, "header"), "%s: %s",
			      bad[i], d.why);
		ck_assert_uint_eq(s.log.len, 0);
		/* After an error nothing more is taken. */
		ck_assert_int_eq(frame_feed(&d, "WBL1 X 0 ok\n", 12), -1);
		ck_assert_uint_eq(s.log.len, 0);
		dec_done(&d, &s);
	}
}
END_TEST

START_TEST(frames_endless_header_is_bounded)
{
	struct frame_decoder d;
	struct seen s;
	char *junk = xmalloc(1 << 20);

	memset(junk, 'A', 1 << 20);
	dec_setup(&d, &s);
	/* No newline, ever: the decoder gives up at 255 bytes. */
	ck_assert_int_eq(frame_feed(&d, junk, 1 << 20), -1);
	ck_assert_ptr_nonnull(strstr(d.why, "over 255"));
	dec_done(&d, &s);
	free(junk);
}
END_TEST

START_TEST(frames_refused_file_is_not_buffered)
{
	struct frame_decoder d;
	struct seen s;
	char hdr[64], *big = xmalloc(64 << 20);
	int n = snprintf(hdr, sizeof(hdr), "WBL1 F %d fio.json\n", 64 << 20);

	memset(big, 'x', 64 << 20);
	dec_setup(&d, &s);
	ck_assert_int_eq(frame_feed(&d, hdr, n), 0);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(frame_feed(&d, big + (i << 20), 1 << 20), 0);
	ck_assert_int_eq(frame_feed(&d, "WBL1 X 0 ok\n", 12), 0);
	ck_assert_str_eq(s.log.buf,
			 "skip fio.json 67108864 over cap\nX ok 0 \n");
	/* Skipped bytes were never kept. */
	ck_assert_uint_lt(d.body.alloc, 1 << 20);
	dec_done(&d, &s);
	free(big);
}
END_TEST

START_TEST(frames_big_message_refused)
{
	struct frame_decoder d;
	struct seen s;
	char hdr[64];
	int n = snprintf(hdr, sizeof(hdr), "WBL1 X %u ok\n", FRAME_MAX_MSG + 1);

	dec_setup(&d, &s);
	ck_assert_int_eq(frame_feed(&d, hdr, n), 0);
	ck_assert_ptr_nonnull(strstr(s.log.buf, "message frame over its cap"));
	ck_assert(!frame_idle(&d));
	dec_done(&d, &s);
}
END_TEST

START_TEST(plan_outputs_are_the_only_files)
{
	static const char plan[] =
		"phase\tsetup\n"
		"get\tvmstat.before\t/proc/vmstat\n"
		"capture\ttopology.txt\tlsblk\tlsblk\n"
		"run\tfio\t60\tfio\t--output=/tmp/wblab-out/fio.json\tjob\n"
		"bg\tsampler\t/run/wblab-agent\tsample\t/tmp/wblab-out/timeseries.tsv\t1000\n"
		"get\t../../etc/shadow\t/etc/shadow\n"
		"put\t/tmp/wblab-out/.hidden\tx\n"
		"capfile\ttrace_stats.txt\tset_event\t/sys/kernel/tracing/set_event\n"
		"caplines\tstack_trace_stats.txt\tstats\t/sys/x/per_cpu/cpu*/stats\n"
		"mkdir\t/sys/kernel/tracing/instances/x\n";
	struct spec_strlist l = { 0 };

	frame_plan_outputs(plan, sizeof(plan) - 1, &l);
	ck_assert_uint_eq(l.n, 7);
	ck_assert(spec_strlist_has(&l, "trace_stats.txt"));
	ck_assert(spec_strlist_has(&l, "stack_trace_stats.txt"));
	ck_assert(spec_strlist_has(&l, "agent.log"));
	ck_assert(spec_strlist_has(&l, "vmstat.before"));
	ck_assert(spec_strlist_has(&l, "topology.txt"));
	ck_assert(spec_strlist_has(&l, "fio.json"));
	ck_assert(spec_strlist_has(&l, "timeseries.tsv"));
	spec_strlist_free(&l);
}
END_TEST

/* ---- vmstat / meminfo ---- */

START_TEST(vmstat_many_counters_linear_and_capped)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct kvset before, after;
	json_object *o;
	double t;

	/* 200000 distinct counters: the old delta did 4e10 compares. */
	for (int i = 0; i < 200000; i++) {
		strbuf_addf(&b, "c%07d %d\n", i, i);
		strbuf_addf(&a, "c%07d %d\n", i, 2 * i);
	}
	t = now();
	kvset_parse(&before, b.buf, b.len);
	kvset_parse(&after, a.buf, a.len);
	o = vmstat_delta_json(&before, &after);
	ck_assert_uint_eq(before.n, KVSET_MAX);
	ck_assert(before.truncated);
	ck_assert_int_eq(json_object_object_length(o), KVSET_MAX);
	ck_assert_int_eq(vmstat_counter_delta(&before, &after, "c0004000"),
			 4000);
	ck_assert_msg(now() - t < 60, "took %.2f s", now() - t);
	json_object_put(o);
	kvset_free(&before);
	kvset_free(&after);
	strbuf_release(&a);
	strbuf_release(&b);
}
END_TEST

START_TEST(vmstat_hostile_values)
{
	static const char b[] =
		"pgfault 9223372036854775807\n"
		"pgmajfault -9223372036854775808\n"
		"pswpin 99999999999999999999999999\n"
		"allocstall_dma 9007199254740992\n"
		"allocstall_normal 9007199254740992\n"
		"allocstall_movable -9007199254740992\n"
		"a_name_that_is_far_too_long_to_be_any_vmstat_counter 1\n"
		"oom_kill 5\noom_kill 7\n";
	static const char a[] = "allocstall_dma -9007199254740992\n"
				"allocstall_normal -9007199254740992\n"
				"allocstall_movable 9007199254740992\n"
				"pgfault 1\noom_kill 6\n";
	struct kvset before, after;
	json_object *ops;

	kvset_parse(&before, b, sizeof(b) - 1);
	kvset_parse(&after, a, sizeof(a) - 1);
	/* Out of range: dropped, never a wrapped or saturated number. */
	ck_assert(!kvset_has(&before, "pgfault"));
	ck_assert(!kvset_has(&before, "pgmajfault"));
	ck_assert(!kvset_has(&before, "pswpin"));
	ck_assert(!kvset_has(&before,
			     "a_name_that_is_far_too_long_to_be_any_vmst"));
	ck_assert_uint_eq(before.n, 5);
	/* Duplicates: the first counts. */
	ck_assert_int_eq(kvset_get(&before, "oom_kill", 0), 5);
	ck_assert_int_eq(vmstat_counter_delta(&before, &after, "oom_kill"), 1);
	/* Sums of extreme parts cannot overflow (UBSan would abort). */
	ck_assert_int_eq(vmstat_counter_delta(&before, &after, "allocstall"),
			 -(1LL << 54) - (1LL << 54) + (1LL << 54));
	ops = vmstat_ops_json(&before, &after, 1e-300);
	ck_assert_ptr_nonnull(ops);
	ck_assert_ptr_nonnull(json_object_to_json_string(ops));
	json_object_put(ops);
	kvset_free(&before);
	kvset_free(&after);
}
END_TEST

/* ---- PSI, time series ---- */

START_TEST(psi_rejects_nan_inf_and_overflow)
{
	static const char *const bad[] = {
		"some avg10=nan avg60=0.00 avg300=0.00 total=1\n",
		"some avg10=inf avg60=0.00 avg300=0.00 total=1\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1e300\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=99999999999999999999999\n",
		"some avg10=-1 avg60=0.00 avg300=0.00 total=1\n",
		"some avg10=0.00\n",
	};
	static const char ok[] =
		"some avg10=1.50 avg60=0.00 avg300=0.00 total=123456\n";

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(!psi_json(NULL, 0, bad[i], strlen(bad[i]), NULL),
			      "%s", bad[i]);
	{
		json_object *o =
			psi_json(ok, sizeof(ok) - 1, ok, sizeof(ok) - 1, NULL);

		ck_assert_int_eq(json_object_get_int64(
					 json_path(o, "some.total_delta_us")),
				 0);
		json_object_put(o);
	}
}
END_TEST

START_TEST(timeseries_hostile)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o;
	const char *js;

	/* Column names aliasing host keys, NaN, inf, huge numbers. */
	strbuf_addstr(&sb, "t\tmem_free_kb\tfree_kb\n");
	strbuf_addstr(&sb, "0\t100\t5\n1\tnan\t5\n2\tinf\t5\n3\t1e308\t5\n");
	strbuf_addstr(&sb, "4\t50\t1\n");
	o = timeseries_summary(sb.buf, sb.len);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_object_get_int64(json_path(o, "samples")), 2);
	/* min_free_kb is mem_free_kb's, never the free_kb column's. */
	ck_assert_int_eq(json_object_get_int64(json_path(o, "min_free_kb")),
			 50);
	js = json_object_to_json_string(o);
	ck_assert_ptr_null(strstr(js, "nan"));
	ck_assert_ptr_null(strstr(js, "inf"));
	json_object_put(o);
	/* A header with a bad column name is no series at all. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "t\t\"><script>\n0\t1\n");
	ck_assert_ptr_null(timeseries_summary(sb.buf, sb.len));
	strbuf_release(&sb);
}
END_TEST

START_TEST(timeseries_one_huge_line)
{
	size_t n = 32 << 20;
	char *buf = xmalloc(n);
	double t;
	json_object *o;

	memset(buf, '1', n);
	memcpy(buf, "t\tx\n", 4);
	t = now();
	o = timeseries_summary(buf, n);
	ck_assert_ptr_null(o);
	ck_assert_msg(now() - t < 60, "took %.2f s", now() - t);
	free(buf);
}
END_TEST

/* ---- stack files ---- */

START_TEST(stack_hostile)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o;

	for (int i = 0; i < 100000; i++)
		strbuf_addf(&sb, "  %d)     %d      64   f%d+0x5/0x1d0\n", i,
			    100000 - i, i);
	strbuf_addstr(&sb, "  1) 9223372036854775807 64 evil\n");
	o = stack_trace_summary(sb.buf, sb.len, "99999999999999999999", 20, 0,
				NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_le(json_object_get_int64(json_path(o, "entries")), 1024);
	/* A max_size out of range falls back to the chain's first depth. */
	ck_assert_int_eq(json_object_get_int64(json_path(o, "max_bytes")),
			 100000);
	json_object_put(o);
	strbuf_reset(&sb);
	for (int i = 0; i < 100000; i++)
		strbuf_addf(&sb,
			    "[ 1.0] x (99999999999999999) used greatest "
			    "stack depth: %d bytes left\n",
			    i % 3 ? 9999999 : 9223372);
	strbuf_addstr(&sb, "[ 1.0] y (1) used greatest stack depth: "
			   "99999999999999999999 bytes left\n");
	o = stack_console_usage(sb.buf, sb.len, 0, NULL);
	ck_assert_int_le(json_object_get_int64(json_path(o, "count")), 1024);
	ck_assert_int_eq(json_object_get_int64(json_path(o, "lines.0.pid")),
			 -1);
	json_object_put(o);
	strbuf_release(&sb);
}
END_TEST

/* ---- fio JSON ---- */

/* Replace the first of what in DIR/NAME by with. */
static void corrupt(const char *dir, const char *name, const char *what,
		    const char *with)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	const char *at;

	ck_assert_int_eq(strbuf_read_file(&sb, path), 0);
	at = strstr(sb.buf, what);
	ck_assert_ptr_nonnull(at);
	strbuf_add(&out, sb.buf, at - sb.buf);
	strbuf_addstr(&out, with);
	strbuf_addstr(&out, at + strlen(what));
	ck_assert_int_eq(write_string_atomic(path, out.buf), 0);
	strbuf_release(&sb);
	strbuf_release(&out);
	free(path);
}

static const char *errat(json_object *m, const char *key)
{
	json_object *errs, *v;

	ck_assert(json_object_object_get_ex(m, "collector_errors", &errs));
	return json_object_object_get_ex(errs, key, &v) ?
		       json_object_get_string(v) :
		       "(none)";
}

/*
 * A number the guest wrote that is not one is a collector error naming
 * the file and line (atoi and strtoll read "12x" as 12, a PSI total of
 * "nan" dropped the whole file as if the kernel had no PSI), and what it
 * was part of is left out. A real cell's files, three values spoiled.
 */
START_TEST(bad_numbers_are_collector_errors)
{
	static const char *const files[] = { "vmstat.before",
					     "vmstat.after",
					     "pressure.memory.before",
					     "pressure.memory.after",
					     "stack_trace",
					     "stack_max_size",
					     "trace.gz",
					     "trace_stats.txt",
					     NULL };
	char dir[] = "/tmp/wblab-test-numbers.XXXXXX";
	json_object *m = json_object_new_object(), *v;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	testdata_copy(dir, "collect/mixed-reclaim", files);
	corrupt(dir, "trace_stats.txt", "cpu1/stats:overrun: 0",
		"cpu1/stats:overrun: 12x");
	corrupt(dir, "stack_max_size", "4328", "4328kB");
	corrupt(dir, "pressure.memory.after", "total=19552396", "total=nan");
	collectors_metrics(dir, m);
	ck_assert_str_eq(errat(m, "number trace_stats.txt"),
			 "trace_stats.txt:22: '12x': not a number");
	ck_assert_str_eq(errat(m, "number stack_max_size"),
			 "stack_max_size:1: '4328kB': not a number");
	ck_assert_str_eq(errat(m, "number pressure.memory.after"),
			 "pressure.memory.after:1: 'nan': not a number");
	/* The overrun line is out: no lost event invented or hidden. */
	ck_assert(json_object_object_get_ex(m, "trace", &v));
	ck_assert_int_eq(json_object_get_int64(json_path(v, "overrun")), 0);
	/* The chain's own first depth stands in for the spoiled size. */
	ck_assert_int_eq(json_object_get_int64(json_path(m, "stack_max_bytes")),
			 4328);
	/* The "full" line of the same file still reads. */
	ck_assert_ptr_null(json_path(m, "psi.memory.some"));
	ck_assert_ptr_nonnull(json_path(m, "psi.memory.full.after"));
	json_object_put(m);
	rm_rf(dir);
}
END_TEST

START_TEST(fio_deep_nesting_and_nan)
{
	struct strbuf sb = STRBUF_INIT;
	char err[128];
	json_object *o;

	/*
	 * 1e6 levels: json-c would recurse; the tokener stops at 32. Before
	 * that, 5 bytes an object are refused as more than the text holds
	 * (json_text_ok(), #47).
	 */
	for (int i = 0; i < 1000000; i++)
		strbuf_addstr(&sb, "{\"a\":");
	o = fio_summary(sb.buf, sb.len, err, sizeof(err));
	ck_assert_ptr_null(o);
	ck_assert_str_eq(
		err, "fio JSON holds more values than its size: not parsed");
	/* within the budget, the tokener's depth still stops it */
	strbuf_reset(&sb);
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "{\"%0600d\":", i);
	o = fio_summary(sb.buf, sb.len, err, sizeof(err));
	ck_assert_ptr_null(o);
	ck_assert_ptr_nonnull(strstr(err, "no jobs"));
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "{\"jobs\":[{\"jobname\":\"w\",\"write\":"
			   "{\"total_ios\":NaN,\"bw\":Infinity}}]}");
	/* json-c takes NaN even when strict: num() turns it into 0. */
	o = fio_summary(sb.buf, sb.len, err, sizeof(err));
	ck_assert_msg(o, "fio_summary: %s", err);
	ck_assert_ptr_null(strstr(json_object_to_json_string(o), "NaN"));
	ck_assert_ptr_null(strstr(json_object_to_json_string(o), "nfinity"));
	ck_assert_int_eq(json_object_get_int64(json_path(o, "0.write.ios")), 0);
	ck_assert_double_eq(
		json_object_get_double(json_path(o, "0.write.bw_kib_s")), 0);
	json_object_put(o);
	strbuf_reset(&sb);
	strbuf_addstr(&sb,
		      "{\"jobs\":[{\"jobname\":{\"x\":[1,2]},\"write\":"
		      "{\"total_ios\":1e300,\"bw\":1e300,\"runtime\":-1e300,"
		      "\"clat_ns\":{\"mean\":1e308}}}]}");
	o = fio_summary(sb.buf, sb.len, err, sizeof(err));
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_object_get_string(json_path(o, "0.job")), "?");
	ck_assert_int_eq(json_object_get_int64(json_path(o, "0.runtime_ms")),
			 0);
	json_object_put(o);
	strbuf_release(&sb);
}
END_TEST

/* ---- cell.json: guest keys, caps, strict JSON ---- */

START_TEST(cell_json_guest_cannot_overwrite)
{
	char dir[] = "/tmp/wblab-test-harden-XXXXXX";
	struct topology_spec t = { .name = "t" };
	struct workload_spec w = { .name = "w" };
	struct cell_spec c = { .run_id = "r",
			       .cell_id = "c",
			       .cell_dir = dir,
			       .wl = &w,
			       .topo = &t,
			       .accel = "tcg" };
	struct cell_run_result r = { .outcome = OUTCOME_OK };
	struct console_report con;
	struct guest g;
	json_object *o;
	char *path;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/agent.log", dir);
	write_string_atomic(path,
			    "[    1.000] get trace: capped at 268435456 bytes "
			    "(the file is longer)\n");
	free(path);
	path = xasprintf("%s/timeseries.tsv", dir);
	write_string_atomic(path, "t\tx\n0\tnan\n1\t1e999\n");
	free(path);
	guest_init(&g, "wblab-r-c", "/nonexistent", dir);
	g.hello = g.exited = true;
	strcpy(g.agent_status, "ok");
	strbuf_addstr(&g.exit_body, "status=crashed\noutcome=ok\nphase=x\n"
				    "phase=y\nrc=0\n\ntail");
	spec_strlist_add(&g.notes, "file x (5 bytes) refused: not asked");
	console_report_init(&con);
	ck_assert_int_eq(results_write_cell(&c, &r, &g, &con, "now",
					    "console=ttyS0", NULL),
			 0);
	path = xasprintf("%s/cell.json", dir);
	o = json_object_from_file(path);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_object_get_string(json_path(o, "agent.status")),
			 "ok");
	ck_assert_str_eq(json_object_get_string(json_path(o, "agent.phase")),
			 "x");
	ck_assert(!json_object_object_get_ex(json_path(o, "agent"), "outcome",
					     NULL));
	ck_assert_str_eq(json_object_get_string(json_path(o, "outcome")), "ok");
	ck_assert_ptr_nonnull(
		strstr(json_object_get_string(json_path(
			       o, "metrics.collector_errors.file trace")),
		       "capped at"));
	ck_assert_ptr_nonnull(json_object_get_string(
		json_path(o, "metrics.collector_errors.channel")));
	json_object_put(o);
	/* Strict JSON: Python's json would choke on NaN; so does this. */
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_read_file(&sb, path);
		ck_assert_ptr_null(strstr(sb.buf, "NaN"));
		ck_assert_ptr_null(strstr(sb.buf, "Infinity"));
		strbuf_release(&sb);
	}
	free(path);
	console_report_free(&con);
	guest_release(&g);
	rm_rf(dir);
}
END_TEST

/* ---- console: capped capture and the parser on a flood ---- */

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

START_TEST(console_flood_capped_constant_memory)
{
	static const char oops[] =
		"[    1.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008\n";
	static const char panic[] =
		"[  999.000000] Kernel panic - not syncing: Fatal exception\n";
	char path[] = "/tmp/wblab-test-capture-XXXXXX";
	struct console_parser *p = console_parser_new();
	struct console_report rep;
	struct capture c;
	struct strbuf sb = STRBUF_INIT;
	char line[128];
	long rss0;
	int fd = mkstemp(path), n;
	uint64_t total = 0;
	char *chunk = xmalloc(1 << 20);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(capture_open(&c, path, 1 << 20, 1 << 20), 0);
	capture_write(&c, oops, sizeof(oops) - 1);
	console_parser_feed(p, oops, sizeof(oops) - 1);
	/* 300 MiB of console flood, fed in 1 MiB pieces. */
	n = snprintf(line, sizeof(line), "[   10.000000] flood flood flood\n");
	for (size_t off = 0; off + n <= (1 << 20); off += n)
		memcpy(chunk + off, line, n);
	rss0 = maxrss_kb();
	for (int i = 0; i < 300; i++) {
		size_t len = (1 << 20) - (1 << 20) % n;

		capture_write(&c, chunk, len);
		console_parser_feed(p, chunk, len);
		total += len;
	}
	capture_write(&c, panic, sizeof(panic) - 1);
	console_parser_feed(p, panic, sizeof(panic) - 1);
	total += sizeof(oops) - 1 + sizeof(panic) - 1;
	ck_assert_msg(maxrss_kb() - rss0 < 32 * 1024, "grew %ld KiB",
		      maxrss_kb() - rss0);
	ck_assert_uint_eq(c.total, total);
	ck_assert_uint_eq(capture_omitted(&c), total - (2 << 20));
	ck_assert_int_eq(capture_close(&c), 0);
	console_report_init(&rep);
	console_parser_finish(p, &rep);
	console_parser_free(p);
	ck_assert_str_eq(rep.kind, "oops");
	ck_assert_uint_ge(rep.nr_events, 2);
	console_report_free(&rep);
	/* The file: head, the note, the tail (ending with the panic). */
	ck_assert_int_eq(strbuf_read_file(&sb, path), 0);
	ck_assert_uint_gt(sb.len, 2 << 20);
	ck_assert_uint_lt(sb.len, (2 << 20) + 128);
	ck_assert(!memcmp(sb.buf, oops, sizeof(oops) - 1));
	ck_assert_ptr_nonnull(strstr(sb.buf, "[wblab: console capped: "));
	ck_assert(!memcmp(sb.buf + sb.len - (sizeof(panic) - 1), panic,
			  sizeof(panic) - 1));
	strbuf_release(&sb);
	free(chunk);
	unlink(path);
}
END_TEST

START_TEST(console_capture_small_is_verbatim)
{
	char path[] = "/tmp/wblab-test-capture-XXXXXX";
	struct capture c;
	struct strbuf sb = STRBUF_INIT;
	int fd = mkstemp(path);

	close(fd);
	ck_assert_int_eq(capture_open(&c, path, 10, 10), 0);
	capture_write(&c, "0123456789abcdefghij", 20);
	ck_assert_uint_eq(capture_omitted(&c), 0);
	ck_assert_int_eq(capture_close(&c), 0);
	ck_assert_int_eq(strbuf_read_file(&sb, path), 0);
	ck_assert_str_eq(sb.buf, "0123456789abcdefghij");
	ck_assert_int_eq(capture_open(&c, path, 4, 4), 0);
	capture_write(&c, "0123456789abcdefghij", 20);
	capture_write(&c, "XY", 2);
	ck_assert_uint_eq(capture_omitted(&c), 14);
	ck_assert_int_eq(capture_close(&c), 0);
	strbuf_reset(&sb);
	ck_assert_int_eq(strbuf_read_file(&sb, path), 0);
	ck_assert_str_eq(sb.buf, "0123\n[wblab: console capped: 14 bytes "
				 "left out here]\nijXY");
	/* A full disk is an error, not silence. */
	ck_assert_int_eq(capture_open(&c, "/dev/full", 4, 4), 0);
	capture_write(&c, "abc", 3);
	ck_assert_int_eq(capture_close(&c), -1);
	ck_assert_int_eq(c.err, ENOSPC);
	strbuf_release(&sb);
	unlink(path);
}
END_TEST

/* ---- rm -rf never crosses a mount ---- */

START_TEST(rm_rf_stops_at_mounts)
{
	char dir[] = "/tmp/wblab-test-rmrf-XXXXXX";
	char *mnt, *bind, *keep, *other, *src, *srcfile;
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	mnt = xasprintf("%s/stage/disk", dir);
	bind = xasprintf("%s/stage/bind", dir);
	keep = xasprintf("%s/stage/disk/precious", dir);
	other = xasprintf("%s/stage/plain/file", dir);
	src = xasprintf("%s-src", dir);
	srcfile = xasprintf("%s-src/precious", dir);
	ck_assert_int_eq(mkdir_p(mnt, 0755), 0);
	ck_assert_int_eq(mkdir_p(bind, 0755), 0);
	ck_assert_int_eq(mkdir_p(src, 0755), 0);
	ck_assert_int_eq(write_string_atomic(srcfile, "x"), 0);
	ck_assert_int_eq(mkdir_p(other, 0755), 0);
	/* Root only: as wblab runs. A tmpfs and a bind mount (same st_dev). */
	ck_assert_msg(!mount("tmpfs", mnt, "tmpfs", 0, "size=1m"),
		      "mount tmpfs: %s", strerror(errno));
	ck_assert_msg(!mount(src, bind, NULL, MS_BIND, NULL), "bind: %s",
		      strerror(errno));
	ck_assert_int_eq(write_string_atomic(keep, "x"), 0);
	ck_assert_int_eq(rm_rf(dir), -1);
	/* What is mounted survives; what is not is gone. */
	ck_assert_int_eq(stat(keep, &st), 0);
	ck_assert_int_eq(stat(srcfile, &st), 0);
	ck_assert_int_ne(stat(other, &st), 0);
	/* The mount point itself is refused too. */
	ck_assert_int_eq(rm_rf(mnt), -1);
	ck_assert_int_eq(stat(keep, &st), 0);
	ck_assert_int_eq(umount(mnt), 0);
	ck_assert_int_eq(umount(bind), 0);
	ck_assert_int_eq(rm_rf(dir), 0);
	ck_assert_int_ne(stat(dir, &st), 0);
	ck_assert_int_eq(rm_rf(src), 0);
	free(mnt);
	free(bind);
	free(keep);
	free(other);
	free(src);
	free(srcfile);
}
END_TEST

/* ---- cache seals ---- */

START_TEST(cache_seal_detects_corruption)
{
	static const char *const files[] = { "bzImage", "modules.img", NULL };
	char dir[] = "/tmp/wblab-test-seal-XXXXXX";
	char why[160] = "", *bz, *mod, *seal;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	bz = xasprintf("%s/bzImage", dir);
	mod = xasprintf("%s/modules.img", dir);
	seal = xasprintf("%s/seal.json", dir);
	ck_assert_int_eq(write_string_atomic(bz, "kernel image bytes"), 0);
	ck_assert_int_eq(write_string_atomic(mod, "modules"), 0);
	/* No seal is no good (tests/test_cache.c); sealed, it verifies. */
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), -1);
	ck_assert_int_eq(cache_seal(dir, files), 0);
	ck_assert(path_exists(seal));
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), 0);
	/* Rewritten with the same bytes: rehashed, still good. */
	ck_assert_int_eq(write_string_atomic(bz, "kernel image bytes"), 0);
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), 0);
	/* One byte flipped in place (same size). */
	f = fopen(bz, "r+");
	ck_assert_ptr_nonnull(f);
	fputc('K', f);
	fclose(f);
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "bzImage: SHA-256"), "%s", why);
	/* A missing file. */
	ck_assert_int_eq(cache_seal(dir, files), 0);
	unlink(mod);
	ck_assert_int_eq(cache_verify(dir, files, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "modules.img is missing");
	rm_rf(dir);
	free(bz);
	free(mod);
	free(seal);
}
END_TEST

/* ---- fuzz findings (tests/data/fuzz/README.md) ---- */

/* No count in o is negative: a wrapped sum of positive numbers would be. */
static void assert_no_wrap(json_object *o, const char *where)
{
	if (json_object_is_type(o, json_type_int)) {
		ck_assert_msg(json_object_get_int64(o) >= 0, "%s: %lld", where,
			      (long long)json_object_get_int64(o));
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v) assert_no_wrap(v, k);
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			assert_no_wrap(json_object_array_get_idx(o, i), where);
	}
}

/*
 * The overflow itself is undefined behaviour: make check-asan (UBSan,
 * halt on error) aborts on it; here the summary must also stay sane.
 */
START_TEST(fuzz_trace_overflow_wb_written)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n;
	json_object *o;

	testdata_read(&sb, "fuzz/trace-overflow-wb_written");
	/* As fuzz_trace: the trace up to a NUL, the stats after it. */
	n = strlen(sb.buf);
	o = trace_summary_dev(sb.buf, n, n < sb.len ? sb.buf + n + 1 : NULL,
			      n < sb.len ? sb.len - n - 1 : 0, "254:16", NULL);
	assert_no_wrap(json_object_object_get(o, "writeback"), "writeback");
	json_object_put(o);
	strbuf_release(&sb);
}
END_TEST

/*
 * len bytes of data ending where a page the process may not read begins:
 * a read past the end faults at once, with or without AddressSanitizer.
 */
static char *at_page_end(const char *data, size_t len, void **map,
			 size_t *maplen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (len + page - 1) / page;
	char *m;

	*maplen = (pages + 1) * page;
	m = mmap(NULL, *maplen, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert_int_eq(mprotect(m + pages * page, page, PROT_NONE), 0);
	*map = m;
	m += pages * page - len;
	memcpy(m, data, len);
	return m;
}

/*
 * fuzz_fio (#47): a fio.json that ends inside a bare token, with no NUL
 * after it. json_text_ok()'s scan read on with strcspn past the end (a
 * heap overflow under make fuzz); it stops at the end now.
 */
START_TEST(fuzz_fio_token_past_end)
{
	struct strbuf sb = STRBUF_INIT;
	char err[128];
	size_t maplen;
	void *map;
	char *text;

	testdata_read(&sb, "fuzz/fio-token-past-end");
	text = at_page_end(sb.buf, sb.len, &map, &maplen);
	json_object_put(fio_summary(text, sb.len, err, sizeof(err)));
	ck_assert_uint_gt(json_tree_cost(text, sb.len), sb.len);
	munmap(map, maplen);
	strbuf_release(&sb);
}
END_TEST

/*
 * fuzz_vmstat (#47's make fuzz): PSI text cut inside a number
 * ("some avg10=18" followed in memory by ".18 avg60=14."): num_double()
 * read on to 18.18, past the text's end, and the remaining length
 * wrapped (a heap overflow in memcmp). The line is left out now.
 */
START_TEST(fuzz_psi_number_past_end)
{
	struct strbuf sb = STRBUF_INIT;
	size_t a, maplen;
	json_object *o;
	void *map;
	char *t;

	testdata_read(&sb, "fuzz/psi-number-past-end");
	t = at_page_end(sb.buf, sb.len, &map, &maplen);
	/* as fuzz_vmstat: before is the first half, after the rest */
	a = sb.len / 2;
	o = psi_json(t, a, t + a, sb.len - a, NULL);
	ck_assert_ptr_null(json_path(o, "some"));
	json_object_put(o);
	munmap(map, maplen);
	strbuf_release(&sb);
}
END_TEST

/*
 * A process killed while write_file_atomic() writes (#47: kill left
 * report.html.tmp.PID behind). SIGXFSZ at a file size limit is the kill
 * here, sent by the kernel in the middle of the write, every time: the
 * process still dies of it, but only after the temporary file is gone.
 */
START_TEST(killed_mid_write_leaves_no_temp)
{
	char dir[] = "/tmp/wblab-test-harden.XXXXXX";
	char *path;
	int status;
	pid_t pid;
	DIR *d;
	struct dirent *de;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/report.html", dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct rlimit fsize = { 1 << 20, 1 << 20 }, core = { 0, 0 };
		size_t len = 4 << 20;
		char *buf = xzalloc(len);

		setrlimit(RLIMIT_CORE, &core);
		setrlimit(RLIMIT_FSIZE, &fsize);
		write_file_atomic(path, buf, len, 0644);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		ck_assert_msg(de->d_name[0] == '.' &&
				      !strstr(de->d_name, "tmp"),
			      "left behind: %s", de->d_name);
	closedir(d);
	rm_rf(dir);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("harden");
	TCase *tc = tcase_create("hostile");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, frames_any_split_same_result);
	tcase_add_test(tc, frames_garbage_is_an_error_with_a_reason);
	tcase_add_test(tc, frames_endless_header_is_bounded);
	tcase_add_test(tc, frames_refused_file_is_not_buffered);
	tcase_add_test(tc, frames_big_message_refused);
	tcase_add_test(tc, plan_outputs_are_the_only_files);
	tcase_add_test(tc, vmstat_many_counters_linear_and_capped);
	tcase_add_test(tc, vmstat_hostile_values);
	tcase_add_test(tc, psi_rejects_nan_inf_and_overflow);
	tcase_add_test(tc, timeseries_hostile);
	tcase_add_test(tc, timeseries_one_huge_line);
	tcase_add_test(tc, stack_hostile);
	tcase_add_test(tc, fio_deep_nesting_and_nan);
	tcase_add_test(tc, bad_numbers_are_collector_errors);
	tcase_add_test(tc, cell_json_guest_cannot_overwrite);
	tcase_add_test(tc, console_flood_capped_constant_memory);
	tcase_add_test(tc, console_capture_small_is_verbatim);
	tcase_add_test(tc, fuzz_trace_overflow_wb_written);
	tcase_add_test(tc, fuzz_fio_token_past_end);
	tcase_add_test(tc, fuzz_psi_number_past_end);
	tcase_add_test(tc, killed_mid_write_leaves_no_temp);
	tcase_add_test(tc, rm_rf_stops_at_mounts);
	tcase_add_test(tc, cache_seal_detects_corruption);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
