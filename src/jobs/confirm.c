// SPDX-License-Identifier: GPL-2.0
/*
 * Confirmation of a night's candidates, and their table in wblab.db
 * (jobs/confirm.h). The re-run itself is nightly.c's (it owns the
 * kernels and the run); this is what decides and records it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/db.h"
#include "jobs/confirm.h"
#include "stats/stats.h"
#include "util/html.h"
#include "util/json.h"
#include "util/log.h"

const char *confirm_outcome_name(enum confirm_outcome c)
{
	return c == CONFIRM_REGRESSION ? "confirmed" :
	       c == CONFIRM_REJECTED   ? "rejected" :
					 "unknown";
}

bool confirm_is_candidate(const struct dhyp *h)
{
	/* An event undecided whose rate is up tonight: worth a re-run. */
	return h->regression ||
	       (h->event && h->d.nb > 0 && h->d.fb > 0 &&
		h->d.verdict != VERDICT_SAME && h->d.b > h->d.a);
}

size_t confirm_candidates(const struct family *det)
{
	size_t n = 0;

	for (size_t i = 0; i < det->n; i++)
		n += confirm_is_candidate(&det->h[i]);
	return n;
}

const struct dhyp *confirm_find(const struct family *conf,
				const struct dhyp *cand)
{
	for (size_t i = 0; i < conf->n; i++) {
		const struct dhyp *h = &conf->h[i];

		/* An event by its kind: "new" only says the reference had none. */
		if (h->event == cand->event && !strcmp(h->group, cand->group) &&
		    !strcmp(dhyp_event_key(h), dhyp_event_key(cand)))
			return h;
	}
	return NULL;
}

enum confirm_outcome confirm_decide(const struct family *det,
				    const struct family *conf, size_t *unknown)
{
	*unknown = 0;
	/*
	 * A re-run with fewer cells a side than a decision needs (stopped
	 * by a signal, every cell infra-error) decides nothing: before, its
	 * events had no hypothesis and the candidates were rejected.
	 */
	if (conf->look < STATS_MIN_N) {
		*unknown = confirm_candidates(det);
		return CONFIRM_UNKNOWN;
	}
	for (size_t i = 0; i < det->n; i++) {
		const struct dhyp *h;

		if (!confirm_is_candidate(&det->h[i]))
			continue;
		h = confirm_find(conf, &det->h[i]);
		/*
		 * Unknown only while the row can still be decided (a row
		 * without cells stays unknown); nightly's re-run tests every
		 * candidate event whether it shows or not
		 * (family_decide_with()), so an absent one is `same` only
		 * once its rise is bounded.
		 */
		if (h && !h->regression &&
		    (h->d.verdict == VERDICT_UNKNOWN || h->unsettled))
			(*unknown)++;
	}
	/* Any regression of the re-run counts, a candidate or not. */
	if (family_regressions(conf))
		return CONFIRM_REGRESSION;
	return *unknown ? CONFIRM_UNKNOWN : CONFIRM_REJECTED;
}

static void bind_num(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* One candidate: its outcome and the re-run's figures (h may be NULL). */
static int record_one(sqlite3 *db, sqlite3_stmt *st, long long night,
		      const struct dhyp *cand, const struct dhyp *h,
		      const char *run_dir, const char *ref_commit)
{
	const char *outcome = !h			      ? "rejected" :
			      h->regression		      ? "confirmed" :
			      h->d.verdict == VERDICT_UNKNOWN ? "unknown" :
								"rejected";

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, night);
	sqlite3_bind_text(st, 2, cand->group, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, cand->what, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, outcome, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, h ? verdict_name(h->d.verdict) : "absent", -1,
			  SQLITE_STATIC);
	bind_num(st, 6, h ? h->d.a : NAN);
	bind_num(st, 7, h ? h->d.b : NAN);
	bind_num(st, 8, h ? h->d.pct : NAN);
	bind_num(st, 9, h ? h->d.p : NAN);
	sqlite3_bind_int(st, 10, h ? h->d.na : 0);
	sqlite3_bind_int(st, 11, h ? h->d.nb : 0);
	bind_num(st, 12, cand->d.p);
	sqlite3_bind_text(st, 13, run_dir ? run_dir : "", -1, SQLITE_TRANSIENT);
	if (ref_commit)
		sqlite3_bind_text(st, 14, ref_commit, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 14);
	if (sqlite3_step(st) != SQLITE_DONE)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	return 0;
}

