// SPDX-License-Identifier: GPL-2.0
/*
 * The mail report's tables (report/mail-int.h): metrics and outcomes in
 * fixed columns, in blocks when more kernels than fit are compared; the
 * events by name; stack depths and the deepest chain.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/mail-int.h"
#include "report/report.h"
#include "results/reader.h"
#include "stats/stats.h"
#include "util/dvec.h"
#include "util/log.h"
#include "util/str.h"

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
		    mail_ascii(nb, sizeof(nb), g->sides[0].name, COL_W - 1));
	for (size_t s = first; s < end; s++)
		strbuf_addf(out, " %*s", COL_W - 1,
			    mail_ascii(nb, sizeof(nb), g->sides[s].name,
				       COL_W - 1));
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
		    mail_ascii(nb, sizeof(nb), name, NAME_W));
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

/*
 * Fewer cells than any test needs (n < STATS_MIN_N) on a side: its change
 * is no result, and an n=1 row reading "-88%" looked like one. Such a
 * column says its n instead of a percentage.
 */
static bool few_cells(const struct rpt_group *g, size_t s, size_t m)
{
	return g->sides[s].desc[m].n < STATS_MIN_N;
}

static void few_col(struct strbuf *out, double v, size_t n)
{
	char vb[32], nb[16];

	rpt_fmt_val(vb, sizeof(vb), v);
	snprintf(nb, sizeof(nb), "n=%zu", n);
	strbuf_addf(out, " %11s (%8s)", vb, nb);
}

/*
 * The main line's baseline column: its figure and the cells each side
 * of the line had a value in, "(n=5/5)" (baseline/kernel), where the
 * other lines have the baseline's 0%.
 */
static void base_n_col(struct strbuf *out, const struct rpt_group *g, size_t m,
		       double a, size_t first, size_t end)
{
	char vb[32], nb[32];

	rpt_fmt_val(vb, sizeof(vb), a);
	if (end - first == 1)
		snprintf(nb, sizeof(nb), "(n=%zu/%zu)", g->sides[0].desc[m].n,
			 g->sides[first].desc[m].n);
	else
		snprintf(nb, sizeof(nb), "(n=%zu)", g->sides[0].desc[m].n);
	strbuf_addf(out, " %11s %10s", vb, nb);
}

/*
 * The main line's change with half its 95% interval, both in % of the
 * baseline's mean: "(-19% +-69)" says a -19% sits in noise of +-69%,
 * the compact column the spread lines (--full) give at length. The
 * interval is Welch's, of the difference of the means, whatever the
 * row's test (which the star is from). Digits follow the interval's
 * size; the change is left-aligned after a figure of at most 9 places.
 */
static void change_col(struct strbuf *out, const struct rpt_group *g, size_t s,
		       size_t m, double b, double pct)
{
	double half = rpt_row_halfwidth_pct(g, s, m);
	bool star = g->cmp[s][m].star;
	char vb[32], cb[48];
	int prec;

	if (isnan(pct) || (!isinf(pct) && isnan(half))) {
		cell_col(out, b, pct, star);
		return;
	}
	rpt_fmt_val(vb, sizeof(vb), b);
	if (isinf(pct)) { /* a change from 0 has no percentage */
		snprintf(cb, sizeof(cb), "%cfrom 0%c", star ? '*' : '(',
			 star ? '*' : ')');
	} else {
		/*
		 * One decimal for a narrow interval, unless it will not fit;
		 * then no space; a change or interval of five digits is
		 * printed without its interval.
		 */
		for (prec = half < 10 ? 1 : 0; prec >= -1; prec--)
			if (snprintf(cb, sizeof(cb), "%c%.*f%%%s+-%.*f%c",
				     star ? '*' : '(', prec < 0 ? 0 : prec, pct,
				     prec < 0 ? "" : " ", prec < 0 ? 0 : prec,
				     half, star ? '*' : ')') <= 13)
				break;
		if (prec < -1) {
			cell_col(out, b, pct, star);
			return;
		}
	}
	strbuf_addf(out, " %9s %-13s", vb, cb);
}

static void metric_line(struct strbuf *out, const struct rpt_group *g, size_t m,
			enum line_kind k, size_t first, size_t end)
{
	static const char *const stat[] = { NULL,     "Min",	  "Median",
					    "Stddev", "CoeffVar", "Max" };
	const struct metric *mt = &metric_rows[m];
	double a = line_val(g, 0, m, k);

	row_label(out, k == L_MAIN ? metric_mean_name(mt) : stat[k], mt);
	if (few_cells(g, 0, m))
		few_col(out, a, g->sides[0].desc[m].n);
	else if (k == L_MAIN)
		base_n_col(out, g, m, a, first, end);
	else
		cell_col(out, a, isnan(a) ? NAN : 0, false);
	for (size_t s = first; s < end; s++) {
		double b = line_val(g, s, m, k);

		if (few_cells(g, s, m) || few_cells(g, 0, m))
			few_col(out, b, g->sides[s].desc[m].n);
		else if (k == L_MAIN)
			change_col(out, g, s, m, b, line_pct(mt, k, a, b));
		else
			cell_col(out, b, line_pct(mt, k, a, b), false);
	}
	strbuf_trim_trailing(out); /* the last change's padding */
	strbuf_addch(out, '\n');
}

