// SPDX-License-Identifier: GPL-2.0
/*
 * The mail report: plain ASCII, no line over 80 columns, ready to paste
 * under a patch. Tables are laid out in fixed columns (mmtests'
 * compare-kernels layout); when more kernels than fit are compared, the
 * table is printed in blocks, each with the baseline first. Free text
 * (reasons, titles, patch subjects) is wrapped, and anything that is not
 * printable ASCII becomes '?'.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "results/reader.h"
#include "util/dvec.h"
#include "util/log.h"

#define WIDTH 80
#define STAT_W 8
#define NAME_W 24
#define COL_W 22 /* "%11s (%7s%%)" plus a space */
#define LABEL_W (STAT_W + 1 + NAME_W)
#define COLS_PER_BLOCK ((WIDTH - LABEL_W) / COL_W)

/* Copy s into buf (size n) as printable ASCII, cut to max with '~'. */
static const char *ascii(char *buf, size_t n, const char *s, size_t max)
{
	size_t k = 0, len = strlen(s);

	if (max >= n)
		max = n - 1;
	for (size_t i = 0; i < len && k < max; i++) {
		unsigned char ch = s[i];

		buf[k++] = ch >= 0x20 && ch < 0x7f ? ch : '?';
	}
	if (len > max && max > 0)
		buf[max - 1] = '~';
	buf[k] = 0;
	return buf;
}

/* Append text wrapped at WIDTH, continuation lines indented by indent. */
static void wrap(struct strbuf *out, const char *first, size_t indent,
		 const char *text)
{
	char clean[4096];
	size_t col = strlen(first);
	bool line_start = true;
	const char *p;

	ascii(clean, sizeof(clean), text, sizeof(clean) - 1);
	strbuf_addstr(out, first);
	for (p = clean + strspn(clean, " "); *p; p += strspn(p, " ")) {
		size_t w = strcspn(p, " ");

		if (!line_start && col + 1 + w > WIDTH) {
			strbuf_addf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!line_start) {
			strbuf_addch(out, ' ');
			col++;
		}
		/* A word longer than the line: hard-break it. */
		while (col + w > WIDTH) {
			size_t room = WIDTH - col;

			strbuf_add(out, p, room);
			strbuf_addf(out, "\n%*s", (int)indent, "");
			p += room;
			w -= room;
			col = indent;
		}
		strbuf_add(out, p, w);
		col += w;
		p += w;
		line_start = false;
	}
	strbuf_addch(out, '\n');
}

void rpt_fmt_val(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else if (fabs(v) < 1e8)
		snprintf(buf, n, "%.2f", v);
	else
		snprintf(buf, n, "%.3e", v);
}

void rpt_fmt_pct(char *buf, size_t n, double pct)
{
	if (isnan(pct))
		snprintf(buf, n, "n/a");
	else if (isinf(pct))
		snprintf(buf, n, "%sinf", pct > 0 ? "+" : "-");
	else if (fabs(pct) >= 10000)
		snprintf(buf, n, "%s9999", pct > 0 ? ">" : "<-");
	else
		snprintf(buf, n, "%.2f", pct);
}

static void cell_col(struct strbuf *out, double v, double pct, bool star)
{
	char vb[32], pb[32];

	rpt_fmt_val(vb, sizeof(vb), v);
	rpt_fmt_pct(pb, sizeof(pb), pct);
	/* A change from 0 has no percentage: say what it is. */
	if (isinf(pct))
		strbuf_addf(out, " %11s %c%8s%c", vb, star ? '*' : '(',
			    "from 0", star ? '*' : ')');
	else
		strbuf_addf(out, " %11s %c%7s%%%c", vb, star ? '*' : '(', pb,
			    star ? '*' : ')');
}

/* The sides of one block: the baseline and up to COLS_PER_BLOCK - 1. */
static size_t block_end(const struct rpt_group *g, size_t first)
{
	size_t end = first + COLS_PER_BLOCK - 1;

	return end > g->nr_sides ? g->nr_sides : end;
}

static void col_heads(struct strbuf *out, const struct rpt_group *g,
		      size_t first, size_t end, const char *title)
{
	char nb[COL_W + 1];

	strbuf_addf(out, "%-*s", LABEL_W, title);
	strbuf_addf(out, " %*s", COL_W - 1,
		    ascii(nb, sizeof(nb), g->sides[0].name, COL_W - 1));
	for (size_t s = first; s < end; s++)
		strbuf_addf(out, " %*s", COL_W - 1,
			    ascii(nb, sizeof(nb), g->sides[s].name, COL_W - 1));
	strbuf_addch(out, '\n');
}

