// SPDX-License-Identifier: GPL-2.0
/*
 * Calibration of wblab's verdicts on captured cells (issues #27, #41):
 * the report's false alarms on identical kernels through `wblab aa`'s own
 * split (rpt_aa_split()), its power on the known answer, and whole
 * validates through the command's own look loop (validate_looks(), its
 * cells drawn from captured ones instead of run), each rate asserted
 * against a binomial band around its target.
 *
 * Two days of cells, kept apart (README.md in each): the tuning day,
 * tests/data/report/fsync (2026-12-04, load 3-6), on which validate's
 * boundary was chosen, and the test day, tests/data/report/fsync-day2
 * (2026-12-07, load 14-36, other kernel builds of the same sources), on
 * which the rates are measured: 20 cells of the lab's 6.1 and 10 of
 * 6.1-direct-writeback a day, dirty-flood on ext4 with end_fsync, TCG.
 * The events come from two other days' runs (report/aa, 2026-12-03;
 * jobs/crash-rerun).
 *
 * The random draws use a fixed seed, so a run's rates are reproducible;
 * WBLAB_CALIBRATION_VERBOSE=1 prints them (docs/jobs.md quotes them).
 */
#include <check.h>
#include <ctype.h>
#include <gsl/gsl_rng.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run-options.h"
#include "decide/procedure.h"
#include "jobs/family.h"
#include "jobs/pool.h"
#include "jobs/validate.h"
#include "report/report.h"
#include "results/cell.h"
#include "results/outcome.h"
#include "results/metric.h"
#include "util/json.h"
#include "util/log.h"

#include "testdata.h"

/* The tuning day (the boundary was chosen on it) and the test day. */
#define DAY1 "report/fsync"
#define DAY2 "report/fsync-day2"
#define TEST_DAY DAY2
#define AB_RUN DAY1 "/ab"
#define BASE "6.1"
#define REVERT "6.1-direct-writeback"

static unsigned long long rng = 88172645463325252ULL;

/* xorshift64: a fixed, portable sequence. */
static size_t draw(size_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (size_t)(rng % n);
}

/* Fisher-Yates: idx[0..n) a random permutation. */
static void shuffle(size_t *idx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = draw(i + 1), t = idx[i];

		idx[i] = idx[j];
		idx[j] = t;
	}
}

static bool verbose(void)
{
	return getenv("WBLAB_CALIBRATION_VERBOSE") != NULL;
}

/* A day's two runs: ab/ (6.1 and the revert) and aa/ (6.1). */
static void load_runs(struct report *r, const char *day)
{
	struct strbuf err = STRBUF_INIT;
	char *ab = testdata_path("%s/ab", day);
	char *aa = testdata_path("%s/aa", day);

	ck_assert_msg(!report_load_run(r, ab, &err), "%s", err.buf);
	ck_assert_msg(!report_load_run(r, aa, &err), "%s", err.buf);
	free(ab);
	free(aa);
	strbuf_release(&err);
}

/* The ok cells of a kernel, by index into r->cells. */
static size_t cells_of(const struct report *r, const char *kernel, size_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nr_cells; i++)
		if (!strcmp(r->cells[i]->kernel, kernel) &&
		    !strcmp(r->cells[i]->outcome, "ok"))
			out[n++] = i;
	return n;
}

static void set_side(struct rpt_cell *c, const char *side)
{
	free(c->side);
	c->side = xstrdup(side);
}

/*
 * A/A on the test day: the base's ok cells split into two sides of n by
 * `wblab aa --from`'s own split (same-run pairs, a coin flip in each;
 * rpt_aa_split()), the report built, its stars counted. Every star is a
 * false alarm.
 */
