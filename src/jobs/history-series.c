// SPDX-License-Identifier: GPL-2.0
/*
 * The series of the history (jobs/history.h): one per tree, host,
 * accelerator, group and metric, a night's mean each, so that a series
 * never mixes machines or TCG with KVM. Their change points
 * (stats_cpd(), E-divisive means) for `wblab history --changes`, and
 * their plots with the change points marked for `--html`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jobs/db.h"
#include "jobs/confirm.h"
#include "jobs/history.h"
#include "results/metric.h"
#include "stats/stats.h"
#include "util/fs.h"
#include "util/gnuplot.h"
#include "util/html.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"

struct hseries {
	char *tree, *host, *accel, *group, *metric;
	size_t n, alloc;
	long long *night;
	char **commit, **started;
	double *mean, *sd;
	struct stats_cp *cp;
	int ncp;
};

static const char series_sql[] =
	"SELECT n.tree, COALESCE(n.host, '-'), COALESCE(n.accel, '-'), m.grp,"
	" m.metric, n.id, n.commit_id, n.started, m.mean, m.sd"
	" FROM night_metrics m JOIN nights n ON m.night = n.id"
	" WHERE (?1 IS NULL OR n.tree = ?1) AND (?2 IS NULL OR m.metric = ?2)"
	" AND (?3 IS NULL OR COALESCE(n.host, '-') = ?3)"
	" AND (?4 IS NULL OR COALESCE(n.accel, '-') = ?4)"
	" AND (?5 IS NULL OR m.grp = ?5) AND (?6 IS NULL OR n.id <= ?6)"
	" AND m.mean IS NOT NULL"
	" ORDER BY 1, 2, 3, 4, 5, n.id";

static bool same_key(const struct hseries *s, sqlite3_stmt *st)
{
	return !strcmp(s->tree, db_text(st, 0, "")) &&
	       !strcmp(s->host, db_text(st, 1, "")) &&
	       !strcmp(s->accel, db_text(st, 2, "")) &&
	       !strcmp(s->group, db_text(st, 3, "")) &&
	       !strcmp(s->metric, db_text(st, 4, ""));
}

static void add_point(struct hseries *s, sqlite3_stmt *st)
{
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 16;
		s->night = xrealloc(s->night, s->alloc * sizeof(*s->night));
		s->commit = xrealloc(s->commit, s->alloc * sizeof(*s->commit));
		s->started =
			xrealloc(s->started, s->alloc * sizeof(*s->started));
		s->mean = xrealloc(s->mean, s->alloc * sizeof(*s->mean));
		s->sd = xrealloc(s->sd, s->alloc * sizeof(*s->sd));
	}
	s->night[s->n] = sqlite3_column_int64(st, 5);
	s->commit[s->n] = xstrdup(db_text(st, 6, ""));
	s->started[s->n] = xstrdup(db_text(st, 7, ""));
	s->mean[s->n] = sqlite3_column_double(st, 8);
	s->sd[s->n] = db_real(st, 9, 0);
	s->n++;
}

static void series_free(struct hseries *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct hseries *s = &v[i];

		for (size_t j = 0; j < s->n; j++) {
			free(s->commit[j]);
			free(s->started[j]);
		}
		free(s->tree);
		free(s->host);
		free(s->accel);
		free(s->group);
		free(s->metric);
		free(s->night);
		free(s->commit);
		free(s->started);
		free(s->mean);
		free(s->sd);
		free(s->cp);
	}
	free(v);
}

/* Which series: NULL members (0 upto) take every value. */
struct series_key {
	const char *tree, *metric, *host, *accel, *group;
	long long upto; /* nights up to this id */
	int min_nights; /* the shortest segment (0: STATS_CPD_INIT's) */
};

/* Every series of the nights the key selects, and its changes. */
static int series_query(sqlite3 *db, const struct series_key *k,
			struct hseries **out, size_t *nout)
{
	const char *bind[] = { k->tree, k->metric, k->host, k->accel,
			       k->group };
	struct stats_cpd_opts co = STATS_CPD_INIT;
	struct hseries *v = NULL;
	sqlite3_stmt *st;
	size_t n = 0;

