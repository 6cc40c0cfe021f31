// SPDX-License-Identifier: GPL-2.0
/*
 * Calibration of wblab's verdicts on captured cells (issue #27): the
 * report's false alarms on identical kernels, its power on the known
 * answer, and whole simulated validate runs (every look, row and group)
 * through the jobs' real procedure. The cells: tests/data/report/fsync
 * (README.md there): 20 cells of the lab's 6.1 and 10 of
 * 6.1-direct-writeback, dirty-flood on ext4 with end_fsync, TCG.
 *
 * The random draws use a fixed seed, so a run's rates are reproducible;
 * the figures docs/report.md quotes come from `wblab aa --from` and from
 * these tests' printed rates (WBLAB_CALIBRATION_VERBOSE=1).
 */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/procedure.h"
#include "jobs/family.h"
#include "jobs/pool.h"
#include "jobs/validate.h"
#include "report/report.h"
#include "results/metric.h"
#include "util/log.h"

#include "testdata.h"

#define AB_RUN "report/fsync/ab"
#define AA_RUN "report/fsync/aa"
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

static void load_runs(struct report *r)
{
	struct strbuf err = STRBUF_INIT;
	char *ab = testdata_path(AB_RUN), *aa = testdata_path(AA_RUN);

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
 * A/A: the base's ok cells split at random into two sides of n, the
 * report built, its stars counted. Every star is a false alarm.
 */
static void aa_splits(size_t n, size_t splits)
{
	struct report r;
	size_t base[64], idx[64], nb;
	double share_sum = 0, worst = 0;
	size_t tested_sum = 0, primary_diff = 0;

	report_init(&r, NULL);
	load_runs(&r);
	nb = cells_of(&r, BASE, base);
	ck_assert_uint_ge(nb, 20);
	for (size_t s = 0; s < splits; s++) {
		const struct rpt_group *g;
		double share;

		for (size_t i = 0; i < r.nr_cells; i++)
			set_side(r.cells[i], "");
		shuffle(idx, nb);
		for (size_t i = 0; i < 2 * n; i++)
			set_side(r.cells[base[idx[i]]], i < n ? "A" : "B");
		ck_assert_int_eq(report_build(&r, NULL), 0);
		ck_assert_uint_eq(r.nr_groups, 1);
		g = &r.groups[0];
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
			"A/A report n=%zu: %zu splits, %.1f rows tested, "
			"mean %.2f%% starred, worst %.1f%%, primary "
			"different %zu\n",
			n, splits, (double)tested_sum / splits,
			100 * share_sum / splits, 100 * worst, primary_diff);
	ck_assert_double_le(share_sum / splits, 0.02);
	ck_assert_double_le(worst, 0.10);
	ck_assert_uint_eq(primary_diff, 0);
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
	load_runs(&r);
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
		v, "reclaim-wr-direct  different 0 -> 295 pages, n 10/10"));
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

/* ---- whole validate runs, simulated ---- */

/* The five thresholded rows of the real validate, 10% each. */
static const struct {
	const char *row, *bad;
} rows[] = {
	{ "reclaim-wr-direct", "up" }, { "fio-write", "down" },
	{ "workload-time", "up" },     { "memcg-stall-p95", "up" },
	{ "psi-mem-some", "up" },
};

struct sim {
	double v[2][ARRAY_SIZE(rows)][64]; /* [side][row][cell] */
	size_t n[2];
};

static void fill_side(struct sim *s, int side, const struct report *r,
		      const size_t *cells, size_t n)
{
	s->n[side] = n;
	for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
		size_t m = metric_index(metric_by_name(rows[k].row));

		for (size_t i = 0; i < n; i++)
			s->v[side][k][i] = r->cells[cells[i]]->val[m];
	}
}

/* What a simulated validate ended with. */
struct sim_end {
	size_t regs; /* rows that are regressions */
	size_t same; /* rows `same` */
	bool primary; /* reclaim-wr-direct among the regressions */
	int look; /* n a side at the look it stopped */
};

/*
 * One validate of the first nrows rows (5: the real validate; 1:
 * reclaim-wr-direct alone, tests/jobs/dirty-ext4.yaml), with validate's
 * looks and boundary: n = 3, 5, 7, 9 of the drawn cells, stopping at the
 * first look where no row is unknown; the result at the last look.
 */
