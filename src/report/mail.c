// SPDX-License-Identifier: GPL-2.0
/*
 * The mail report: plain ASCII, no line over 80 columns, ready to paste
 * under a patch. Tables are laid out in fixed columns (mmtests'
 * compare-kernels layout); when more kernels than fit are compared, the
 * table is printed in blocks, each with the baseline first. Free text
 * (reasons, titles, patch subjects) is wrapped, and anything that is not
 * printable ASCII becomes '?'. This file writes the sections and the
 * verdict; the tables are mail-tables.c's, the text mail-text.c's (a unit
 * sharing mail-int.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/mail-int.h"
#include "report/report.h"
#include "results/outcome.h"
#include "results/reader.h"
#include "util/dvec.h"
#include "util/build.h"
#include "util/log.h"

const char *rpt_test_text(enum rpt_test t)
{
	switch (t) {
	case RTEST_WELCH:
		return "Welch's t-test, a family's smallest p times its rows "
		       "< alpha (one star a family)";
	case RTEST_BANDS:
		return "mmtests' rule: the mean +- 1.96 sd bands of the two "
		       "kernels do not overlap";
	case RTEST_WELCH_BH:
		return "Welch's t-test; rows that move together form a family "
		       "(docs/report.md) whose p is its smallest times its "
		       "rows; Benjamini-Hochberg over the families, q < alpha; "
		       "the star goes to the family's row with the smallest p "
		       "(one star a family)";
	case RTEST_FIT:
	default:
		return "each row's own test (below), Simes within a family of "
		       "rows that move together, Benjamini-Hochberg over the "
		       "families, one star a family (docs/report.md); the "
		       "Verdict's rows on their own";
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
			mail_wrap(out, head, 4, names.buf);
		strbuf_release(&names);
	}
}

/*
 * The starred rows by direction, appended to buf: an improvement is
 * named as plainly as a regression (0-day's mails do the same).
 */
static void starred_rows(char *buf, size_t n, const struct rpt_group *g)
{
	struct strbuf dir[2] = { STRBUF_INIT, STRBUF_INIT };
	size_t len = strlen(buf);

	for (size_t s = 1; s < g->nr_sides; s++)
		for (size_t m = 0; m < metric_nr_rows; m++) {
			const struct rpt_cmp *c = &g->cmp[s][m];
			struct strbuf *d = &dir[c->pct > 0];

			if (!c->star || isnan(c->pct) || c->pct == 0)
				continue;
			strbuf_addf(d, "%s%s", d->len ? ", " : "",
				    metric_rows[m].name);
			if (g->nr_sides > 2)
				strbuf_addf(d, " (%s)", g->sides[s].name);
		}
	snprintf(buf + len, n - len, "%s%s%s%s%s",
		 dir[1].len ? " Better: " : "", dir[1].len ? dir[1].buf : "",
		 dir[0].len ? (dir[1].len ? "; worse: " : " Worse: ") : "",
		 dir[0].len ? dir[0].buf : "",
		 dir[0].len || dir[1].len ? "." : "");
	strbuf_release(&dir[0]);
	strbuf_release(&dir[1]);
}

