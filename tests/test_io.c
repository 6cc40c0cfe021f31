// SPDX-License-Identifier: GPL-2.0
/*
 * Writer windows, block I/O attribution, hist-trigger counts and the
 * trace parser's cost, on real files captured from cells of this lab
 * (tests/data/collect/README.md and tests/data/io/README.md say how).
 * Expected figures were computed independently of wblab (grep/awk).
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/trace.h"
#include "collect/windows.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strbuf.h"

static char home[PATH_MAX];

static void gunzip(const char *path, struct strbuf *sb)
{
	char *p = xasprintf("%s/tests/data/%s", home, path);
	const char *argv[] = { "gzip", "-dc", p, NULL };

	strbuf_reset(sb);
	ck_assert_int_eq(run_capture(argv, sb, NULL), 0);
	free(p);
}

/* Feed every line of a trace to a windows set. */
static void feed(struct windows *w, const struct strbuf *t)
{
	const char *p = t->buf, *end = t->buf + t->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct trace_line l;
		long long r = 0;

		if (trace_parse_line(p, n, &l)) {
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

	gunzip("collect/mixed-reclaim/trace.gz", &t);
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

static Suite *suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("io");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_windows_global);
	tcase_add_test(tc, test_windows_edges);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *h = getenv("WBLAB_HOME");
	SRunner *sr;
	int failed;

	if (h)
		snprintf(home, sizeof(home), "%s", h);
	else if (!realpath(".", home))
		return 2;
	sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
