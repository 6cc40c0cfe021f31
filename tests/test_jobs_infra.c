// SPDX-License-Identifier: GPL-2.0
/*
 * A round of cells the lab lost is the lab's failure, not the kernels'
 * (issue 41, found on the 7.2 tree): validate whose later cells are all
 * infra-error exits 3, not 4 ("unknown"); bisect stops a step, or the
 * ends, whose round of cells brought no kernel result, as infra (exit 3,
 * the step left for --resume), instead of adding rounds to --max-reps
 * and then skipping the commit or calling the ends "not confirmed".
 *
 * Driven through the shipped code (validate_looks() and validate_exit();
 * bisect_confirm_ends() and bisect_measure() behind struct bisect_cells)
 * with the real runs of tests/data/jobs/infra-7.2 (its README): each
 * "more cells" loads the captured run again, as jobrun_more() does after
 * the engine ran the new cells, which there were all infra-error.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/bisect-int.h"
#include "jobs/family.h"
#include "jobs/pool.h"
#include "jobs/validate.h"
#include "spec/matrix.h"
#include "util/log.h"

#include "testdata.h"

#define DATA "jobs/infra-7.2"
#define BASE "git-3f93df8532fb"
#define HARMLESS "git-3f93df8532fb-p7903d756"
#define BAD_END "git-52f3bb524ed9"
#define STEP "git-35fb652668ab"

/* The jobs' 7.x matrix: workload-time, 50%, bad up. */
static void matrix_7x(struct matrix_spec *m)
{
	char *path =
		xasprintf("%s/tests/jobs/dirty-ext4-7x.yaml", testdata_home());

	ck_assert_int_eq(matrix_spec_find(path, m), 0);
	ck_assert_uint_eq(m->nr_thresholds, 1);
	free(path);
}

/* A captured run as the engine's cells: every call loads it again. */
struct replay {
	struct pool *p;
	char *dir;
	int runs, mores;
};

static int replay_more(void *ctx, struct pool *p, int extra)
{
	struct replay *r = ctx;

	(void)extra;
	r->mores++;
	return pool_load_run(p, r->dir);
}

START_TEST(validate_lost_round_is_infra)
{
	struct matrix_spec m;
	struct pool p = POOL_INIT;
	struct family f = { 0 };
	struct dlooks l = DLOOKS_INIT;
	struct replay r = { .p = &p };
	const struct validate_cells src = { .more = replay_more, .ctx = &r };
	int reps = 3;

	log_quiet = 1;
	matrix_7x(&m);
	r.dir = testdata_path(DATA "/validate-harmless");
	ck_assert_int_eq(pool_load_run(&p, r.dir), 0);
	ck_assert_uint_eq(pool_count(&p, BASE, NULL), 3);
	ck_assert_uint_eq(pool_count(&p, HARMLESS, NULL), 3);
	ck_assert_int_eq(p.infra, 12);
	l.boundary = VALIDATE_BOUNDARY;
	ck_assert_int_eq(validate_looks(&f, &p, BASE, HARMLESS, m.thresholds,
					m.nr_thresholds, &l, &reps, 9, &src),
			 VALIDATE_LOOKS_LOST);
	/* One round asked for, none after it brought nothing. */
	ck_assert_int_eq(r.mores, 1);
	ck_assert_int_eq(reps, 3);
	/* A reload counts the run's infra-error cells once (was 24). */
	ck_assert_int_eq(p.infra, 12);
	/* workload-time unknown at n=3 (TOST p 0.0351 > 0.0226) */
	ck_assert_uint_eq(family_unknown(&f), 1);
	ck_assert_uint_eq(family_regressions(&f), 0);
	ck_assert_int_eq(f.look, 3);
	ck_assert_int_eq(validate_exit(&f, false, true), VALIDATE_INFRA);
	/* The same family with its rounds had: unknown, exit 4. */
	ck_assert_int_eq(validate_exit(&f, false, false), VALIDATE_UNKNOWN);
	ck_assert_int_eq(validate_exit(&f, true, false), VALIDATE_INFRA);
	family_release(&f);
	pool_free(&p);
	matrix_spec_free(&m);
	free(r.dir);
}
END_TEST

/* ---- bisect ---- */

struct bisect_replay {
	struct bctx *b;
	char *run; /* the run a step's cells come from */
	int runs, mores;
};

static int breplay_run(void *ctx, const char *const *k, size_t n, int reps,
		       char **run_dir)
{
	struct bisect_replay *r = ctx;

	(void)k, (void)n, (void)reps;
	r->runs++;
	*run_dir = xstrdup(r->run);
	return pool_load_run(&r->b->jr.pool, r->run);
}

static int breplay_more(void *ctx, const char *run_dir, int extra)
{
	struct bisect_replay *r = ctx;

	(void)extra;
	r->mores++;
	return pool_load_run(&r->b->jr.pool, run_dir);
}