static void row_label(struct strbuf *out, const char *stat,
		      const struct metric *m)
{
	char name[64], nb[NAME_W + 1];

	if (!strcmp(m->unit, "count"))
		snprintf(name, sizeof(name), "%s", m->name);
	else
		snprintf(name, sizeof(name), "%s (%s)", m->name,
			 !strcmp(m->unit, "pages") ? "pg" : m->unit);
	strbuf_addf(out, "%-*s %-*s", STAT_W, stat, NAME_W,
		    ascii(nb, sizeof(nb), name, NAME_W));
}

enum line_kind { L_MAIN, L_MIN, L_MEDIAN, L_STDDEV, L_COEFFVAR, L_MAX };

static double line_val(const struct rpt_group *g, size_t s, size_t m,
		       enum line_kind k)
{
	const struct stats_desc *d = &g->sides[s].desc[m];

	if (!d->n)
		return NAN;
	switch (k) {
	case L_MAIN:
		return rpt_side_stat(&g->sides[s], m);
	case L_MIN:
		return d->min;
	case L_MEDIAN:
		return d->median;
	case L_STDDEV:
		return d->stddev;
	case L_COEFFVAR:
		return d->coeffvar;
	default:
		return d->max;
	}
}

/* The change of a line's figure, + is better (less spread is better). */
static double line_pct(const struct metric *m, enum line_kind k, double a,
		       double b)
{
	bool higher = m->better == BETTER_HIGHER;
	double d;

	if (k == L_STDDEV || k == L_COEFFVAR)
		higher = false;
	if (isnan(a) || isnan(b))
		return NAN;
	d = higher ? b - a : a - b;
	if (a == 0)
		return d == 0 ? 0 : copysign(INFINITY, d);
	return 100 * d / fabs(a);
}

static void metric_line(struct strbuf *out, const struct rpt_group *g, size_t m,
			enum line_kind k, size_t first, size_t end)
{
	static const char *const stat[] = { NULL,     "Min",	  "Median",
					    "Stddev", "CoeffVar", "Max" };
	const struct metric *mt = &metric_rows[m];
	double a = line_val(g, 0, m, k);

	row_label(out, k == L_MAIN ? metric_stat_name(mt->stat) : stat[k], mt);
	cell_col(out, a, isnan(a) ? NAN : 0, false);
	for (size_t s = first; s < end; s++) {
		double b = line_val(g, s, m, k);

		cell_col(out, b, line_pct(mt, k, a, b),
			 k == L_MAIN && g->cmp[s][m].star);
	}
	strbuf_addch(out, '\n');
}

/* Zero in every cell of every side: listed by name, not as a row. */
static bool row_all_zero(const struct rpt_group *g, size_t m)
{
	return rpt_row_constant(g, m) && g->sides[0].desc[m].n &&
	       g->sides[0].desc[m].min == 0;
}

static void zero_rows(struct strbuf *out, const struct rpt_group *g)
{
	struct strbuf names = STRBUF_INIT;

	for (size_t m = 0; m < metric_nr_rows; m++)
		if (metric_rows[m].table != MT_NONE && rpt_row_shown(g, m) &&
		    row_all_zero(g, m))
			strbuf_addf(&names, "%s%s", names.len ? ", " : "",
				    metric_rows[m].name);
	if (names.len)
		wrap(out, "0 in every cell: ", 4, names.buf);
	strbuf_release(&names);
}

static void metric_table(struct strbuf *out, const struct rpt_group *g,
			 enum metric_table table, bool full)
{
	for (size_t first = 1; first < g->nr_sides || first == 1;) {
		size_t end = block_end(g, first);

		col_heads(out, g, first, end,
			  table == MT_METRIC ? "Metrics" : "Ops (Amean)");
		for (size_t m = 0; m < metric_nr_rows; m++) {
			if (metric_rows[m].table != table ||
			    !rpt_row_shown(g, m) || row_all_zero(g, m))
				continue;
			if (table == MT_OPS) {
				metric_line(out, g, m, L_MAIN, first, end);
				continue;
			}
			/*
			 * The same value everywhere: one line says it; the
			 * spread lines only when asked (--full).
			 */
			for (int k = L_MAIN; k <= L_MAX; k++)
				if (k == L_MAIN ||
				    (full && !rpt_row_constant(g, m)))
					metric_line(out, g, m, k, first, end);
		}
		strbuf_addch(out, '\n');
		if (end >= g->nr_sides)
			break;
		first = end;
	}
}

