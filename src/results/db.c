// SPDX-License-Identifier: GPL-2.0
/*
 * The results database, opened as an untrusted file (results/db.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "results/db.h"
#include "util/log.h"

/* The tables wblab makes (cell/results.c, jobs/history.c, jobs/confirm.c). */
static const char *const tables[] = { "runs", "cells", "nights",
				      "night_metrics", "candidates" };

static bool ours(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++)
		if (!strcmp(name, tables[i]))
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
