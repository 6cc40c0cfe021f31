// SPDX-License-Identifier: GPL-2.0
/*
 * Writer windows, block I/O attribution, hist-trigger counts and the
 * trace parser's cost, on real files captured from cells of this lab
 * (tests/data/collect/README.md and tests/data/io/README.md say how).
 * Expected figures were computed independently of wblab (grep/awk).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cell/collectors.h"
#include "collect/io.h"
#include "collect/trace.h"
#include "collect/windows.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"

#include "testdata.h"

/* Feed every line of a trace to a windows set. */
static void feed(struct windows *w, const struct strbuf *t)
{
	const char *p = t->buf, *end = t->buf + t->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct trace_line l;
		long long r = 0;

		if (trace_parse_line(p, n, &l, NULL)) {
			trace_arg_num(&l, "nr_reclaimed", &r);
			windows_tick(w, l.ts);
			windows_event(w, l.pid, l.ts, l.event, l.event_len, r);
		}
		p = nl ? nl + 1 : end;
	}
	windows_finish(w, w->last);
}

/*
 * mixed-reclaim (global reclaim, no memcg): grep counts 432 direct
 * reclaim begins in 9 pids, and kswapd0-44 emitting all 257 wake/sleep
 * events.
 */
START_TEST(test_windows_global)
{
	struct strbuf t = STRBUF_INIT;
	struct windows w;
	double total;

	testdata_gunzip(&t, "collect/mixed-reclaim/trace.gz");
	windows_init(&w);
	feed(&w, &t);
	ck_assert_uint_eq(windows_count(&w, WK_DIRECT, &total), 432);
	ck_assert(total > 0);
	ck_assert_uint_eq(windows_count(&w, WK_MEMCG, NULL), 0);
	ck_assert(windows_is_kswapd(&w, 44));
	ck_assert(!windows_is_kswapd(&w, 9));
	/* kswapd's pid is kswapd wherever it is, awake or not. */
	ck_assert_int_eq(windows_at(&w, 44, w.first), WK_KSWAPD);
	/* kworker/u4:0-9 ran a periodic work 50.616234 .. 50.630151. */
	ck_assert_int_eq(windows_at(&w, 9, 50.62), WK_FLUSHER);
	ck_assert_int_eq(windows_at(&w, 9, 50.6302), WK_NONE);
	ck_assert_int_eq(windows_at(&w, 999999, 50.62), WK_NONE);
	windows_free(&w);
	strbuf_release(&t);
}
END_TEST

/* Begin/end edge cases on synthetic events (no file needed). */
START_TEST(test_windows_edges)
{
	struct windows w;
	const struct pid_windows *p;

	windows_init(&w);
	windows_tick(&w, 1.0);
	windows_end(&w, 7, 2.0, WK_DIRECT, 5); /* open before the trace */
	windows_begin(&w, 7, 3.0, WK_MEMCG);
	windows_begin(&w, 7, 4.0, WK_MEMCG); /* the first never ended */
	windows_end(&w, 7, 5.0, WK_MEMCG, 9);
	windows_begin(&w, 7, 6.0, WK_DIRECT);
	windows_finish(&w, 8.0);
	p = windows_pid(&w, 7);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->n[WK_DIRECT], 2);
	ck_assert(p->v[WK_DIRECT][0].open_at_start);
	ck_assert_double_eq(p->v[WK_DIRECT][0].begin, 1.0);
	ck_assert_int_eq(p->v[WK_DIRECT][0].nr_reclaimed, 5);
	ck_assert(p->v[WK_DIRECT][1].unfinished);
	ck_assert_double_eq(p->v[WK_DIRECT][1].end, 8.0);
	ck_assert(p->v[WK_MEMCG][0].unfinished);
	ck_assert_int_eq(windows_at(&w, 7, 1.5), WK_DIRECT);
	ck_assert_int_eq(windows_at(&w, 7, 3.5), WK_MEMCG);
	ck_assert_int_eq(windows_at(&w, 7, 5.5), WK_NONE);
	ck_assert_int_eq(windows_at(&w, 7, 7.0), WK_DIRECT);
	windows_free(&w);
}
END_TEST

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

#define DF "io/dirty-flood-ext4/"

