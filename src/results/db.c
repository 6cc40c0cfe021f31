// SPDX-License-Identifier: GPL-2.0
/*
 * The results database, opened as an untrusted file (results/db.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results/db.h"
#include "results/metric.h"
#include "util/log.h"

/*
 * wblab.db's schema, the one place it is spelt: every table wblab makes,
 * with the columns it has now (resdb_schema() makes them; resdb_open()
 * lets no other table in). runs and cells are written by every run
 * (cell/results.c), nights and night_metrics by nightly (jobs/history.c),
 * candidates by nightly's confirmation (jobs/confirm.c).
 */
static const struct {
	const char *name, *columns;
} tables[] = {
	{ "runs",
	  "id TEXT PRIMARY KEY, started TEXT, finished TEXT, accel TEXT,"
	  " host TEXT" },
	{ "cells",
	  "run_id TEXT NOT NULL, id TEXT NOT NULL, kernel TEXT,"
	  " kernel_hash TEXT, topology TEXT, workload TEXT, rep INTEGER,"
	  " outcome TEXT, started TEXT, total_s REAL, boot_s REAL,"
	  " PRIMARY KEY (run_id, id)" },
	{ "nights",
	  "id INTEGER PRIMARY KEY, tree TEXT, commit_id TEXT, subject TEXT,"
	  " kernel TEXT, started TEXT, run_dir TEXT, verdict TEXT, host TEXT,"
	  " accel TEXT" },
	{ "night_metrics",
	  "night INTEGER, grp TEXT, metric TEXT, n INTEGER, mean REAL,"
	  " sd REAL" },
	{ "candidates",
	  "night INTEGER, grp TEXT, what TEXT, outcome TEXT, verdict TEXT,"
	  " ref REAL, mean REAL, pct REAL, p REAL, na INTEGER, nb INTEGER,"
	  " detect_p REAL, run_dir TEXT, ref_commit TEXT" },
};

/*
 * The migrations: columns a table got after databases were written
 * without them. An old database gets each (its old rows NULL there).
 */
static const struct {
	const char *table, *column;
} added[] = {
	/* where a night's cells ran: NULL is a series of its own ("-") */
	{ "nights", "host" },
	{ "nights", "accel" },
	/*
	 * the commit a candidate's re-run took as its reference: NULL
	 * rejects no change point (confirm_since())
	 */
	{ "candidates", "ref_commit" },
};

static bool ours(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++)
		if (!strcmp(name, tables[i].name))
			return true;
	return false;
}

/* Is a schema object one wblab or SQLite itself made? */
static bool allowed(const char *type, const char *name, const char *tbl)
{
	if (!strcmp(type, "table"))
		return ours(name) || !strncmp(name, "sqlite_", 7);
	/* a PRIMARY KEY's index; CREATE INDEX of ours would be named here */
	return !strcmp(type, "index") &&
	       !strncmp(name, "sqlite_autoindex_", 17) && ours(tbl);
}

/* Every object of the schema allowed(), or -1 with the first that is not. */
static int schema_ok(sqlite3 *db, const char *path, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT type, name, tbl_name FROM sqlite_master",
			       -1, &st, NULL) != SQLITE_OK) {
		strbuf_addf(err, "%s: %s", path, sqlite3_errmsg(db));
		return -1;
	}
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *tbl = (const char *)sqlite3_column_text(st, 2);

		if (type && name && tbl && allowed(type, name, tbl))
			continue;
		strbuf_addf(
			err,
			"%s: holds %s '%s', not wblab's: refused (a results database has only wblab's tables)",
			path, type ? type : "an object", name ? name : "?");
		ret = -1;
	}
	if (!ret && rc != SQLITE_DONE) {
		strbuf_addf(err, "%s: %s", path, sqlite3_errmsg(db));
		ret = -1;
	}
	sqlite3_finalize(st);
	return ret;
}

/* path is a regular file, or absent (-1 with why otherwise). */
static int regular_or_absent(const char *path, bool create, struct strbuf *err)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT && create)
			return 0;
		strbuf_addf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	strbuf_addf(err, "%s: %s: refused", path,
		    S_ISLNK(st.st_mode)	 ? "a symbolic link (not followed)" :
		    S_ISFIFO(st.st_mode) ? "a FIFO, not a regular file" :
		    S_ISDIR(st.st_mode)	 ? "a directory, not a regular file" :
					   "not a regular file");
	return -1;
}

