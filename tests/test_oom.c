// SPDX-License-Identifier: GPL-2.0
/*
 * The memcg's kills from the agent's oomwatch rows (collect/oom.c
 * memcg_oom_facts), on rows captured from oom-premature cells
 * (tests/data/oom/README.md).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "collect/oom.h"
#include "util/json.h"
#include "util/num.h"
#include "util/strbuf.h"

#include "testdata.h"

#define Q4 "oom/6.1-ext4-oom-4m/"

static long long iat(json_object *o, const char *path)
{
	json_object *v = json_path(o, path);

	ck_assert_msg(v != NULL, "no %s", path);
	return json_object_get_int64(v);
}

/* memory.events' own count of kills, the file the host fetched at the end. */
static long long events_kills(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	long long v = -1;

	testdata_read(&sb, "%smemcg.events", dir);
	p = strstr(sb.buf, "\noom_kill ");
	if (p)
		v = strtoll(p + strlen("\noom_kill "), NULL, 10);
	strbuf_release(&sb);
	return v;
}

/* 6.1 on 4 MiB/s with the churn of the first version: no kill, one row. */
START_TEST(test_memcg_oom_no_kill)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o;

	testdata_read(&sb, Q4 "memcg-oom.tsv");
	o = memcg_oom_facts(sb.buf, sb.len, -1, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(iat(o, "rows"), 1);
	ck_assert_int_eq(iat(o, "kills"), events_kills(Q4));
	ck_assert_int_eq(iat(o, "premature_kills"), 0);
	ck_assert_int_eq(iat(o, "ooms"), 0);
	ck_assert_ptr_null(json_path(o, "kill_dirty_wb_kb_mean"));
	ck_assert_int_eq(json_object_array_length(json_path(o, "events")), 0);
	json_object_put(o);
	strbuf_release(&sb);
}
END_TEST

/*
 * The watcher is SIGKILLed when the workload ends: a row cut short (no
 * newline) is left out, not read as a kill; a row whose number is bad
 * is left out and named in the numsrc; no header, no facts.
 */
START_TEST(test_memcg_oom_cut_and_bad_rows)
{
	struct strbuf sb = STRBUF_INIT, cut = STRBUF_INIT;
	struct numsrc ns = NUMSRC_INIT;
	const char *row;
	json_object *o;

	testdata_read(&sb, Q4 "memcg-oom.tsv");
	row = strchr(sb.buf, '\n') + 1;
	strbuf_add(&cut, sb.buf, sb.len);
	/* The same row again, a kill later, cut before its newline. */
	strbuf_addstr(&cut,
		      "79.0\t1\t1\t2285568\t268435456\t1540096\t90112\t4096");
	o = memcg_oom_facts(cut.buf, cut.len, -1, NULL);
	ck_assert_int_eq(iat(o, "rows"), 1);
	ck_assert_int_eq(iat(o, "kills"), 0);
	json_object_put(o);

	strbuf_reset(&cut);
	strbuf_add(&cut, sb.buf, sb.len);
	strbuf_addstr(
		&cut,
		"79.0\t1\t1x\t2285568\t268435456\t1540096\t90112\t0\t0\n");
	numsrc_add(&ns, "memcg-oom.tsv", cut.buf, cut.len);
	o = memcg_oom_facts(cut.buf, cut.len, -1, &ns);
	ck_assert_int_eq(iat(o, "kills"), 0);
	ck_assert_uint_eq(ns.nr_bad, 1);
	ck_assert_msg(strstr(ns.first, "memcg-oom.tsv:3"), "%s", ns.first);
	json_object_put(o);
	numsrc_release(&ns);

	ck_assert_ptr_null(memcg_oom_facts(row, strlen(row), -1, NULL));
	strbuf_release(&cut);
	strbuf_release(&sb);
}
END_TEST

/* The rule itself: more than 1/16 of the limit dirty or under writeback. */
START_TEST(test_oom_premature_rule)
{
	long long limit = 256LL << 20;

	ck_assert(!oom_premature(16LL << 20, limit));
	ck_assert(oom_premature((16LL << 20) + 4096, limit));
	ck_assert(!oom_premature(1LL << 40, -1)); /* memory.max "max" */
	ck_assert(!oom_premature(0, limit));
}
END_TEST

static Suite *oom_suite(void)
{
	Suite *s = suite_create("oom");
	TCase *tc = tcase_create("memcg_oom");

	tcase_add_test(tc, test_memcg_oom_no_kill);
	tcase_add_test(tc, test_memcg_oom_cut_and_bad_rows);
	tcase_add_test(tc, test_oom_premature_rule);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(oom_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
