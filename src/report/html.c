// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report: one self-contained file (inline CSS, plots as SVG made
 * by gnuplot and inlined as data: URIs, no external URL), the same tables
 * as the mail report plus a distribution plot per metric, time series of
 * dirty/writeback/free memory per kernel and the outcome matrix.
 *
 * Every string that came from a spec, a console or a guest goes through
 * esc() (util/html.c): invalid UTF-8 and control characters become '?', then libxml2's
 * xmlEncodeSpecialChars() escapes the markup characters. Nothing such
 * reaches gnuplot: its titles are sanitised to [A-Za-z0-9._+-], and the
 * data it plots are numbers this file printed.
 */
#include <libxml/encoding.h>
#include <libxml/entities.h>
#include <libxml/xmlstring.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/timeseries.h"
#include "report/report.h"
#include "results/outcome.h"
#include "util/gnuplot.h"
#include "util/html.h"
#include "util/log.h"

#define TS_MAX_BYTES (4 << 20)
#define TS_MAX_ROWS 20000

static void esc(struct strbuf *out, const char *s)
{
	html_escape(out, s);
}

static void escf(struct strbuf *out, const char *fmt, const char *s)
{
	struct strbuf t = STRBUF_INIT;

	strbuf_addf(&t, fmt, s);
	esc(out, t.buf);
	strbuf_release(&t);
}

/* A gnuplot-safe title: [A-Za-z0-9._+-], others as '_'. */
static void gp_title(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '\'');
	for (size_t i = 0; s[i] && i < 40; i++) {
		char c = s[i];

		strbuf_addch(out, (c >= 'a' && c <= 'z') ||
						  (c >= 'A' && c <= 'Z') ||
						  (c >= '0' && c <= '9') ||
						  strchr("._+-", c) ?
					  c :
					  '_');
	}
	strbuf_addch(out, '\'');
}

/* Plot script (util/gnuplot.c); append the SVG as an <img> data: URI. */
static int gnuplot_img(struct strbuf *out, const struct strbuf *script,
		       const char *alt, struct strbuf *err)
{
	struct strbuf svg = STRBUF_INIT;
	unsigned char *b64;

	if (gnuplot_svg(script, &svg, err)) {
		strbuf_release(&svg);
		return -1;
	}
	b64 = xmalloc(4 * ((svg.len + 2) / 3) + 1);
	EVP_EncodeBlock(b64, (const unsigned char *)svg.buf, svg.len);
	strbuf_addstr(out, "<img class=\"plot\" alt=\"");
	esc(out, alt);
	strbuf_addf(out, "\" src=\"data:image/svg+xml;base64,%s\">\n", b64);
	free(b64);
	strbuf_release(&svg);
	return 0;
}

static void gp_head(struct strbuf *s, int w, int h)
{
	strbuf_addf(s,
		    "set terminal svg size %d,%d noenhanced font 'sans,10' "
		    "background '#ffffff'\n"
		    "set output\nset border 3\nset tics nomirror\n"
		    "set key outside right top\nset grid ytics lc '#dddddd'\n",
		    w, h);
}

/* Strip plot: every cell's value per kernel, jittered, with the mean. */
static int dist_plot(struct strbuf *out, const struct rpt_group *g, size_t m,
		     struct strbuf *err)
{
	const struct metric *mt = &metric_rows[m];
	struct strbuf s = STRBUF_INIT;
	int ret;

