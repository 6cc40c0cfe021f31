// SPDX-License-Identifier: GPL-2.0
/*
 * The report model: cells grouped by (topology, workload, guest memory),
 * a side per kernel within each group, per-row summaries and tests of
 * every side against the baseline. Pure: everything comes from the cells
 * report_load_run() read.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "results/levers.h"
#include "results/outcome.h"
#include "util/log.h"

void report_init(struct report *r, const struct report_opts *o)
{
	struct report_opts def = REPORT_OPTS_INIT;

	memset(r, 0, sizeof(*r));
	r->o = o ? *o : def;
	strvec_init(&r->warnings);
	strvec_init(&r->mixed);
	strvec_init(&r->declared);
}

/*
 * A group build_group() stopped in (--baseline naming a kernel it does
 * not have) has sides without figures and no cmp: free what is there.
 */
static void free_group(struct rpt_group *g)
{
	for (size_t s = 0; s < g->nr_sides; s++) {
		for (size_t m = 0; g->sides[s].vals && m < metric_nr_rows; m++)
			free(g->sides[s].vals[m]);
		free(g->sides[s].vals);
		free(g->sides[s].desc);
		free(g->sides[s].cells);
		if (g->cmp)
			free(g->cmp[s]);
	}
	for (size_t i = 0; i < g->nr_outcomes; i++) {
		free(g->outcomes[i].kind);
		free(g->outcomes[i].fail);
		free(g->outcomes[i].runs);
		free(g->outcomes[i].p);
	}
	free(g->outcomes);
	free(g->primary);
	free(g->verdicts);
	free(g->cmp);
	free(g->sides);
	free(g->topology);
	free(g->workload);
	free(g->levers);
	free(g->levers_brief);
}

static void free_groups(struct report *r)
{
	for (size_t i = 0; i < r->nr_groups; i++)
		free_group(&r->groups[i]);
	free(r->groups);
	r->groups = NULL;
	r->nr_groups = 0;
	free(r->infra);
	r->infra = NULL;
	r->nr_infra = 0;
	free(r->claims);
	r->claims = NULL;
	r->nr_claims = 0;
}

void report_release(struct report *r)
{
	free_groups(r);
	report_free_cells(r);
	strvec_clear(&r->warnings);
	strvec_clear(&r->mixed);
	strvec_clear(&r->declared);
}

const char *const rpt_test_names[] = { "fit", "welch", "welch-bh", "bands",
				       NULL };

/* The row's one mean (metric_mean()): the table's, the Verdict's, the test's. */
double rpt_side_stat(const struct rpt_side *s, size_t m)
{
	const struct stats_desc *d = &s->desc[m];

	if (!d->n)
		return NAN;
	return metric_mean(&metric_rows[m], s->vals[m], d->n);
}

bool rpt_row_shown(const struct rpt_group *g, size_t m)
{
	for (size_t s = 1; s < g->nr_sides; s++)
		if (g->cmp[s][m].shown)
			return true;
	/* A baseline-only report still shows its figures. */
	return g->nr_sides == 1 && g->sides[0].desc[m].n;
}

static struct rpt_group *find_group(struct report *r, const struct rpt_cell *c)
{
	struct rpt_group *g;

	for (size_t i = 0; i < r->nr_groups; i++) {
		g = &r->groups[i];
		if (!strcmp(g->topology, c->topology) &&
		    !strcmp(g->workload, c->workload) &&
		    g->memory_mib == c->memory_mib &&
		    !strcmp(g->levers, c->levers ? c->levers : ""))
			return g;
	}
	r->groups =
		xrealloc(r->groups, (r->nr_groups + 1) * sizeof(*r->groups));
	g = &r->groups[r->nr_groups++];
	memset(g, 0, sizeof(*g));
	g->topology = xstrdup(c->topology);
	g->workload = xstrdup(c->workload);
	g->memory_mib = c->memory_mib;
	g->levers = xstrdup(c->levers ? c->levers : "");
	g->levers_brief = levers_key_brief(g->levers);
	return g;
}