/* A bisection on workload-time, its ends the captured run ends. */
static void bisect_setup(struct bctx *b, struct bisect_opts *o,
			 const struct bisect_cells *cells, const char *ends,
			 char *log)
{
	memset(o, 0, sizeof(*o));
	memset(b, 0, sizeof(*b));
	b->jr.pool = (struct pool)POOL_INIT;
	b->groups = (struct strvec)STRVEC_INIT;
	o->tree = "/var/lib/wblab/jobs-test-7.2/linux";
	o->matrix = "tests/jobs/dirty-ext4-7x.yaml";
	o->metric = metric_by_name("workload-time");
	o->max_reps = 9;
	o->out = tmpfile();
	ck_assert_ptr_nonnull(o->out);
	b->o = o;
	b->cells = cells;
	b->reps = 3;
	b->log = log;
	snprintf(b->good.kernel, sizeof(b->good.kernel), BASE);
	snprintf(b->bad.kernel, sizeof(b->bad.kernel), BAD_END);
	snprintf(b->good.image, sizeof(b->good.image), "good");
	snprintf(b->bad.image, sizeof(b->bad.image), "bad");
	b->ends_run = testdata_path(DATA "/%s", ends);
	ck_assert_int_eq(pool_load_run(&b->jr.pool, b->ends_run), 0);
}

static void bisect_teardown(struct bctx *b)
{
	fclose(b->o->out);
	unlink(b->log);
	free(b->log);
	free(b->ends_run);
	strvec_clear(&b->groups);
	pool_free(&b->jr.pool);
}

static char *tmp_log(void)
{
	char *p = xasprintf("/tmp/wblab-test-infra-XXXXXX");
	int fd = mkstemp(p);

	ck_assert_int_ge(fd, 0);
	close(fd);
	return p;
}

/*
 * The 7.2 bisection's first step: 9 cells, every one infra-error. It used
 * to add rounds to n=9, then skip the commit; now its first round stops
 * it as the lab's failure, untested (for --resume), no more rounds.
 */
START_TEST(bisect_step_all_infra_stops)
{
	struct bctx b;
	struct bisect_opts o;
	struct bisect_replay r = { .b = &b };
	const struct bisect_cells cells = { .run = breplay_run,
					    .more = breplay_more,
					    .ctx = &r };
	struct bstep s = { 0 };

	log_quiet = 1;
	bisect_setup(&b, &o, &cells, "bisect-ends", tmp_log());
	/* The ends as that bisection had them: 133 -> 231 s, p 0.0211. */
	ck_assert_int_eq(bisect_confirm_ends(&b), 0);
	ck_assert_uint_eq(b.groups.nr, 1);
	r.run = testdata_path(DATA "/bisect-step");
	snprintf(s.kernel, sizeof(s.kernel), STEP);
	snprintf(s.commit, sizeof(s.commit), "35fb652668ab");
	ck_assert_int_eq(bisect_measure(&b, &s), -1);
	ck_assert_int_eq(r.runs, 1);
	ck_assert_int_eq(r.mores, 0);
	ck_assert_int_eq(s.mark, MARK_UNTESTED);
	ck_assert_ptr_nonnull(strstr(s.reason, "the lab failed"));
	ck_assert_int_eq(b.jr.pool.infra, 9);
	free(s.run_dir);
	free(r.run);
	bisect_teardown(&b);
}
END_TEST

/*
 * Another bisection's ends: unknown at n=3 (128 -> 198 s, p 0.0543), then
 * every added cell infra-error. They used to grow to n=9 and end "the
 * ends are not confirmed" (exit 1, a verdict on the kernels); now the
 * first lost round ends it as infra (-2: exit 3).
 */
START_TEST(bisect_ends_lost_round_is_infra)
{
	struct bctx b;
	struct bisect_opts o;
	struct bisect_replay r = { .b = &b };
	const struct bisect_cells cells = { .run = breplay_run,
					    .more = breplay_more,
					    .ctx = &r };

	log_quiet = 1;
	bisect_setup(&b, &o, &cells, "bisect-ends-unknown", tmp_log());
	ck_assert_int_eq(pool_count(&b.jr.pool, BASE, NULL), 3);
	ck_assert_int_eq(pool_count(&b.jr.pool, BAD_END, NULL), 3);
	ck_assert_int_eq(bisect_confirm_ends(&b), -2);
	ck_assert_int_eq(r.mores, 1);
	ck_assert_int_eq(r.runs, 0);
	ck_assert_uint_eq(b.groups.nr, 0);
	bisect_teardown(&b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("jobs_infra");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, validate_lost_round_is_infra);
	tcase_add_test(tc, bisect_step_all_infra_stops);
	tcase_add_test(tc, bisect_ends_lost_round_is_infra);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