static bool outcome_none(const struct rpt_group *g,
			 const struct rpt_outcome_row *o)
{
	for (size_t s = 0; s < g->nr_sides; s++)
		if (o->fail[s])
			return false;
	return true;
}

/*
 * Outcome rows, the ones some cell had; the failures no cell had are one
 * line of names (0:5 on every side is evidence too, and it is said).
 */
static void outcome_table(struct strbuf *out, const struct rpt_group *g)
{
	struct strbuf none = STRBUF_INIT;
	size_t some = 0;

	for (size_t i = 0; i < g->nr_outcomes; i++)
		if (outcome_none(g, &g->outcomes[i]))
			strbuf_addf(&none, "%s%s", none.len ? ", " : "",
				    g->outcomes[i].kind);
		else
			some++;
	if (none.len)
		wrap(out, "In no cell: ", 4, none.buf);
	strbuf_release(&none);
	if (!some)
		return;
	for (size_t first = 1; first < g->nr_sides || first == 1;) {
		size_t end = block_end(g, first);

		col_heads(out, g, first, end, "Outcomes (fail:runs)");
		for (size_t i = 0; i < g->nr_outcomes; i++) {
			const struct rpt_outcome_row *o = &g->outcomes[i];
			char kb[NAME_W + 1];

			if (outcome_none(g, o))
				continue;
			strbuf_addf(out, "%-*s %-*s", STAT_W,
				    o->is_outcome ? "outcome" :
				    o->is_figure  ? "cells" :
						    "event",
				    NAME_W,
				    ascii(kb, sizeof(kb), o->kind, NAME_W));
			for (size_t s = 0; s < end; s++) {
				char fr[64];

				if (s && s < first)
					continue;
				if (s && !isnan(o->p[s]) &&
				    o->fail[s] * o->runs[0] !=
					    o->fail[0] * o->runs[s])
					snprintf(fr, sizeof(fr),
						 "%u:%u p=%.2g%s", o->fail[s],
						 o->runs[s], o->p[s],
						 o->p[s] < STATS_ALPHA ? "*" :
									 " ");
				else
					snprintf(fr, sizeof(fr), "%u:%u ",
						 o->fail[s], o->runs[s]);
				strbuf_addf(out, " %*s", COL_W - 1, fr);
			}
			strbuf_addch(out, '\n');
		}
		if (end >= g->nr_sides)
			break;
		first = end;
	}
}

/* OOM victims and stack-overflow titles, per side, counted. */
static void event_names(struct strbuf *out, const struct rpt_group *g,
			const char *kind, bool victims, const char *head)
{
	bool any = false;

	for (size_t s = 0; s < g->nr_sides; s++) {
		struct strvec seen = STRVEC_INIT;
		struct strbuf line = STRBUF_INIT;

		for (size_t i = 0; i < g->sides[s].n; i++) {
			const struct rpt_cell *c = g->sides[s].cells[i];

			for (size_t e = 0; e < c->nr_events; e++)
				if (!strcmp(c->events[e].kind, kind))
					strvec_push(
						&seen,
						victims ? c->events[e].victim :
							  c->events[e].title);
		}
		for (size_t i = 0; i < seen.nr; i++) {
			size_t k = 0, dup = 0;

			for (size_t j = 0; j < seen.nr; j++) {
				k += !strcmp(seen.v[i], seen.v[j]);
				dup |= j < i && !strcmp(seen.v[i], seen.v[j]);
			}
			if (!dup)
				strbuf_addf(&line, "%s%s (%zu)",
					    line.len ? ", " : "",
					    *seen.v[i] ? seen.v[i] : "?", k);
		}
		if (line.len) {
			char first[64], nb[40];

			snprintf(first, sizeof(first), "  %s: ",
				 ascii(nb, sizeof(nb), g->sides[s].name, 30));
			if (!any)
				strbuf_addf(out, "%s\n", head);
			any = true;
			wrap(out, first, 6, line.buf);
		}
		strbuf_release(&line);
		strvec_clear(&seen);
	}
}