static struct rpt_side *find_side(struct rpt_group *g, const char *name)
{
	struct rpt_side *s;

	for (size_t i = 0; i < g->nr_sides; i++)
		if (!strcmp(g->sides[i].name, name))
			return &g->sides[i];
	g->sides = xrealloc(g->sides, (g->nr_sides + 1) * sizeof(*g->sides));
	s = &g->sides[g->nr_sides++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	return s;
}

static void side_add(struct rpt_side *s, struct rpt_cell *c)
{
	s->cells = xrealloc(s->cells, (s->n + 1) * sizeof(*s->cells));
	s->cells[s->n++] = c;
}

/* Put the baseline first; -1 if this group does not have it. */
static int baseline_first(struct rpt_group *g, const char *base)
{
	struct rpt_side tmp;

	if (!base)
		return 0;
	for (size_t i = 0; i < g->nr_sides; i++) {
		if (strcmp(g->sides[i].name, base))
			continue;
		tmp = g->sides[i];
		memmove(&g->sides[1], &g->sides[0], i * sizeof(tmp));
		g->sides[0] = tmp;
		return 0;
	}
	return -1;
}

static void summarise_side(struct rpt_side *s)
{
	s->vals = xzalloc(metric_nr_rows * sizeof(*s->vals));
	s->desc = xzalloc(metric_nr_rows * sizeof(*s->desc));
	for (size_t m = 0; m < metric_nr_rows; m++) {
		size_t k;

		s->vals[m] = xmalloc((s->n ? s->n : 1) * sizeof(double));
		/* Rows in no table have their own section (stack depth, the
		 * outcome table): never a row of the tables or their tests. */
		if (metric_rows[m].table == MT_NONE) {
			stats_describe(s->vals[m], 0, &s->desc[m]);
			continue;
		}
		k = rpt_side_row_values(s, m, s->vals[m]);
		stats_describe(s->vals[m], k, &s->desc[m]);
	}
}

/* Change of the row's stat, signed so that + is better. */
static double better_pct(const struct metric *m, double a, double b)
{
	double d = m->better == BETTER_HIGHER ? b - a : a - b;

	if (isnan(a) || isnan(b))
		return NAN;
	if (a == 0)
		return d == 0 ? 0 : copysign(INFINITY, d);
	return 100 * d / fabs(a);
}

static bool all_equal(const struct rpt_side *a, const struct rpt_side *b,
		      size_t m)
{
	return a->desc[m].min == a->desc[m].max &&
	       b->desc[m].min == b->desc[m].max &&
	       a->desc[m].min == b->desc[m].min;
}

static void compare_row(const struct report *r, struct rpt_group *g, size_t s,
			size_t m)
{
	const struct rpt_side *a = &g->sides[0], *b = &g->sides[s];
	const struct stats_desc *da = &a->desc[m], *db = &b->desc[m];
	struct rpt_cmp *c = &g->cmp[s][m];

	c->q = NAN;
	c->mde = c->mde_pct = NAN;
	stats_welch(a->vals[m], da->n, b->vals[m], db->n, &c->welch);
	c->shown = da->n && db->n;
	if (!c->shown)
		return;
	/* The row's own test; the other rules read Welch's p. */
	if (r->o.test == RTEST_FIT)
		verdict_test(metric_rows[m].test,
			     metric_log_offset(&metric_rows[m]), a->vals[m],
			     da->n, b->vals[m], db->n, &c->t, &c->test);
	else
		c->t = c->welch, c->test = MTEST_WELCH;
	c->pct = better_pct(&metric_rows[m], rpt_side_stat(a, m),
			    rpt_side_stat(b, m));
	c->tested = da->n >= STATS_MIN_N && db->n >= STATS_MIN_N &&
		    c->t.valid && !all_equal(a, b, m) && !g->primary[m];
	c->bands_apart = stats_bands_apart(da->amean, da->stddev, db->amean,
					   db->stddev, STATS_BAND_Z);
}

/* A row's family: the index of the table's first row of that family. */
static size_t family_of(size_t m)
{
	for (size_t i = 0; i < m; i++)
		if (!strcmp(metric_rows[i].family, metric_rows[m].family))
			return i;
	return m;
}

/*
 * A family's p: Simes' combination of its rows' p (the default), or the
 * smallest times their number (Bonferroni, the older rules). Rows that
 * carry nearly one quantity cost Bonferroni a factor of their number;
 * Simes, exact for positively dependent tests, does not pay it.
 */
static double family_p(const struct report *r, const struct rpt_cmp *cmp,
		       size_t f, size_t k)
{
	double *p, best = NAN, out;
	size_t n = 0;

	if (r->o.test != RTEST_FIT) {
		for (size_t m = 0; m < metric_nr_rows; m++)
			if (cmp[m].tested && family_of(m) == f &&
			    (isnan(best) || cmp[m].t.p < best))
				best = cmp[m].t.p;
		return fmin(1, best * k);
	}
	p = xmalloc((k + 1) * sizeof(*p));
	for (size_t m = 0; m < metric_nr_rows; m++)
		if (cmp[m].tested && family_of(m) == f)
			p[n++] = cmp[m].t.p;
	out = stats_simes(p, n);
	free(p);
	return out;
}

/*
 * Each tested row's own q (before, every row carried its family's q, so a
 * row with p 0.9 read q 0.001 when a sibling moved): the family's q, or
 * the row's p adjusted within its family, whichever is larger. Within a
 * family the adjustment is the one its p came from: BH over the family's
 * rows for Simes (whose p is the best row's BH-adjusted p, so the starred
 * row's q is the family's), Holm for the Bonferroni of the older rules
 * (likewise). A row's q is never below its own p.
 */
static void own_q(const struct report *r, struct rpt_cmp *cmp, const double *fq,
		  size_t f, size_t k)
{
	double *p = xmalloc((k + 1) * sizeof(*p));
	double *q = xmalloc((k + 1) * sizeof(*q));
	size_t *idx = xmalloc((k + 1) * sizeof(*idx)), n = 0;

	for (size_t m = 0; m < metric_nr_rows && n < k; m++)
		if (cmp[m].tested && family_of(m) == f) {
			idx[n] = m;
			p[n++] = cmp[m].t.p;
		}
	if (r->o.test == RTEST_FIT)
		stats_bh(p, n, q);
	else
		stats_holm(p, n, q);
	for (size_t i = 0; i < n; i++)
		cmp[idx[i]].q = fmax(fq[f], fmax(q[i], p[i])); /* rounding */
	free(p);
	free(q);
	free(idx);
}

/*
 * Stars and smallest detectable changes, once every p is known. A family
 * of correlated rows is one hypothesis, its p combined by family_p(), and
 * the star, if the family's test passes, goes to its row with the
 * smallest p alone: an effect (or a drifting host) that moves several
 * rows of a family earns one star, not one per echo. BH runs over the
 * families. The report still counts rows: tested rows, and starred ones
 * (at most one a family). The primary rows are not here: the Verdict
 * block tests them at alpha on their own (report/verdict.c).
 */
static void decide_side(const struct report *r, struct rpt_group *g, size_t s)
{
	struct rpt_cmp *cmp = g->cmp[s];
	double *fp = xmalloc(metric_nr_rows * sizeof(*fp));
	double *fq = xmalloc(metric_nr_rows * sizeof(*fq));
	size_t *best = xzalloc(metric_nr_rows * sizeof(*best));
	size_t *bands = xzalloc(metric_nr_rows * sizeof(*bands));
	size_t *k = xzalloc(metric_nr_rows * sizeof(*k)), fams = 0;

	for (size_t m = 0; m < metric_nr_rows; m++)
		fp[m] = NAN;
	for (size_t m = 0; m < metric_nr_rows; m++) {
		size_t f = family_of(m);

		if (!cmp[m].tested)
			continue;
		if (!k[f]++)
			fams++;
		if (isnan(fp[f]) || cmp[m].t.p < fp[f]) {
			fp[f] = cmp[m].t.p;
			best[f] = m;
		}
		if (cmp[m].bands_apart && !bands[f])
			bands[f] = m + 1;
	}
	for (size_t f = 0; f < metric_nr_rows; f++)
		if (k[f])
			fp[f] = family_p(r, cmp, f, k[f]);
	stats_bh(fp, metric_nr_rows, fq);
	for (size_t m = 0; m < metric_nr_rows; m++) {
		struct rpt_cmp *c = &cmp[m];
		double ma = rpt_side_stat(&g->sides[0], m);
		size_t f = family_of(m);
		size_t div = r->o.test == RTEST_WELCH ? k[f] : fams * k[f];

		if (!c->shown)
			continue;
		c->mde = rpt_row_mde(r, g, s, m, div ? div : 1);
		c->mde_pct = ma != 0 ? 100 * c->mde / fabs(ma) : NAN;
	}
	for (size_t f = 0; f < metric_nr_rows; f++) {
		bool star;

		if (!k[f])
			continue;
		own_q(r, cmp, fq, f, k[f]);
		if (r->o.test == RTEST_WELCH)
			star = fp[f] < r->o.alpha;
		else if (r->o.test != RTEST_BANDS)
			star = fq[f] < r->o.alpha;
		else
			star = bands[f] != 0;
		if (star)
			cmp[r->o.test == RTEST_BANDS ? bands[f] - 1 : best[f]]
				.star = true;
		g->tested += k[f];
		g->starred += star;
	}
	free(fp);
	free(fq);
	free(best);
	free(bands);
	free(k);
}

static unsigned count_outcome(const struct rpt_side *s, const char *o)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += !strcmp(s->cells[i]->outcome, o);
	return n;
}