	gp_head(&s, 520, 220);
	strbuf_addf(&s, "set ylabel '%s'\nset xrange [0.5:%zu.5]\n", mt->unit,
		    g->nr_sides);
	strbuf_addstr(&s, "set xtics (");
	for (size_t k = 0; k < g->nr_sides; k++) {
		strbuf_addstr(&s, k ? ", " : "");
		gp_title(&s, g->sides[k].name);
		strbuf_addf(&s, " %zu", k + 1);
	}
	strbuf_addstr(&s, ")\nunset key\n");
	for (size_t k = 0; k < g->nr_sides; k++) {
		const struct rpt_side *sd = &g->sides[k];

		strbuf_addf(&s, "$d%zu << EOD\n", k);
		for (size_t i = 0; i < sd->desc[m].n; i++)
			strbuf_addf(&s, "%.3f %.9g\n",
				    k + 1 + 0.25 * ((double)(i % 7) / 6 - 0.5),
				    sd->vals[m][i]);
		strbuf_addstr(&s, "EOD\n");
		if (sd->desc[m].n)
			strbuf_addf(&s,
				    "set arrow from %.2f,%.9g to %.2f,%.9g "
				    "nohead lw 2 lc '#333333'\n",
				    k + 1 - 0.3, rpt_side_stat(sd, m),
				    k + 1 + 0.3, rpt_side_stat(sd, m));
	}
	strbuf_addstr(&s, "plot ");
	for (size_t k = 0; k < g->nr_sides; k++)
		strbuf_addf(&s,
			    "%s$d%zu using 1:2 with points pt 7 ps 0.6 "
			    "lc %zu",
			    k ? ", " : "", k, k + 1);
	strbuf_addch(&s, '\n');
	ret = gnuplot_img(out, &s, mt->name, err);
	strbuf_release(&s);
	return ret;
}

int rpt_ts_column(struct strbuf *s, const char *cell_dir, const char *col)
{
	struct strbuf f = STRBUF_INIT;
	char *path = xasprintf("%s/timeseries.tsv", cell_dir);
	struct timeseries ts;
	int idx, ti, points = 0;

	if (strbuf_read_file(&f, path) || f.len > TS_MAX_BYTES)
		goto out;
	if (timeseries_parse(f.buf, f.len, &ts))
		goto end;
	ti = timeseries_col(&ts, "t_s");
	idx = timeseries_col(&ts, col);
	for (size_t r = 0;
	     ti >= 0 && idx >= 0 && r < ts.nrows && r < TS_MAX_ROWS; r++) {
		double t = timeseries_at(&ts, r, ti);
		double v = timeseries_at(&ts, r, idx);

		if (v < 0)
			continue;
		strbuf_addf(s, "%.3f %.3f\n", t, v / 1024);
		points++;
	}
	timeseries_release(&ts);
end:
	strbuf_addstr(s, "\n\n");
out:
	free(path);
	strbuf_release(&f);
	return points;
}

/*
 * Dirty, writeback and free memory over time, every cell of a kernel, and
 * the workload memcg's usage (memory.current) where the workload has one.
 */