	if (sqlite3_prepare_v2(db, series_sql, -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s (no nights yet?)",
			     sqlite3_errmsg(db));
	for (int i = 0; i < 5; i++)
		if (bind[i])
			sqlite3_bind_text(st, i + 1, bind[i], -1,
					  SQLITE_TRANSIENT);
	if (k->upto)
		sqlite3_bind_int64(st, 6, k->upto);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!n || !same_key(&v[n - 1], st)) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = (struct hseries){
				.tree = xstrdup(db_text(st, 0, "")),
				.host = xstrdup(db_text(st, 1, "")),
				.accel = xstrdup(db_text(st, 2, "")),
				.group = xstrdup(db_text(st, 3, "")),
				.metric = xstrdup(db_text(st, 4, "")),
			};
		}
		add_point(&v[n - 1], st);
	}
	sqlite3_finalize(st);
	co.min_size = k->min_nights ? (size_t)k->min_nights : co.min_size;
	for (size_t i = 0; i < n; i++) {
		size_t max = v[i].n / co.min_size + 1;

		v[i].cp = xzalloc(max * sizeof(*v[i].cp));
		v[i].ncp = stats_cpd(v[i].mean, v[i].n, &co, v[i].cp, max);
		if (v[i].ncp < 0)
			v[i].ncp = 0;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* Every series of the nights (of o->tree, of o->metric), and its changes. */
static int series_load(sqlite3 *db, const struct history_opts *o,
		       struct hseries **out, size_t *nout)
{
	const struct series_key k = { .tree = o->tree,
				      .metric = o->metric,
				      .min_nights = o->min_nights };

	return series_query(db, &k, out, nout);
}

/* "worse" or "better" by the row's direction; "changed" when unknown. */
static const char *direction(const char *metric, double before, double after)
{
	const struct metric *m = metric_by_name(metric);

	if (!m || before == after)
		return "changed";
	return (after > before) == (m->better == BETTER_HIGHER) ? "better" :
								  "worse";
}

static const char *unit_of(const char *metric)
{
	const struct metric *m = metric_by_name(metric);

	return m ? m->unit : "";
}

/* "p=0.012"; 0.005 (1/200) when no shuffle reached it: never below. */
static const char *p_text(double p, char *buf, size_t len)
{
	snprintf(buf, len, "p=%.3g", p);
	return buf;
}

static void print_change(FILE *out, const struct hseries *s,
			 const struct stats_cp *c)
{
	size_t a = c->index - 1, b = c->index;
	char p[32];

	fprintf(out,
		"  night %lld (%.12s) | night %lld (%.12s): %.4g -> %.4g %s",
		s->night[a], s->commit[a], s->night[b], s->commit[b],
		c->mean_before, c->mean_after, unit_of(s->metric));
	if (c->mean_before != 0)
		fprintf(out, " (%+.1f%%)",
			100 * (c->mean_after - c->mean_before) /
				fabs(c->mean_before));
	fprintf(out, ", %s; %s, %zu nights before, %zu after\n",
		direction(s->metric, c->mean_before, c->mean_after),
		p_text(c->p, p, sizeof(p)), c->index - c->before,
		c->after - c->index);
}

static json_object *side_json(const struct hseries *s, size_t i, size_t k,
			      double mean, double sd)
{
	json_object *o = json_object_new_object();

	json_put_int(o, "night", s->night[i]);
	json_put_str(o, "commit", s->commit[i]);
	json_put_str(o, "started", s->started[i]);
	json_put_int(o, "nights", (long long)k);
	json_put_num(o, "mean", mean);
	json_put_num(o, "sd", sd);
	return o;
}

static json_object *change_json(const struct hseries *s,
				const struct stats_cp *c)
{
	json_object *o = json_object_new_object();
	const struct stats_cpd_opts co = STATS_CPD_INIT;

	json_put_str(o, "tree", s->tree);
	json_put_str(o, "host", s->host);
	json_put_str(o, "accel", s->accel);
	json_put_str(o, "group", s->group);
	json_put_str(o, "metric", s->metric);
	json_put_str(o, "unit", unit_of(s->metric));
	json_put(o, "before",
		 side_json(s, c->index - 1, c->index - c->before,
			   c->mean_before, c->sd_before));
	json_put(o, "after",
		 side_json(s, c->index, c->after - c->index, c->mean_after,
			   c->sd_after));
	if (c->mean_before != 0)
		json_put_num(o, "change_pct",
			     100 * (c->mean_after - c->mean_before) /
				     fabs(c->mean_before));
	else
		json_put(o, "change_pct", NULL);
	json_put_str(o, "direction",
		     direction(s->metric, c->mean_before, c->mean_after));
	json_put_num(o, "p", c->p);
	json_put_num(o, "q", c->q);
	json_put_int(o, "permutations", co.permutations);
	return o;
}

int history_changes(sqlite3 *db, const struct history_opts *o, FILE *out)
{
	const struct stats_cpd_opts co = STATS_CPD_INIT;
	struct hseries *v;
	size_t n, total = 0;
	json_object *arr = o->json ? json_object_new_array() : NULL;

	if (series_load(db, o, &v, &n)) {
		json_object_put(arr);
		return 1;
	}
	if (!arr)
		fprintf(out,
			"change points (E-divisive means: %u permutations, p <= %g, segments of %d nights or more)\n",
			co.permutations, co.alpha,
			o->min_nights ? o->min_nights : (int)co.min_size);
	for (size_t i = 0; i < n; i++) {
		if (!arr && v[i].ncp)
			fprintf(out, "%s %s/%s %s %s (%zu nights)\n", v[i].tree,
				v[i].host, v[i].accel, v[i].group, v[i].metric,
				v[i].n);
		for (int c = 0; c < v[i].ncp; c++, total++)
			if (arr)
				json_object_array_add(
					arr, change_json(&v[i], &v[i].cp[c]));
			else
				print_change(out, &v[i], &v[i].cp[c]);
	}
	if (arr)
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(
				arr, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE));
	else if (!total)
		fprintf(out, "(none in %zu series)\n", n);
	json_object_put(arr);
	series_free(v, n);
	return 0;
}