static const struct rpt_cell *stack_section(struct strbuf *out,
					    const struct rpt_group *g)
{
	const struct rpt_cell *worst = NULL;
	char nb[32];

	strbuf_addf(out, "Stack depth (stack tracer, deepest entry to the "
			 "allocator/reclaim/bio)\n");
	strbuf_addf(out, "  %-24s %8s %7s %9s %8s\n", "kernel", "max B",
		    "max %", "median B", "median %");
	for (size_t s = 0; s < g->nr_sides; s++) {
		const struct rpt_side *sd = &g->sides[s];
		double b[256], f[256];
		size_t k = 0;

		for (size_t i = 0; i < sd->n && k < ARRAY_SIZE(b); i++) {
			const struct rpt_cell *c = sd->cells[i];

			if (isnan(c->stack_bytes))
				continue;
			b[k] = c->stack_bytes;
			f[k++] = c->stack_fraction;
			if (!worst || c->stack_bytes > worst->stack_bytes)
				worst = c;
		}
		if (!k) {
			strbuf_addf(out, "  %-24s %8s\n",
				    ascii(nb, sizeof(nb), sd->name, 24),
				    "not measured");
			continue;
		}
		qsort(b, k, sizeof(*b), cmp_double);
		qsort(f, k, sizeof(*f), cmp_double);
		strbuf_addf(out, "  %-24s %8.0f %6.1f%% %9.0f %7.1f%%\n",
			    ascii(nb, sizeof(nb), sd->name, 24), b[k - 1],
			    100 * f[k - 1], stats_quantile(b, k, 0.5),
			    100 * stats_quantile(f, k, 0.5));
	}
	return worst;
}

static void chain(struct strbuf *out, const struct rpt_cell *c, size_t max)
{
	char first[160], nb[100];

	if (!c || !c->chain_len)
		return;
	snprintf(first, sizeof(first), "Deepest chain: %s, %.0f bytes:",
		 ascii(nb, sizeof(nb), c->id, 60), c->stack_bytes);
	wrap(out, first, 2, "");
	strbuf_addf(out, "  %6s %5s  %s\n", "depth", "size", "location");
	for (size_t i = 0; i < c->chain_len && i < max; i++) {
		char loc[64];

		strbuf_addf(out, "  %6d %5d  %s\n", c->chain[i].depth,
			    c->chain[i].size,
			    ascii(loc, sizeof(loc), c->chain[i].location, 63));
	}
	if (c->chain_len > max)
		strbuf_addf(out,
			    "  (%zu more frames: --full, or the JSON report)\n",
			    c->chain_len - max);
}

static const char *test_text(const struct report *r)
{
	switch (r->o.test) {
	case RTEST_WELCH:
		return "Welch's t-test, a family's smallest p times its rows "
		       "< alpha (one star a family)";
	case RTEST_BANDS:
		return "mmtests' rule: the mean +- 1.96 sd bands of the two "
		       "kernels do not overlap";
	case RTEST_FIT:
		return "each row's own test (below), Simes within a family of "
		       "rows that move together, Benjamini-Hochberg over the "
		       "families, one star a family (docs/report.md); the "
		       "Verdict's rows on their own";
	default:
		return "Welch's t-test; rows that move together form a family "
		       "(docs/report.md) whose p is its smallest times its "
		       "rows; Benjamini-Hochberg over the families, q < alpha; "
		       "the star goes to the family's row with the smallest p "
		       "(one star a family)";
	}
}

/* Which test decided each tested row: "log1p-welch: reclaim-wr-direct, ...". */
static void tests_used(struct strbuf *out, const struct rpt_group *g)
{
	for (int t = MTEST_WELCH; t <= MTEST_FISHER; t++) {
		struct strbuf names = STRBUF_INIT;
		char head[40];

		for (size_t m = 0; m < metric_nr_rows; m++) {
			bool used = false;

			for (size_t s = 1; s < g->nr_sides; s++)
				used |= (g->cmp[s][m].tested ||
					 g->primary[m]) &&
					g->cmp[s][m].test ==
						(enum metric_test)t;
			if (used)
				strbuf_addf(&names, "%s%s",
					    names.len ? ", " : "",
					    metric_rows[m].name);
		}
		snprintf(head, sizeof(head),
			 "  %s: ", metric_test_name((enum metric_test)t));
		if (names.len)
			wrap(out, head, 4, names.buf);
		strbuf_release(&names);
	}
}