/*
 * dirty-flood on ext4-disk, debian-6.1 (reclaim may not write): awk over
 * the trace counts, at 254,32 with a W in rwbs, 136 bios of 58258 pages
 * by the flusher kworkers (inside writeback_start..written) with 97.037%
 * starting where the previous ended and a mean seek of 5629.985 KiB, and
 * 10 one-page jbd2 bios (other). No reclaim writes.
 */
START_TEST(test_io_trace)
{
	struct strbuf t = STRBUF_INIT, s = STRBUF_INIT;
	json_object *o;

	testdata_gunzip(&t, DF "trace.gz");
	testdata_read(&s, DF "trace_stats.txt");
	o = trace_summary_dev(t.buf, t.len, s.buf, s.len, "254:32", NULL);
	ck_assert(json_object_get_boolean(at(o, "complete")));
	ck_assert_int_eq(iat(o, "io.writers.flusher.bios"), 136);
	ck_assert_int_eq(iat(o, "io.writers.flusher.pages"), 58258);
	/*
	 * The flusher's leaf requests per writer (tests/ref/seek_ref.py over
	 * this trace): 315 requests in 216 runs, gaps [99 contiguous, 7 near,
	 * 174 up to 1 MiB, 29 up to 16 MiB, 4 farther]: ext4's 1 MiB writes
	 * reach the leaf tail first, a 1 MiB hop back and forth that the
	 * bios' count called 97% sequential and the mean seek 5.6 MiB.
	 * cell.json keeps 3 decimals (4 below 1: util/json.c).
	 */
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.requests"), 315);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.runs"), 216);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.gap_hist.contig"), 99);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.gap_hist.near"), 7);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.gap_hist.le1m"), 174);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.gap_hist.le16m"), 29);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.gap_hist.far"), 4);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.flusher.run_kib_mean"),
				1078.852, 0.0005);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.flusher.req_kib_mean"),
				739.784, 0.0005);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.flusher.seek_pct"),
				10.543, 0.0005);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.flusher.gap_kib_p50"),
				1024, 1e-9);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.flusher.sector_rho"),
				0.9842, 0.00005);
	ck_assert_double_eq_tol(dat(o,
				    "io.seek.classes.flusher.sector_rho_w32"),
				0.9706, 0.00005);
	ck_assert_double_eq_tol(dat(o, "io.writers.flusher.bio_kib_p50"), 1024,
				0.001);
	ck_assert_int_eq(iat(o, "io.writers.other.bios"), 10);
	ck_assert_int_eq(iat(o, "io.writers.other.pages"), 10);
	ck_assert_int_eq(iat(o, "io.writers.memcg.pages"), 0);
	ck_assert_int_eq(iat(o, "io.writers.direct.pages"), 0);
	/* No reclaim request: its shape is undefined, not 0. */
	ck_assert(json_object_object_get_ex(at(o, "io.seek.classes.memcg"),
					    "seek_pct", NULL));
	ck_assert_ptr_null(at(o, "io.seek.classes.memcg.seek_pct"));
	ck_assert_ptr_null(at(o, "io.seek.classes.memcg.offset_rho"));
	ck_assert(iat(o, "io.writers.flusher.service_requests") > 0);
	ck_assert(dat(o, "io.writers.flusher.service_us_p95") >=
		  dat(o, "io.writers.flusher.service_us_p50"));
	ck_assert(iat(o, "io.devices.254:32.write_requests") > 0);
	/* 1382 memcg reclaims (grep), all complete. */
	ck_assert_int_eq(iat(o, "memcg_reclaim.count"), 1382);
	/* Writeback context: grep/awk over the same trace. */
	ck_assert_int_eq(iat(o, "writeback_context.flusher.works.count"), 16);
	ck_assert_int_eq(iat(o, "writeback_context.flusher.single_inode.count"),
			 13);
	ck_assert_int_eq(
		iat(o, "writeback_context.flusher.single_inode.nr_to_write"),
		120832);
	ck_assert_int_eq(iat(o,
			     "writeback_context.flusher.single_inode.written"),
			 58262);
	ck_assert_int_eq(
		iat(o, "writeback_context.flusher.ext4_writepages.written"),
		58256);
	ck_assert_int_eq(iat(o, "writeback_context.memcg.for_reclaim"), 0);
	json_object_put(o);
	/* Without the device there is nothing to attribute at it. */
	o = trace_summary_dev(t.buf, t.len, s.buf, s.len, NULL, NULL);
	ck_assert_int_eq(iat(o, "io.writers.flusher.bios"), 0);
	json_object_put(o);
	strbuf_release(&t);
	strbuf_release(&s);
}
END_TEST