/* A change point of a series reaching a night, for its candidate. */
struct history_change {
	long long before, after; /* the nights either side of the change */
	char *before_commit; /* the commit of `before` */
	size_t nights_before, nights_after; /* the segments' lengths */
	double mean_before, mean_after; /* the segments' means */
	double pct; /* the change in % of mean_before (NAN from 0) */
	double p; /* the permutation test's p */
};

static const char night_sql[] =
	"SELECT tree, COALESCE(host, '-'), COALESCE(accel, '-') FROM nights"
	" WHERE id = ?1";

static double mean_of(const double *x, size_t a, size_t b)
{
	double sum = 0;

	for (size_t i = a; i < b; i++)
		sum += x[i];
	return sum / (double)(b - a);
}

/* Night i's mean is nearer the after level than the before level. */
static bool at_after_level(const struct hseries *s, size_t i, double before,
			   double after)
{
	return fabs(s->mean[i] - after) < fabs(s->mean[i] - before);
}

/*
 * Night i is beyond every night of [a, i) the way the series changed:
 * above all of them for a rise, below all for a fall.
 */
static bool departs(const double *mean, size_t a, size_t i, bool up)
{
	for (size_t j = a; j < i; j++)
		if (up ? mean[i] <= mean[j] : mean[i] >= mean[j])
			return false;
	return true;
}