int confirm_record(sqlite3 *db, long long night, const struct family *det,
		   const struct family *conf, const char *run_dir,
		   const char *ref_commit)
{
	sqlite3_stmt *st;
	int ret = 0;

	if (sqlite3_prepare_v2(db,
			       "INSERT INTO candidates(night, grp, what,"
			       " outcome, verdict, ref, mean, pct, p, na, nb,"
			       " detect_p, run_dir, ref_commit) VALUES"
			       "(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	for (size_t i = 0; i < det->n && !ret; i++)
		if (confirm_is_candidate(&det->h[i]))
			ret = record_one(db, st, night, &det->h[i],
					 confirm_find(conf, &det->h[i]),
					 run_dir, ref_commit);
	sqlite3_finalize(st);
	return ret;
}

/* The last good night before t is the same for both nights. */
static const char known_sql[] =
	"SELECT c.night FROM candidates c JOIN nights n ON c.night = n.id"
	" JOIN nights t ON t.id = ?1 WHERE n.tree = t.tree"
	" AND n.host IS t.host AND n.accel IS t.accel AND n.id < t.id"
	" AND n.verdict = 'regression' AND c.outcome = 'confirmed'"
	" AND c.grp = ?2 AND c.what = ?3 AND n.id > (SELECT IFNULL(MAX(g.id),"
	" 0) FROM nights g WHERE g.tree = t.tree AND g.host IS t.host"
	" AND g.accel IS t.accel AND g.verdict = 'good' AND g.id < t.id)"
	" ORDER BY c.night LIMIT 1";

/*
 * Confirmed since night ?4 (the first after a change point), or rejected
 * since then by a re-run whose reference was ?5 (the commit before the
 * change), or left unknown by such a re-run fewer than
 * CHANGE_UNKNOWN_NIGHTS nights ago: another re-run of the same change
 * on the same history could only say unknown again (issue 41 item 4);
 * once that many nights more are in (a new segment's worth, E-divisive's
 * minimum), the history says more and the change is raised again.
 */
#define CHANGE_UNKNOWN_NIGHTS "3"
static const char since_sql[] =
	"SELECT c.night FROM candidates c JOIN nights n ON c.night = n.id"
	" JOIN nights t ON t.id = ?1 WHERE n.tree = t.tree"
	" AND n.host IS t.host AND n.accel IS t.accel AND n.id < t.id"
	" AND c.grp = ?2 AND c.what = ?3 AND n.id >= ?4"
	" AND (c.outcome = 'confirmed' OR (c.outcome = 'rejected'"
	" AND c.ref_commit = ?5) OR (c.outcome = 'unknown'"
	" AND c.ref_commit = ?5 AND (SELECT COUNT(*) FROM nights x"
	" WHERE x.tree = t.tree AND x.host IS t.host AND x.accel IS t.accel"
	" AND x.id > n.id AND x.id <= t.id) < " CHANGE_UNKNOWN_NIGHTS "))"
	" ORDER BY c.night LIMIT 1";

/*
 * The first column of sql's first row (?1 night, ?2 grp, ?3 what, ?4
 * since, ?5 ref).
 */
static long long query_id(sqlite3 *db, const char *sql, long long night,
			  const char *grp, const char *what, long long since,
			  const char *ref)
{
	sqlite3_stmt *st;
	long long id = 0;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, night);
	if (grp)
		sqlite3_bind_text(st, 2, grp, -1, SQLITE_TRANSIENT);
	if (what)
		sqlite3_bind_text(st, 3, what, -1, SQLITE_TRANSIENT);
	if (since)
		sqlite3_bind_int64(st, 4, since);
	if (ref)
		sqlite3_bind_text(st, 5, ref, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		id = error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return id;
}

long long confirm_known(sqlite3 *db, long long night, const char *grp,
			const char *what)
{
	return query_id(db, known_sql, night, grp, what, 0, NULL);
}

long long confirm_since(sqlite3 *db, long long night, const char *grp,
			const char *what, long long since, const char *ref)
{
	return query_id(db, since_sql, night, grp, what, since, ref);
}

int confirm_carry(sqlite3 *db, long long night, struct family *det,
		  struct strbuf *report)
{
	int carried = 0;

	for (size_t i = 0; i < det->n; i++) {
		struct dhyp *h = &det->h[i];
		long long id;

		if (h->event || h->regression)
			continue;
		id = confirm_known(db, night, h->group, h->what);
		if (id < 0)
			return -1;
		if (!id)
			continue;
		h->regression = true;
		carried++;
		strbuf_addf(
			report,
			"carried: %s (%s) was confirmed a regression on night %lld since the\nlast good night: a candidate until a re-run clears it\n",
			h->what, h->group, id);
	}
	return carried;
}

static const char cand_sql[] =
	"SELECT c.night, n.commit_id, c.grp, c.what, c.outcome, c.verdict,"
	" c.na, c.nb, c.ref, c.mean, c.pct, c.p, c.detect_p, c.ref_commit,"
	" c.run_dir FROM candidates c JOIN nights n ON c.night = n.id"
	" WHERE (?1 IS NULL OR n.tree = ?1) ORDER BY c.night, c.rowid";

static int cand_query(sqlite3 *db, const char *tree, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db, cand_sql, -1, st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	if (tree)
		sqlite3_bind_text(*st, 1, tree, -1, SQLITE_TRANSIENT);
	return 0;
}

int confirm_print(sqlite3 *db, const char *tree, FILE *out)
{
	sqlite3_stmt *st;
	int rows = 0;

	if (cand_query(db, tree, &st))
		return 1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char pct[16] = "-";

		if (!rows++)
			fprintf(out,
				"\ncandidates (the last good commit re-run against the night's, interleaved):\n"
				"%-5s %-12s %-12s %-28s %-26s %-9s %-9s %7s %11s %11s %8s %9s %9s\n",
				"night", "commit", "against", "group",
				"candidate", "outcome", "verdict", "n",
				"last good", "night", "change", "p",
				"detect p");
		if (isfinite(db_real(st, 10, NAN)))
			snprintf(pct, sizeof(pct), "%+.1f%%",
				 db_real(st, 10, NAN));
		fprintf(out,
			"%-5lld %-12.12s %-12.12s %-28.28s %-26.26s %-9s %-9s %3d/%-3d %11.4g %11.4g %8s %9.3g %9.3g\n",
			(long long)sqlite3_column_int64(st, 0),
			db_text(st, 1, "-"), db_text(st, 13, "-"),
			db_text(st, 2, "-"), db_text(st, 3, "-"),
			db_text(st, 4, "-"), db_text(st, 5, "-"),
			sqlite3_column_int(st, 6), sqlite3_column_int(st, 7),
			db_real(st, 8, NAN), db_real(st, 9, NAN), pct,
			db_real(st, 11, NAN), db_real(st, 12, NAN));
	}
	sqlite3_finalize(st);
	return 0;
}

static void td(struct strbuf *html, const char *s)
{
	strbuf_addstr(html, "<td>");
	html_escape(html, s);
	strbuf_addstr(html, "</td>");
}

static void td_num(struct strbuf *html, const char *fmt, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	td(html, buf);
}

/* A TEXT column, NULL as null. */

json_object *confirm_json(sqlite3 *db, const char *tree)
{
	json_object *arr, *o;
	sqlite3_stmt *st;

	if (cand_query(db, tree, &st))
		return NULL;
	arr = json_object_new_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		o = json_object_new_object();
		json_put_int(o, "night", sqlite3_column_int64(st, 0));
		json_put_str(o, "commit", db_text(st, 1, NULL));
		json_put_str(o, "ref_commit", db_text(st, 13, NULL));
		json_put_str(o, "group", db_text(st, 2, NULL));
		json_put_str(o, "candidate", db_text(st, 3, NULL));
		json_put_str(o, "outcome", db_text(st, 4, NULL));
		json_put_str(o, "verdict", db_text(st, 5, NULL));
		json_put_int(o, "na", sqlite3_column_int(st, 6));
		json_put_int(o, "nb", sqlite3_column_int(st, 7));
		json_put_num(o, "ref_mean", db_real(st, 8, NAN));
		json_put_num(o, "mean", db_real(st, 9, NAN));
		json_put_num(o, "change_pct", db_real(st, 10, NAN));
		json_put_num(o, "p", db_real(st, 11, NAN));
		json_put_num(o, "detect_p", db_real(st, 12, NAN));
		json_put_str(o, "run_dir", db_text(st, 14, NULL));
		json_object_array_add(arr, o);
	}
	sqlite3_finalize(st);
	return arr;
}