/*
 * The same cell's hists. A few lines of Python over the file (entries at
 * dev 266338336 = 254:32, wb_workfn on the stack = flusher): flusher 136
 * bios, 58258 pages; other 15 bios, 1037 pages. The other's extra pages
 * over the trace are two write-zeroes bios of ext4lazyinit (rwbs "NS",
 * 1024 pages) let through by that cell's "*W*" filter (see trace.c) and
 * three jbd2 bios before tracing_on: the hist counts from arm to collect.
 */
START_TEST(test_io_hist)
{
	struct strbuf h = STRBUF_INIT;
	char why[256] = "";
	json_object *o;

	testdata_read(&h, DF "hist.block_bio_queue");
	o = io_hist_bios(h.buf, h.len, "254:32", why, sizeof(why), NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(iat(o, "flusher.bios"), 136);
	ck_assert_int_eq(iat(o, "flusher.pages"), 58258);
	ck_assert_int_eq(iat(o, "other.bios"), 15);
	ck_assert_int_eq(iat(o, "other.pages"), 1037);
	ck_assert_int_eq(iat(o, "memcg.pages"), 0);
	ck_assert_ptr_null(at(o, "reclaim_unresolved"));
	json_object_put(o);
	testdata_read(&h, DF "hist.mm_vmscan_write_folio");
	o = io_hist_write_folio(h.buf, h.len, why, sizeof(why), NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(iat(o, "memcg.file"), 0);
	ck_assert_int_eq(iat(o, "direct.file"), 0);
	json_object_put(o);
	/* Not a hist: null and why. */
	testdata_read(&h, DF "fsdev.txt");
	ck_assert_ptr_null(
		io_hist_bios(h.buf, h.len, NULL, why, sizeof(why), NULL));
	ck_assert_ptr_nonnull(strstr(why, "no hist"));
	strbuf_release(&h);
}
END_TEST

/* A hist whose table overflowed: its counts are not all there. */
START_TEST(test_io_hist_dropped)
{
	struct strbuf h = STRBUF_INIT;
	char why[256] = "";
	char *p;

	testdata_read(&h, DF "hist.block_bio_queue");
	p = strstr(h.buf, "Dropped: 0");
	ck_assert_ptr_nonnull(p);
	p[9] = '7';
	ck_assert_ptr_null(
		io_hist_bios(h.buf, h.len, NULL, why, sizeof(why), NULL));
	ck_assert_ptr_nonnull(strstr(why, "dropped 7"));
	strbuf_release(&h);
}
END_TEST

START_TEST(test_io_fsdev)
{
	struct strbuf f = STRBUF_INIT;
	char dev[24], fs[32];

	testdata_read(&f, DF "fsdev.txt");
	ck_assert(io_fsdev(f.buf, f.len, dev, sizeof(dev), fs, sizeof(fs)));
	ck_assert_str_eq(dev, "254:32");
	ck_assert_str_eq(fs, "ext4");
	ck_assert(!io_fsdev("# mountinfo\n", 12, dev, sizeof(dev), fs,
			    sizeof(fs)));
	/* The seed's stack: the overlay's upperdir is on ext4 on md 9:0. */
	testdata_read(&f, "io/overlay-raid-iscsi-ext4/fsdev.txt");
	ck_assert(io_fsdev(f.buf, f.len, dev, sizeof(dev), fs, sizeof(fs)));
	ck_assert_str_eq(dev, "9:0");
	ck_assert_str_eq(fs, "ext4");
	strbuf_release(&f);
}
END_TEST

/*
 * Swap on md RAID1 over iSCSI, no test filesystem (6.1, swap-memcg): the
 * hog's memcg reclaim swapped 76633 pages (pswpout, vmstat.after -
 * before). The hist saw each at md0 (9:0) and again at both mirrors (8:0,
 * 8:16): 229899 pages at every device. Counted at the swap partition
 * from /proc/swaps, they are counted once (a few lines of Python over the
 * hist gave 76633 at each of the three devices).
 */
START_TEST(test_io_swapdev)
{
	struct strbuf f = STRBUF_INIT, h = STRBUF_INIT;
	char dev[24], name[64], why[256] = "";
	json_object *o;

	testdata_read(&f, "io/swap-raid1-iscsi-6.1/fsdev.txt");
	ck_assert(
		io_swapdev(f.buf, f.len, dev, sizeof(dev), name, sizeof(name)));
	ck_assert_str_eq(dev, "9:0");
	ck_assert_str_eq(name, "md0");
	/* A cell with a test mount but no swap has no swap device. */
	testdata_read(&f, DF "fsdev.txt");
	ck_assert(!io_swapdev(f.buf, f.len, dev, sizeof(dev), name,
			      sizeof(name)));
	testdata_read(&h, "io/swap-raid1-iscsi-6.1/hist.block_bio_queue");
	o = io_hist_bios(h.buf, h.len, "9:0", why, sizeof(why), NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(iat(o, "memcg.pages"), 76633);
	json_object_put(o);
	/* What the swap cells counted before: md and both mirrors. */
	o = io_hist_bios(h.buf, h.len, NULL, why, sizeof(why), NULL);
	ck_assert_int_eq(iat(o, "memcg.pages"), 3 * 76633);
	json_object_put(o);
	strbuf_release(&f);
	strbuf_release(&h);
}
END_TEST

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A line of n bytes: a valid header, then pat repeated. */
static char *hostile(size_t n, const char *head, const char *pat)
{
	char *b = xmalloc(n + 1);
	size_t h = strlen(head), k = strlen(pat);

	memcpy(b, head, h);
	for (size_t i = h; i < n; i++)
		b[i] = pat[(i - h) % k];
	b[n] = '\0';
	return b;
}

static double cost(size_t n, const char *head, const char *pat)
{
	char *b = hostile(n, head, pat);
	double t0 = now();
	json_object *o = trace_summary_dev(b, n, NULL, 0, "254:32", NULL);

	t0 = now() - t0;
	json_object_put(o);
	free(b);
	return t0;
}

/*
 * One 10 MB line costs about five times one 2 MB line: linear. The old
 * parser looked for "]" after every " [" to the end of the line, so a
 * line of " [" took quadratic time (hours at 10 MB). Patterns: " [" all
 * along; a real header then a block event whose args never end; a
 * header then "key=" fields.
 */
START_TEST(test_trace_linear)
{
	static const struct {
		const char *head, *pat;
	} cases[] = {
		{ "", " [" },
		{ "", " [1" },
		{ "   fio-1 [000] ..... 1.0: block_bio_queue: 254,32 W ",
		  "1 + 8 " },
		{ "   fio-1 [000] ..... 1.0: writeback_start: bdi 254:32: ",
		  "nr_pages=1 reason=" },
		{ "   fio-1 [000] ..... 1.0: ext4_writepages: ",
		  "nr_to_write " },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double small = cost(2 << 20, cases[i].head, cases[i].pat);
		double big = cost(10 << 20, cases[i].head, cases[i].pat);

		fprintf(stderr,
			"trace line case %zu: 2 MB %.4f s, 10 MB %.4f s\n", i,
			small, big);
		/*
		 * Not a timing test: the old parser took hours on a 10 MB
		 * line (quadratic), so a bound two orders of magnitude above
		 * the linear cost catches that on however loaded a machine.
		 * The linear figures are bench material, printed above.
		 */
		ck_assert_msg(big < 60.0, "case %zu: 2 MB %.3f s, 10 MB %.3f s",
			      i, small, big);
	}
}
END_TEST

/*
 * The same cell as if CPU 0's buffer had dropped 5 events (the real
 * trace_stats.txt with that one line changed): no hist files, so the
 * headline counts are null with a reason, and the analysis stops at CPU
 * 0's last event, 51.296304 (awk: 366 lines after it, all on CPU 1).
 */
START_TEST(test_io_lossy)
{
	static const char *const files[] = { "trace.gz", "fsdev.txt", NULL };
	char tmp[] = "/tmp/wblab-test-io.XXXXXX";
	struct strbuf s = STRBUF_INIT;
	json_object *m = json_object_new_object();
	char *p, *dst;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	testdata_copy(tmp, DF, files);
	testdata_read(&s, DF "trace_stats.txt");
	p = strstr(s.buf, "cpu0/stats:dropped events: 0");
	ck_assert_ptr_nonnull(p);
	p[strlen("cpu0/stats:dropped events: ")] = '5';
	dst = xasprintf("%s/trace_stats.txt", tmp);
	write_string_atomic(dst, s.buf);
	free(dst);
	collectors_metrics(tmp, m);
	ck_assert_int_eq(iat(m, "trace.lost_events"), 5);
	ck_assert_int_eq(iat(m, "trace.cut_lines"), 366);
	ck_assert(
		json_object_object_get_ex(m, "vmscan_write_file_direct", NULL));
	ck_assert_ptr_null(at(m, "vmscan_write_file_direct"));
	ck_assert_ptr_nonnull(
		strstr(json_object_get_string(
			       at(m, "null_reasons.vmscan_write_file_direct")),
		       "lost"));
	ck_assert_ptr_null(at(m, "vmscan_write_file_direct_pages"));
	/* Counts null, shapes from the analysed part. */
	ck_assert_ptr_null(at(m, "io.writers.flusher.pages"));
	ck_assert_ptr_null(at(m, "io.counts_source"));
	ck_assert_ptr_nonnull(at(m, "io.seek.classes.flusher.seek_pct"));
	ck_assert_ptr_nonnull(at(m, "collector_errors.hist_block_bio_queue"));
	ck_assert(!json_object_get_boolean(at(m, "writeback.complete")));
	json_object_put(m);
	rm_rf(tmp);
	strbuf_release(&s);
}
END_TEST

/*
 * Swap on a plain disk (6.12 lab kernel, swap-memcg): the hog's memcg
 * reclaim wrote 74653 anonymous folios (the hist's hitcounts with
 * reclaim_flags 9, summed by hand) and no file folio. The block layer
 * saw those pages in the hog's reclaim context, but they are not file
 * pages: the file-pages headline is null, saying why, and the file call
 * count is still 0.
 */
START_TEST(test_io_swap_not_file)
{
	static const char *const files[] = { "hist.block_bio_queue",
					     "hist.mm_vmscan_write_folio",
					     "trace_stats.txt", "trace.gz",
					     NULL };
	char tmp[] = "/tmp/wblab-test-io.XXXXXX";
	json_object *m = json_object_new_object();

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	testdata_copy(tmp, "io/swap-memcg-6.12", files);
	collectors_metrics(tmp, m);
	ck_assert_int_eq(iat(m, "vmscan_write_file_direct"), 0);
	ck_assert(json_object_object_get_ex(m, "vmscan_write_file_direct_pages",
					    NULL));
	ck_assert_ptr_null(at(m, "vmscan_write_file_direct_pages"));
	ck_assert_ptr_nonnull(strstr(
		json_object_get_string(
			at(m, "null_reasons.vmscan_write_file_direct_pages")),
		"anonymous folios"));
	ck_assert_int_eq(iat(m, "io.hist_writepage.memcg.anon"), 74653);
	json_object_put(m);
	rm_rf(tmp);
}
END_TEST

/*
 * XFS on md RAID5 (debian-6.1 dirty-flood, the first 40000 lines of the
 * trace): the flusher's 10 bios at 9:0 (XFS queues bios of up to 13 MiB)
 * are split by raid5 into member bios that block_bio_remap traces back to
 * the array sector; the member requests served for the flusher: 82,
 * p50 8764 us, p95 69642 us (tests/data/io/attribute.py, an independent
 * script, on the same file).
 */
START_TEST(test_io_raid5)
{
	struct strbuf t = STRBUF_INIT;
	json_object *o;

	testdata_gunzip(&t, "io/dirty-flood-raid5-xfs/trace-head.gz");
	o = trace_summary_dev(t.buf, t.len, NULL, 0, "9:0", NULL);
	ck_assert_int_eq(iat(o, "io.writers.flusher.bios"), 10);
	ck_assert_int_eq(iat(o, "io.writers.flusher.pages"), 15131);
	ck_assert_int_eq(iat(o, "io.writers.flusher.service_requests"), 82);
	ck_assert_double_eq_tol(dat(o, "io.writers.flusher.service_us_p50"),
				8764, 0.5);
	ck_assert_double_eq_tol(dat(o, "io.writers.flusher.service_us_p95"),
				69642, 0.5);
	/* Per writer at the members (tests/ref/seek_ref.py 9:0). */
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.requests"), 82);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.runs"), 21);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.flusher.seek_pct"),
				12.821, 0.0005);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.flusher.sector_rho"),
				0.9946, 0.00005);
	ck_assert(!json_object_get_boolean(at(o, "io.attribution_truncated")));
	json_object_put(o);
	strbuf_release(&t);
}
END_TEST