static bool have_outcome_row(const struct rpt_group *g, const char *kind,
			     bool is_outcome)
{
	for (size_t i = 0; i < g->nr_outcomes; i++)
		if (g->outcomes[i].is_outcome == is_outcome &&
		    !strcmp(g->outcomes[i].kind, kind))
			return true;
	return false;
}

/* Cells of a side where metric m is > 0, of those that have it. */
static unsigned count_positive(const struct rpt_side *s, size_t m)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->desc[m].n; i++)
		n += s->vals[m][i] > 0;
	return n;
}

static void add_outcome_row(struct rpt_group *g, const char *kind,
			    bool is_outcome, int metric)
{
	struct rpt_outcome_row *o;

	if (have_outcome_row(g, kind, is_outcome))
		return;
	g->outcomes = xrealloc(g->outcomes,
			       (g->nr_outcomes + 1) * sizeof(*g->outcomes));
	o = &g->outcomes[g->nr_outcomes++];
	o->kind = xstrdup(kind);
	o->is_outcome = is_outcome;
	o->is_figure = metric >= 0;
	o->fail = xzalloc(g->nr_sides * sizeof(*o->fail));
	o->runs = xzalloc(g->nr_sides * sizeof(*o->runs));
	o->p = xzalloc(g->nr_sides * sizeof(*o->p));
	for (size_t s = 0; s < g->nr_sides; s++) {
		const struct rpt_side *sd = &g->sides[s];

		o->runs[s] = metric >= 0 ? sd->desc[metric].n : sd->n;
		o->fail[s] = metric >= 0 ? count_positive(sd, metric) :
			     is_outcome	 ? count_outcome(sd, kind) :
					   rpt_side_cells_with(sd, kind);
		o->p[s] = s ? stats_fisher_2x2(o->fail[0], o->runs[0],
					       o->fail[s], o->runs[s]) :
			      NAN;
	}
}