/* Zero in every cell of every side: listed by name, not as a row. */
static bool row_all_zero(const struct rpt_group *g, size_t m)
{
	return rpt_row_constant(g, m) && g->sides[0].desc[m].n &&
	       g->sides[0].desc[m].min == 0;
}

void mail_zero_rows(struct strbuf *out, const struct rpt_group *g)
{
	struct strbuf names = STRBUF_INIT;

	for (size_t m = 0; m < metric_nr_rows; m++)
		if (metric_rows[m].table != MT_NONE && rpt_row_shown(g, m) &&
		    row_all_zero(g, m))
			strbuf_addf(&names, "%s%s", names.len ? ", " : "",
				    metric_rows[m].name);
	if (names.len)
		mail_wrap(out, "0 in every cell: ", 4, names.buf);
	strbuf_release(&names);
}

void mail_metric_table(struct strbuf *out, const struct rpt_group *g,
		       enum metric_table table, bool full)
{
	for (size_t first = 1; first < g->nr_sides || first == 1;) {
		size_t end = block_end(g, first);

		col_heads(out, g, first, end,
			  table == MT_METRIC ? "Metrics" : "Ops");
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

static bool row_starred(const struct rpt_group *g, size_t m)
{
	for (size_t s = 1; s < g->nr_sides; s++)
		if (g->cmp[s][m].star)
			return true;
	return false;
}

/*
 * The Ops table of a mail with several groups: the starred rows only, and
 * one line counting the others, which --full shows.
 */
void mail_ops_starred(struct strbuf *out, const struct rpt_group *g)
{
	size_t shown = 0, starred = 0;
	char line[120];

	for (size_t m = 0; m < metric_nr_rows; m++) {
		if (metric_rows[m].table != MT_OPS || !rpt_row_shown(g, m) ||
		    row_all_zero(g, m))
			continue;
		shown++;
		starred += row_starred(g, m);
	}
	for (size_t first = 1; starred && first < g->nr_sides;) {
		size_t end = block_end(g, first);

		col_heads(out, g, first, end, "Ops");
		for (size_t m = 0; m < metric_nr_rows; m++)
			if (metric_rows[m].table == MT_OPS &&
			    rpt_row_shown(g, m) && row_starred(g, m))
				metric_line(out, g, m, L_MAIN, first, end);
		first = end;
	}
	if (!shown)
		return;
	snprintf(line, sizeof(line),
		 "%zu %srow%s with no star: wblab report --full.",
		 shown - starred, starred ? "more " : "",
		 shown - starred == 1 ? "" : "s");
	mail_wrap(out, "Ops: ", 4, line);
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
void mail_outcome_table(struct strbuf *out, const struct rpt_group *g)
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
		mail_wrap(out, "In no cell: ", 4, none.buf);
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
				    mail_ascii(kb, sizeof(kb), o->kind,
					       NAME_W));
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

/*
 * 'y' for a stall the watcher saw end, 'e' for one that ended on failed
 * requests (the block layer's I/O errors before it), 'n' otherwise.
 */
static char ended_mark(const struct rpt_event *e)
{
	if (e->ended_s < 0)
		return 'n';
	return e->io_errors ? 'e' : 'y';
}

/*
 * "TITLE (k[, e ended][, f ended on I/O errors]), ...": each title once;
 * ended holds ended_mark() of each of seen.
 */
static void count_titles(struct strbuf *line, const struct strvec *seen,
			 const char *ended)
{
	for (size_t i = 0; i < seen->nr; i++) {
		size_t k = 0, dup = 0, e = 0, f = 0;

		for (size_t j = 0; j < seen->nr; j++) {
			bool same = !strcmp(seen->v[i], seen->v[j]);

			k += same;
			e += same && ended[j] == 'y';
			f += same && ended[j] == 'e';
			dup |= j < i && same;
		}
		if (dup)
			continue;
		strbuf_addf(line, "%s%s (%zu", line->len ? ", " : "",
			    *seen->v[i] ? seen->v[i] : "?", k);
		if (e)
			strbuf_addf(line, ", %zu ended", e);
		if (f)
			strbuf_addf(line, ", %zu ended on I/O errors", f);
		strbuf_addch(line, ')');
	}
}

/*
 * OOM victims and event titles, per side, counted; a stall the watcher
 * saw end is counted again as ended, or as ended on I/O errors.
 */
void mail_event_names(struct strbuf *out, const struct rpt_group *g,
		      const char *kind, bool victims, const char *head)
{
	bool any = false;

	for (size_t s = 0; s < g->nr_sides; s++) {
		struct strvec seen = STRVEC_INIT;
		struct strbuf line = STRBUF_INIT, ended = STRBUF_INIT;

		for (size_t i = 0; i < g->sides[s].n; i++) {
			const struct rpt_cell *c = g->sides[s].cells[i];

			for (size_t e = 0; e < c->nr_events; e++) {
				const struct rpt_event *ev = &c->events[e];

				if (strcmp(ev->kind, kind))
					continue;
				strvec_push(&seen,
					    victims ? ev->victim : ev->title);
				strbuf_addch(&ended, ended_mark(ev));
			}
		}
		count_titles(&line, &seen, ended.buf);
		if (line.len) {
			char first[64], nb[40];

			snprintf(first, sizeof(first), "  %s: ",
				 mail_ascii(nb, sizeof(nb), g->sides[s].name,
					    30));
			if (!any)
				mail_wrap(out, "", 4, head);
			any = true;
			mail_wrap(out, first, 6, line.buf);
		}
		strbuf_release(&line);
		strvec_clear(&seen);
		strbuf_release(&ended);
	}
}

const struct rpt_cell *mail_stack_section(struct strbuf *out,
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
				    mail_ascii(nb, sizeof(nb), sd->name, 24),
				    "not measured");
			continue;
		}
		qsort(b, k, sizeof(*b), cmp_double);
		qsort(f, k, sizeof(*f), cmp_double);
		strbuf_addf(out, "  %-24s %8.0f %6.1f%% %9.0f %7.1f%%\n",
			    mail_ascii(nb, sizeof(nb), sd->name, 24), b[k - 1],
			    100 * f[k - 1], stats_quantile(b, k, 0.5),
			    100 * stats_quantile(f, k, 0.5));
	}
	return worst;
}