static int ts_plot(struct strbuf *out, const struct rpt_group *g,
		   const struct rpt_side *sd, struct strbuf *err)
{
	static const char *const what[] = { "Dirty", "Writeback", "MemFree",
					    "memcg usage" };
	static const char *const col_of[] = { "dirty_kb", "writeback_kb",
					      "mem_free_kb",
					      "memcg_current_kb" };
	static const char *const color[] = { "#d62728", "#1f77b4", "#2ca02c",
					     "#9467bd" };
	struct strbuf s = STRBUF_INIT, alt = STRBUF_INIT;
	int ret, points[4] = { 0 };

	gp_head(&s, 520, 240);
	/*
	 * Free memory on its own axis (right): hundreds of MiB against the
	 * few MiB of dirty and writeback pages squashed those flat.
	 */
	strbuf_addstr(&s, "set xlabel 'seconds into the workload'\n"
			  "set y2label 'MemFree MiB'\n"
			  "set ytics nomirror\nset y2tics\nset title ");
	gp_title(&s, sd->name);
	strbuf_addch(&s, '\n');
	for (int col = 0; col < 4; col++) {
		strbuf_addf(&s, "$t%d << EOD\n", col);
		for (size_t i = 0; i < sd->n; i++)
			points[col] += rpt_ts_column(&s, sd->cells[i]->dir,
						     col_of[col]);
		strbuf_addstr(&s, "EOD\n");
	}
	/* Cells without timeseries.tsv (imported, trimmed): no plot. */
	if (!points[0] && !points[1] && !points[2] && !points[3]) {
		strbuf_addstr(out, "<p class=\"note\">");
		esc(out, sd->name);
		strbuf_addstr(out, ": no time series in these cells.</p>\n");
		strbuf_release(&s);
		return 0;
	}
	strbuf_addf(&s, "set ylabel 'Dirty, Writeback%s MiB'\nplot ",
		    points[3] ? ", memcg usage" : "");
	for (int col = 0, first = 1; col < 4; col++) {
		if (!points[col])
			continue;
		strbuf_addf(
			&s,
			"%s$t%d using 1:2 axes x1%s with lines lw 1 lc '%s' "
			"title '%s'",
			first ? "" : ", ", col, col == 2 ? "y2" : "y1",
			color[col], what[col]);
		first = 0;
	}
	strbuf_addch(&s, '\n');
	strbuf_addf(&alt, "time series of %s", sd->name);
	ret = gnuplot_img(out, &s, alt.buf, err);
	strbuf_release(&s);
	strbuf_release(&alt);
	(void)g;
	return ret;
}

static const char css[] =
	"body{font-family:sans-serif;margin:1.5em;max-width:1150px;"
	"color:#222}"
	"h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc;"
	"margin-top:2em}h3{font-size:1.05em}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ddd;padding:2px 6px;font-size:.9em}"
	"th{background:#f3f3f3}td.n{text-align:right;"
	"font-family:monospace}"
	".better{color:#1a7f37}.worse{color:#c62828}"
	".star{font-weight:bold;background:#fff3c4}"
	".o0{background:#e6f4ea}.o1{background:#fde0dc}"
	".ok{background:#c8e6c9}.bad{background:#ef9a9a}"
	".plot{margin:4px;border:1px solid #eee}"
	".fig{display:inline-block;text-align:center;font-size:.9em}"
	"pre{background:#f7f7f7;padding:.5em;overflow-x:auto}"
	".note{color:#555;font-size:.9em}";

static void pct_cell(struct strbuf *out, double pct, bool star, bool base)
{
	char pb[32];

	/*
	 * As the mail says it (mail-tables.c): a change from 0 has no
	 * percentage, and "n/a" is no number of percent.
	 */
	if (isinf(pct))
		snprintf(pb, sizeof(pb), "from 0");
	else
		rpt_fmt_pct(pb, sizeof(pb), pct);
	strbuf_addf(out, "<td class=\"n%s%s\">%s%s%s%s</td>",
		    star ? " star" : "",
		    base || isnan(pct) || pct == 0 ? "" :
		    pct > 0			   ? " better" :
						     " worse",
		    star ? "*" : "", pb, isnan(pct) || isinf(pct) ? "" : "%",
		    star ? "*" : "");
}

