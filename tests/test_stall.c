// SPDX-License-Identifier: GPL-2.0
/*
 * The `stall` event (collect/console-stall.c) on the consoles of real
 * cells run with the agent's stall watcher (agent/watch.c):
 * tests/data/stall/README.md says which runs they come from. A stall is
 * tasks in D state at the same wait site in both of the watcher's SysRq-t
 * dumps; a cell whose counters kept moving has no dump and no event.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/console.h"
#include "cell/outcome.h"
#include "util/json.h"
#include "util/strbuf.h"

#include "testdata.h"

static void parse(const struct strbuf *c, struct console_report *r)
{
	struct console_parser *p = console_parser_new();

	console_report_init(r);
	console_parser_feed(p, c->buf, c->len);
	console_parser_finish(p, r);
	console_parser_free(p);
}

/* The stall events of a report, and the one there is. */
static const struct console_event *stall_of(const struct console_report *r,
					    int *n)
{
	const struct console_event *s = NULL;

	*n = 0;
	for (size_t i = 0; i < r->nr_events; i++)
		if (!strcmp(r->events[i].kind, "stall")) {
			s = &r->events[i];
			(*n)++;
		}
	return s;
}

static json_object *detail_json(const struct console_event *e)
{
	struct console_report r = { .kind = e->kind,
				    .events = (struct console_event *)e,
				    .nr_events = 1 };
	json_object *o = console_report_to_json(&r, NULL);
	json_object *ev = json_object_get(json_path(o, "events.0"));

	json_object_put(o);
	return ev;
}

static int stalls_in(const char *file)
{
	struct strbuf c = STRBUF_INIT;
	struct console_report r;
	int n;

	testdata_gunzip(&c, "stall/%s", file);
	parse(&c, &r);
	stall_of(&r, &n);
	console_report_free(&r);
	strbuf_release(&c);
	return n;
}

/* The one stall event of the real console tests/data/stall/FILE. */
static const struct console_event *the_stall(const char *file,
					     struct console_report *r)
{
	struct strbuf c = STRBUF_INIT;
	const struct console_event *e;
	int n;

	testdata_gunzip(&c, "stall/%s", file);
	parse(&c, r);
	strbuf_release(&c);
	e = stall_of(r, &n);
	ck_assert_int_eq(n, 1);
	return e;
}

/*
 * Cells whose counters kept moving: slow (debian-6.12 swap-direct on
 * swap-raid1-iscsi at load 11-14, its hog step timed out while pswpout
 * still rose) or ok. The watcher ran in each and took no dump.
 */
START_TEST(test_stall_none_on_healthy)
{
	static const char *const healthy[] = {
		"swap-direct-6.12-slow.console.gz",
		"swap-direct-6.12-ok.console.gz",
	};

	for (size_t i = 0; i < sizeof(healthy) / sizeof(healthy[0]); i++)
		ck_assert_msg(stalls_in(healthy[i]) == 0, "%s", healthy[i]);
}
END_TEST

/*
 * The parser on a real SysRq-t dump: the one taken at the end of the
 * deadlocked cell of tests/data/console/swap-deadlock-6.12.log (before the
 * watcher), put between the watcher's markers twice, as the watcher would
 * have taken it. Its three D-state tasks wait in md's bio mempool in both:
 * one site, three tasks, and the device whose requests stayed in flight.
 */
static void wrap_dump(struct strbuf *out, const struct strbuf *dump, int nr,
		      const char *dev)
{
	strbuf_addf(
		out,
		"[  100.0] wblab: stall dump %d: no progress for 20 s, "
		"3 tasks in D state\n"
		"[  100.0] wblab: stall dump %d vm pswpout 159 pgpgout 812 "
		"nr_free_pages 1019 nr_writeback 133 workload 4242\n"
		"[  100.0] wblab: stall dump %d dev %s\n"
		"[  100.0] wblab: stall dump %d dev vda done 5021 inflight 0 0\n",
		nr, nr, nr, dev, nr);
	strbuf_add(out, dump->buf, dump->len);
	strbuf_addf(out, "[  101.0] wblab: stall dump %d end\n", nr);
}

static void real_dump(struct strbuf *dump)
{
	const char *s;

	testdata_read(dump, "console/swap-deadlock-6.12.log");
	s = strstr(dump->buf, "wblab: sysrq-t");
	ck_assert_ptr_nonnull(s);
	s = strchr(s, '\n') + 1;
	memmove(dump->buf, s, dump->len - (s - dump->buf) + 1);
	dump->len -= s - dump->buf;
}