/*
 * Outcome rows: the failure outcomes and the event kinds a reviewer asks
 * about first, always (0:5 is evidence too), then whatever else the
 * cells show.
 */
static void build_outcomes(struct rpt_group *g)
{
	char kind[64];

	static const enum cell_outcome outcomes[] = {
		OUTCOME_CRASHED,
		OUTCOME_HUNG,
		OUTCOME_BOOT_FAILED,
		OUTCOME_WORKLOAD_FAILED,
	};
	static const char *const kinds[] = { "oom", "stack_overflow",
					     "hung_task" };

	for (size_t i = 0; i < ARRAY_SIZE(outcomes); i++)
		add_outcome_row(g, outcome_name(outcomes[i]), true, -1);
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		add_outcome_row(g, kinds[i], false, -1);
	for (size_t s = 0; s < g->nr_sides; s++)
		for (size_t i = 0; i < g->sides[s].n; i++) {
			const struct rpt_cell *c = g->sides[s].cells[i];

			if (!outcome_is(c->outcome, OUTCOME_OK))
				add_outcome_row(g, c->outcome, true, -1);
			for (size_t e = 0; e < c->nr_events; e++)
				add_outcome_row(g, c->events[e].kind, false,
						-1);
		}
	for (size_t m = 0; m < metric_nr_rows; m++) {
		bool any = false;

		if (!metric_rows[m].presence)
			continue;
		for (size_t s = 0; s < g->nr_sides; s++)
			any |= g->sides[s].desc[m].n > 0;
		if (!any)
			continue;
		snprintf(kind, sizeof(kind), "%s > 0", metric_rows[m].name);
		add_outcome_row(g, kind, false, m);
	}
}