static void legend(struct strbuf *out, const struct report *r,
		   const struct rpt_group *g)
{
	char buf[512];

	strbuf_addstr(out, "Legend\n");
	wrap(out, "  value (  x%)  ", 16,
	     r->o.full ? "the kernel's figure and its change against the "
			 "baseline, signs normalised: a positive % is always "
			 "better (less spread is better for Stddev and "
			 "CoeffVar)." :
			 "the kernel's figure and its change against the "
			 "baseline, signs normalised: a positive % is always "
			 "better.");
	snprintf(buf, sizeof(buf),
		 "significant: %s, alpha %.2f, n >= %d per side. Outcome "
		 "rates: Fisher's exact test, two-sided, p < %.2f marks "
		 "fail:runs with '*'.",
		 test_text(r), r->o.alpha, STATS_MIN_N, r->o.alpha);
	wrap(out, "  value *  x%*  ", 16, buf);
	if (r->o.full)
		snprintf(buf, sizeof(buf),
			 "%zu of %zu tested rows starred. Smallest change each "
			 "row could have shown with power %.0f%% (alpha %.2f, "
			 "this n and noise), in %% of the baseline mean: no "
			 "star means no change bigger than this was there to "
			 "see.",
			 g->starred, g->tested, 100 * r->o.power, r->o.alpha);
	else
		snprintf(buf, sizeof(buf), "%zu of %zu tested rows starred.",
			 g->starred, g->tested);
	wrap(out, "  ", 2, buf);
	tests_used(out, g);
	if (!r->o.full) {
		wrap(out, "  ", 2,
		     "--full adds Min, Median, Stddev, CoeffVar and Max lines "
		     "and each row's smallest detectable change; `wblab "
		     "metrics` describes the rows.");
		return;
	}
	for (size_t first = 1; first < g->nr_sides; first += 2) {
		char nb[COL_W + 1];

		strbuf_addf(out, "  %-18s %-6s %-6s %-14s", "row", "unit",
			    "better", "family");
		for (size_t s = first; s < g->nr_sides && s < first + 2; s++)
			strbuf_addf(out, " %14s",
				    ascii(nb, sizeof(nb), g->sides[s].name,
					  14));
		strbuf_addch(out, '\n');
		for (size_t m = 0; m < metric_nr_rows; m++) {
			const struct metric *mt = &metric_rows[m];
			char nm[32];

			if (!rpt_row_shown(g, m))
				continue;
			strbuf_addf(out, "  %-18s %-6s %-6s %-14s",
				    ascii(nm, sizeof(nm), mt->name, 18),
				    mt->unit,
				    mt->better == BETTER_HIGHER ? "higher" :
								  "lower",
				    mt->family);
			for (size_t s = first; s < g->nr_sides && s < first + 2;
			     s++) {
				const struct rpt_cmp *c = &g->cmp[s][m];
				char v[32];

				if (!c->tested)
					snprintf(v, sizeof(v), "%s",
						 c->shown ? "not tested" : "-");
				else
					rpt_fmt_pct(v, sizeof(v), c->mde_pct);
				strbuf_addf(
					out, " %13s%s", v,
					c->tested && !isnan(c->mde_pct) &&
							!isinf(c->mde_pct) &&
							fabs(c->mde_pct) <
								10000 ?
						"%" :
						" ");
			}
			strbuf_addch(out, '\n');
		}
	}
	wrap(out, "  ", 2,
	     "not tested: fewer than 3 values a side, or the same value in "
	     "every cell of both kernels. Rows: docs/report.md and the "
	     "table of `wblab metrics`.");
}

static void bands_note(struct strbuf *out, const struct rpt_group *g)
{
	struct strbuf names = STRBUF_INIT;

	for (size_t s = 1; s < g->nr_sides; s++)
		for (size_t m = 0; m < metric_nr_rows; m++)
			if (g->cmp[s][m].tested && g->cmp[s][m].bands_apart)
				strbuf_addf(&names, "%s%s",
					    names.len ? ", " : "",
					    metric_rows[m].name);
	if (names.len)
		wrap(out, "  mmtests' 1.96 sd bands apart: ", 4, names.buf);
	strbuf_release(&names);
}

