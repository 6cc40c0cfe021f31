// SPDX-License-Identifier: GPL-2.0
/*
 * The jobs' decision procedure (decide/procedure.h): looks, levels spent
 * across them, Holm across the rows and groups, TOST for `same`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide/procedure.h"
#include "stats/stats.h"
#include "util/log.h"

const char *const dboundary_names[] = {
	[DBOUND_OBF] = "obrien-fleming",
	[DBOUND_POCOCK] = "pocock",
	[DBOUND_NONE] = "none",
	NULL,
};

const char *dboundary_name(enum dboundary b)
{
	return dboundary_names[b];
}

int dboundary_parse(const char *s)
{
	for (size_t i = 0; dboundary_names[i]; i++)
		if (!strcmp(s, dboundary_names[i]))
			return (int)i;
	return -1;
}

/* The looks up to and including the one at n: their information fractions. */
static size_t looks_upto(const struct dlooks *l, int n, double *t, size_t max)
{
	size_t k = 0;

	for (int m = l->first; m <= l->max && k < max; m += l->step) {
		if (m > n && k)
			break;
		t[k++] = (double)m / l->max;
		if (m >= n)
			break;
	}
	return k;
}

void dlooks_plan(struct dlooks *l, int first, int step, int max_reps)
{
	l->first = first;
	l->step = step;
	l->max = first;
	while (l->max < max_reps)
		l->max += step;
}

/*
 * The levels already computed: a boundary is a numerical integration
 * (milliseconds), and a job asks for the same few levels at every look
 * and Holm step (a calibration, for thousands of simulated jobs).
 */
static struct level_memo {
	struct dlooks l;
	int n;
	double level;
} memo[64];
static size_t memo_n, memo_next;

static bool memo_get(const struct dlooks *l, int n, double *level)
{
	for (size_t i = 0; i < memo_n; i++)
		if (memo[i].n == n && memo[i].l.alpha == l->alpha &&
		    memo[i].l.first == l->first && memo[i].l.step == l->step &&
		    memo[i].l.max == l->max &&
		    memo[i].l.boundary == l->boundary) {
			*level = memo[i].level;
			return true;
		}
	return false;
}

static double memo_put(const struct dlooks *l, int n, double level)
{
	memo[memo_next] = (struct level_memo){ *l, n, level };
	memo_next = (memo_next + 1) % ARRAY_SIZE(memo);
	if (memo_n < ARRAY_SIZE(memo))
		memo_n++;
	return level;
}

double dlooks_level(const struct dlooks *l, int n)
{
	double t[64], z[64], p[64], level;
	size_t k;

	if (l->boundary == DBOUND_NONE || l->max <= l->first)
		return l->alpha;
	if (memo_get(l, n, &level))
		return level;
	k = looks_upto(l, n, t, ARRAY_SIZE(t));
	/*
	 * The spending forms: a job stops at the first look that settles
	 * every row, so the later looks may never come.
	 */
	if (stats_gs_bounds(l->boundary == DBOUND_OBF ? STATS_GS_SPEND_OBF :
							STATS_GS_SPEND_POCOCK,
			    t, k, l->alpha, z, p))
		die("looks %d..%d step %d: no boundary", l->first, l->max,
		    l->step);
	return memo_put(l, n, p[k - 1]);
}

void dhyp_event(struct dhyp *h, unsigned fail_a, unsigned runs_a,
		unsigned fail_b, unsigned runs_b)
{
	struct vdecision *d = &h->d;
	struct verdict_opts o = VERDICT_OPTS_INIT;

	if (!(h->threshold > 0))
		h->threshold = DHYP_EVENT_PP;
	o.threshold = h->threshold;
	/* The question is only whether b has it more often. */
	o.greater = true;
	verdict_rate(fail_a, runs_a, fail_b, runs_b, &o, d);
	h->event = true;
	h->bad = 1;
}

const char *dhyp_event_key(const struct dhyp *h)
{
	const char *w = h->what;

	return h->event && !strncmp(w, "new ", 4) ? w + 4 : w;
}

/*
 * In the bad direction and beyond the threshold, by the estimate
 * (verdict_change_beyond(): at least the row's floor, 32 pages for a page
 * count, and threshold % of the reference; from nothing, the floor): an
 * event's any rise.
 */
bool dhyp_bad_change(const struct dhyp *h, double diff, double pct)
{
	if (h->event)
		return diff > 0;
	return verdict_change_beyond(h->bad, diff, pct, h->threshold,
				     h->d.floor);
}