static void metric_table(struct strbuf *out, const struct rpt_group *g,
			 enum metric_table table)
{
	strbuf_addstr(out, "<table><tr><th>stat</th><th>row</th>"
			   "<th>unit</th>");
	for (size_t s = 0; s < g->nr_sides; s++) {
		strbuf_addstr(out, "<th colspan=\"2\">");
		esc(out, g->sides[s].name);
		strbuf_addstr(out, "</th>");
	}
	strbuf_addstr(out, "<th>smallest detectable</th></tr>\n");
	for (size_t m = 0; m < metric_nr_rows; m++) {
		const struct metric *mt = &metric_rows[m];

		if (mt->table != table || !rpt_row_shown(g, m))
			continue;
		strbuf_addstr(out, "<tr><td>");
		esc(out, metric_mean_name(mt));
		strbuf_addstr(out, "</td><td title=\"");
		esc(out, mt->help);
		strbuf_addstr(out, "\">");
		esc(out, mt->name);
		strbuf_addstr(out, "</td><td>");
		esc(out, mt->unit);
		strbuf_addstr(out, "</td>");
		for (size_t s = 0; s < g->nr_sides; s++) {
			char vb[32];
			const struct rpt_cmp *c = &g->cmp[s][m];

			rpt_fmt_val(vb, sizeof(vb),
				    rpt_side_stat(&g->sides[s], m));
			strbuf_addf(out, "<td class=\"n\">%s &plusmn; ", vb);
			rpt_fmt_val(vb, sizeof(vb), g->sides[s].desc[m].stddev);
			strbuf_addf(out, "%s (n=%zu)</td>", vb,
				    g->sides[s].desc[m].n);
			pct_cell(out, s ? c->pct : 0, s && c->star, !s);
		}
		strbuf_addstr(out, "<td class=\"n\">");
		for (size_t s = 1; s < g->nr_sides; s++) {
			char pb[32];

			double mde = g->cmp[s][m].mde_pct;

			/* No percent of a zero base: "-", not "n/a%". */
			rpt_fmt_pct(pb, sizeof(pb), mde);
			strbuf_addf(out, "%s%s%s", s > 1 ? " / " : "",
				    !g->cmp[s][m].tested ? "not tested" :
				    isfinite(mde)	 ? pb :
							   "-",
				    g->cmp[s][m].tested && isfinite(mde) ? "%" :
									   "");
		}
		strbuf_addstr(out, "</td></tr>\n");
	}
	strbuf_addstr(out, "</table>\n");
}

static void outcome_matrix(struct strbuf *out, const struct rpt_group *g)
{
	strbuf_addstr(out, "<h3>Outcomes (fail:runs)</h3>\n<table><tr>"
			   "<th>outcome / event</th>");
	for (size_t s = 0; s < g->nr_sides; s++) {
		strbuf_addstr(out, "<th>");
		esc(out, g->sides[s].name);
		strbuf_addstr(out, "</th>");
	}
	strbuf_addstr(out, "</tr>\n");
	for (size_t i = 0; i < g->nr_outcomes; i++) {
		const struct rpt_outcome_row *o = &g->outcomes[i];

		strbuf_addstr(out, "<tr><td>");
		esc(out, o->kind);
		strbuf_addstr(out, o->is_outcome ? " (outcome)" :
				   o->is_figure	 ? " (cells)" :
						   " (event)");
		strbuf_addstr(out, "</td>");
		for (size_t s = 0; s < g->nr_sides; s++) {
			strbuf_addf(out, "<td class=\"n o%d\">%u:%u",
				    o->fail[s] > 0, o->fail[s], o->runs[s]);
			if (s && !isnan(o->p[s]))
				strbuf_addf(out, " (p=%.3g)%s", o->p[s],
					    o->p[s] < 0.05 ? "*" : "");
			strbuf_addstr(out, "</td>");
		}
		strbuf_addstr(out, "</tr>\n");
	}
	strbuf_addstr(out, "</table>\n<h3>Cells</h3>\n<table>");
	for (size_t s = 0; s < g->nr_sides; s++) {
		strbuf_addstr(out, "<tr><th>");
		esc(out, g->sides[s].name);
		strbuf_addstr(out, "</th>");
		for (size_t i = 0; i < g->sides[s].n; i++) {
			const struct rpt_cell *c = g->sides[s].cells[i];
			bool ok = outcome_is(c->outcome, OUTCOME_OK);

			strbuf_addf(out, "<td class=\"%s\" title=\"",
				    ok ? "ok" : "bad");
			esc(out, c->id);
			strbuf_addstr(out, ": ");
			esc(out, c->reason);
			for (size_t e = 0; e < c->nr_events; e++) {
				strbuf_addstr(out, "; ");
				esc(out, c->events[e].title);
			}
			strbuf_addstr(out, "\">");
			esc(out, c->outcome);
			strbuf_addstr(out, "</td>");
		}
		strbuf_addstr(out, "</tr>\n");
	}
	strbuf_addstr(out, "</table>\n");
}