static void verdict_line(struct strbuf *out, const struct rpt_group *g,
			 const struct rpt_verdict *v)
{
	const struct metric *m = &metric_rows[v->metric];
	const struct vdecision *d = &v->d;
	struct strbuf line = STRBUF_INIT, eff = STRBUF_INIT, sdc = STRBUF_INIT;
	char nb[48], name[20];

	vdecision_effect(d, m->unit, 1, &eff);
	vdecision_sdc(d, m->unit, 1, &sdc);
	strbuf_addf(&line, "%s, n %d/%d", eff.buf, d->na, d->nb);
	if (!isnan(d->p))
		strbuf_addf(&line, ", p %.2g (%s)", d->p,
			    metric_test_name(d->test));
	if (d->verdict != VERDICT_DIFFERENT)
		strbuf_addf(&line, ", could see %s", sdc.buf);
	snprintf(nb, sizeof(nb), "    %-18s %-9s ",
		 ascii(name, sizeof(name), m->name, 18),
		 verdict_name(d->verdict));
	wrap(out, nb, 33, line.buf);
	if (d->verdict == VERDICT_UNKNOWN && d->na < STATS_MIN_N)
		wrap(out, "", 33, d->why);
	strbuf_release(&line);
	strbuf_release(&eff);
	strbuf_release(&sdc);
}

/*
 * The question the workload asks, answered first: per kernel against the
 * baseline, each primary row same, different or unknown.
 */
static void verdict_section(struct strbuf *out, const struct report *r,
			    const struct rpt_group *g)
{
	char head[160], nb[64];

	if (g->nr_sides < 2)
		return;
	if (!g->nr_verdicts) {
		wrap(out, "", 0,
		     "Verdict: the workload names no primary rows (its "
		     "primary:, or --primary ROW): no question to answer.");
		strbuf_addch(out, '\n');
		return;
	}
	snprintf(head, sizeof(head),
		 "Verdict (the workload's question; each row at alpha %.2f, "
		 "same = within %g%%)",
		 r->o.alpha, r->o.threshold);
	wrap(out, "", 0, head);
	for (size_t s = 1; s < g->nr_sides; s++) {
		strbuf_addf(out, "  %s against %s\n",
			    ascii(nb, sizeof(nb), g->sides[s].name, 30),
			    ascii(head, sizeof(head), g->sides[0].name, 30));
		for (size_t i = 0; i < g->nr_verdicts; i++)
			if (g->verdicts[i].side == s)
				verdict_line(out, g, &g->verdicts[i]);
	}
	strbuf_addch(out, '\n');
}

/* Cells whose workload left work undone: their figures measured less. */
static void unfinished_note(struct strbuf *out, const struct rpt_group *g)
{
	struct strbuf ids = STRBUF_INIT;
	char nb[80];

	if (!g->unfinished)
		return;
	for (size_t s = 0; s < g->nr_sides; s++)
		for (size_t i = 0; i < g->sides[s].n; i++)
			if (rpt_cell_unfinished(g->sides[s].cells[i]))
				strbuf_addf(&ids, "%s%s", ids.len ? ", " : "",
					    ascii(nb, sizeof(nb),
						  g->sides[s].cells[i]->id,
						  60));
	wrap(out,
	     "Unequal work: more than 1% of what these cells wrote was "
	     "still dirty or under writeback when the workload ended "
	     "(end-dirty): ",
	     4, ids.buf);
	strbuf_addch(out, '\n');
	strbuf_release(&ids);
}

/*
 * The group's worst cell (the most severe outcome, then the most console
 * events) and the command that makes its reproducer (docs/repro.md); a
 * group whose cells all ended ok without a console event has nothing to
 * reproduce.
 */
static void repro_hint(struct strbuf *out, const struct rpt_group *g)
{
	const struct rpt_cell *w = NULL;

	for (size_t s = 0; s < g->nr_sides; s++) {
		for (size_t i = 0; i < g->sides[s].n; i++) {
			const struct rpt_cell *c = g->sides[s].cells[i];
			int sc = results_outcome_severity(c->outcome);
			int sw = w ? results_outcome_severity(w->outcome) : -1;

			if (c->dir &&
			    (sc > sw ||
			     (sc == sw && c->nr_events > w->nr_events)))
				w = c;
		}
	}
	if (!w || (!strcmp(w->outcome, "ok") && !w->nr_events))
		return;
	strbuf_addf(out, "Worst cell: %.60s (%.15s)\n", w->id, w->outcome);
	results_repro_line(out, w->dir, WIDTH);
}