static void legend(struct strbuf *out, const struct report *r,
		   const struct rpt_group *g)
{
	char buf[512];

	strbuf_addstr(out, "Legend\n");
	mail_wrap(out, "  value (x% +-h) ", 17,
		  r->o.full ?
			  "figure, change (+ is better; less spread is "
			  "better for Stddev and CoeffVar) and half its 95% "
			  "interval (Welch), in % of the baseline; (n=a/b): "
			  "cells a side." :
			  "figure, change (+ is better) and half its 95% "
			  "interval (Welch), in % of the baseline; (n=a/b): "
			  "cells a side.");
	snprintf(buf, sizeof(buf),
		 "significant: %s, alpha %.2f, n >= %d per side. Outcome "
		 "rates: Fisher's exact test, two-sided, p < %.2f marks "
		 "fail:runs with '*'.",
		 rpt_test_text(r->o.test), r->o.alpha, STATS_MIN_N, r->o.alpha);
	mail_wrap(out, "  value *  x%*  ", 16, buf);
	if (r->o.full)
		snprintf(buf, sizeof(buf),
			 "%zu of %zu tested rows starred. Smallest change each "
			 "row could have shown with power %.0f%% (alpha %.2f, "
			 "this n and noise), in %% of the baseline mean: no "
			 "star means no change bigger than this was there to "
			 "see.",
			 g->starred, g->tested, 100 * r->o.power, r->o.alpha);
	else
		snprintf(buf, sizeof(buf),
			 "%zu of %zu tested rows starred (--full: spreads, "
			 "detectable changes, row meanings).",
			 g->starred, g->tested);
	starred_rows(buf, sizeof(buf), g);
	mail_wrap(out, "  ", 2, buf);
	tests_used(out, g);
	if (!r->o.full)
		return;
	for (size_t first = 1; first < g->nr_sides; first += 2) {
		char nb[COL_W + 1];

		strbuf_addf(out, "  %-18s %-6s %-6s %-14s", "row", "unit",
			    "better", "family");
		for (size_t s = first; s < g->nr_sides && s < first + 2; s++)
			strbuf_addf(out, " %14s",
				    mail_ascii(nb, sizeof(nb), g->sides[s].name,
					       14));
		strbuf_addch(out, '\n');
		for (size_t m = 0; m < metric_nr_rows; m++) {
			const struct metric *mt = &metric_rows[m];
			char nm[32];

			if (!rpt_row_shown(g, m))
				continue;
			strbuf_addf(out, "  %-18s %-6s %-6s %-14s",
				    mail_ascii(nm, sizeof(nm), mt->name, 18),
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
			/* What the row means, from the registry (HTML: its tooltip). */
			if (first == 1 && mt->help && *mt->help)
				mail_wrap(out, "    ", 6, mt->help);
		}
	}
	mail_wrap(
		out, "  ", 2,
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
		mail_wrap(out, "  mmtests' 1.96 sd bands apart: ", 4,
			  names.buf);
	strbuf_release(&names);
}

static void verdict_line(struct strbuf *out, const struct rpt_group *g,
			 const struct rpt_verdict *v)
{
	const struct metric *m = &metric_rows[v->metric];
	const struct vdecision *d = &v->d;
	struct strbuf line = STRBUF_INIT, eff = STRBUF_INIT, sdc = STRBUF_INIT;
	char nb[48], name[20];

	rpt_verdict_effect(m, d, &eff);
	vdecision_sdc(d, m->unit, 1, &sdc);
	strbuf_addf(&line, "%s, n %d/%d", eff.buf, d->na, d->nb);
	if (!isnan(d->p))
		strbuf_addf(&line, ", p %.2g (%s)", d->p,
			    metric_test_name(d->test));
	if (d->verdict != VERDICT_DIFFERENT)
		strbuf_addf(&line, ", could see %s", sdc.buf);
	snprintf(nb, sizeof(nb), "    %-18s %-9s ",
		 mail_ascii(name, sizeof(name), m->name, 18),
		 verdict_name(d->verdict));
	mail_wrap(out, nb, 33, line.buf);
	if (d->verdict == VERDICT_UNKNOWN && d->na < STATS_MIN_N)
		mail_wrap(out, "", 33, d->why);
	strbuf_release(&line);
	strbuf_release(&eff);
	strbuf_release(&sdc);
}

/*
 * Where `wblab decide` (the jobs' procedure) says otherwise on these
 * cells, one line says what and why: a fixed-n test at alpha against a
 * sequential one whose level is spent over looks and shared by Holm.
 */
static void job_line(struct strbuf *out, const struct report *r,
		     const struct rpt_group *g, size_t s)
{
	struct strbuf rows = STRBUF_INIT, line = STRBUF_INIT;
	const struct rpt_verdict *v = NULL;
	size_t k = 0;

	for (size_t i = 0; i < g->nr_verdicts; i++) {
		if (g->verdicts[i].side != s)
			continue;
		k++;
		if (g->verdicts[i].job == g->verdicts[i].d.verdict)
			continue;
		v = &g->verdicts[i];
		strbuf_addf(&rows, "%s%s %s", rows.len ? ", " : "",
			    metric_rows[v->metric].name, verdict_name(v->job));
	}
	if (v) {
		strbuf_addf(&line,
			    "wblab decide on these cells: %s: its look at "
			    "n=%d is held to %.3g (alpha %.2f spent over "
			    "looks 3..9, Holm over %zu row%s); this Verdict "
			    "tests each row once at %.2f.",
			    rows.buf, v->job_n, v->job_level, r->o.alpha, k,
			    k == 1 ? "" : "s", r->o.alpha);
		mail_wrap(out, "    ", 4, line.buf);
	}
	strbuf_release(&rows);
	strbuf_release(&line);
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
		mail_wrap(
			out, "", 0,
			"Verdict: the workload names no primary rows (its "
			"primary:, or --primary ROW): no question to answer.");
		strbuf_addch(out, '\n');
		return;
	}
	snprintf(head, sizeof(head),
		 "Verdict (the workload's question; each row at alpha %.2f, "
		 "same = within %g%%)",
		 r->o.alpha, r->o.threshold);
	mail_wrap(out, "", 0, head);
	for (size_t s = 1; s < g->nr_sides; s++) {
		strbuf_addf(out, "  %s against %s\n",
			    mail_ascii(nb, sizeof(nb), g->sides[s].name, 30),
			    mail_ascii(head, sizeof(head), g->sides[0].name,
				       30));
		for (size_t i = 0; i < g->nr_verdicts; i++)
			if (g->verdicts[i].side == s)
				verdict_line(out, g, &g->verdicts[i]);
		job_line(out, r, g, s);
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
					    mail_ascii(nb, sizeof(nb),
						       g->sides[s].cells[i]->id,
						       60));
	mail_wrap(out,
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
	char line[100];

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
	if (!w || (outcome_is(w->outcome, OUTCOME_OK) && !w->nr_events))
		return;
	/* A cell id runs to 60 characters: wrapped, the outcome stays in
	 * the 80 columns. */
	snprintf(line, sizeof(line), "%.60s (%.15s)", w->id, w->outcome);
	mail_wrap(out, "Worst cell: ", 4, line);
	results_repro_line(out, w->dir, WIDTH);
}

/*
 * Two groups or more and no --full: each group's section keeps what a
 * maintainer reads first (outcomes, metrics, starred ops, stack depth) and
 * leaves the rest to --full, which the header says (brief_note()).
 */
static bool mail_brief(const struct report *r)
{
	return !r->o.full && r->nr_groups > 1;
}

/* Every group has the same levers: said once, in the header. */
static bool levers_shared(const struct report *r)
{
	for (size_t i = 1; i < r->nr_groups; i++)
		if (strcmp(r->groups[i].levers, r->groups[0].levers))
			return false;
	return r->nr_groups > 0;
}

static void levers_line(struct strbuf *out, const char *levers,
			const char *head)
{
	/* Every lever's setting: a group is one setting (model.c). */
	char lv[300];

	mail_ascii(lv, sizeof(lv), levers, sizeof(lv) - 1);
	for (char *p = lv; *p; p++)
		*p = *p == ',' ? ' ' : *p;
	mail_wrap(out, head, 4, lv);
}

/* The workload's description; brief: its first line, cut at a word. */
static void workload_line(struct strbuf *out, const struct report *r,
			  const struct rpt_group *g)
{
	const size_t room = WIDTH - strlen("Workload: ") - strlen(" ...");
	char *about = r->o.describe_workload(g->workload);

	if (!about)
		return;
	if (mail_brief(r) && strlen(about) > room + strlen(" ...")) {
		char *sp;

		about[room] = '\0';
		sp = strrchr(about, ' ');
		if (sp)
			*sp = '\0';
		strcpy(about + strlen(about), " ...");
	}
	mail_wrap(out, "Workload: ", 4, about);
	free(about);
}

static void group_section(struct strbuf *out, const struct report *r,
			  const struct rpt_group *g)
{
	char title[200], nb[100], tb[100];
	const struct rpt_cell *worst;
	size_t min_n = SIZE_MAX;

	snprintf(title, sizeof(title), "%s / %s / %d MiB guest%s%.80s",
		 mail_ascii(nb, sizeof(nb), g->topology, 60),
		 mail_ascii(tb, sizeof(tb), g->workload, 60), g->memory_mib,
		 *g->levers_brief ? " / levers " : "", g->levers_brief);
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
				ok += outcome_is(g->sides[s].cells[i]->outcome,
						 OUTCOME_OK);
			strbuf_addf(&runs, "%s%s %zu (%zu ok)", s ? ", " : "",
				    g->sides[s].name, g->sides[s].n, ok);
		}
		mail_wrap(out, "Runs per kernel: ", 4, runs.buf);
		strbuf_release(&runs);
	}
	/* one group: its levers are on the Guest line (report_mail()) */
	if (r->nr_groups > 1 && (!mail_brief(r) || !levers_shared(r)))
		levers_line(out, g->levers, "Levers: ");
	if (r->o.describe_workload)
		workload_line(out, r, g);
	if (g->nr_sides > 1 && min_n < STATS_MIN_N)
		mail_wrap(out, "", 0,
			  "n is too small for significance tests (fewer than 3 "
			  "runs on a side): no row is starred.");
	strbuf_addch(out, '\n');
	verdict_section(out, r, g);
	unfinished_note(out, g);
	mail_outcome_table(out, g);
	mail_event_names(out, g, "oom", true, "OOM victims:");
	mail_event_names(out, g, "stack_overflow", false, "Stack overflows:");
	mail_event_names(out, g, "stall", false,
			 "Stalled (tasks in D state at the same wait site in "
			 "two SysRq-t dumps, no progress between them):");
	mail_event_names(out, g, "blocked", false,
			 "Blocked in the kernel at the end of the workload "
			 "(SysRq-t, D state):");
	repro_hint(out, g);
	strbuf_addch(out, '\n');
	mail_metric_table(out, g, MT_METRIC, r->o.full);
	if (mail_brief(r))
		mail_ops_starred(out, g);
	else
		mail_metric_table(out, g, MT_OPS, r->o.full);
	mail_zero_rows(out, g);
	worst = mail_stack_section(out, g);
	mail_chain(out, worst, r->o.full ? 48 : mail_brief(r) ? 0 : 8);
	/* Brief: the next group's title line sets the sections apart. */
	if (!mail_brief(r) || g->nr_sides > 1)
		strbuf_addch(out, '\n');
	if (g->nr_sides > 1) {
		legend(out, r, g);
		bands_note(out, g);
	}
}

