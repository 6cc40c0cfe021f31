// SPDX-License-Identifier: GPL-2.0
/*
 * Nights in the results database, and wblab history (jobs/history.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/db.h"
#include "jobs/confirm.h"
#include "jobs/history.h"
#include "results/db.h"
#include "results/metric.h"
#include "util/json.h"
#include "util/log.h"
#include "util/strbuf.h"

static int step_done(sqlite3 *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	return 0;
}

int history_add_night(sqlite3 *db, const char *tree, const char *commit,
		      const char *subject, const char *kernel,
		      const char *started, const char *run_dir,
		      const char *verdict, long long *id)
{
	const char *v[] = { tree,    commit,  subject, kernel,
			    started, run_dir, verdict };
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(
		    db,
		    "INSERT INTO nights(tree, commit_id, subject, kernel,"
		    " started, run_dir, verdict) VALUES(?,?,?,?,?,?,?)",
		    -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	for (int i = 0; i < 7; i++)
		sqlite3_bind_text(st, i + 1, v[i] ? v[i] : "", -1,
				  SQLITE_TRANSIENT);
	if (step_done(db, st))
		return -1;
	*id = sqlite3_last_insert_rowid(db);
	return 0;
}

int history_night_host(sqlite3 *db, long long night, const char *host,
		       const char *accel)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(
		    db, "UPDATE nights SET host = ?, accel = ? WHERE id = ?",
		    -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, host, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, accel, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, night);
	return step_done(db, st);
}

int history_night_verdict(sqlite3 *db, long long night, const char *verdict)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "UPDATE nights SET verdict = ? WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, verdict, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, night);
	return step_done(db, st);
}

int history_add_metric(sqlite3 *db, long long night, const char *group,
		       const char *metric, int n, double mean, double sd)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db,
			       "INSERT INTO night_metrics VALUES(?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, night);
	sqlite3_bind_text(st, 2, group, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, metric, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, n);
	if (isfinite(mean))
		sqlite3_bind_double(st, 5, mean);
	if (isfinite(sd))
		sqlite3_bind_double(st, 6, sd);
	return step_done(db, st);
}

int history_last_good(sqlite3 *db, const char *tree, const char *host,
		      const char *accel, char **run_dir, char **commit,
		      char **kernel)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT run_dir, commit_id, kernel FROM nights"
			       " WHERE tree = ? AND verdict = 'good'"
			       " AND host IS ? AND accel IS ?"
			       " ORDER BY id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, tree, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, host, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, accel, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*run_dir = xstrdup(db_text(st, 0, ""));
		*commit = xstrdup(db_text(st, 1, ""));
		*kernel = xstrdup(db_text(st, 2, ""));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

int history_means(sqlite3 *db, const char *tree, const char *group,
		  const char *metric, int last, double *out)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(
		    db,
		    "SELECT m.mean FROM night_metrics m JOIN nights n"
		    " ON m.night = n.id WHERE n.tree = ?1 AND m.grp = ?2"
		    " AND m.metric = ?3 AND n.host IS (SELECT host FROM"
		    " nights WHERE tree = ?1 ORDER BY id DESC LIMIT 1)"
		    " AND n.accel IS (SELECT accel FROM nights WHERE"
		    " tree = ?1 ORDER BY id DESC LIMIT 1)"
		    " ORDER BY n.id DESC LIMIT ?4",
		    -1, &st, NULL) != SQLITE_OK)
		return error("wblab.db: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, tree, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, group, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, metric, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, last);
	while (sqlite3_step(st) == SQLITE_ROW && n < last)
		out[n++] = db_real(st, 0, NAN);
	sqlite3_finalize(st);
	/* newest first from the query: oldest first for the caller */
	for (int i = 0; i < n / 2; i++) {
		double t = out[i];

		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

void history_trend(const double *y, int n, char *buf, size_t len)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, slope, mean;
	int k = 0;

	for (int i = 0; i < n; i++) {
		if (!isfinite(y[i]))
			continue;
		sx += i;
		sy += y[i];
		sxx += (double)i * i;
		sxy += i * y[i];
		k++;
	}
	if (k < 3 || k * sxx - sx * sx == 0) {
		snprintf(buf, len, "- (%d night%s)", k, k == 1 ? "" : "s");
		return;
	}
	slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
	mean = sy / k;
	if (mean != 0)
		snprintf(buf, len, "%+.1f%%/night over %d nights",
			 100 * slope / fabs(mean), k);
	else
		snprintf(buf, len, "%+.3g/night over %d nights", slope, k);
}

/* ---- wblab history ---- */