START_TEST(test_stall_real_dump)
{
	struct strbuf dump = STRBUF_INIT, c = STRBUF_INIT;
	struct console_report r;
	const struct console_event *e;
	json_object *j;
	int n;

	real_dump(&dump);
	wrap_dump(&c, &dump, 1, "sda done 9000 inflight 0 12");
	wrap_dump(&c, &dump, 2, "sda done 9000 inflight 0 12");
	parse(&c, &r);
	e = stall_of(&r, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(e->title, "stall in mempool_alloc_noprof");
	ck_assert_int_eq(e->line, 1);
	j = detail_json(e);
	ck_assert_str_eq(json_object_get_string(json_path(j, "sites.0.wait")),
			 "mempool_alloc_noprof");
	ck_assert_str_eq(
		json_object_get_string(json_path(j, "sites.0.tasks.0")),
		"refill_work");
	ck_assert_str_eq(
		json_object_get_string(json_path(j, "sites.0.tasks.2")),
		"md0_raid1");
	ck_assert_int_eq(json_object_get_int(json_path(j, "blocked_first")), 3);
	ck_assert_str_eq(json_object_get_string(json_path(j, "devices.0.dev")),
			 "sda");
	ck_assert(json_object_get_boolean(json_path(j, "devices.0.stuck")));
	ck_assert_int_eq(
		json_object_get_int(json_path(j, "devices.0.inflight_writes")),
		12);
	ck_assert(!json_object_get_boolean(json_path(j, "devices.1.stuck")));
	ck_assert_int_eq(json_object_get_int(json_path(j, "vm_second.pswpout")),
			 159);
	json_object_put(j);
	console_report_free(&r);
	/* The device completed requests between the dumps: not stuck. */
	strbuf_reset(&c);
	wrap_dump(&c, &dump, 1, "sda done 9000 inflight 0 12");
	wrap_dump(&c, &dump, 2, "sda done 9007 inflight 0 12");
	parse(&c, &r);
	j = detail_json(stall_of(&r, &n));
	ck_assert(!json_object_get_boolean(json_path(j, "devices.0.stuck")));
	ck_assert_int_eq(
		json_object_get_int(json_path(j, "devices.0.completed")), 7);
	json_object_put(j);
	console_report_free(&r);
	strbuf_release(&c);
	strbuf_release(&dump);
}
END_TEST

/* The real dump's D-state task records: task line to </TASK>. */
static void d_records(struct strbuf *out, const struct strbuf *dump)
{
	const char *p = dump->buf, *t, *e;

	while ((t = strstr(p, "state:D")) && (e = strstr(t, "</TASK>"))) {
		const char *ls = t;

		while (ls > dump->buf && ls[-1] != '\n')
			ls--;
		e = strchr(e, '\n');
		e = e ? e + 1 : dump->buf + dump->len;
		strbuf_add(out, ls, e - ls);
		p = e;
	}
}

/*
 * Guest output is untrusted: a dump of 40 copies of the real dump's D
 * tasks keeps 64 of its 120 and counts them all; a dump is read for 20000
 * lines (40 whole copies of the real dump, 76680 lines, show 32 of their
 * D tasks); a device name with a slash, numbers past 64 bits, dump 3 and
 * a dump 1 after dump 2 change nothing.
 */
START_TEST(test_stall_bounded)
{
	struct strbuf dump = STRBUF_INIT, many = STRBUF_INIT, c = STRBUF_INIT;
	struct console_report r;
	json_object *j;
	int n;

	real_dump(&dump);
	for (int i = 0; i < 40; i++)
		d_records(&many, &dump);
	wrap_dump(&c, &many, 1, "../x done 1 inflight 0 1");
	wrap_dump(&c, &dump, 2,
		  "sda done 99999999999999999999999999 inflight 0 1");
	strbuf_addstr(&c,
		      "[  102.0] wblab: stall dump 3: x\n"
		      "[  102.0] wblab: stall dump 1: no progress\n"
		      "[  102.0] wblab: stall dump 18446744073709551617: x\n");
	parse(&c, &r);
	j = detail_json(stall_of(&r, &n));
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(json_object_get_int(json_path(j, "blocked_first")),
			 120);
	ck_assert_int_eq(json_object_get_int(json_path(j, "blocked_second")),
			 3);
	/* vda in both; ../x refused; sda only in the second dump. */
	ck_assert_int_eq(json_object_array_length(json_path(j, "devices")), 1);
	ck_assert_str_eq(json_object_get_string(json_path(j, "devices.0.dev")),
			 "vda");
	json_object_put(j);
	console_report_free(&r);
	strbuf_reset(&c);
	strbuf_reset(&many);
	for (int i = 0; i < 40; i++)
		strbuf_add(&many, dump.buf, dump.len);
	wrap_dump(&c, &many, 1, "vda done 1 inflight 0 0");
	wrap_dump(&c, &dump, 2, "vda done 1 inflight 0 0");
	parse(&c, &r);
	j = detail_json(stall_of(&r, &n));
	ck_assert_int_eq(json_object_get_int(json_path(j, "blocked_first")),
			 32);
	json_object_put(j);
	console_report_free(&r);
	strbuf_release(&c);
	strbuf_release(&many);
	strbuf_release(&dump);
}
END_TEST

/*
 * A real stall: the fault-hang cell (fio writing to a frozen ext4, in D
 * state in percpu_rwsem_wait) of a reproducer bundle run by hand, where
 * nothing cut the guest short: the watcher's two dumps, one site.
 */
#define HANG "fault-hang-6.12-byhand.console.gz"

START_TEST(test_stall_fault_hang)
{
	struct console_report r;
	const struct console_event *e;
	json_object *j;

	e = the_stall(HANG, &r);
	ck_assert_str_eq(e->title, "stall in percpu_rwsem_wait");
	ck_assert_int_eq(e->line, 854);
	j = detail_json(e);
	ck_assert_str_eq(
		json_object_get_string(json_path(j, "sites.0.tasks.0")), "fio");
	ck_assert_int_eq(json_object_array_length(json_path(j, "devices")), 3);
	ck_assert(!json_object_get_boolean(json_path(j, "devices.0.stuck")));
	ck_assert_int_eq(json_object_get_int(json_path(j, "vm_first.pgpgout")),
			 2432);
	json_object_put(j);
	console_report_free(&r);
}
END_TEST

/*
 * The swap-over-iSCSI deadlock live, with the watcher (debian-6.12,
 * swap-direct on swap-raid1-iscsi, 2026-12-05): virtio-net's refill_work,
 * kthreadd and kswapd0 wait in writeback throttling (rq_qos_wait) for swap
 * writes to the iSCSI disks under md0, the hog and the sampler in
 * throttle_direct_reclaim, a kworker for kthreadd; md0 kept 56 writes in
 * flight and completed nothing between the dumps.
 */
#define HUNG "swap-direct-6.12-hung.console.gz"

START_TEST(test_stall_swap_deadlock_live)
{
	struct console_report r;
	const struct console_event *e;
	json_object *j, *md0;

	e = the_stall(HUNG, &r);
	ck_assert_str_eq(
		e->title,
		"stall in __wait_for_common, rq_qos_wait, throttle_direct_reclaim");
	ck_assert_int_eq(e->line, 681);
	j = detail_json(e);
	ck_assert_str_eq(json_object_get_string(json_path(j, "sites.1.wait")),
			 "rq_qos_wait");
	ck_assert_str_eq(
		json_object_get_string(json_path(j, "sites.1.tasks.2")),
		"refill_work");
	md0 = json_path(j, "devices.2");
	ck_assert_str_eq(json_object_get_string(json_path(md0, "dev")), "md0");
	ck_assert(json_object_get_boolean(json_path(md0, "stuck")));
	ck_assert_int_eq(json_object_get_int(json_path(md0, "inflight_writes")),
			 56);
	ck_assert_int_eq(json_object_get_int(json_path(j, "vm_second.pswpout")),
			 208);
	json_object_put(j);
	console_report_free(&r);
}
END_TEST

/*
 * The same deadlock in md's bio mempool (debian-6.12, 2026-12-05): the
 * watcher's two dumps, then the agent itself stuck collecting files, so
 * the host's collect timer ended the cell. The kernel filed no hang
 * report (mempool_alloc sleeps in 5 s slices); the stall event is the
 * evidence, and the outcome is hung, not an infra-error retried as the
 * host's fault (which hid this cell: its retry was ok).
 */
#define STUCK "swap-direct-6.12-agent-stuck.console.gz"

START_TEST(test_stall_is_hang_evidence)
{
	struct strbuf why = STRBUF_INIT;
	struct console_report r;
	struct cell_facts f = { .hello = true,
				.run_timeout = true,
				.timeout_phase = "collect" };
	const struct console_event *e;

	e = the_stall(STUCK, &r);
	ck_assert_str_eq(e->title, "stall in mempool_alloc_noprof");
	cell_facts_console(&f, &r);
	ck_assert_int_eq(cell_outcome(&f, &why), OUTCOME_HUNG);
	ck_assert_str_eq(
		why.buf,
		"no exit from the agent before the collect timeout; console: stall in mempool_alloc_noprof");
	console_report_free(&r);
	strbuf_release(&why);
}
END_TEST

/*
 * A standstill that ended (the lab's 6.12, swap-direct-mglru-off,
 * 2026-12-06): in dump 1 kswapd0, the sampler and the hog wait in
 * mempool_alloc for md's clone (bio_alloc_clone <- raid1_write_request);
 * in dump 2 only the hog is in D state, in mempool_alloc again but for
 * fs_bio_set (bio_alloc_bioset <- __swap_writepage): it got its clone
 * and moved on, and pswpout rose 0.2 s later. The same first frame is not
 * the same wait: no event. Dump 1 given as both dumps is one, and the
 * watcher's "stall ended" line after dump 2 is its ended_after_s.
 */
#define MOVED "swap-direct-6.12-lab-moved.console.gz"

static void dump_block(struct strbuf *out, const struct strbuf *c, int from,
		       int to)
{
	char mark[64];
	const char *s, *e;

	snprintf(mark, sizeof(mark), "wblab: stall dump %d:", from);
	s = strstr(c->buf, mark);
	ck_assert_ptr_nonnull(s);
	while (s > c->buf && s[-1] != '\n')
		s--;
	snprintf(mark, sizeof(mark), "wblab: stall dump %d end", from);
	e = strstr(s, mark);
	ck_assert_ptr_nonnull(e);
	e = strchr(e, '\n') + 1;
	for (const char *l = s; l < e;) {
		const char *nl = strchr(l, '\n') + 1, *m;

		m = memmem(l, nl - l, "stall dump 1", 12);
		if (m && to != from) {
			strbuf_add(out, l, m + 11 - l);
			strbuf_addf(out, "%d", to);
			strbuf_add(out, m + 12, nl - (m + 12));
		} else {
			strbuf_add(out, l, nl - l);
		}
		l = nl;
	}
}

START_TEST(test_stall_moved_is_not_stuck)
{
	struct strbuf c = STRBUF_INIT, twice = STRBUF_INIT;
	struct console_report r;
	const struct console_event *e;
	json_object *j;
	int n;

	ck_assert_int_eq(stalls_in(MOVED), 0);
	testdata_gunzip(&c, "stall/%s", MOVED);
	dump_block(&twice, &c, 1, 1);
	dump_block(&twice, &c, 1, 2);
	parse(&twice, &r);
	e = stall_of(&r, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(e->title, "stall in mempool_alloc_noprof");
	j = detail_json(e);
	ck_assert_int_eq(
		json_object_array_length(json_path(j, "sites.0.tasks")), 3);
	ck_assert_int_eq(json_object_get_int(json_path(j, "blocked_second")),
			 3);
	ck_assert_ptr_null(json_path(j, "ended_after_s"));
	json_object_put(j);
	console_report_free(&r);
	/* The watcher saw it end: said once, after dump 2 only. */
	strbuf_reset(&twice);
	strbuf_addstr(&twice,
		      "[   60.0] wblab: stall ended: progress after 9 s\n");
	dump_block(&twice, &c, 1, 1);
	dump_block(&twice, &c, 1, 2);
	strbuf_addstr(&twice,
		      "[   90.0] wblab: stall ended: progress after 47 s\n"
		      "[   99.0] wblab: stall ended: progress after 56 s\n");
	parse(&twice, &r);
	j = detail_json(stall_of(&r, &n));
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(json_object_get_int(json_path(j, "ended_after_s")),
			 47);
	ck_assert_int_eq(
		json_object_get_int(json_path(j, "io_errors_before_end")), 0);
	json_object_put(j);
	console_report_free(&r);
	strbuf_release(&twice);
	strbuf_release(&c);
}
END_TEST

/*
 * Shape A+B on the lab's 6.12 (2026-12-06, run 20261206-072024-0ac6,
 * cell 8), with the watcher that goes on after dump 2: a GFP_ATOMIC rx
 * refill failure at 6.2 s, both iSCSI ping timeouts 10 s later,
 * refill_work among the writers in mempool_alloc in both dumps; 130 s
 * still, then iSCSI's session recovery timed out and failed every request
 * (10 "I/O error, dev" lines) and the watcher saw counters move: it
 * ended, on I/O errors, not by recovering.
 */
#define B_ENDED "swap-direct-6.12-lab-b-ended.console.gz"

START_TEST(test_stall_ended_on_io_errors)
{
	struct console_report r;
	const struct console_event *e;
	json_object *j, *tasks;
	bool refill = false;

	e = the_stall(B_ENDED, &r);
	ck_assert_str_eq(
		e->title,
		"stall in __wait_for_common, mempool_alloc_noprof, throttle_direct_reclaim");
	j = detail_json(e);
	ck_assert_str_eq(json_object_get_string(json_path(j, "sites.1.wait")),
			 "mempool_alloc_noprof");
	tasks = json_path(j, "sites.1.tasks");
	for (size_t i = 0; i < json_object_array_length(tasks); i++)
		refill |= !strcmp(json_object_get_string(
					  json_object_array_get_idx(tasks, i)),
				  "refill_work");
	ck_assert(refill);
	ck_assert_int_eq(json_object_get_int(json_path(j, "ended_after_s")),
			 130);
	ck_assert_int_eq(
		json_object_get_int(json_path(j, "io_errors_before_end")), 10);
	ck_assert_int_eq(
		json_object_get_int(json_path(j, "alloc_failures_atomic")), 1);
	json_object_put(j);
	console_report_free(&r);
}
END_TEST

/* Fed byte by byte: the same event from the same bytes. */
START_TEST(test_stall_chunking)
{
	struct strbuf c = STRBUF_INIT;
	struct console_report whole, bytes;
	struct console_parser *p;
	int n1, n2;

	testdata_gunzip(&c, "stall/%s", HANG);
	parse(&c, &whole);
	p = console_parser_new();
	console_report_init(&bytes);
	for (size_t i = 0; i < c.len; i++)
		console_parser_feed(p, c.buf + i, 1);
	console_parser_finish(p, &bytes);
	console_parser_free(p);
	ck_assert_ptr_nonnull(stall_of(&whole, &n1));
	ck_assert_ptr_nonnull(stall_of(&bytes, &n2));
	ck_assert_int_eq(n2, 1);
	ck_assert_str_eq(stall_of(&whole, &n1)->title,
			 stall_of(&bytes, &n2)->title);
	ck_assert_int_eq(stall_of(&whole, &n1)->line,
			 stall_of(&bytes, &n2)->line);
	console_report_free(&whole);
	console_report_free(&bytes);
	strbuf_release(&c);
}
END_TEST

/*
 * One dump is no evidence: the same console cut before the second dump's
 * marker has no event (a task seen once in D state may be slow).
 */
START_TEST(test_stall_needs_two_dumps)
{
	struct strbuf c = STRBUF_INIT;
	struct console_report r;
	const char *cut;
	int n;

	testdata_gunzip(&c, "stall/%s", HANG);
	cut = strstr(c.buf, "wblab: stall dump 2:");
	ck_assert_ptr_nonnull(cut);
	c.len = cut - c.buf;
	c.buf[c.len] = '\0';
	parse(&c, &r);
	stall_of(&r, &n);
	ck_assert_int_eq(n, 0);
	console_report_free(&r);
	strbuf_release(&c);
}
END_TEST

static Suite *stall_suite(void)
{
	Suite *s = suite_create("stall");
	TCase *t = tcase_create("core");

	tcase_add_test(t, test_stall_none_on_healthy);
	tcase_add_test(t, test_stall_real_dump);
	tcase_add_test(t, test_stall_fault_hang);
	tcase_add_test(t, test_stall_swap_deadlock_live);
	tcase_add_test(t, test_stall_is_hang_evidence);
	tcase_add_test(t, test_stall_chunking);
	tcase_add_test(t, test_stall_needs_two_dumps);
	tcase_add_test(t, test_stall_bounded);
	tcase_add_test(t, test_stall_moved_is_not_stuck);
	tcase_add_test(t, test_stall_ended_on_io_errors);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stall_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