static void one_validate(const struct sim *s, size_t nrows, struct sim_end *e)
{
	struct dlooks l = DLOOKS_INIT;
	struct dhyp h[ARRAY_SIZE(rows)];

	l.boundary = VALIDATE_BOUNDARY;
	for (int n = l.first; n <= l.max; n += l.step) {
		size_t unknown = 0;
		struct verdict_opts o = VERDICT_OPTS_INIT;

		memset(h, 0, sizeof(h));
		for (size_t k = 0; k < nrows; k++) {
			const struct metric *m = metric_by_name(rows[k].row);

			h[k].threshold = o.threshold = 10;
			h[k].bad = !strcmp(rows[k].bad, "up") ? 1 : -1;
			verdict_metric(m->test, s->v[0][k], n, s->v[1][k], n,
				       &o, &h[k].d);
		}
		decide_family(h, nrows, &l, n);
		memset(e, 0, sizeof(*e));
		e->look = n;
		for (size_t k = 0; k < nrows; k++) {
			unknown += h[k].d.verdict == VERDICT_UNKNOWN;
			e->same += h[k].d.verdict == VERDICT_SAME;
			e->regs += h[k].regression;
			e->primary |= !k && h[k].regression;
		}
		if (!unknown)
			break;
	}
}

struct sim_rates {
	size_t runs, failed, primary_named;
	size_t at_first; /* stopped at the first look, n = 3 */
	double same_mean, look_mean;
};

static void simulate(bool revert, size_t nrows, struct sim_rates *rt)
{
	struct report r;
	size_t base[64], rev[64], ib[64], ir[64], pick[16], nb, nr;
	size_t same_sum = 0, look_sum = 0;
	struct sim s;

	report_init(&r, NULL);
	load_runs(&r);
	nb = cells_of(&r, BASE, base);
	nr = cells_of(&r, REVERT, rev);
	ck_assert_uint_ge(nb, 18);
	ck_assert_uint_ge(nr, 9);
	rt->failed = rt->primary_named = rt->at_first = 0;
	for (size_t k = 0; k < rt->runs; k++) {
		struct sim_end e;

		shuffle(ib, nb);
		for (size_t i = 0; i < 9; i++)
			pick[i] = base[ib[i]];
		fill_side(&s, 0, &r, pick, 9);
		if (revert) {
			shuffle(ir, nr);
			for (size_t i = 0; i < 9; i++)
				pick[i] = rev[ir[i]];
		} else {
			for (size_t i = 0; i < 9; i++)
				pick[i] = base[ib[9 + i]];
		}
		fill_side(&s, 1, &r, pick, 9);
		one_validate(&s, nrows, &e);
		rt->failed += e.regs > 0;
		rt->primary_named += e.primary;
		rt->at_first += e.look == 3;
		same_sum += e.same;
		look_sum += e.look;
	}
	rt->same_mean = (double)same_sum / rt->runs;
	rt->look_mean = (double)look_sum / rt->runs;
	report_release(&r);
}

static void print_rates(const char *what, size_t nrows,
			const struct sim_rates *rt)
{
	if (verbose())
		fprintf(stderr,
			"simulated validate (%s, %zu rows, %s): %zu of %zu "
			"failed, %zu naming reclaim-wr-direct, %.2f rows "
			"same at the end, stopped at n=3 in %zu, mean n %.2f\n",
			what, nrows, dboundary_name(VALIDATE_BOUNDARY),
			rt->failed, rt->runs, rt->primary_named, rt->same_mean,
			rt->at_first, rt->look_mean);
}

START_TEST(test_validate_harmless)
{
	struct sim_rates rt = { .runs = 1000 };

	simulate(false, ARRAY_SIZE(rows), &rt);
	print_rates("harmless", ARRAY_SIZE(rows), &rt);
	ck_assert_uint_le(rt.failed * 100, 5 * rt.runs);
}
END_TEST

START_TEST(test_validate_revert)
{
	struct sim_rates rt = { .runs = 1000 };

	simulate(true, ARRAY_SIZE(rows), &rt);
	print_rates("the revert", ARRAY_SIZE(rows), &rt);
	ck_assert_uint_ge(rt.primary_named * 100, 95 * rt.runs);
}
END_TEST

/*
 * The jobs' real test validates with reclaim-wr-direct alone
 * (tests/jobs/dirty-ext4.yaml). The revert's 0 -> 48..610 pages must be
 * named at the first look, n = 3 a side, in at least 90% of the
 * simulated validates: at O'Brien-Fleming's 0.000207 there it was named
 * in 1%, and every other validate paid for 4 more cells. Over all 120
 * draws of 3 of the 10 revert cells, SciPy's one-sample t of log(1 + x)
 * (Welch against 3 zeros) is below 0.0226 in 99.2% and below 0.000207 in
 * 0.8% (tests/ref/first_look_ref.py); these draws give 991 and 11 of
 * 1000. A harmless patch (0 against 0 in every cell) is never failed, and
 * no longer `same` at n = 3 with no test behind it: 0 of 9 cells away
 * from 0 still allows a change in 36% of cells at the last look's 0.0181,
 * so it runs to n = 9 and ends unknown (validate's exit 4), the bound said.
 */