static void aa_splits(size_t n, size_t splits)
{
	struct report r;
	gsl_rng *g_rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t base[64], nb;
	double share_sum = 0, worst = 0;
	size_t tested_sum = 0, primary_diff = 0;

	gsl_rng_set(g_rng, 1);
	report_init(&r, NULL);
	load_runs(&r, TEST_DAY);
	nb = cells_of(&r, BASE, base);
	ck_assert_uint_ge(nb, 20);
	for (size_t s = 0; s < splits; s++) {
		const struct rpt_group *g;
		double share;

		rpt_aa_split(&r, base, nb, g_rng, n, false);
		ck_assert_int_eq(report_build(&r, NULL), 0);
		ck_assert_uint_eq(r.nr_groups, 1);
		g = &r.groups[0];
		ck_assert_uint_eq(g->sides[0].n, n);
		share = g->tested ? (double)g->starred / g->tested : 0;
		share_sum += share;
		tested_sum += g->tested;
		if (share > worst)
			worst = share;
		for (size_t v = 0; v < g->nr_verdicts; v++)
			primary_diff += g->verdicts[v].d.verdict ==
					VERDICT_DIFFERENT;
	}
	if (verbose())
		fprintf(stderr,
			"A/A report n=%zu (test day %s): %zu splits, %.1f "
			"rows tested, mean %.2f%% starred, worst %.1f%%, "
			"primary different %zu\n",
			n, TEST_DAY, splits, (double)tested_sum / splits,
			100 * share_sum / splits, 100 * worst, primary_diff);
	ck_assert_double_le(share_sum / splits, 0.02);
	ck_assert_double_le(worst, 0.10);
	ck_assert_double_le((double)primary_diff / splits,
			    0.05 + 3 * sqrt(0.05 * 0.95 / splits));
	gsl_rng_free(g_rng);
	report_release(&r);
}

START_TEST(test_aa_report_n3)
{
	aa_splits(3, 200);
}
END_TEST

START_TEST(test_aa_report_n5)
{
	aa_splits(5, 200);
}
END_TEST

/*
 * Known-answer power: n = 5 a side resampled (without replacement) from
 * the captured cells of each kernel; the Verdict block must say
 * `different` on reclaim-wr-direct in at least 95% of the reports.
 */
START_TEST(test_known_answer_power)
{
	const size_t n = 5, reps = 200;
	struct report r;
	size_t base[64], rev[64], ib[64], ir[64], nb, nr, hits = 0;

	report_init(&r, NULL);
	load_runs(&r, TEST_DAY);
	nb = cells_of(&r, BASE, base);
	nr = cells_of(&r, REVERT, rev);
	ck_assert_uint_ge(nb, 10);
	ck_assert_uint_ge(nr, 10);
	for (size_t k = 0; k < reps; k++) {
		const struct rpt_group *g;

		for (size_t i = 0; i < r.nr_cells; i++)
			set_side(r.cells[i], "");
		shuffle(ib, nb);
		shuffle(ir, nr);
		for (size_t i = 0; i < n; i++) {
			set_side(r.cells[base[ib[i]]], BASE);
			set_side(r.cells[rev[ir[i]]], REVERT);
		}
		r.o.baseline = BASE;
		ck_assert_int_eq(report_build(&r, NULL), 0);
		g = &r.groups[0];
		for (size_t v = 0; v < g->nr_verdicts; v++)
			hits += !strcmp(metric_rows[g->verdicts[v].metric].name,
					"reclaim-wr-direct") &&
				g->verdicts[v].d.verdict == VERDICT_DIFFERENT;
	}
	if (verbose())
		fprintf(stderr,
			"known answer at n=%zu: %zu of %zu reports "
			"different on reclaim-wr-direct\n",
			n, hits, reps);
	ck_assert_uint_ge(hits * 100, 95 * reps);
	report_release(&r);
}
END_TEST

/*
 * The mail a reviewer reads: the Verdict first, reclaim-wr-direct
 * different in the workload's unit, the whole report within 100 lines
 * (the spread lines and the per-row legend wait for --full).
 */