/* "LABEL VALUE" for each host fact run.json has; absent ones are left out. */
static void host_fact(struct strbuf *line, const char *fmt, const char *v)
{
	char buf[160];

	if (!v || !*v)
		return;
	mail_ascii(buf, sizeof(buf), v, sizeof(buf) - 1);
	strbuf_addstr(line, line->len ? ", " : "");
	strbuf_addf(line, fmt, buf);
}

/* A count, or a version as libvirt gives it (7002022: 7.2.22). */
static void host_num(struct strbuf *line, const char *fmt, long long x,
		     bool version)
{
	char buf[64];

	if (x >= 0 && version)
		snprintf(buf, sizeof(buf), "%lld.%lld.%lld", x / 1000000,
			 x / 1000 % 1000, x % 1000);
	else if (x >= 0)
		snprintf(buf, sizeof(buf), "%lld", x);
	host_fact(line, fmt, x >= 0 ? buf : NULL);
}

static void host_line(struct strbuf *out, const struct rpt_run *run)
{
	const struct run_host *h = &run->facts;
	struct strbuf line = STRBUF_INIT;

	host_fact(&line, "%s", h->hostname);
	host_fact(&line, "%s", h->cpu);
	host_num(&line, "%s CPUs", h->cpus, false);
	host_num(&line, "%s MiB", h->memory_mib, false);
	host_fact(&line, "host kernel %s", h->kernel);
	host_num(&line, "QEMU %s", h->qemu_version, true);
	host_num(&line, "libvirt %s", h->libvirt_version, true);
	host_fact(&line, "accel %s", h->accel);
	mail_wrap(out, "  ", 4, line.buf);
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
			 mail_ascii(nb, sizeof(nb), c->side, 40),
			 i ? "" : " (baseline)",
			 mail_ascii(rb, sizeof(rb),
				    *c->release ? c->release : c->version, 60),
			 mail_ascii(hb, sizeof(hb), c->hash, sizeof(hb) - 1));
		mail_wrap(out, "  ", 6, line);
		if (*c->source)
			mail_wrap(out, "      source: ", 8, c->source);
		rpt_patch_subjects(c->patches, &subj);
		if (!subj.nr)
			mail_wrap(out, "      patches: ", 8, "none");
		for (size_t p = 0; p < subj.nr; p++)
			mail_wrap(out, "      patch: ", 8, subj.v[p]);
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
		mail_wrap(out, head, 6, vals.buf);
		strbuf_release(&vals);
	}
	if (!any && names->nr > 1)
		strbuf_addstr(out, "Differs between the kernels: nothing but "
				   "the name (an A/A comparison)\n");
	if (r->mixed.nr)
		strbuf_addstr(out, "Two builds under one name (compare them "
				   "apart before trusting a row)\n");
	for (size_t i = 0; i < r->mixed.nr; i++)
		mail_wrap(out, "  ", 6, r->mixed.v[i]);
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

		snprintf(first, sizeof(first), "  %s: ",
			 mail_ascii(nb, sizeof(nb), r->infra[i]->id, 70));
		mail_wrap(out, first, 6, r->infra[i]->reason);
	}
	for (size_t i = 0; i < r->warnings.nr; i++)
		mail_wrap(out, "  unreadable: ", 6, r->warnings.v[i]);
}