int confirm_html(sqlite3 *db, const char *tree, struct strbuf *html)
{
	static const char *const head[] = { "night",   "commit",    "against",
					    "group",   "candidate", "outcome",
					    "verdict", "n",	    "last good",
					    "night's", "change",    "p",
					    "detect p" };
	sqlite3_stmt *st;
	int rows = 0;

	if (cand_query(db, tree, &st))
		return 1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char n[32];

		if (!rows++) {
			strbuf_addstr(
				html,
				"<h2>Candidates</h2>\n<p>The last good commit re-run against the night's, interleaved; only a confirmed one is bisected and mailed.</p>\n<table border=\"1\"><tr>");
			for (size_t i = 0; i < sizeof(head) / sizeof(*head);
			     i++)
				strbuf_addf(html, "<th>%s</th>", head[i]);
			strbuf_addstr(html, "</tr>\n");
		}
		strbuf_addstr(html, "<tr>");
		snprintf(n, sizeof(n), "%lld",
			 (long long)sqlite3_column_int64(st, 0));
		td(html, n);
		td(html, db_text(st, 1, "-"));
		td(html, db_text(st, 13, "-"));
		for (int c = 2; c <= 5; c++)
			td(html, db_text(st, c, "-"));
		snprintf(n, sizeof(n), "%d/%d", sqlite3_column_int(st, 6),
			 sqlite3_column_int(st, 7));
		td(html, n);
		td_num(html, "%.4g", db_real(st, 8, NAN));
		td_num(html, "%.4g", db_real(st, 9, NAN));
		if (isfinite(db_real(st, 10, NAN)))
			td_num(html, "%+.1f%%", db_real(st, 10, NAN));
		else
			td(html, "-");
		td_num(html, "%.3g", db_real(st, 11, NAN));
		td_num(html, "%.3g", db_real(st, 12, NAN));
		strbuf_addstr(html, "</tr>\n");
	}
	if (rows)
		strbuf_addstr(html, "</table>\n");
	sqlite3_finalize(st);
	return 0;
}
