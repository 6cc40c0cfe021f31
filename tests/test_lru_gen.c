// SPDX-License-Identifier: GPL-2.0
/* The plan steps a workload's lru_gen: (MGLRU on or off) compiles to. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cell/plan.h"
#include "cell/collectors-plan.h"
#include "util/log.h"
#include "util/strbuf.h"

static int step_index(const char *plan, const char *needle)
{
	const char *p = strstr(plan, needle);

	return p ? (int)(p - plan) : -1;
}

START_TEST(plan_steps)
{
	struct topology_spec t = { .name = "none" };
	struct workload_spec w = { .name = "t",
				   .timeout = 30,
				   .hog_size = 1 << 20 };
	struct plan_opts o = { .role = PLAN_MAIN, .workload_timeout = 30 };
	struct strbuf p = STRBUF_INIT;
	struct plan_devs d = { 0 };

	/* No lru_gen: the collectors only read the knob, before vmstat.before. */
	plan_compile(&t, &w, &o, &p, &d);
	plan_devs_free(&d);
	ck_assert_int_lt(step_index(p.buf, "put\t" LRU_GEN), 0);
	ck_assert_int_lt(step_index(p.buf, "\tlru_gen\t"), 0);
	ck_assert_int_ge(step_index(p.buf, "get\tlru_gen.enabled\t" LRU_GEN),
			 0);
	ck_assert_int_lt(step_index(p.buf, "get\tlru_gen.enabled"),
			 step_index(p.buf, "get\tvmstat.before"));
	strbuf_reset(&p);

	/* on: write y, check the core bit took (fatal), then read it. */
	w.lru_gen = "on";
	plan_compile(&t, &w, &o, &p, &d);
	plan_devs_free(&d);
	ck_assert_int_lt(
		step_index(p.buf, "put\t" LRU_GEN "\ty\n"),
		step_index(
			p.buf,
			"run\tlru_gen\t120\tgrep\t-Eqx\t0x[0-9a-f]*[13579bdf]\t" LRU_GEN
			"\n"));
	/* Before the collectors read it back. */
	ck_assert_int_lt(step_index(p.buf, "run\tlru_gen\t"),
			 step_index(p.buf, "get\tlru_gen.enabled"));
	strbuf_reset(&p);

	w.lru_gen = "off";
	plan_compile(&t, &w, &o, &p, &d);
	plan_devs_free(&d);
	ck_assert_int_ge(step_index(p.buf, "put\t" LRU_GEN "\tn\n"), 0);
	ck_assert_int_ge(step_index(p.buf, "\tgrep\t-Eqx\t0x0+\t" LRU_GEN "\n"),
			 0);
	strbuf_reset(&p);

	/* The target guest serves LUNs: no knob there. */
	o.role = PLAN_TARGET;
	plan_compile(&t, &w, &o, &p, &d);
	plan_devs_free(&d);
	ck_assert_int_lt(step_index(p.buf, "lru_gen"), 0);
	strbuf_release(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lru_gen");
	TCase *tc = tcase_create("knob");
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