/* Triggers and views off, defensive, no schema-defined function runs. */
static int harden(sqlite3 *db)
{
	static const int off[] = { SQLITE_DBCONFIG_ENABLE_TRIGGER,
				   SQLITE_DBCONFIG_ENABLE_VIEW,
				   SQLITE_DBCONFIG_TRUSTED_SCHEMA };
	int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);

	for (size_t i = 0; rc == SQLITE_OK && i < ARRAY_SIZE(off); i++)
		rc = sqlite3_db_config(db, off[i], 0, NULL);
	return rc == SQLITE_OK ? 0 : -1;
}

sqlite3 *resdb_open(const char *path, bool create, bool readonly,
		    struct strbuf *err)
{
	int flags = SQLITE_OPEN_NOFOLLOW |
		    (readonly ? SQLITE_OPEN_READONLY :
				SQLITE_OPEN_READWRITE |
					(create ? SQLITE_OPEN_CREATE : 0));
	sqlite3 *db = NULL;

	if (regular_or_absent(path, create && !readonly, err))
		return NULL;
	if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
		strbuf_addf(err, "%s: %s", path,
			    db ? sqlite3_errmsg(db) : "out of memory");
		goto fail;
	}
	if (harden(db)) {
		strbuf_addf(err, "%s: %s", path, sqlite3_errmsg(db));
		goto fail;
	}
	sqlite3_busy_timeout(db, 30000);
	if (schema_ok(db, path, err))
		goto fail;
	return db;
fail:
	sqlite3_close(db);
	return NULL;
}

const char *resdb_path(sqlite3 *db)
{
	const char *f = sqlite3_db_filename(db, "main");

	return f && *f ? f : "wblab.db";
}

static int exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	error("%s: %s", resdb_path(db), msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

/* 1 if table has the column, 0 if not, -1 on an error. */
static int has_column(sqlite3 *db, const char *table, const char *name)
{
	char *sql = xasprintf("PRAGMA table_info(%s)", table);
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		free(sql);
		return error("%s: %s", resdb_path(db), sqlite3_errmsg(db));
	}
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(st, 1);

		found = col && !strcmp(col, name);
	}
	sqlite3_finalize(st);
	free(sql);
	return found;
}

static int add_columns(sqlite3 *db)
{
	for (size_t i = 0; i < ARRAY_SIZE(added); i++) {
		int has = has_column(db, added[i].table, added[i].column);
		char *sql;
		int ret;

		if (has)
			continue;
		if (has < 0)
			return -1;
		sql = xasprintf("ALTER TABLE %s ADD COLUMN %s TEXT",
				added[i].table, added[i].column);
		ret = exec_sql(db, sql);
		free(sql);
		if (ret)
			return -1;
	}
	return 0;
}

/*
 * Nights recorded before the metric registry named their metrics by
 * cell.json key (vmscan_write_file_direct, metrics.fio.0.write.bw_kib_s)
 * and kept raw values: rename them and scale their figures to the row's
 * unit, so a series goes on under one name.
 */
static int rename_old_metrics(sqlite3 *db)
{
	sqlite3_stmt *st, *up;
	int ret = 0;

	if (sqlite3_prepare_v2(db, "SELECT DISTINCT metric FROM night_metrics",
			       -1, &st, NULL) != SQLITE_OK)
		return error("%s: %s", resdb_path(db), sqlite3_errmsg(db));
	if (sqlite3_prepare_v2(
		    db,
		    "UPDATE night_metrics SET metric = ?1,"
		    " mean = mean * ?2, sd = sd * ?2 WHERE metric = ?3",
		    -1, &up, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return error("%s: %s", resdb_path(db), sqlite3_errmsg(db));
	}
	while (!ret && sqlite3_step(st) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const struct metric *m = key ? metric_by_old_key(key) : NULL;

		if (!m || !strcmp(m->name, key))
			continue;
		sqlite3_bind_text(up, 1, m->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(up, 2, m->scale);
		sqlite3_bind_text(up, 3, key, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(up) != SQLITE_DONE)
			ret = error("%s: %s", resdb_path(db),
				    sqlite3_errmsg(db));
		sqlite3_reset(up);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(up);
	return ret;
}

int resdb_schema(sqlite3 *db)
{
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		char *sql = xasprintf("CREATE TABLE IF NOT EXISTS %s (%s)",
				      tables[i].name, tables[i].columns);
		int ret = exec_sql(db, sql);

		free(sql);
		if (ret)
			return -1;
	}
	if (add_columns(db))
		return -1;
	return rename_old_metrics(db);
}