static void group_section(struct strbuf *out, const struct report *r,
			  const struct rpt_group *g)
{
	char title[200], nb[100], tb[100];
	const struct rpt_cell *worst;
	size_t min_n = SIZE_MAX;

	snprintf(title, sizeof(title), "%s / %s / %d MiB guest",
		 ascii(nb, sizeof(nb), g->topology, 60),
		 ascii(tb, sizeof(tb), g->workload, 60), g->memory_mib);
	strbuf_addf(out, "\n%s\n%.*s\n", title, (int)strlen(title),
		    "==================================================="
		    "=============================");
	for (size_t s = 0; s < g->nr_sides; s++)
		if (g->sides[s].n < min_n)
			min_n = g->sides[s].n;
	{
		struct strbuf runs = STRBUF_INIT;

		for (size_t s = 0; s < g->nr_sides; s++) {
			size_t ok = 0;

			for (size_t i = 0; i < g->sides[s].n; i++)
				ok += !strcmp(g->sides[s].cells[i]->outcome,
					      "ok");
			strbuf_addf(&runs, "%s%s %zu (%zu ok)", s ? ", " : "",
				    g->sides[s].name, g->sides[s].n, ok);
		}
		wrap(out, "Runs per kernel: ", 4, runs.buf);
		strbuf_release(&runs);
	}
	if (g->nr_sides > 1 && min_n < STATS_MIN_N)
		wrap(out, "", 0,
		     "n is too small for significance tests (fewer than 3 "
		     "runs on a side): no row is starred.");
	strbuf_addch(out, '\n');
	verdict_section(out, r, g);
	unfinished_note(out, g);
	outcome_table(out, g);
	event_names(out, g, "oom", true, "OOM victims:");
	event_names(out, g, "stack_overflow", false, "Stack overflows:");
	event_names(out, g, "blocked", false,
		    "Blocked in the kernel at the end of the workload "
		    "(SysRq-t, D state):");
	repro_hint(out, g);
	strbuf_addch(out, '\n');
	metric_table(out, g, MT_METRIC, r->o.full);
	metric_table(out, g, MT_OPS, r->o.full);
	zero_rows(out, g);
	worst = stack_section(out, g);
	chain(out, worst, r->o.full ? 48 : 8);
	strbuf_addch(out, '\n');
	if (g->nr_sides > 1) {
		legend(out, r, g);
		bands_note(out, g);
	}
}

/* "LABEL VALUE" for each host fact run.json has; absent ones are left out. */
static void host_fact(struct strbuf *line, const struct rpt_run *run,
		      const char *key, const char *fmt)
{
	json_object *v;
	char buf[160];

	if (!run->host || !json_object_object_get_ex(run->host, key, &v) ||
	    !*json_object_get_string(v))
		return;
	if (strstr(key, "_version")) {
		long long x = json_object_get_int64(v);

		snprintf(buf, sizeof(buf), "%lld.%lld.%lld", x / 1000000,
			 x / 1000 % 1000, x % 1000);
	} else {
		ascii(buf, sizeof(buf), json_object_get_string(v),
		      sizeof(buf) - 1);
	}
	if (line->len)
		strbuf_addstr(line, ", ");
	strbuf_addf(line, fmt, buf);
}

static void host_line(struct strbuf *out, const struct rpt_run *run)
{
	struct strbuf line = STRBUF_INIT;

	host_fact(&line, run, "hostname", "%s");
	host_fact(&line, run, "cpu", "%s");
	host_fact(&line, run, "cpus", "%s CPUs");
	host_fact(&line, run, "memory_mib", "%s MiB");
	host_fact(&line, run, "kernel", "host kernel %s");
	host_fact(&line, run, "qemu_version", "QEMU %s");
	host_fact(&line, run, "libvirt_version", "libvirt %s");
	host_fact(&line, run, "accel", "accel %s");
	wrap(out, "  ", 4, line.buf);
	strbuf_release(&line);
}