/*
 * An event Holm does not call different: `same` if the one-sided bound of
 * its rise at the look's level is below the threshold, else unknown, with
 * the bound said (a job goes on while an event is unknown).
 */
static void decide_event_not_different(struct dhyp *h, double level)
{
	struct vdecision *d = &h->d;

	d->bound =
		100 * stats_rate_rise_bound(d->fa, d->na, d->fb, d->nb, level);
	d->verdict = d->bound < h->threshold ? VERDICT_SAME : VERDICT_UNKNOWN;
	snprintf(d->why, sizeof(d->why),
		 "fisher p=%.3g, not below %.3g (%s); a rise of %.3gpp or "
		 "more ruled out at %.3g: %s %gpp",
		 d->p, h->level, h->holm, d->bound, level,
		 d->verdict == VERDICT_SAME ? "within" : "not within",
		 h->threshold);
}

/* Different, the bad way, but not shown beyond the threshold: unsettled. */
static void short_of_threshold(struct dhyp *h)
{
	struct vdecision *d = &h->d;
	size_t len = strlen(d->why);

	h->regression = false;
	h->unsettled = true;
	if (d->floor > 0)
		snprintf(d->why + len, sizeof(d->why) - len,
			 "; beyond %g%% and %g: p=%.3g, not below %.3g",
			 h->threshold, d->floor, vdecision_p_beyond(d, h->bad),
			 h->level);
	else
		snprintf(d->why + len, sizeof(d->why) - len,
			 "; beyond %g%%: p=%.3g, not below %.3g", h->threshold,
			 vdecision_p_beyond(d, h->bad), h->level);
}

/* rejected: Holm's step said different; level: the look's, for `same`. */
static void decide_one(struct dhyp *h, bool rejected, double level)
{
	struct vdecision *d = &h->d;

	h->regression = h->unsettled = false;
	if (d->constant) {
		h->level = level;
		verdict_apply(d,
			      level); /* a rate's bound at the look's level */
		return;
	}
	if (d->na < 1 || d->nb < 1 || isnan(d->p))
		return; /* verdict_metric() said why */
	/* A rate (an event, or a row tested by Fisher): `same` by its bound. */
	if ((h->event || d->test == MTEST_FISHER) && !rejected) {
		decide_event_not_different(h, level);
		return;
	}
	if (rejected) {
		d->verdict = VERDICT_DIFFERENT;
		snprintf(d->why, sizeof(d->why), "%s p=%.3g < %.3g (%s)",
			 metric_test_name(d->test), d->p, h->level, h->holm);
	} else if (d->p_same < level) {
		d->verdict = VERDICT_SAME;
		snprintf(d->why, sizeof(d->why),
			 "%s p=%.3g; TOST p=%.3g < %.3g: within %.3g%%",
			 metric_test_name(d->test), d->p, d->p_same, level,
			 h->threshold);
	} else {
		d->verdict = VERDICT_UNKNOWN;
		snprintf(d->why, sizeof(d->why),
			 "%s p=%.3g, not below %.3g (%s); TOST p=%.3g: "
			 "neither at %.3g",
			 metric_test_name(d->test), d->p, h->level, h->holm,
			 d->p_same, level);
	}
	/*
	 * A regression is a change beyond the threshold, tested
	 * (non-inferiority at the row's level: vdecision_beyond(), the one
	 * rule), not a point estimate past it.
	 */
	h->regression = d->verdict == VERDICT_DIFFERENT &&
			dhyp_bad_change(h, d->diff, d->pct);
	if (h->regression && !h->event &&
	    !vdecision_beyond(d, h->bad, h->level))
		short_of_threshold(h);
}

/*
 * The smallest p the row's test could give with these cells, whatever
 * their values: 0 for Welch; 1 / C(na + nb, na) for the permutation
 * test (a lower bound: ties only raise it); for Fisher, the most extreme
 * table with these margins (Tarone 1990).
 */
static double smallest_p(const struct vdecision *d)
{
	double c = 1;

	if (d->test == MTEST_FISHER) {
		unsigned f = d->fa + d->fb;
		unsigned fb = f < (unsigned)d->nb ? f : (unsigned)d->nb;

		return stats_fisher_greater(f - fb, d->na, fb, d->nb);
	}
	if (d->test != MTEST_PERMUTATION)
		return 0;
	for (int k = 1; k <= d->na; k++)
		c = c * (d->nb + k) / k;
	return 1 / c;
}