static void stack_html(struct strbuf *out, const struct rpt_group *g)
{
	const struct rpt_cell *worst = NULL;

	strbuf_addstr(out, "<h3>Stack depth</h3>\n<table><tr><th>kernel</th>"
			   "<th>max bytes</th><th>max %</th><th>median "
			   "bytes</th></tr>\n");
	for (size_t s = 0; s < g->nr_sides; s++) {
		const struct rpt_side *sd = &g->sides[s];
		double *b = xmalloc((sd->n + 1) * sizeof(*b));
		double maxf = 0;
		size_t n = 0;

		for (size_t i = 0; i < sd->n; i++) {
			const struct rpt_cell *c = sd->cells[i];

			if (isnan(c->stack_bytes))
				continue;
			b[n++] = c->stack_bytes;
			if (c->stack_fraction > maxf)
				maxf = c->stack_fraction;
			if (!worst || c->stack_bytes > worst->stack_bytes)
				worst = c;
		}
		strbuf_addstr(out, "<tr><td>");
		esc(out, sd->name);
		if (n) {
			struct stats_desc d;

			stats_describe(b, n, &d);
			strbuf_addf(out,
				    "</td><td class=\"n\">%.0f</td><td "
				    "class=\"n\">%.1f%%</td><td "
				    "class=\"n\">%.0f</td></tr>\n",
				    d.max, 100 * maxf, d.median);
		} else {
			strbuf_addstr(out, "</td><td colspan=\"3\">not "
					   "measured</td></tr>\n");
		}
		free(b);
	}
	strbuf_addstr(out, "</table>\n");
	if (!worst || !worst->chain_len)
		return;
	strbuf_addstr(out, "<p>Deepest chain: ");
	esc(out, worst->id);
	strbuf_addf(out, ", %.0f bytes</p>\n<pre>", worst->stack_bytes);
	for (size_t i = 0; i < worst->chain_len; i++) {
		strbuf_addf(out, "%6d %5d  ", worst->chain[i].depth,
			    worst->chain[i].size);
		esc(out, worst->chain[i].location);
		strbuf_addch(out, '\n');
	}
	strbuf_addstr(out, "</pre>\n");
}

/* The Verdict block: the workload's question, answered first. */
static void verdict_html(struct strbuf *out, const struct report *r,
			 const struct rpt_group *g)
{
	if (g->nr_sides < 2)
		return;
	strbuf_addf(out,
		    "<h3>Verdict</h3>\n<p>The workload's primary rows, each "
		    "tested at alpha %.2f with its own test; same means within "
		    "%g%% (TOST).</p>\n",
		    r->o.alpha, r->o.threshold);
	if (!g->nr_verdicts) {
		strbuf_addstr(out, "<p>No primary rows (the workload's "
				   "primary:, or --primary).</p>\n");
		return;
	}
	strbuf_addstr(out, "<table><tr><th>kernel</th><th>row</th>"
			   "<th>verdict</th><th>effect</th><th>n</th>"
			   "<th>p</th><th>test</th><th>could see</th></tr>\n");
	for (size_t i = 0; i < g->nr_verdicts; i++) {
		const struct rpt_verdict *v = &g->verdicts[i];
		const struct metric *m = &metric_rows[v->metric];
		struct strbuf eff = STRBUF_INIT, sdc = STRBUF_INIT;

		rpt_verdict_effect(m, &v->d, &eff);
		vdecision_sdc(&v->d, m->unit, 1, &sdc);
		strbuf_addstr(out, "<tr><td>");
		esc(out, g->sides[v->side].name);
		strbuf_addstr(out, "</td><td>");
		esc(out, m->name);
		strbuf_addf(out, "</td><td><b>%s</b></td><td>",
			    verdict_name(v->d.verdict));
		esc(out, eff.buf);
		strbuf_addf(out,
			    "</td><td>%d/%d</td><td>%.2g</td><td>%s</td>"
			    "<td>",
			    v->d.na, v->d.nb, v->d.p,
			    metric_test_name(v->d.test));
		esc(out, sdc.buf);
		strbuf_addstr(out, "</td></tr>\n");
		strbuf_release(&eff);
		strbuf_release(&sdc);
	}
	strbuf_addstr(out, "</table>\n");
	if (g->unfinished)
		strbuf_addf(
			out,
			"<p>Unequal work: %zu cells ended with more than "
			"1%% of what they wrote still dirty (end-dirty).</p>\n",
			g->unfinished);
}