static void kernels_section(struct strbuf *out, const struct report *r,
			    struct strvec *names)
{
	strbuf_addstr(out, "Kernels\n");
	for (size_t i = 0; i < names->nr; i++) {
		const struct rpt_cell *c = rpt_side_cell(r, names->v[i]);
		struct strvec subj = STRVEC_INIT;
		char nb[64], rb[64], hb[80], line[300];

		if (!c)
			continue;
		snprintf(line, sizeof(line), "%s%s: uname -r %s, key %.12s",
			 ascii(nb, sizeof(nb), c->side, 40),
			 i ? "" : " (baseline)",
			 ascii(rb, sizeof(rb),
			       *c->release ? c->release : c->version, 60),
			 ascii(hb, sizeof(hb), c->hash, sizeof(hb) - 1));
		wrap(out, "  ", 6, line);
		if (*c->source)
			wrap(out, "      source: ", 8, c->source);
		rpt_patch_subjects(c->patches, &subj);
		if (!subj.nr)
			wrap(out, "      patches: ", 8, "none");
		for (size_t p = 0; p < subj.nr; p++)
			wrap(out, "      patch: ", 8, subj.v[p]);
		strvec_clear(&subj);
	}
}

/* Facts that differ between the sides' cells: only those are listed. */
static void differs_section(struct strbuf *out, const struct report *r,
			    struct strvec *names)
{
	bool any = false;

	for (size_t w = 0; rpt_fact_names[w]; w++) {
		struct strbuf vals = STRBUF_INIT;
		char head[40];

		if (!rpt_fact_differs(r, names, w))
			continue;
		for (size_t i = 0; i < names->nr; i++) {
			const struct rpt_cell *c =
				rpt_side_cell(r, names->v[i]);
			char buf[32];
			const char *v;

			if (!c)
				continue;
			v = rpt_cell_fact(c, w, buf, sizeof(buf));
			strbuf_addf(&vals, "%s%s: %s", vals.len ? "; " : "",
				    c->side, *v ? v : "(none)");
		}
		if (!any)
			strbuf_addstr(out, "Differs between the kernels\n");
		any = true;
		snprintf(head, sizeof(head), "  %s: ", rpt_fact_names[w]);
		wrap(out, head, 6, vals.buf);
		strbuf_release(&vals);
	}
	if (!any && names->nr > 1)
		strbuf_addstr(out, "Differs between the kernels: nothing but "
				   "the name (an A/A comparison)\n");
}

static void infra_section(struct strbuf *out, const struct report *r)
{
	if (!r->nr_infra && !r->warnings.nr)
		return;
	strbuf_addf(out,
		    "\nNot counted (%zu infra-error cells: host "
		    "faults, not kernel results)\n",
		    r->nr_infra);
	for (size_t i = 0; i < r->nr_infra; i++) {
		char first[120], nb[100];

		snprintf(first, sizeof(first),
			 "  %s: ", ascii(nb, sizeof(nb), r->infra[i]->id, 70));
		wrap(out, first, 6, r->infra[i]->reason);
	}
	for (size_t i = 0; i < r->warnings.nr; i++)
		wrap(out, "  unreadable: ", 6, r->warnings.v[i]);
}

void report_mail(const struct report *r, struct strbuf *out)
{
	struct strvec names = STRVEC_INIT;
	size_t cells = 0;
	char line[200];

	rpt_side_names(r, &names);
	for (size_t g = 0; g < r->nr_groups; g++)
		for (size_t s = 0; s < r->groups[g].nr_sides; s++)
			cells += r->groups[g].sides[s].n;
	snprintf(line, sizeof(line),
		 "wblab report: %zu kernels, %zu cells in %zu runs, %zu "
		 "comparison group%s",
		 names.nr, cells, r->nr_runs, r->nr_groups,
		 r->nr_groups == 1 ? "" : "s");
	wrap(out, "", 0, line);
	strbuf_addch(out, '\n');
	kernels_section(out, r, &names);
	strbuf_addstr(out, "Host\n");
	for (size_t i = 0; i < r->nr_runs; i++) {
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= r->runs[j]->host && r->runs[i]->host &&
			       json_object_equal(r->runs[j]->host,
						 r->runs[i]->host);
		if (!dup)
			host_line(out, r->runs[i]);
	}
	if (r->nr_cells) {
		snprintf(line, sizeof(line), "%d MiB, %d vCPUs",
			 r->cells[0]->memory_mib, r->cells[0]->vcpus);
		wrap(out, "Guest: ", 2, line);
	}
	differs_section(out, r, &names);
	for (size_t g = 0; g < r->nr_groups; g++)
		group_section(out, r, &r->groups[g]);
	infra_section(out, r);
	strvec_clear(&names);
}