/*
 * The frames an mm or storage reader looks for in a deep chain: where the
 * allocation or write came from (a syscall, the flusher, kswapd, direct or
 * memcg reclaim), how reclaim and writeback passed through the
 * filesystem or swap, and where it entered the block layer.
 */
static const char *const path_frames[] = {
	"submit_bio",
	"pageout",
	"shrink_folio_list",
	"shrink_page_list",
	"shrink_lruvec",
	"shrink_node",
	"do_try_to_free_pages",
	"try_to_free_pages",
	"try_to_free_mem_cgroup_pages",
	"reclaim_high",
	"__alloc_pages_slowpath",
	"__alloc_pages_direct_reclaim",
	"kswapd",
	"balance_pgdat",
	"swap_writepage",
	"swap_writeout",
	"shmem_writepage",
	"shmem_writeout",
	"do_writepages",
	"wb_writeback",
	"wb_workfn",
	"balance_dirty_pages",
	"md_handle_request",
	"raid1_write_request",
	"raid10_write_request",
	"iscsi_",
	"vfs_write",
	"do_syscall_64",
};

static bool path_frame(const char *loc)
{
	for (size_t i = 0; i < ARRAY_SIZE(path_frames); i++)
		if (starts_with(loc, path_frames[i]))
			return true;
	return false;
}

/*
 * Which frames the excerpt keeps: the deepest (the leaf that made the
 * chain deep), the root, and the path frames, at most max in all; the
 * path frames nearest the block layer first when they do not all fit.
 */
static void pick_frames(const struct rpt_cell *c, size_t max, bool *keep)
{
	size_t kept = 0, n = c->chain_len;

	keep[0] = true;
	kept++;
	if (n > 1 && kept < max) {
		keep[n - 1] = true;
		kept++;
	}
	for (size_t i = 1; i + 1 < n && kept < max; i++)
		if (path_frame(c->chain[i].location)) {
			keep[i] = true;
			kept++;
		}
}

static void chain_frame(struct strbuf *out, const struct rpt_frame *f)
{
	char loc[64];

	strbuf_addf(out, "  %6d %5d  %s\n", f->depth, f->size,
		    mail_ascii(loc, sizeof(loc), f->location, 63));
}

/*
 * The deepest chain, leaf first. Whole with --full (up to max frames);
 * otherwise an excerpt: the leaf, the reclaim or writeback path down to
 * the block layer and the root, the frames between said as a count. The
 * bottom eight frames alone (the allocator and virtio) said nothing of
 * how the kernel got there.
 */
void mail_chain(struct strbuf *out, const struct rpt_cell *c, size_t max)
{
	char first[160], nb[100];
	bool *keep;
	size_t gap = 0;

	if (!c || !c->chain_len)
		return;
	snprintf(first, sizeof(first), "Deepest chain: %s, %.0f bytes%s",
		 mail_ascii(nb, sizeof(nb), c->id, 60), c->stack_bytes,
		 max ? ":" : " (its frames: --full).");
	mail_wrap(out, first, 2, "");
	if (!max)
		return;
	strbuf_addf(out, "  %6s %5s  %s\n", "depth", "size", "location");
	keep = xzalloc(c->chain_len * sizeof(*keep));
	if (max >= c->chain_len)
		memset(keep, 1, c->chain_len * sizeof(*keep));
	else
		pick_frames(c, max, keep);
	for (size_t i = 0; i < c->chain_len; i++) {
		if (!keep[i]) {
			gap++;
			continue;
		}
		if (gap)
			strbuf_addf(out, "  %6s %5s  (%zu frame%s)\n", "...",
				    "", gap, gap == 1 ? "" : "s");
		gap = 0;
		chain_frame(out, &c->chain[i]);
	}
	free(keep);
}