START_TEST(test_mail_verdict_first)
{
	struct report r;
	struct strbuf mail = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	char *ab = testdata_path(AB_RUN);
	const char *v, *o;
	size_t lines = 0;

	report_init(&r, NULL);
	r.o.baseline = BASE;
	ck_assert_msg(!report_load_run(&r, ab, &err), "%s", err.buf);
	ck_assert_int_eq(report_build(&r, &err), 0);
	report_mail(&r, &mail);
	v = strstr(mail.buf, "Verdict (");
	o = strstr(mail.buf, "Outcomes (fail:runs)");
	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(o);
	ck_assert(v < o);
	ck_assert_ptr_nonnull(strstr(
		v,
		"reclaim-wr-direct  different Gmean 0 -> 231 pages, n 10/10"));
	ck_assert_ptr_null(strstr(mail.buf, "inf%"));
	for (const char *p = mail.buf; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_le(lines, 100);
	/*
	 * These cells keep no timeseries.tsv: the HTML report says so
	 * instead of failing in gnuplot ("no valid points"), and shows the
	 * Verdict too.
	 */
	r.o.timeseries = true;
	strbuf_reset(&mail);
	ck_assert_msg(!report_html(&r, &mail, &err), "%s", err.buf);
	ck_assert_ptr_nonnull(strstr(mail.buf, "<h3>Verdict</h3>"));
	ck_assert_ptr_nonnull(
		strstr(mail.buf, "no time series in these cells"));
	strbuf_release(&mail);
	strbuf_release(&err);
	free(ab);
	report_release(&r);
}
END_TEST

/* ---- whole validates through the real procedure (validate_looks) ---- */

/*
 * The five thresholded rows of the real validate, 10% each, as a
 * matrix's thresholds: what validate_looks() decides (NFAM of them); and
 * a counter whose two kernels overlap, Memcg reclaims (memcg reclaim
 * entries: 1308-1518 a cell on the test day's 6.1, 1382-1586 with the
 * revert, +9.5%), at 5% so that the revert's rise is a regression.
 */
static const struct {
	const char *row, *bad;
	double pct;
} rows[] = {
	{ "reclaim-wr-direct", "up", 10 }, { "fio-write", "down", 10 },
	{ "workload-time", "up", 10 },	   { "memcg-stall-p95", "up", 10 },
	{ "psi-mem-some", "up", 10 },	   { "Memcg reclaims", "up", 5 },
};
#define NROWS ARRAY_SIZE(rows)
#define NFAM 5 /* the validate: rows[0..4] */
#define MEMCG_RECLAIMS 5
#define SIM_GROUP "ext4-disk/dirty-flood/512"

static void thresholds(struct matrix_threshold *t, size_t nrows)
{
	for (size_t k = 0; k < nrows; k++) {
		t[k].row = metric_by_name(rows[k].row);
		ck_assert_ptr_nonnull(t[k].row);
		t[k].metric = (char *)rows[k].row;
		t[k].bad = (char *)rows[k].bad;
		t[k].change_pct = rows[k].pct;
	}
}

/* Each row's values over a day's 6.1 cells (NaN-free): its own pool. */
struct pools {
	double v[NROWS][64];
	size_t n[NROWS];
	double wr[64]; /* reclaim-wr-direct of the day's revert cells */
	size_t nwr;
	double rv[NROWS][64]; /* each row over the revert's cells */
	size_t nrv[NROWS];
};

static void row_pools(struct pools *po, const char *day)
{
	struct report r;
	size_t base[64], rev[64], nb, nr;
	size_t wr = metric_index(metric_by_name("reclaim-wr-direct"));

	report_init(&r, NULL);
	load_runs(&r, day);
	nb = cells_of(&r, BASE, base);
	nr = cells_of(&r, REVERT, rev);
	for (size_t k = 0; k < NROWS; k++) {
		size_t m = metric_index(metric_by_name(rows[k].row));

		po->n[k] = 0;
		for (size_t i = 0; i < nb; i++) {
			double x = r.cells[base[i]]->val[m];

			if (isfinite(x))
				po->v[k][po->n[k]++] = x;
		}
		ck_assert_uint_ge(po->n[k], 18);
	}
	po->nwr = nr;
	for (size_t i = 0; i < nr; i++)
		po->wr[i] = r.cells[rev[i]]->val[wr];
	for (size_t k = 0; k < NROWS; k++) {
		size_t m = metric_index(metric_by_name(rows[k].row));

		po->nrv[k] = 0;
		for (size_t i = 0; i < nr; i++)
			if (isfinite(r.cells[rev[i]]->val[m]))
				po->rv[k][po->nrv[k]++] =
					r.cells[rev[i]]->val[m];
	}
	ck_assert_uint_ge(nr, 9);
	report_release(&r);
}

/*
 * Where a side's cells come from: whole captured cells (with probability
 * alt_share one of alt[], else one of whole[]), or, with whole NULL, a
 * cell whose rows are drawn each from its own pool (independent rows, so
 * the family's false alarm rate has a known target), row k times
 * scale[k], reclaim-wr-direct a revert cell's in a share wr_share of the
 * cells.
 */
struct side {
	struct cell_result **whole, **alt;
	size_t nwhole, nalt;
	double alt_share;
	const struct pools *po;
	size_t nrows; /* rows drawn: rows[0..nrows) */
	double scale[NROWS];
	double wr_share;
	bool revert[NROWS]; /* row k drawn from the revert's cells */
};

/* The number v at a cell.json path (objects, and arrays at a digit). */
static void set_path(json_object *o, const char *path, double v)
{
	char *copy = xstrdup(path), *save, *tok, *next;

	for (tok = strtok_r(copy, ".", &save); tok; tok = next) {
		json_object *child = NULL;
		bool arr = json_object_is_type(o, json_type_array);

		next = strtok_r(NULL, ".", &save);
		if (!next) {
			child = json_object_new_double(v);
		} else if (arr) {
			child = json_object_array_get_idx(o, atoi(tok));
			if (child) {
				o = child;
				continue;
			}
		} else if (json_object_object_get_ex(o, tok, &child)) {
			o = child;
			continue;
		}
		if (next)
			child = isdigit((unsigned char)*next) ?
					json_object_new_array() :
					json_object_new_object();
		if (arr)
			json_object_array_put_idx(o, atoi(tok), child);
		else
			json_object_object_add(o, tok, child);
		o = child;
	}
	free(copy);
}

/* A cell.json of the rows, decoded as the pool's cells are. */
static struct cell_result *row_cell(const struct side *sd)
{
	json_object *c = json_object_new_object();
	struct cell_result *r;

	json_object_object_add(c, "outcome", json_object_new_string("ok"));
	for (size_t k = 0; k < sd->nrows; k++) {
		const struct metric *m = metric_by_name(rows[k].row);
		double x = sd->revert[k] ? sd->po->rv[k][draw(sd->po->nrv[k])] :
					   sd->po->v[k][draw(sd->po->n[k])] *
						   sd->scale[k];

		if (!k && sd->wr_share > 0)
			x = draw(1000) < sd->wr_share * 1000 ?
				    sd->po->wr[draw(sd->po->nwr)] :
				    0;
		set_path(c, m->path, x / m->scale);
	}
	r = cell_result_decode(c);
	json_object_put(c);
	return r;
}

static struct cell_result *side_cell(const struct side *sd)
{
	if (!sd->whole)
		return row_cell(sd);
	if (sd->nalt && draw(1000) < sd->alt_share * 1000)
		return cell_result_get(sd->alt[draw(sd->nalt)]);
	return cell_result_get(sd->whole[draw(sd->nwhole)]);
}

/* What one validate said: at any look, and when it stopped. */
struct sim_end {
	bool diff_any[NROWS + 8]; /* hypothesis i different at some look */
	bool same_any[NROWS + 8];
	bool any_diff; /* some hypothesis different at some look */
	bool reg[NROWS + 8]; /* a regression when it stopped */
	bool same[NROWS + 8]; /* `same` when it stopped */
	int exit; /* family_exit(): validate's 0, 1 or 4 */
	int n; /* cells a side when it stopped */
};

struct sim {
	struct side a, b;
	struct sim_end *end;
};

static void add_cell(struct pool *p, const char *kernel, struct cell_result *c)
{
	struct pool_cell *pc;

	p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	pc = &p->v[p->n++];
	pc->run_dir = xstrdup("calibration");
	pc->kernel = xstrdup(kernel);
	pc->group = xstrdup(SIM_GROUP);
	pc->cell = c;
	if (!strvec_has(&p->groups, SIM_GROUP))
		strvec_push(&p->groups, SIM_GROUP);
}

/* validate_cells.more: extra drawn cells a side. */
static int sim_more(void *ctx, struct pool *p, int extra)
{
	struct sim *s = ctx;

	for (int i = 0; i < extra; i++) {
		add_cell(p, "base", side_cell(&s->a));
		add_cell(p, "patched", side_cell(&s->b));
	}
	return 0;
}

/* validate_cells.look: what each look said. */
static void sim_look(void *ctx, const struct family *f, int n)
{
	struct sim_end *e = ((struct sim *)ctx)->end;

	for (size_t i = 0; i < f->n && i < ARRAY_SIZE(e->diff_any); i++) {
		bool d = f->h[i].d.verdict == VERDICT_DIFFERENT;

		e->diff_any[i] |= d;
		e->any_diff |= d;
		e->same_any[i] |= f->h[i].d.verdict == VERDICT_SAME;
	}
}

/*
 * One validate, as `wblab validate` runs it (its looks, boundary and
 * --max-reps defaults), through validate_looks(): 3 cells a side, then 2
 * more while a row or event is open.
 */
static void run_validate(struct sim *s, const struct matrix_threshold *t,
			 size_t nt, struct sim_end *e)
{
	struct pool p = POOL_INIT;
	struct family f = { 0 };
	struct dlooks l = DLOOKS_INIT;
	const struct validate_cells src = { .more = sim_more,
					    .look = sim_look,
					    .ctx = s };
	int reps = 3;

	l.boundary = VALIDATE_BOUNDARY;
	memset(e, 0, sizeof(*e));
	s->end = e;
	sim_more(s, &p, reps);
	ck_assert_int_eq(validate_looks(&f, &p, "base", "patched", t, nt, &l,
					&reps, MAX_REPS_DEFAULT, &src),
			 0);
	e->exit = family_exit(&f);
	e->n = reps;
	for (size_t i = 0; i < f.n && i < ARRAY_SIZE(e->reg); i++) {
		e->reg[i] = f.h[i].regression;
		e->same[i] = f.h[i].d.verdict == VERDICT_SAME;
	}
	family_release(&f);
	pool_free(&p);
}

/*
 * The edges of a binomial band around target for `runs` draws: 3
 * standard deviations (P(outside) about 0.0013 a side for a procedure on
 * target). A false alarm rate above the top is a broken procedure, a
 * power below the bottom a lost one, not bad luck.
 */
static double band_top(double target, size_t runs)
{
	return target + 3 * sqrt(target * (1 - target) / runs);
}

static double band_bottom(double target, size_t runs)
{
	return target - 3 * sqrt(target * (1 - target) / runs);
}

/* The five rows, as they are. */
static void unit_scale(struct side *sd)
{
	sd->nrows = NFAM;
	for (size_t k = 0; k < NROWS; k++)
		sd->scale[k] = 1;
}

/* The whole ok cells of kernel k of a day's runs, loaded into src. */
static size_t whole_cells(struct pool *src, const char *k,
			  struct cell_result **out)
{
	size_t n = 0;

	for (size_t i = 0; i < src->n; i++)
		if (!strcmp(src->v[i].kernel, k) &&
		    src->v[i].cell->outcome == OUTCOME_OK)
			out[n++] = src->v[i].cell;
	return n;
}

static void day_pool(struct pool *src, const char *day)
{
	testdata_pool(src, NULL, "%s/ab", day);
	testdata_pool(src, NULL, "%s/aa", day);
}

/*
 * The tuning day: validate's boundary (Pocock, decide/validate.h) was
 * chosen on these cells, reclaim-wr-direct alone (tests/jobs/
 * dirty-ext4.yaml), base and revert cells drawn with replacement. The
 * revert (0 against 48-610 pages) must be named by the last look in at
 * least 95% of the validates; since the row's floor (32 pages: 'beyond'
 * is tested against a rise of 32 pages from 0) it waits for more cells
 * more often than the 99.2% at n = 3 the boundary was chosen for
 * (tests/ref/first_look_ref.py): the share named at n = 3 is printed,
 * not asserted. A harmless patch (0 against 0 in every cell) is never
 * failed and never `same` with no test behind it: it runs to n = 9 and
 * ends unknown (validate's exit 4), the bound said.
 */
START_TEST(test_validate_tuning_day)
{
	const size_t runs = 1000;
	struct pool src = POOL_INIT;
	struct matrix_threshold t[1];
	struct cell_result *base[64], *rev[64];
	size_t named = 0, first = 0, failed = 0, same = 0, at9 = 0;
	struct sim s = { .end = NULL };
	struct sim_end e;

	thresholds(t, 1);
	day_pool(&src, DAY1);
	s.a.nwhole = whole_cells(&src, BASE, base);
	s.b.nwhole = whole_cells(&src, REVERT, rev);
	ck_assert_uint_eq(s.a.nwhole, 20);
	ck_assert_uint_eq(s.b.nwhole, 10);
	s.a.whole = base;
	s.b.whole = rev;
	for (size_t k = 0; k < runs; k++) {
		run_validate(&s, t, 1, &e);
		named += e.reg[0];
		first += e.reg[0] && e.n == 3;
	}
	s.b = s.a;
	for (size_t k = 0; k < runs; k++) {
		run_validate(&s, t, 1, &e);
		failed += e.exit == FAMILY_EXIT_REGRESSION;
		same += e.same_any[0];
		at9 += e.n == 9 && e.exit == FAMILY_EXIT_UNKNOWN;
	}
	if (verbose())
		fprintf(stderr,
			"tuning day %s, reclaim-wr-direct alone, %zu "
			"validates: the revert named %zu (at n=3 %zu); "
			"harmless failed %zu, same %zu, unknown at n=9 %zu\n",
			DAY1, runs, named, first, failed, same, at9);
	ck_assert_double_ge((double)named / runs, band_bottom(0.95, runs));
	ck_assert_uint_eq(failed, 0);
	ck_assert_uint_eq(same, 0);
	ck_assert_uint_eq(at9, runs);
	pool_free(&src);
}
END_TEST

/*
 * A harmless validate on the test day, five independent rows: any row
 * `different` at any look is a false alarm of the family, whose rate
 * alpha (0.05) bounds. Each broken procedure of issue 41 fails it
 * (docs/jobs.md, "Calibration", has the rates): every look at 0.05 (no
 * spending), each row at the look's full level (no Holm), the Welch p
 * halved, alpha 0.10.
 */
START_TEST(test_family_false_alarms)
{
	const size_t runs = 6000;
	struct matrix_threshold t[NROWS];
	struct pools po;
	struct sim s = { .end = NULL };
	struct sim_end e;
	size_t alarms = 0, exit1 = 0;

	thresholds(t, NFAM);
	row_pools(&po, TEST_DAY);
	s.a.po = s.b.po = &po;
	unit_scale(&s.a);
	unit_scale(&s.b);
	for (size_t k = 0; k < runs; k++) {
		run_validate(&s, t, NFAM, &e);
		alarms += e.any_diff;
		exit1 += e.exit == FAMILY_EXIT_REGRESSION;
	}
	if (verbose())
		fprintf(stderr,
			"test day %s, harmless validates, 5 independent rows: "
			"%zu of %zu with a row different at a look (band top "
			"%.4f), %zu exit 1\n",
			TEST_DAY, alarms, runs, band_top(0.05, runs), exit1);
	ck_assert_double_le((double)alarms / runs, band_top(0.05, runs));
}
END_TEST

/*
 * Known effects of a realistic size on the test day's independent rows:
 * fio-write 15% lower on the patched side (its cells times 0.85), and
 * reclaim-wr-direct written in 30% of the patched cells (a revert cell's
 * pages, else 0: the base's zeros overlap 70% of them; 3 zero cells used
 * to make it `same` in 0.7^3 = 34% of the validates). Neither may be
 * called `same` (within 10%, or the floor) at some look more often than
 * the levels allow (docs/jobs.md: at most the sum of the looks' levels,
 * 0.0763 for validate's four), and neither may pass as "no regression"
 * (exit 0): the power of validate to hold them, asserted at 95%.
 */
static double looks_level_sum(void)
{
	struct dlooks l = DLOOKS_INIT;
	double sum = 0;

	l.boundary = VALIDATE_BOUNDARY;
	dlooks_plan(&l, 3, 2, MAX_REPS_DEFAULT);
	for (int n = l.first; n <= l.max; n += l.step)
		sum += dlooks_level(&l, n);
	return sum;
}

START_TEST(test_moderate_effects)
{
	const size_t runs = 1000;
	struct matrix_threshold t[NROWS];
	struct pools po;
	struct sim s = { .end = NULL };
	struct sim_end e;
	size_t fio_same = 0, fio_diff = 0, wr_same = 0, wr_held = 0;
	size_t fio_held = 0, fio_reg = 0;

	thresholds(t, NFAM);
	row_pools(&po, TEST_DAY);
	s.a.po = s.b.po = &po;
	unit_scale(&s.a);
	unit_scale(&s.b);
	s.b.scale[1] = 0.85;
	for (size_t k = 0; k < runs; k++) {
		run_validate(&s, t, NFAM, &e);
		fio_same += e.same_any[1];
		fio_diff += e.diff_any[1];
		fio_reg += e.reg[1];
		fio_held += e.exit != FAMILY_EXIT_OK;
	}
	s.b.scale[1] = 1;
	s.b.wr_share = 0.3;
	for (size_t k = 0; k < runs; k++) {
		run_validate(&s, t, NFAM, &e);
		wr_same += e.same_any[0];
		wr_held += e.exit != FAMILY_EXIT_OK;
	}
	if (verbose())
		fprintf(stderr,
			"test day %s, %zu validates each: fio-write -15%%: "
			"same %zu, different %zu, regression %zu, not exit 0 "
			"%zu; reclaim-wr-direct in 30%% of cells: same %zu, "
			"not exit 0 %zu (same's band top %.4f, bottom %.4f)\n",
			TEST_DAY, runs, fio_same, fio_diff, fio_reg, fio_held,
			wr_same, wr_held, band_top(looks_level_sum(), runs),
			band_bottom(0.95, runs));
	ck_assert_double_le((double)fio_same / runs,
			    band_top(looks_level_sum(), runs));
	ck_assert_double_le((double)wr_same / runs,
			    band_top(looks_level_sum(), runs));
	ck_assert_double_ge((double)fio_held / runs, band_bottom(0.95, runs));
	ck_assert_double_ge((double)wr_held / runs, band_bottom(0.95, runs));
}
END_TEST

/*
 * Power at a throughput effect: fio-write lower on the patched side by
 * 10% to 70% (its test-day cells times 0.9 ... 0.3), the five rows of the
 * issue's validate otherwise harmless. Printed for each: the validates
 * that called fio-write `different` at some look, and that ended a
 * regression with it (exit 1, beyond its 10% by the one-sided test). The
 * test day's cells are noisy (captured at load 14-36: fio-write 3.2-16.7
 * MiB/s on 6.1, CoeffVar 47%): on 2026-12-08 a 10%, 15%, 20% fall was a
 * regression in 2, 11, 10 of 1000 validates (`different` in 8, 36, 47);
 * 30% 66, 40% 233, 50% 526, 60% 864, 70% 997. 80% power needs a fall of
 * about 60% with these cells, where it is asserted (POWER_FALL): what
 * they support, not what a quiet host would (docs/jobs.md).
 */
#define POWER_FALL 0.4
#define POWER_TARGET 0.8

START_TEST(test_throughput_power)
{
	const size_t runs = 1000;
	static const double falls[] = {
		0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3
	};
	struct matrix_threshold t[NROWS];
	struct pools po;
	struct sim s = { .end = NULL };
	struct sim_end e;
	size_t diff, reg, held, asserted = runs + 1;

	thresholds(t, NFAM);
	row_pools(&po, TEST_DAY);
	s.a.po = s.b.po = &po;
	unit_scale(&s.a);
	unit_scale(&s.b);
	for (size_t i = 0; i < ARRAY_SIZE(falls); i++) {
		s.b.scale[1] = falls[i];
		diff = reg = held = 0;
		for (size_t k = 0; k < runs; k++) {
			run_validate(&s, t, NFAM, &e);
			diff += e.diff_any[1];
			reg += e.reg[1];
			held += e.exit != FAMILY_EXIT_OK;
		}
		if (verbose())
			fprintf(stderr,
				"test day %s, fio-write %+.0f%%: different "
				"%zu, regression %zu, not exit 0 %zu of %zu "
				"validates\n",
				TEST_DAY, 100 * (falls[i] - 1), diff, reg, held,
				runs);
		if (falls[i] == POWER_FALL)
			asserted = reg;
	}
	ck_assert_double_ge((double)asserted / runs,
			    band_bottom(POWER_TARGET, runs));
}
END_TEST

/*
 * A counter whose kernels overlap: Memcg reclaims of the test day's 6.1
 * cells (1308-1518) on the base side, of its revert cells (1382-1586,
 * +9.5%) on the patched side, each cell's value drawn from its kernel's
 * (the five rows of the validate beside it, harmless), threshold
 * 5% up. The power to see the rise (`different` at some look) is
 * asserted against a binomial band around COUNTER_TARGET, the power these
 * cells give it at validate's levels (667 of 1000 on 2026-12-08): a
 * procedure that loses power fails. It must never pass (exit 0) nor be
 * `same` more often than the looks' levels allow. Shown beyond its 5% (a
 * regression, exit 1) it is in 144 of 1000 only: a 9.5% rise is within a
 * noise of 4-5% CoeffVar's reach at n = 9 only as a change, not as one
 * past 5%; the rest end unsettled, exit 4. Both sides drawn from 6.1: the
 * family of six rows keeps its false alarms within alpha's band.
 */
#define COUNTER_TARGET 0.6

START_TEST(test_overlapping_counter)
{
	const size_t runs = 1000;
	struct matrix_threshold t[NROWS];
	struct pools po;
	struct sim s = { .end = NULL };
	struct sim_end e;
	size_t diff = 0, reg = 0, alarms = 0, same = 0, held = 0;

	thresholds(t, NROWS);
	row_pools(&po, TEST_DAY);
	ck_assert_uint_ge(po.nrv[MEMCG_RECLAIMS], 9);
	s.a.po = s.b.po = &po;
	unit_scale(&s.a);
	unit_scale(&s.b);
	s.a.nrows = s.b.nrows = NROWS;
	s.b.revert[MEMCG_RECLAIMS] = true;
	for (size_t k = 0; k < runs; k++) {
		run_validate(&s, t, NROWS, &e);
		diff += e.diff_any[MEMCG_RECLAIMS];
		reg += e.reg[MEMCG_RECLAIMS];
		same += e.same_any[MEMCG_RECLAIMS];
		held += e.exit != FAMILY_EXIT_OK;
	}
	s.b.revert[MEMCG_RECLAIMS] = false;
	for (size_t k = 0; k < runs; k++) {
		run_validate(&s, t, NROWS, &e);
		alarms += e.any_diff;
	}
	if (verbose())
		fprintf(stderr,
			"test day %s, Memcg reclaims 6.1 against the revert "
			"(+9.5%%, overlapping), %zu validates: different %zu "
			"(band bottom %.4f), regression %zu, not exit 0 %zu, "
			"same %zu; both 6.1: a row different %zu (band top "
			"%.4f)\n",
			TEST_DAY, runs, diff, band_bottom(COUNTER_TARGET, runs),
			reg, held, same, alarms, band_top(0.05, runs));
	ck_assert_double_ge((double)diff / runs,
			    band_bottom(COUNTER_TARGET, runs));
	ck_assert_double_ge((double)held / runs, band_bottom(0.95, runs));
	ck_assert_double_le((double)same / runs,
			    band_top(looks_level_sum(), runs));
	ck_assert_double_le((double)alarms / runs, band_top(0.05, runs));
}
END_TEST

/*
 * Events through validate's looks, whole cells. Harmless: both sides
 * drawn with replacement from report/aa's 12 cells of debian-6.1
 * (2026-12-03; one boot-failed, a TCG timing panic: a kind both kernels
 * share at about 8%): a regression is a false alarm, at most 0.05 + 3
 * sigma. A crash: the base drawn from jobs/crash-rerun's 7 good cells,
 * the patched side a crashed cell with probability 7/8 (the injected
 * crash is armed in 7 boots of 8) else a good one: named in at least 95%.
 */
START_TEST(test_event_rates)
{
	const size_t runs = 1000;
	struct pool src = POOL_INIT;
	struct cell_result *aa[16], *good[16], *bad[16];
	struct sim s = { .end = NULL };
	struct sim_end e;
	size_t na, alarms = 0, named = 0;

	testdata_pool(&src, "aa", "report/aa/20261203-141600-381e");
	testdata_pool(&src, "aa", "report/aa/20261203-141602-388e");
	testdata_pool(&src, NULL, "jobs/crash-rerun");
	na = 0;
	for (size_t i = 0; i < src.n; i++)
		if (!strcmp(src.v[i].kernel, "aa"))
			aa[na++] = src.v[i].cell;
	ck_assert_uint_eq(na, 12);
	s.a.whole = s.b.whole = aa;
	s.a.nwhole = s.b.nwhole = na;
	for (size_t k = 0; k < runs; k++) {
		run_validate(&s, NULL, 0, &e);
		alarms += e.exit == FAMILY_EXIT_REGRESSION;
	}
	s.a.nwhole = whole_cells(&src, "git-4465b64a19f2", good);
	s.a.whole = s.b.whole = good;
	s.b.nwhole = s.a.nwhole;
	s.b.nalt = 0;
	for (size_t i = 0; i < src.n; i++)
		if (!strcmp(src.v[i].kernel, "git-d2636e9262ff"))
			bad[s.b.nalt++] = src.v[i].cell;
	s.b.alt = bad;
	s.b.alt_share = 7.0 / 8;
	ck_assert_uint_ge(s.a.nwhole, 5);
	ck_assert_uint_ge(s.b.nalt, 5);
	for (size_t k = 0; k < runs; k++) {
		run_validate(&s, NULL, 0, &e);
		named += e.exit == FAMILY_EXIT_REGRESSION;
	}
	if (verbose())
		fprintf(stderr,
			"events, %zu validates: harmless (a kind at 1 in 12) "
			"failed %zu (band top %.4f); a crash in 7 boots of 8 "
			"named in %zu\n",
			runs, alarms, band_top(0.05, runs), named);
	ck_assert_double_le((double)alarms / runs, band_top(0.05, runs));
	ck_assert_double_ge((double)named / runs, band_bottom(0.95, runs));
	pool_free(&src);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calibration");
	TCase *tc = tcase_create("calibration");
	SRunner *sr;
	int failed;

	log_quiet = 1; /* validate_looks() says each look it adds cells */
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_aa_report_n3);
	tcase_add_test(tc, test_aa_report_n5);
	tcase_add_test(tc, test_known_answer_power);
	tcase_add_test(tc, test_mail_verdict_first);
	tcase_add_test(tc, test_validate_tuning_day);
	suite_add_tcase(s, tc);
	/* CK_RUN_CASE=procedure runs these alone (a broken procedure's run). */
	tc = tcase_create("procedure");
	tcase_set_timeout(tc, 1200);
	tcase_add_test(tc, test_family_false_alarms);
	tcase_add_test(tc, test_moderate_effects);
	tcase_add_test(tc, test_throughput_power);
	tcase_add_test(tc, test_overlapping_counter);
	tcase_add_test(tc, test_event_rates);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
