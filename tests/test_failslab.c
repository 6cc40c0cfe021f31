// SPDX-License-Identifier: GPL-2.0
/*
 * The plan steps a workload's failslab: (one slab cache whose every
 * allocation fails during the workload) compiles to, and their order:
 * the filter before the cache's flag, the probability last, the check
 * fatal, disarmed right after the workload's fio.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/plan.h"
#include "util/strbuf.h"

#define FS "/sys/kernel/debug/failslab/"
#define SLAB "/sys/kernel/slab/bio-192/failslab"

static int at(const char *plan, const char *needle)
{
	const char *p = strstr(plan, needle);

	return p ? (int)(p - plan) : -1;
}

/* The second occurrence (disarm puts the same files). */
static int at2(const char *plan, const char *needle)
{
	const char *p = strstr(plan, needle);

	p = p ? strstr(p + 1, needle) : NULL;
	return p ? (int)(p - plan) : -1;
}

START_TEST(plan_steps)
{
	struct topology_spec t = { .name = "none" };
	struct workload_spec w = { .name = "t",
				   .timeout = 30,
				   .fio = "[w]\nfilename=/dev/md0\n" };
	struct plan_opts o = { .role = PLAN_MAIN, .workload_timeout = 30 };
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };

	/* None: no knob is touched (should_failslab is a stack probe). */
	plan_compile(&t, &w, &o, &p, &d);
	plan_devs_free(&d);
	ck_assert_int_lt(at(p.buf, FS), 0);
	ck_assert_int_lt(at(p.buf, "/failslab\t"), 0);
	strbuf_reset(&p);

	w.failslab = "bio-192";
	plan_compile(&t, &w, &o, &p, &d);
	plan_devs_free(&d);
	/* The filter first, the cache's flag, then the probability. */
	ck_assert_int_ge(at(p.buf, "put\t" FS "cache-filter\tY\n"), 0);
	ck_assert_int_lt(at(p.buf, "put\t" FS "cache-filter\tY\n"),
			 at(p.buf, "put\t" SLAB "\t1\n"));
	ck_assert_int_lt(at(p.buf, "put\t" FS "ignore-gfp-wait\tN\n"),
			 at(p.buf, "put\t" FS "probability\t100\n"));
	ck_assert_int_lt(at(p.buf, "put\t" FS "times\t-1\n"),
			 at(p.buf, "put\t" FS "probability\t100\n"));
	ck_assert_int_lt(at(p.buf, "put\t" SLAB "\t1\n"),
			 at(p.buf, "put\t" FS "probability\t100\n"));
	/* Checked by a fatal run step, recorded in topology.txt. */
	ck_assert_int_ge(
		at(p.buf, "run\tfailslab\t120\tgrep\t-qx\t1\t" SLAB "\n"), 0);
	ck_assert_int_ge(at(p.buf, "caplines\ttopology.txt\tfailslab\t"), 0);
	/* Armed before the workload phase, after the before-snapshots. */
	ck_assert_int_lt(at(p.buf, "get\tvmstat.before"),
			 at(p.buf, "put\t" FS "probability\t100\n"));
	ck_assert_int_lt(at(p.buf, "put\t" FS "probability\t100\n"),
			 at(p.buf, "phase\tworkload"));
	/* Disarmed after fio, before the collect phase. */
	ck_assert_int_lt(at(p.buf, "run\tfio\t"),
			 at(p.buf, "put\t" FS "probability\t0\n"));
	ck_assert_int_lt(at(p.buf, "put\t" FS "probability\t0\n"),
			 at2(p.buf, "put\t" SLAB "\t"));
	ck_assert_int_lt(at2(p.buf, "put\t" SLAB "\t"),
			 at(p.buf, "phase\tcollect"));
	ck_assert_int_ge(at(p.buf, "put\t" SLAB "\t0\n"), 0);
	strbuf_reset(&p);

	/* The target guest serves LUNs: nothing fails there. */
	o.role = PLAN_TARGET;
	plan_compile(&t, &w, &o, &p, &d);
	plan_devs_free(&d);
	ck_assert_int_lt(at(p.buf, FS), 0);
	ck_assert_int_lt(at(p.buf, "/failslab\t"), 0);
	strbuf_release(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("failslab");
	TCase *tc = tcase_create("plan");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, plan_steps);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