static int build_group(struct report *r, struct rpt_group *g,
		       struct strbuf *err)
{
	if (baseline_first(g, r->o.baseline ? r->o.baseline :
					      rpt_default_baseline(r, g))) {
		strbuf_addf(err,
			    "--baseline %s: no cells of it in %s/%s/%d MiB",
			    r->o.baseline, g->topology, g->workload,
			    g->memory_mib);
		return -1;
	}
	for (size_t s = 0; s < g->nr_sides; s++)
		summarise_side(&g->sides[s]);
	rpt_mark_primary(r, g);
	rpt_build_verdicts(r, g);
	g->cmp = xzalloc(g->nr_sides * sizeof(*g->cmp));
	for (size_t s = 0; s < g->nr_sides; s++) {
		g->cmp[s] = xzalloc(metric_nr_rows * sizeof(**g->cmp));
		if (!s)
			continue;
		for (size_t m = 0; m < metric_nr_rows; m++)
			compare_row(r, g, s, m);
		decide_side(r, g, s);
	}
	/* A primary row's star in the table is its Verdict's. */
	for (size_t i = 0; i < g->nr_verdicts; i++)
		g->cmp[g->verdicts[i].side][g->verdicts[i].metric].star =
			g->verdicts[i].d.verdict == VERDICT_DIFFERENT;
	build_outcomes(g);
	return 0;
}

/*
 * A side is one build: cells of one kernel name from two builds (a
 * config or source changed between runs) would be pooled into one
 * column and their difference hidden. Say so, once, with the hashes;
 * the report still pools them, as it was asked to. Kept over
 * report_build()'s rebuilds (a side's first pair is said once).
 */
/* Whether said already names side (its entries start "SIDE: "). */
static bool side_said(const struct strvec *said, const char *side)
{
	size_t n = strlen(side);

	for (size_t i = 0; i < said->nr; i++)
		if (!strncmp(said->v[i], side, n) && said->v[i][n] == ':')
			return true;
	return false;
}

static void warn_mixed_builds(struct report *r)
{
	for (size_t i = 0; i < r->nr_cells; i++) {
		const struct rpt_cell *c = r->cells[i], *o = NULL;

		if (!c->counts || !*c->side || !c->hash)
			continue;
		for (size_t j = 0; j < i && !o; j++)
			if (r->cells[j]->counts && r->cells[j]->hash &&
			    !strcmp(r->cells[j]->side, c->side))
				o = r->cells[j];
		if (!o || !strcmp(o->hash, c->hash) ||
		    side_said(&r->mixed, c->side))
			continue;
		strvec_pushf(&r->mixed,
			     "%s: kernel hash %.12s (cell %s) and %.12s "
			     "(cell %s), pooled as one side",
			     c->side, o->hash, o->id, c->hash, c->id);
	}
}

