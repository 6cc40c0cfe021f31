/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_RESULTS_DB_H
#define WBLAB_RESULTS_DB_H

#include <sqlite3.h>
#include <stdbool.h>

#include "util/strbuf.h"

/*
 * RESULTS/wblab.db, the index of runs, cells and nights, opened the one
 * way every user of it does. The file is untrusted like a results
 * directory (docs/hardening.md): a planted trigger on cells spun a run at
 * 100% CPU, deaf to SIGTERM; a recursive view as nights made history
 * write 1 GB to /var/tmp; a FIFO hung history; a dangling link made run
 * create a database at its target. So:
 *
 * - only a regular file is opened (lstat first, then SQLITE_OPEN_NOFOLLOW):
 *   no link, FIFO, device or directory; a missing one is created when
 *   create is set;
 * - triggers and views are off for the connection, with defensive mode
 *   and an untrusted schema (no SQL function of the schema runs);
 * - the schema may hold only wblab's tables (runs, cells, nights,
 *   night_metrics, candidates), SQLite's own (sqlite_*) and their
 *   automatic indexes: any trigger, view or other object is refused
 *   before anything is written (a foreign database stays untouched);
 * - a busy timeout of 30 s: parallel runs share the index.
 *
 * The handle, or NULL with "PATH: why" in err.
 */
sqlite3 *resdb_open(const char *path, bool create, bool readonly,
		    struct strbuf *err);
/*
 * Make wblab.db's tables (runs, cells, nights, night_metrics, candidates:
 * their columns are spelt in results/db.c only) where they are missing,
 * and bring a database of an older wblab up to date: the columns added
 * since (NULL in its old rows), the nights' metrics renamed to their
 * registry names. Idempotent; -1 after an error naming the file.
 */
int resdb_schema(sqlite3 *db);
/* The file of db, for messages ("RESULTS/wblab.db"). */
const char *resdb_path(sqlite3 *db);

#endif