START_TEST(test_validate_first_look)
{
	struct sim_rates rt = { .runs = 1000 };

	simulate(true, 1, &rt);
	print_rates("the revert", 1, &rt);
	ck_assert_uint_ge(rt.primary_named * 100, 95 * rt.runs);
	ck_assert_uint_ge(rt.at_first * 100, 90 * rt.runs);
	memset(&rt, 0, sizeof(rt));
	rt.runs = 1000;
	simulate(false, 1, &rt);
	print_rates("harmless", 1, &rt);
	ck_assert_uint_eq(rt.failed, 0);
	ck_assert_uint_eq(rt.at_first, 0);
	ck_assert_double_eq(rt.same_mean, 0);
	ck_assert_double_eq(rt.look_mean, 9);
}
END_TEST

/* ---- a calibration that fails a broken procedure (issue 41) ---- */

/*
 * The rows' values over the base's 20 ok cells (NaN-free), each row its
 * own pool: a harmless validate draws every row and side independently,
 * with replacement, so the five rows are five independent harmless
 * questions and the family's false alarm rate has a known target.
 */
struct pools {
	double v[ARRAY_SIZE(rows)][64];
	size_t n[ARRAY_SIZE(rows)];
};

static void row_pools(struct pools *po)
{
	struct report r;
	size_t base[64], nb;

	report_init(&r, NULL);
	load_runs(&r);
	nb = cells_of(&r, BASE, base);
	for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
		size_t m = metric_index(metric_by_name(rows[k].row));

		po->n[k] = 0;
		for (size_t i = 0; i < nb; i++) {
			double x = r.cells[base[i]]->val[m];

			if (isfinite(x))
				po->v[k][po->n[k]++] = x;
		}
		ck_assert_uint_ge(po->n[k], 18);
	}
	report_release(&r);
}

/* What one simulated validate's cells said, row by row. */
struct sim_look {
	bool different; /* some row different at some look it reached */
	bool regression; /* some row a regression when it stopped */
	bool diff[ARRAY_SIZE(rows)]; /* different at some look */
	bool same[ARRAY_SIZE(rows)]; /* `same` at some look */
	bool reg[ARRAY_SIZE(rows)]; /* a regression when it stopped */
	int look; /* n a side when it stopped */
};

/*
 * validate's loop over s (9 draws a side a row): looks 3, 5, 7, 9 by its
 * boundary, Holm over the rows, stopping at the first look where no row
 * is unknown or unsettled.
 */
static void sim_validate(const struct sim *s, struct sim_look *e)
{
	struct dlooks l = DLOOKS_INIT;
	struct dhyp h[ARRAY_SIZE(rows)];

	l.boundary = VALIDATE_BOUNDARY;
	memset(e, 0, sizeof(*e));
	for (int n = l.first; n <= l.max; n += l.step) {
		size_t open = 0;

		memset(h, 0, sizeof(h));
		for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
			struct verdict_opts o = VERDICT_OPTS_INIT;

			h[k].threshold = o.threshold = 10;
			h[k].bad = !strcmp(rows[k].bad, "up") ? 1 : -1;
			verdict_metric(metric_by_name(rows[k].row)->test,
				       s->v[0][k], n, s->v[1][k], n, &o,
				       &h[k].d);
		}
		decide_family(h, ARRAY_SIZE(rows), &l, n);
		e->regression = false;
		e->look = n;
		for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
			e->diff[k] |= h[k].d.verdict == VERDICT_DIFFERENT;
			e->same[k] |= h[k].d.verdict == VERDICT_SAME;
			e->reg[k] = h[k].regression;
			e->different |= e->diff[k];
			e->regression |= h[k].regression;
			open += h[k].d.verdict == VERDICT_UNKNOWN ||
				h[k].unsettled;
		}
		if (!open)
			break;
	}
}

/* Side `side` of every row: 9 draws with replacement, times scale[k]. */
static void draw_side(struct sim *s, int side, const struct pools *po,
		      const double *scale)
{
	s->n[side] = 9;
	for (size_t k = 0; k < ARRAY_SIZE(rows); k++)
		for (size_t i = 0; i < 9; i++)
			s->v[side][k][i] = po->v[k][draw(po->n[k])] *
					   (scale ? scale[k] : 1);
}