int report_build(struct report *r, struct strbuf *err)
{
	free_groups(r);
	warn_mixed_builds(r);
	for (size_t i = 0; i < r->nr_cells; i++) {
		struct rpt_cell *c = r->cells[i];

		if (!c->counts) {
			r->infra = xrealloc(r->infra, (r->nr_infra +
						       1) * sizeof(*r->infra));
			r->infra[r->nr_infra++] = c;
			continue;
		}
		/* An empty side leaves the cell out (A/A splits). */
		if (*c->side)
			side_add(find_side(find_group(r, c), c->side), c);
	}
	/* Only infra-error cells: the report lists them, nothing else. */
	if (!r->nr_groups && !r->nr_infra) {
		strbuf_addf(err, "no cell could be read (%zu warnings)",
			    r->warnings.nr);
		return -1;
	}
	for (size_t i = 0; i < r->nr_groups; i++)
		if (build_group(r, &r->groups[i], err))
			return -1;
	rpt_build_claims(r);
	return 0;
}

const struct rpt_cell *rpt_side_cell(const struct report *r, const char *side)
{
	for (size_t i = 0; i < r->nr_cells; i++)
		if (!strcmp(r->cells[i]->side, side) && r->cells[i]->counts)
			return r->cells[i];
	return NULL;
}

void rpt_side_names(const struct report *r, struct strvec *names)
{
	for (size_t g = 0; g < r->nr_groups; g++)
		for (size_t s = 0; s < r->groups[g].nr_sides; s++) {
			bool seen = false;

			for (size_t i = 0; i < names->nr; i++)
				seen |= !strcmp(names->v[i],
						r->groups[g].sides[s].name);
			if (!seen)
				strvec_push(names, r->groups[g].sides[s].name);
		}
}

const char *const rpt_fact_names[] = {
	"uname -r", "cache key", "patches", "kernel cmdline", "accel", "vCPUs",
	"run",	    "host",	 NULL
};

const char *rpt_cell_fact(const struct rpt_cell *c, size_t w, char *buf,
			  size_t n)
{
	switch (w) {
	case 0:
		return c->release;
	case 1:
		snprintf(buf, n, "%.12s", c->hash);
		return buf;
	case 2:
		return c->patches;
	case 3:
		return c->cmdline;
	case 4:
		return c->accel;
	case 5:
		snprintf(buf, n, "%d", c->vcpus);
		return buf;
	case 6:
		return c->run->id;
	default:
		return c->host;
	}
}

/*
 * Cells from different hosts anywhere in the report, even within one side:
 * a comparison across hosts is not an A/B, so the host is then shown.
 */
static bool hosts_differ(const struct report *r)
{
	for (size_t i = 1; i < r->nr_cells; i++)
		if (strcmp(r->cells[i]->host, r->cells[0]->host))
			return true;
	return false;
}

bool rpt_fact_differs(const struct report *r, const struct strvec *names,
		      size_t w)
{
	const char *first = NULL;
	char b1[32], b2[32];

	if (!strcmp(rpt_fact_names[w], "host") && hosts_differ(r))
		return true;
	for (size_t i = 0; i < names->nr; i++) {
		const struct rpt_cell *c = rpt_side_cell(r, names->v[i]);
		const char *v;

		if (!c)
			continue;
		v = rpt_cell_fact(c, w, first ? b2 : b1, sizeof(b1));
		if (!first)
			first = v;
		else if (strcmp(first, v))
			return true;
	}
	return false;
}

bool rpt_row_constant(const struct rpt_group *g, size_t m)
{
	const struct stats_desc *b = &g->sides[0].desc[m];

	for (size_t s = 0; s < g->nr_sides; s++) {
		const struct stats_desc *d = &g->sides[s].desc[m];

		if (d->n && (d->min != d->max || d->min != b->min))
			return false;
	}
	return true;
}