size_t history_cut_back(const double *mean, const struct stats_cp *cp)
{
	size_t idx = cp->index;
	double mb = cp->mean_before, ma = cp->mean_after;

	while (idx - cp->before > 2 &&
	       departs(mean, cp->before, idx - 1, ma > mb)) {
		idx--;
		mb = mean_of(mean, cp->before, idx);
		ma = mean_of(mean, idx, cp->after);
	}
	return idx;
}

/*
 * The series' last change point, if it reaches night: night is the
 * series' newest value and is at the changed level (nearer the right
 * segment's mean than the left's), not back where it was. The last
 * change's right segment always ends at the newest value, so that alone
 * said nothing (issue 41 item 7).
 *
 * E-divisive can cut a night late: the first changed night ends the left
 * segment, and its commit would become the re-run's reference and the
 * bisection's good end. The cut is placed at the first night that
 * departs from every night before it in the left segment the way the
 * series changed: it moves back while the left's last night does (the
 * left keeps 2 nights or more). A left segment without a change ends on
 * its own extreme 1 time in k (k nights): then the reference is a night
 * older, which costs the bisection one night, never a changed reference.
 * The means are recomputed; the p stays the one E-divisive gave its cut.
 */
static int last_change(const struct hseries *s, long long night,
		       struct history_change *c)
{
	const struct stats_cp *cp;
	size_t idx;
	double mb, ma;

	if (!s->n || s->night[s->n - 1] != night || !s->ncp)
		return 0;
	cp = &s->cp[s->ncp - 1];
	idx = history_cut_back(s->mean, cp);
	mb = mean_of(s->mean, cp->before, idx);
	ma = mean_of(s->mean, idx, cp->after);
	if (!at_after_level(s, s->n - 1, mb, ma))
		return 0;
	*c = (struct history_change){
		.before = s->night[idx - 1],
		.after = s->night[idx],
		.before_commit = xstrdup(s->commit[idx - 1]),
		.nights_before = idx - cp->before,
		.nights_after = cp->after - idx,
		.mean_before = mb,
		.mean_after = ma,
		.pct = mb != 0 ? 100 * (ma - mb) / fabs(mb) : NAN,
		.p = cp->p,
	};
	return 1;
}

/*
 * The change point of one series over the nights up to night (of night's
 * tree, host and accelerator; group, metric), found as history_changes()
 * finds them, whose right segment reaches that night: the series' last
 * change, when night is its newest value. 1 found (release it), 0 none,
 * -1 error (no such night).
 */
static int change_at(sqlite3 *db, long long night, const char *group,
		     const char *metric, struct history_change *c)
{
	struct series_key k = { .metric = metric,
				.group = group,
				.upto = night };
	struct hseries *v = NULL;
	sqlite3_stmt *st;
	size_t n = 0;
	int ret;

	if (sqlite3_prepare_v2(db, night_sql, -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, night);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return error("wblab.db: no night %lld", night);
	}
	k.tree = db_text(st, 0, "");
	k.host = db_text(st, 1, "");
	k.accel = db_text(st, 2, "");
	ret = series_query(db, &k, &v, &n);
	sqlite3_finalize(st);
	if (ret)
		return -1;
	/* one series: the key names all five */
	ret = n == 1 ? last_change(&v[0], night, c) : 0;
	series_free(v, n);
	return ret;
}

/* "changed after night 5 (4465b64a19f2): 0 -> 203.1 pages, worse; ..." */
static void change_format(const struct history_change *c, const char *metric,
			  struct strbuf *out)
{
	char p[32];

	strbuf_addf(out, "changed after night %lld (%.12s): %.4g -> %.4g %s",
		    c->before, c->before_commit, c->mean_before, c->mean_after,
		    unit_of(metric));
	if (isfinite(c->pct))
		strbuf_addf(out, " (%+.1f%%)", c->pct);
	strbuf_addf(out, ", %s; %s, %zu nights before, %zu after",
		    direction(metric, c->mean_before, c->mean_after),
		    p_text(c->p, p, sizeof(p)), c->nights_before,
		    c->nights_after);
}

