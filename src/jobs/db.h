/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_JOBS_DB_H
#define WBLAB_JOBS_DB_H

#include <sqlite3.h>

/*
 * Columns of the results database (DIR/wblab.db: nights, night_metrics,
 * candidates) read where SQL NULL means "not recorded": each caller says
 * what NULL reads as ("-" in a table, NULL for JSON null, "" for a key).
 */
static inline const char *db_text(sqlite3_stmt *st, int i, const char *null_as)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : null_as;
}

static inline double db_real(sqlite3_stmt *st, int i, double null_as)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ?
		       null_as :
		       sqlite3_column_double(st, i);
}

#endif