/*
 * The upper end of a binomial band around target for `runs` draws: 3
 * standard deviations (P(above) about 0.0013 for a procedure that is on
 * target). A rate above it is a broken procedure, not bad luck.
 */
static double band_top(double target, size_t runs)
{
	return target + 3 * sqrt(target * (1 - target) / runs);
}

/*
 * A harmless validate, five independent rows: any row `different` at
 * any look is a false alarm of the family, whose rate alpha (0.05)
 * bounds: 91 of 2000 (4.55%, docs/report.md, "Calibration"). Each
 * broken procedure of issue 41 fails it: every look at 0.05 (no
 * spending), each row at the look's full level (no Holm), the Welch p
 * halved, alpha 0.10.
 */
START_TEST(test_family_false_alarms)
{
	const size_t runs = 2000;
	struct pools po;
	struct sim s;
	size_t alarms = 0, regs = 0;

	row_pools(&po);
	for (size_t k = 0; k < runs; k++) {
		struct sim_look e;

		draw_side(&s, 0, &po, NULL);
		draw_side(&s, 1, &po, NULL);
		sim_validate(&s, &e);
		alarms += e.different;
		regs += e.regression;
	}
	if (verbose())
		fprintf(stderr,
			"harmless validates, 5 independent rows: %zu of %zu "
			"with a row different (band top %.4f), %zu "
			"regressions\n",
			alarms, runs, band_top(0.05, runs), regs);
	ck_assert_double_le((double)alarms / runs, band_top(0.05, runs));
}
END_TEST

/*
 * Known effects of a realistic size, on the same independent rows:
 * fio-write 15% lower on the patched side (its cells scaled by 0.85),
 * and reclaim-wr-direct written in 30% of the patched cells (a revert
 * cell's pages, else 0, against 0 in every base cell: the issue's
 * counter that 3 zero cells used to call `same` 34% of the time).
 */
START_TEST(test_moderate_effects)
{
	const size_t runs = 1000;
	struct pools po;
	struct report r;
	size_t rev[64], nr, fio_regs = 0, fio_diff = 0, wr_regs = 0;
	size_t wr_same = 0, wr_diff = 0;
	double scale[ARRAY_SIZE(rows)] = { 1, 0.85, 1, 1, 1 };
	double wr[64];
	struct sim s;

	row_pools(&po);
	report_init(&r, NULL);
	load_runs(&r);
	nr = cells_of(&r, REVERT, rev);
	for (size_t i = 0; i < nr; i++)
		wr[i] = r.cells[rev[i]]->val[metric_index(
			metric_by_name("reclaim-wr-direct"))];
	report_release(&r);
	for (size_t k = 0; k < runs; k++) {
		struct sim_look e;

		draw_side(&s, 0, &po, NULL);
		draw_side(&s, 1, &po, scale);
		for (size_t i = 0; i < 9; i++)
			s.v[1][0][i] = draw(10) < 3 ? wr[draw(nr)] : 0;
		sim_validate(&s, &e);
		wr_same += e.same[0];
		wr_diff += e.diff[0];
		wr_regs += e.reg[0];
		fio_diff += e.diff[1];
		fio_regs += e.reg[1];
	}
	if (verbose())
		fprintf(stderr,
			"moderate effects, %zu validates: fio-write -15%%: "
			"different %zu, regression %zu; reclaim-wr-direct in "
			"30%% of cells: different %zu, regression %zu, same "
			"%zu\n",
			runs, fio_diff, fio_regs, wr_diff, wr_regs, wr_same);
	/*
	 * The counter: `same` (within 10%) must be rare for a change it is
	 * not within; before, 3 zero cells made it `same` in 0.7^3 = 34%
	 * of the validates at their first look.
	 */
	ck_assert_double_le((double)wr_same / runs, band_top(0.05, runs));
	/*
	 * fio-write's noise in these cells (could see 35-54% at n = 9-10)
	 * leaves a 15% fall nearly unseen: measured, not asserted (the
	 * power floor of issue 41 item 10 is not met by these cells).
	 */
}
END_TEST

/* ---- events: a harmless validate's false alarms, a crash's power ---- */

/* Side `side` of a drawn pool: cell c of a loaded pool, not owned. */
static void spool_add(struct pool *sp, const struct pool_cell *c,
		      const char *side)
{
	sp->v = xrealloc(sp->v, (sp->n + 1) * sizeof(*sp->v));
	sp->v[sp->n] = *c;
	sp->v[sp->n].kernel = (char *)side;
	sp->n++;
	if (!strvec_has(&sp->groups, c->group))
		strvec_push(&sp->groups, c->group);
}