static int group_html(struct strbuf *out, const struct report *r,
		      const struct rpt_group *g, struct strbuf *err)
{
	strbuf_addstr(out, "<h2>");
	esc(out, g->topology);
	strbuf_addstr(out, " / ");
	esc(out, g->workload);
	strbuf_addf(out, " / %d MiB guest", g->memory_mib);
	if (*g->levers_brief) {
		strbuf_addstr(out, " / levers ");
		esc(out, g->levers_brief);
	}
	strbuf_addstr(out, "</h2>\n<p>n per kernel:");
	for (size_t s = 0; s < g->nr_sides; s++) {
		strbuf_addstr(out, " ");
		esc(out, g->sides[s].name);
		strbuf_addf(out, " %zu", g->sides[s].n);
	}
	strbuf_addf(out, ". %zu of %zu tested rows starred.</p>\n", g->starred,
		    g->tested);
	strbuf_addstr(out, "<p>Levers: ");
	esc(out, g->levers);
	strbuf_addstr(out, "</p>\n");
	verdict_html(out, r, g);
	outcome_matrix(out, g);
	strbuf_addstr(out, "<h3>Metrics</h3>\n");
	metric_table(out, g, MT_METRIC);
	strbuf_addstr(out, "<h3>Ops</h3>\n");
	metric_table(out, g, MT_OPS);
	stack_html(out, g);
	strbuf_addstr(out, "<h3>Distributions (every cell; bar: the row's "
			   "mean)</h3>\n<div>");
	for (size_t m = 0; m < metric_nr_rows; m++) {
		if (metric_rows[m].table != MT_METRIC || !rpt_row_shown(g, m) ||
		    rpt_row_constant(g, m))
			continue;
		strbuf_addstr(out, "<div class=\"fig\">");
		if (dist_plot(out, g, m, err))
			return -1;
		strbuf_addstr(out, "<div>");
		esc(out, metric_rows[m].name);
		strbuf_addstr(out, "</div></div>\n");
	}
	strbuf_addstr(out, "</div>\n");
	if (r->o.timeseries) {
		strbuf_addstr(out, "<h3>Dirty, writeback and free memory "
				   "(100 ms samples, every cell)</h3>\n<div>");
		for (size_t s = 0; s < g->nr_sides; s++)
			if (ts_plot(out, g, &g->sides[s], err))
				return -1;
		strbuf_addstr(out, "</div>\n");
	}
	strbuf_addstr(out, "<p class=\"note\">Signs normalised: a positive "
			   "% is better. A star: ");
	esc(out, rpt_test_text(r->o.test));
	strbuf_addf(out,
		    ", alpha %.2f, n &ge; %d per side. Smallest detectable: "
		    "the change the test would see with power %.0f%%, in %% "
		    "of the baseline mean. Outcome rates: Fisher's exact test "
		    "(two-sided).</p>\n",
		    r->o.alpha, STATS_MIN_N, 100 * r->o.power);
	return 0;
}