/*
 * seeky-random on ext4-disk, 6.1-direct-writeback (tests/data/seek/README.md):
 * the first 150000 lines of the trace. tests/ref/seek_ref.py 253:32 over
 * the same lines (SciPy's spearmanr): memcg reclaim (fio) issued 4609
 * 4 KiB requests, none contiguous, gaps [0, 4, 84, 1088, 3431], 98.09%
 * over 1 MiB, median 38320 KiB; its 4610 written folios all joined to
 * their page-cache insertion, offset rho -0.1327 (windows of 32: 0.0851).
 * The flusher: 26525 requests, gaps [0, 16599, 9086, 828, 10], 3.16%
 * over 1 MiB, median 48 KiB; order v sector rho 0.4776, but -0.7718 in
 * windows of 32: 6.1 issues a plug's requests last first.
 */
START_TEST(test_seek_random)
{
	struct strbuf t = STRBUF_INIT;
	json_object *o;

	testdata_gunzip(&t, "seek/random-6.1-dw/trace-head.gz");
	o = trace_summary_dev(t.buf, t.len, NULL, 0, "253:32", NULL);
	ck_assert_int_eq(iat(o, "io.seek.classes.memcg.requests"), 4609);
	ck_assert_int_eq(iat(o, "io.seek.classes.memcg.runs"), 4609);
	ck_assert_int_eq(iat(o, "io.seek.classes.memcg.gap_hist.near"), 4);
	ck_assert_int_eq(iat(o, "io.seek.classes.memcg.gap_hist.le1m"), 84);
	ck_assert_int_eq(iat(o, "io.seek.classes.memcg.gap_hist.le16m"), 1088);
	ck_assert_int_eq(iat(o, "io.seek.classes.memcg.gap_hist.far"), 3431);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.memcg.seek_pct"),
				98.090, 0.0005);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.memcg.gap_kib_p50"),
				38320, 1e-9);
	ck_assert_int_eq(iat(o, "io.seek.classes.memcg.folios_written"), 4610);
	ck_assert_int_eq(iat(o, "io.seek.classes.memcg.folios_joined"), 4610);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.memcg.offset_rho"),
				-0.1327, 0.00005);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.memcg.offset_rho_w32"),
				0.08508, 0.000005);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.memcg.sector_rho"),
				-0.1329, 0.00005);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.requests"), 26525);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.gap_hist.near"),
			 16599);
	ck_assert_int_eq(iat(o, "io.seek.classes.flusher.gap_hist.far"), 10);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.flusher.seek_pct"),
				3.160, 0.0005);
	ck_assert_double_eq_tol(dat(o, "io.seek.classes.flusher.sector_rho"),
				0.4776, 0.00005);
	ck_assert_double_eq_tol(dat(o,
				    "io.seek.classes.flusher.sector_rho_w32"),
				-0.7718, 0.00005);
	json_object_put(o);
	strbuf_release(&t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("io");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_windows_global);
	tcase_add_test(tc, test_windows_edges);
	tcase_add_test(tc, test_io_trace);
	tcase_add_test(tc, test_io_hist);
	tcase_add_test(tc, test_io_hist_dropped);
	tcase_add_test(tc, test_io_fsdev);
	tcase_add_test(tc, test_io_swapdev);
	tcase_add_test(tc, test_io_lossy);
	tcase_add_test(tc, test_io_raid5);
	tcase_add_test(tc, test_io_swap_not_file);
	tcase_add_test(tc, test_trace_linear);
	tcase_add_test(tc, test_seek_random);
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