/*
 * What a reader needs to reproduce the mail from its own text: the runs,
 * the wblab that made it and the command.
 */
static void header_block(struct strbuf *out, const struct report *r)
{
	struct strbuf runs = STRBUF_INIT;
	char nb[100];

	for (size_t i = 0; i < r->nr_runs; i++)
		strbuf_addf(&runs, "%s%s", i ? ", " : "",
			    mail_ascii(nb, sizeof(nb), r->runs[i]->id, 60));
	strbuf_addf(&runs, "; wblab %s", wblab_build);
	mail_wrap(out, "  runs: ", 4, runs.buf);
	if (r->o.command)
		mail_wrap(out, "  made by: ", 4, r->o.command);
	if (mail_brief(r))
		mail_wrap(out, "  ", 4,
			  "shortened for several groups: the Ops rows with no "
			  "star, the deepest chains' frames and the workloads' "
			  "whole text are in wblab report --full.");
	if (mail_brief(r) && levers_shared(r))
		levers_line(out, r->groups[0].levers,
			    "  levers (all groups): ");
	strbuf_release(&runs);
}

void report_mail(const struct report *r, struct strbuf *out)
{
	struct strvec names = STRVEC_INIT;
	size_t cells = 0;
	char line[400];

	rpt_side_names(r, &names);
	for (size_t g = 0; g < r->nr_groups; g++)
		for (size_t s = 0; s < r->groups[g].nr_sides; s++)
			cells += r->groups[g].sides[s].n;
	snprintf(line, sizeof(line),
		 "wblab report: %zu kernels, %zu cells in %zu runs, %zu "
		 "comparison group%s",
		 names.nr, cells, r->nr_runs, r->nr_groups,
		 r->nr_groups == 1 ? "" : "s");
	mail_wrap(out, "", 0, line);
	header_block(out, r);
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
		snprintf(line, sizeof(line), "%d MiB, %d vCPUs%s%s",
			 r->cells[0]->memory_mib, r->cells[0]->vcpus,
			 r->nr_groups == 1 ? "; levers: " : "",
			 r->nr_groups == 1 ? r->groups[0].levers : "");
		for (char *p = strchr(line, ';'); p && *p; p++)
			*p = *p == ',' ? ' ' : *p;
		mail_wrap(out, "Guest: ", 2, line);
	}
	differs_section(out, r, &names);
	rpt_claims_mail(r, out);
	for (size_t g = 0; g < r->nr_groups; g++)
		group_section(out, r, &r->groups[g]);
	infra_section(out, r);
	strvec_clear(&names);
}
