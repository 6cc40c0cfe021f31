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

static Suite *stall_suite(void)
{
	Suite *s = suite_create("stall");
	TCase *t = tcase_create("core");

	tcase_add_test(t, test_stall_none_on_healthy);
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
