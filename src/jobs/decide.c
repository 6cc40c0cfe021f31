// SPDX-License-Identifier: GPL-2.0
/*
 * same / different / unknown (see decide.h). The tests themselves come from
 * src/stats/; this file holds the rule that turns a p-value and a smallest
 * detectable effect into a verdict, and the reading of cells.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/decide.h"
#include "results/reader.h"
#include "stats/stats.h"
#include "util/json.h"
#include "util/log.h"

/*
 * The jobs' struct decision from a verdict: the effect in % of the
 * reference (rates: percentage points); from a reference of 0 it is
 * +-100% ("from nothing"), and the smallest detectable change likewise.
 */
static void from_verdict(const struct vdecision *v, bool rate,
			 struct decision *d)
{
	memset(d, 0, sizeof(*d));
	d->verdict = v->verdict;
	d->rate = rate;
	d->na = v->na;
	d->nb = v->nb;
	d->fa = v->fa;
	d->fb = v->fb;
	d->a = v->a;
	d->b = v->b;
	d->sa = v->sa;
	d->sb = v->sb;
	d->p = v->p;
	d->test = v->test;
	if (rate || isfinite(v->pct))
		d->effect = v->pct;
	else
		d->effect = v->diff > 0 ? 100 : v->diff < 0 ? -100 : 0;
	d->sde = isfinite(v->sdc_pct) ? v->sdc_pct : INFINITY;
	d->v = *v;
	snprintf(d->why, sizeof(d->why), "%s", v->why);
}

void decide_metric(const struct metric *m, const double *a, size_t na,
		   const double *b, size_t nb, const struct verdict_opts *o,
		   struct decision *d)
{
	struct vdecision v;

	verdict_row(m, a, na, b, nb, o, &v);
	from_verdict(&v, false, d);
}

void decide_rate(int fail_a, int runs_a, int fail_b, int runs_b,
		 const struct verdict_opts *o, struct decision *d)
{
	struct vdecision v;

	verdict_rate(fail_a, runs_a, fail_b, runs_b, o, &v);
	from_verdict(&v, true, d);
}

static void fmt_num(struct strbuf *sb, double v)
{
	if (fabs(v) >= 1e6 || (fabs(v) < 0.01 && v != 0))
		strbuf_addf(sb, "%.3g", v);
	else if (v == floor(v))
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.2f", v);
}

bool decision_beyond(const struct decision *d, double level)
{
	return vdecision_beyond(&d->v, 0, level);
}

void decision_format(const struct decision *d, const char *what,
		     struct strbuf *out)
{
	const char *u = d->rate ? "pp" : "%";

	strbuf_addf(out, "%-9s %s: n=%d/%d ", verdict_name(d->verdict), what,
		    d->na, d->nb);
	if (d->rate) {
		strbuf_addf(out, "%d:%d -> %d:%d", d->fa, d->na, d->fb, d->nb);
	} else {
		fmt_num(out, d->a);
		strbuf_addstr(out, " -> ");
		fmt_num(out, d->b);
	}
	strbuf_addf(out, " (%+.1f%s)", d->effect, u);
	if (isnan(d->p))
		strbuf_addstr(out, " p=-");
	else
		strbuf_addf(out, " p=%.3g (%s)", d->p,
			    metric_test_name(d->test));
	if (isinf(d->sde))
		strbuf_addstr(out, " sde=inf");
	else
		strbuf_addf(out, " sde=%.1f%s", d->sde, u);
	strbuf_addf(out, " (%s)", d->why);
}

int decide_cell_event(const struct cell_result *cell, const char *kind,
		      const char *title)
{
	if (!cell->counts)
		return -1;
	if (!strcmp(cell->outcome_name, kind) && !title)
		return 1;
	for (size_t i = 0; i < cell->nr_events; i++) {
		const struct cell_event *e = &cell->events[i];

		if (!e->kind || strcmp(e->kind, kind))
			continue;
		if (!title)
			return 1;
		if (e->title && strstr(e->title, title))
			return 1;
	}
	return 0;
}