/*
 * Whether h takes a share of the look's level: a test ran, the row is not
 * one value on both sides, and its test could reach the look's level at
 * all (a permutation test's smallest p at 3 a side is 0.05: it can never
 * be below 0.0226, so it would only make the others' share smaller).
 */
static bool takes_a_share(const struct dhyp *h, double level)
{
	const struct vdecision *d = &h->d;

	return !d->constant && d->na > 0 && d->nb > 0 && !isnan(d->p) &&
	       smallest_p(d) < level;
}

/* The look's level when the family-wise alpha is a (Holm's steps). */
static double level_at(const struct dlooks *l, int n, double a)
{
	struct dlooks s = *l;

	s.alpha = a;
	return dlooks_level(&s, n);
}

static const struct dhyp *sort_base;

static int by_p(const void *x, const void *y)
{
	double a = sort_base[*(const size_t *)x].d.p;
	double b = sort_base[*(const size_t *)y].d.p;

	return a < b ? -1 : a > b;
}

/*
 * Holm's step-down as alpha spending: the k-th smallest p of the m rows
 * that take a share faces the look's level of a family-wise alpha / (m -
 * k + 1), spent over the looks by the boundary (not the spent level
 * divided: the spending function is not linear in alpha). The first
 * step that fails stops the rejections.
 */
static void holm_steps(struct dhyp *h, size_t nh, const struct dlooks *l, int n,
		       bool *rejected)
{
	double level = dlooks_level(l, n);
	size_t *ord = xmalloc((nh + 1) * sizeof(*ord)), m = 0;
	bool stop = false;

	for (size_t i = 0; i < nh; i++) {
		h[i].level = level;
		snprintf(h[i].holm, sizeof(h[i].holm), "no share of Holm");
		if (takes_a_share(&h[i], level))
			ord[m++] = i;
	}
	sort_base = h;
	qsort(ord, m, sizeof(*ord), by_p);
	for (size_t k = 0; k < m; k++) {
		struct dhyp *x = &h[ord[k]];

		x->level = level_at(l, n, l->alpha / (double)(m - k));
		snprintf(x->holm, sizeof(x->holm),
			 "Holm step %zu of %zu: alpha/%zu", k + 1, m, m - k);
		stop |= !(x->d.p < x->level);
		rejected[ord[k]] = !stop;
	}
	free(ord);
}

void decide_family(struct dhyp *h, size_t nh, const struct dlooks *l, int n)
{
	double level = dlooks_level(l, n);
	bool *rejected = xzalloc((nh + 1) * sizeof(*rejected));

	holm_steps(h, nh, l, n, rejected);
	for (size_t i = 0; i < nh; i++)
		decide_one(&h[i], rejected[i], level);
	free(rejected);
}

void dhyp_sdc(const struct dhyp *h, struct vdecision *d)
{
	*d = h->d;
	vdecision_sdc_at(d, h->level, h->bad);
}

void dhyp_format(const struct dhyp *h, struct strbuf *out)
{
	const struct metric *m = h->event ? NULL : metric_by_name(h->what);
	const char *unit = m ? m->unit : "";

	strbuf_addf(out, "%-9s %s: ", verdict_name(h->d.verdict), h->what);
	/* which mean: the one the row's test compares (metric_mean()) */
	if (m && h->d.test != MTEST_FISHER)
		strbuf_addf(out, "%s ", metric_mean_name(m));
	vdecision_effect(&h->d, unit, 1, out);
	strbuf_addf(out, ", n %d/%d (%s)", h->d.na, h->d.nb, h->d.why);
	if (h->event)
		return;
	strbuf_addf(out, "; threshold %g%%, bad %s", h->threshold,
		    h->bad > 0 ? "up" :
		    h->bad < 0 ? "down" :
				 "either way");
	/*
	 * A constant row's why says its bound; no spread, nothing to see.
	 * "could see" at the level this row faced, its bad way.
	 */
	if (h->d.verdict == VERDICT_UNKNOWN && !h->d.constant) {
		struct vdecision d;

		dhyp_sdc(h, &d);
		strbuf_addstr(out, "; could see ");
		vdecision_sdc(&d, unit, 1, out);
	}
}

void dhyp_release(struct dhyp *h, size_t nh)
{
	for (size_t i = 0; i < nh; i++) {
		free(h[i].group);
		free(h[i].what);
	}
}