static void change_release(struct history_change *c)
{
	free(c->before_commit);
	c->before_commit = NULL;
}

/* The last good night before ?1 on its tree, host and accelerator. */
static const char good_sql[] =
	"SELECT IFNULL(MAX(g.id), 0) FROM nights g JOIN nights t ON t.id = ?1"
	" WHERE g.tree = t.tree AND g.host IS t.host AND g.accel IS t.accel"
	" AND g.verdict = 'good' AND g.id < t.id";

/* Its id, 0 if none, -1 on error. */
static long long last_good(sqlite3 *db, long long night)
{
	sqlite3_stmt *st;
	long long id = -1;

	if (sqlite3_prepare_v2(db, good_sql, -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, night);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else
		error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return id;
}

/*
 * Row h's change point reaching tonight, if it is a candidate: in the
 * bad direction beyond the threshold, no regression of the row confirmed
 * since (bisected and mailed then), and not rejected since by a re-run
 * from the commit before the change (the same change found the same:
 * another re-run every night it reaches would say so again). 1 raised,
 * 0 not, -1 error.
 */
static int change_candidate(sqlite3 *db, long long night, struct dhyp *h,
			    struct history_change *c)
{
	long long since;
	int found = change_at(db, night, h->group, h->what, c);

	if (found <= 0)
		return found;
	if (!dhyp_bad_change(h, c->mean_after - c->mean_before, c->pct))
		goto no;
	since = confirm_since(db, night, h->group, h->what, c->after,
			      c->before_commit);
	if (since < 0) {
		change_release(c);
		return -1;
	}
	if (!since)
		return 1;
no:
	change_release(c);
	return 0;
}

int history_change_candidates(sqlite3 *db, long long night, struct family *det,
			      struct strbuf *report, char **ref)
{
	long long good = last_good(db, night), first;
	int raised = 0;

	if (good < 0)
		return -1;
	first = good;
	for (size_t i = 0; i < det->n; i++) {
		struct dhyp *h = &det->h[i];
		struct history_change c = { 0 };
		int r;

		if (h->event || h->regression)
			continue;
		r = change_candidate(db, night, h, &c);
		if (r < 0)
			return -1;
		if (!r)
			continue;
		h->regression = true;
		/*
		 * The p that made it a candidate, recorded as the detection's
		 * (candidates.detect_p): the one look's said nothing.
		 */
		h->d.p = c.p;
		raised++;
		strbuf_addf(report, "change point: %s (%s) ", h->what,
			    h->group);
		change_format(&c, h->what, report);
		strbuf_addstr(report, ": a candidate\n");
		/* The re-run's reference: before every change it raised. */
		if (c.before < first) {
			first = c.before;
			free(*ref);
			*ref = xstrdup(c.before_commit);
		}
		change_release(&c);
	}
	return raised;
}

/* ---- the HTML page ---- */

/* gnuplot script strings: [A-Za-z0-9._/+-] only. */
static void gp_safe(struct strbuf *out, const char *s)
{
	for (; *s; s++)
		strbuf_addch(out, (*s >= 'a' && *s <= 'z') ||
						  (*s >= 'A' && *s <= 'Z') ||
						  (*s >= '0' && *s <= '9') ||
						  strchr("._/+-", *s) ?
					  *s :
					  '_');
}

/* A dashed line between the nights either side of each change point. */
static void gp_changes(struct strbuf *script, const struct hseries *s)
{
	for (int c = 0; c < s->ncp; c++) {
		size_t b = s->cp[c].index;
		double x = (s->night[b - 1] + s->night[b]) / 2.0;

		strbuf_addf(script,
			    "set arrow from %g, graph 0 to %g, graph 1 nohead"
			    " dashtype 2 linecolor rgb 'red'\n"
			    "set label 'change p=%.2g' at %g, graph 0.95"
			    " textcolor rgb 'red'\n",
			    x, x, s->cp[c].p, x);
	}
}

static int plot(const struct hseries *s, struct strbuf *html)
{
	struct strbuf script = STRBUF_INIT, svg = STRBUF_INIT,
		      err = STRBUF_INIT;
	int rc;

	strbuf_addstr(&script, "set terminal svg size 640,280 font 'sans,10'\n"
			       "set output\nset xlabel 'night'\nset ylabel '");
	gp_safe(&script, s->metric);
	strbuf_addstr(&script, "'\nset title '");
	gp_safe(&script, s->tree);
	strbuf_addch(&script, ' ');
	gp_safe(&script, s->host);
	strbuf_addch(&script, '/');
	gp_safe(&script, s->accel);
	strbuf_addch(&script, ' ');
	gp_safe(&script, s->group);
	strbuf_addstr(&script, "'\n");
	gp_changes(&script, s);
	strbuf_addstr(&script, "$d << EOD\n");
	for (size_t i = 0; i < s->n; i++)
		strbuf_addf(&script, "%lld %.17g %.17g\n", s->night[i],
			    s->mean[i], s->sd[i]);
	strbuf_addstr(
		&script,
		"EOD\nplot $d using 1:2:3 with yerrorlines title 'mean +- sd'\n");
	rc = gnuplot_svg(&script, &svg, &err);
	if (rc)
		error("%s", err.buf);
	else
		/*
		 * Inline from the <svg> element on (the XML prolog has no
		 * place in HTML); gnuplot wrote it from sanitised strings
		 * and numbers.
		 */
		strbuf_addstr(html, strstr(svg.buf, "<svg"));
	strbuf_release(&script);
	strbuf_release(&svg);
	strbuf_release(&err);
	return rc;
}

static void heading(struct strbuf *html, const struct hseries *s)
{
	strbuf_addstr(html, "<h2>");
	html_escape(html, s->tree);
	strbuf_addstr(html, " ");
	html_escape(html, s->host);
	strbuf_addstr(html, "/");
	html_escape(html, s->accel);
	strbuf_addstr(html, ": ");
	html_escape(html, s->group);
	strbuf_addstr(html, " ");
	html_escape(html, s->metric);
	strbuf_addf(html, " (%zu nights, %d change point%s)</h2>\n", s->n,
		    s->ncp, s->ncp == 1 ? "" : "s");
	for (int c = 0; c < s->ncp; c++) {
		const struct stats_cp *cp = &s->cp[c];

		strbuf_addf(html, "<p>change after night %lld (",
			    s->night[cp->index - 1]);
		html_escape(html, s->commit[cp->index - 1]);
		strbuf_addf(html, "), before night %lld (",
			    s->night[cp->index]);
		html_escape(html, s->commit[cp->index]);
		strbuf_addf(html, "): %.4g -&gt; %.4g, %s, p=%.3g</p>\n",
			    cp->mean_before, cp->mean_after,
			    direction(s->metric, cp->mean_before,
				      cp->mean_after),
			    cp->p);
	}
}

int history_html(sqlite3 *db, const struct history_opts *o, FILE *out)
{
	struct strbuf html = STRBUF_INIT;
	struct hseries *v;
	size_t n;
	int ret = 0;

	if (series_load(db, o, &v, &n))
		return 1;
	strbuf_addstr(
		&html,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		"<title>wblab history</title><style>body{font-family:sans-serif}"
		"</style></head><body><h1>wblab history</h1>\n");
	for (size_t i = 0; i < n; i++) {
		heading(&html, &v[i]);
		if (plot(&v[i], &html))
			ret = 1;
	}
	if (confirm_html(db, o->tree, &html))
		ret = 1;
	strbuf_addstr(&html, "</body></html>\n");
	if (write_file_atomic(o->html, html.buf, html.len, 0644)) {
		error("cannot write %s", o->html);
		ret = 1;
	} else {
		fprintf(out, "html: %s (%zu plots)\n", o->html, n);
	}
	strbuf_release(&html);
	series_free(v, n);
	return ret;
}
