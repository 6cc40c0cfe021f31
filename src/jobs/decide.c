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

static size_t finite_only(const double *in, size_t n, double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(in[i]))
			out[k++] = in[i];
	return k;
}

/* The rule, shared by metrics and rates. */
static void apply_rule(const struct decide_opts *o, struct decision *d)
{
	if (d->p < o->alpha) {
		d->verdict = VERDICT_DIFFERENT;
		snprintf(d->why, sizeof(d->why), "p=%.3g < alpha=%g", d->p,
			 o->alpha);
	} else if (d->sde <= o->threshold) {
		d->verdict = VERDICT_SAME;
		snprintf(d->why, sizeof(d->why),
			 "p=%.3g and a change of %.3g%s would have been seen",
			 d->p, o->threshold, d->rate ? "pp" : "%");
	} else {
		d->verdict = VERDICT_UNKNOWN;
		snprintf(
			d->why, sizeof(d->why),
			"p=%.3g, but only a change of %.3g%s or more could be seen (threshold %.3g%s)",
			d->p, d->sde, d->rate ? "pp" : "%", o->threshold,
			d->rate ? "pp" : "%");
	}
}

void decide_metric(const double *a, size_t na, const double *b, size_t nb,
		   const struct decide_opts *o, struct decision *d)
{
	double *xa = xzalloc((na + 1) * sizeof(*xa));
	double *xb = xzalloc((nb + 1) * sizeof(*xb));
	struct stats_desc da, db;
	struct stats_test t;
	double scale, mde;

	memset(d, 0, sizeof(*d));
	d->na = finite_only(a, na, xa);
	d->nb = finite_only(b, nb, xb);
	stats_describe(xa, d->na, &da);
	stats_describe(xb, d->nb, &db);
	d->a = d->na ? da.amean : NAN;
	d->b = d->nb ? db.amean : NAN;
	d->sa = da.stddev;
	d->sb = db.stddev;
	d->p = NAN;
	d->sde = INFINITY;
	scale = fabs(d->a) > 0 ? fabs(d->a) : fabs(d->b) > 0 ? fabs(d->b) : 1;
	d->effect = d->na && d->nb ? 100 * (d->b - d->a) / scale : NAN;
	if (d->na < o->min_n || d->nb < o->min_n) {
		d->verdict = VERDICT_UNKNOWN;
		snprintf(d->why, sizeof(d->why),
			 "n=%d/%d: at least %d per side needed", d->na, d->nb,
			 o->min_n);
		goto out;
	}
	/* No noise on both sides (a counter that stays 0): p is 1 or 0. */
	stats_welch(xa, d->na, xb, d->nb, &t);
	if (!t.valid) {
		d->verdict = VERDICT_UNKNOWN;
		snprintf(d->why, sizeof(d->why), "no test: %s", t.why);
		goto out;
	}
	d->p = t.p;
	mde = stats_mde_t(d->sa, d->na, d->sb, d->nb, o->alpha, o->power);
	d->sde = isnan(mde) ? INFINITY : 100 * mde / scale;
	apply_rule(o, d);
out:
	free(xa);
	free(xb);
}

void decide_rate(int fail_a, int runs_a, int fail_b, int runs_b,
		 const struct decide_opts *o, struct decision *d)
{
	double pb;

	memset(d, 0, sizeof(*d));
	d->rate = true;
	d->fa = fail_a;
	d->fb = fail_b;
	d->na = runs_a;
	d->nb = runs_b;
	d->a = runs_a ? (double)fail_a / runs_a : 0;
	d->b = runs_b ? (double)fail_b / runs_b : 0;
	d->effect = 100 * (d->b - d->a);
	d->p = NAN;
	d->sde = INFINITY;
	if (runs_a < o->min_n || runs_b < o->min_n) {
		d->verdict = VERDICT_UNKNOWN;
		snprintf(d->why, sizeof(d->why),
			 "runs=%d/%d: at least %d per side needed", runs_a,
			 runs_b, o->min_n);
		return;
	}
	d->p = stats_fisher_2x2(fail_a, runs_a, fail_b, runs_b);
	/* The rise of the rate these runs would see (a rate that falls is
	 * never a regression here). */
	pb = stats_mde_fisher(d->a, runs_a, runs_b, o->alpha, o->power);
	d->sde = isnan(pb) ? INFINITY : 100 * (pb - d->a);
	apply_rule(o, d);
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
		strbuf_addf(out, " p=%.3g", d->p);
	if (isinf(d->sde))
		strbuf_addstr(out, " sde=inf");
	else
		strbuf_addf(out, " sde=%.1f%s", d->sde, u);
	strbuf_addf(out, " (%s)", d->why);
}

int decide_cell_event(json_object *cell, const char *kind, const char *title)
{
	json_object *o, *events, *e, *k, *t;

	if (!results_cell_counts(cell))
		return -1;
	json_object_object_get_ex(cell, "outcome", &o);
	if (!strcmp(json_object_get_string(o), kind) && !title)
		return 1;
	if (!json_object_object_get_ex(cell, "events", &events) ||
	    !json_object_is_type(events, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		e = json_object_array_get_idx(events, i);
		if (!json_object_object_get_ex(e, "kind", &k) ||
		    strcmp(json_object_get_string(k), kind))
			continue;
		if (!title)
			return 1;
		if (json_object_object_get_ex(e, "title", &t) &&
		    strstr(json_object_get_string(t), title))
			return 1;
	}
	return 0;
}