/* Only the facts whose values differ between the kernels. */
static void header_html(struct strbuf *out, const struct report *r)
{
	strbuf_addstr(out, "<h2>Kernels</h2>\n<table><tr><th>kernel</th>"
			   "<th>uname -r</th><th>cache key</th><th>source"
			   "</th><th>patches</th></tr>\n");
	for (size_t i = 0; i < r->nr_cells; i++) {
		const struct rpt_cell *c = r->cells[i];
		struct strvec subj = STRVEC_INIT;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(r->cells[j]->side, c->side);
		if (seen)
			continue;
		strbuf_addstr(out, "<tr><td>");
		esc(out, c->side);
		strbuf_addstr(out, "</td><td>");
		esc(out, *c->release ? c->release : c->version);
		strbuf_addstr(out, "</td><td>");
		escf(out, "%.12s", c->hash);
		strbuf_addstr(out, "</td><td>");
		esc(out, c->source);
		strbuf_addstr(out, "</td><td>");
		rpt_patch_subjects(c->patches, &subj);
		for (size_t p = 0; p < subj.nr; p++) {
			strbuf_addstr(out, p ? "<br>" : "");
			esc(out, subj.v[p]);
		}
		if (!subj.nr)
			strbuf_addstr(out, "none");
		strvec_clear(&subj);
		strbuf_addstr(out, "</td></tr>\n");
	}
	strbuf_addstr(out, "</table>\n<h2>Host</h2>\n<table>");
	for (size_t i = 0; i < r->nr_runs; i++) {
		json_object_iter it;
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= r->runs[j]->host && r->runs[i]->host &&
			       json_object_equal(r->runs[j]->host,
						 r->runs[i]->host);
		if (!r->runs[i]->host || dup)
			continue;
		strbuf_addstr(out, "<tr><th>run</th><td>");
		esc(out, r->runs[i]->id);
		strbuf_addstr(out, "</td></tr>\n");
		json_object_object_foreachC(r->runs[i]->host, it)
		{
			strbuf_addstr(out, "<tr><th>");
			esc(out, it.key);
			strbuf_addstr(out, "</th><td>");
			if (strstr(it.key, "_version")) {
				long long v = json_object_get_int64(it.val);

				strbuf_addf(out, "%lld.%lld.%lld", v / 1000000,
					    v / 1000 % 1000, v % 1000);
			} else {
				esc(out, json_object_get_string(it.val));
			}
			strbuf_addstr(out, "</td></tr>\n");
		}
	}
	strbuf_addstr(out, "</table>\n");
	rpt_differs_html(r, out);
	if (!r->nr_infra && !r->warnings.nr)
		return;
	strbuf_addf(out, "<h2>Not counted: %zu infra-error cells</h2>\n<ul>",
		    r->nr_infra);
	for (size_t i = 0; i < r->nr_infra; i++) {
		strbuf_addstr(out, "<li>");
		esc(out, r->infra[i]->id);
		strbuf_addstr(out, ": ");
		esc(out, r->infra[i]->reason);
		strbuf_addstr(out, "</li>\n");
	}
	for (size_t i = 0; i < r->warnings.nr; i++) {
		strbuf_addstr(out, "<li>unreadable: ");
		esc(out, r->warnings.v[i]);
		strbuf_addstr(out, "</li>\n");
	}
	strbuf_addstr(out, "</ul>\n");
}

int report_html(const struct report *r, struct strbuf *out, struct strbuf *err)
{
	strbuf_addf(out,
		    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		    "<meta charset=\"utf-8\">\n<title>wblab report"
		    "</title>\n<style>%s</style>\n</head>\n<body>\n"
		    "<h1>wblab report</h1>\n",
		    css);
	header_html(out, r);
	rpt_claims_html(r, out);
	for (size_t g = 0; g < r->nr_groups; g++)
		if (group_html(out, r, &r->groups[g], err))
			return -1;
	strbuf_addstr(out, "</body>\n</html>\n");
	return 0;
}