static void spool_free(struct pool *sp)
{
	free(sp->v);
	strvec_clear(&sp->groups);
	memset(sp, 0, sizeof(*sp));
}

/*
 * One validate of events only, validate's looks over the first n of
 * a[9] and b[9] (cells of src): 1 a regression, 0 not.
 */
static int event_validate(const struct pool *src, const size_t *a,
			  const size_t *b)
{
	struct dlooks l = DLOOKS_INIT;
	int reg = 0;

	dlooks_plan(&l, 3, 2, 8);
	l.boundary = VALIDATE_BOUNDARY;
	for (int n = l.first; n <= l.max && !reg; n += l.step) {
		struct pool sp = POOL_INIT;
		struct family f;
		size_t open;

		for (int i = 0; i < n; i++) {
			spool_add(&sp, &src->v[a[i]], "A");
			spool_add(&sp, &src->v[b[i]], "B");
		}
		family_decide(&f, &sp, "A", "B", NULL, 0, &l);
		reg = family_regressions(&f) > 0;
		open = family_unknown(&f);
		family_release(&f);
		spool_free(&sp);
		if (!open)
			break;
	}
	return reg;
}

/* The cells of src whose kernel is k, by index. */
static size_t pool_cells(const struct pool *src, const char *k, size_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < src->n; i++)
		if (!strcmp(src->v[i].kernel, k))
			out[n++] = i;
	return n;
}

/*
 * Harmless: both sides drawn with replacement from report/aa's 12 cells
 * of debian-6.1 (one boot-failed, a TCG timing panic: a kind both kernels
 * share at about 8%): a regression is a false alarm, asserted at most
 * 0.05 + 3 sigma. A crash: the base drawn from crash-rerun's 7 good
 * cells, the patched side a crashed cell with probability 7/8 (the
 * injected crash is armed in 7 boots of 8) else a good one: named in at
 * least 95% of the validates.
 */
START_TEST(test_event_rates)
{
	const size_t runs = 1000;
	struct pool src = POOL_INIT;
	size_t aa[16], good[16], bad[16], na, ng, nc;
	size_t a[9], b[9], alarms = 0, named = 0;

	testdata_pool(&src, "aa", "report/aa/20261203-141600-381e");
	testdata_pool(&src, "aa", "report/aa/20261203-141602-388e");
	testdata_pool(&src, NULL, "jobs/crash-rerun");
	na = pool_cells(&src, "aa", aa);
	ng = pool_cells(&src, "git-4465b64a19f2", good);
	nc = pool_cells(&src, "git-d2636e9262ff", bad);
	ck_assert_uint_eq(na, 12);
	for (size_t k = 0; k < runs; k++) {
		for (size_t i = 0; i < 9; i++) {
			a[i] = aa[draw(na)];
			b[i] = aa[draw(na)];
		}
		alarms += event_validate(&src, a, b);
		for (size_t i = 0; i < 9; i++) {
			a[i] = good[draw(ng)];
			b[i] = draw(8) < 7 ? bad[draw(nc)] : good[draw(ng)];
		}
		named += event_validate(&src, a, b);
	}
	if (verbose())
		fprintf(stderr,
			"events, %zu validates: harmless (a kind at 1 in 12) "
			"failed %zu (band top %.4f); a crash in 7 boots of 8 "
			"named in %zu\n",
			runs, alarms, band_top(0.05, runs), named);
	ck_assert_double_le((double)alarms / runs, band_top(0.05, runs));
	ck_assert_uint_ge(named * 100, 95 * runs);
	pool_free(&src);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calibration");
	TCase *tc = tcase_create("calibration");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_aa_report_n3);
	tcase_add_test(tc, test_aa_report_n5);
	tcase_add_test(tc, test_known_answer_power);
	tcase_add_test(tc, test_mail_verdict_first);
	tcase_add_test(tc, test_validate_harmless);
	tcase_add_test(tc, test_validate_revert);
	tcase_add_test(tc, test_validate_first_look);
	suite_add_tcase(s, tc);
	/* CK_RUN_CASE=procedure runs these alone (a broken procedure's run). */
	tc = tcase_create("procedure");
	tcase_set_timeout(tc, 1200);
	tcase_add_test(tc, test_family_false_alarms);
	tcase_add_test(tc, test_moderate_effects);
	tcase_add_test(tc, test_event_rates);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