static const char nights_sql[] =
	"SELECT n.id, n.started, n.tree, n.commit_id, n.verdict, m.grp,"
	" m.metric, m.n, m.mean, m.sd, COALESCE(n.host, '-') || '/' ||"
	" COALESCE(n.accel, '-'), n.host, n.accel FROM nights n"
	" LEFT JOIN night_metrics m"
	" ON m.night = n.id WHERE (?1 IS NULL OR n.tree = ?1)"
	" AND (?2 IS NULL OR m.metric = ?2 OR m.metric IS NULL)"
	" ORDER BY m.grp, m.metric, n.id";

/* wblab history --json: {"nights": [a night's row each], "candidates"}. */
static int history_json(sqlite3 *db, sqlite3_stmt *st,
			const struct history_opts *o, FILE *out)
{
	json_object *top = json_object_new_object();
	json_object *nights = json_object_new_array();
	json_object *cand, *r;
	int ret = 1;

	json_put(top, "nights", nights);
	while (sqlite3_step(st) == SQLITE_ROW) {
		r = json_object_new_object();
		json_put_int(r, "night", sqlite3_column_int64(st, 0));
		json_put_str(r, "started", db_text(st, 1, NULL));
		json_put_str(r, "tree", db_text(st, 2, NULL));
		json_put_str(r, "host", db_text(st, 11, NULL));
		json_put_str(r, "accel", db_text(st, 12, NULL));
		json_put_str(r, "commit", db_text(st, 3, NULL));
		json_put_str(r, "verdict", db_text(st, 4, NULL));
		json_put_str(r, "group", db_text(st, 5, NULL));
		json_put_str(r, "metric", db_text(st, 6, NULL));
		json_put_int(r, "n", sqlite3_column_int(st, 7));
		json_put_num(r, "mean", sqlite3_column_double(st, 8));
		json_put_num(r, "sd", sqlite3_column_double(st, 9));
		json_object_array_add(nights, r);
	}
	cand = confirm_json(db, o->tree);
	if (cand) {
		json_put(top, "candidates", cand);
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(
				top, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE));
		ret = 0;
	}
	json_object_put(top);
	return ret;
}

int history_print(const struct history_opts *o, FILE *out)
{
	char *path = xasprintf("%s/wblab.db", o->results);
	struct strbuf err = STRBUF_INIT;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int ret = 1, rows = 0;

	if (access(path, R_OK)) {
		error("%s: no results database (wblab nightly writes it)",
		      path);
		goto out;
	}
	/*
	 * Read-write where it may, so that a database from before a night
	 * had a host and accelerator is migrated as nightly would; only
	 * after resdb_open() found nothing but wblab's tables in it.
	 */
	db = resdb_open(path, false, false, &err);
	if (db && resdb_schema(db))
		goto out;
	if (!db) {
		strbuf_reset(&err);
		db = resdb_open(path, false, true, &err);
	}
	if (!db) {
		error("%s", err.buf);
		goto out;
	}
	if (o->changes) {
		ret = history_changes(db, o, out);
		goto out;
	}
	if (sqlite3_prepare_v2(db, nights_sql, -1, &st, NULL) != SQLITE_OK) {
		error("%s: %s (no nights yet?)", path, sqlite3_errmsg(db));
		goto out;
	}
	if (o->tree)
		sqlite3_bind_text(st, 1, o->tree, -1, SQLITE_TRANSIENT);
	if (o->metric)
		sqlite3_bind_text(st, 2, o->metric, -1, SQLITE_TRANSIENT);
	if (o->json) {
		ret = history_json(db, st, o, out);
		goto out;
	}
	fprintf(out,
		"%-5s %-20s %-14s %-14s %-12s %-12s %-28s %-26s %4s %12s %10s\n",
		"night", "started", "tree", "host/accel", "commit", "verdict",
		"group", "metric", "n", "mean", "sd");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *grp = (const char *)sqlite3_column_text(st, 5);
		const char *met = (const char *)sqlite3_column_text(st, 6);

		fprintf(out,
			"%-5lld %-20.20s %-14.14s %-14.14s %-12.12s %-12.12s %-28.28s %-26.26s %4d %12.4g %10.4g\n",
			(long long)sqlite3_column_int64(st, 0),
			(const char *)sqlite3_column_text(st, 1),
			(const char *)sqlite3_column_text(st, 2),
			(const char *)sqlite3_column_text(st, 10),
			(const char *)sqlite3_column_text(st, 3),
			(const char *)sqlite3_column_text(st, 4),
			grp ? grp : "-", met ? met : "-",
			sqlite3_column_int(st, 7), sqlite3_column_double(st, 8),
			sqlite3_column_double(st, 9));
		rows++;
	}
	if (!rows)
		fprintf(out, "(no nights%s%s)\n",
			o->metric ? " with metric " : "",
			o->metric ? o->metric : "");
	if (confirm_print(db, o->tree, out))
		goto out;
	ret = o->html ? history_html(db, o, out) : 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	strbuf_release(&err);
	free(path);
	return ret;
}
