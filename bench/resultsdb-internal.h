/*
 * What the other resultsdb-*.c files need of resultsdb.c. Not for commands.
 */
#ifndef HB_RESULTSDB_INTERNAL_H
#define HB_RESULTSDB_INTERNAL_H

#include <sqlite3.h>

#include "resultsdb.h"

sqlite3 *resultsdb_sqlite(struct resultsdb *db);
/* "WHAT 'PATH': sqlite's message" into *err (when err is not NULL), and
 * the -errno that rc means. */
int resultsdb_fail(struct resultsdb *db, int rc, char **err, const char *what);
/* A text column as a new string; NULL for SQL NULL. */
char *resultsdb_column_strdup(sqlite3_stmt *st, int col);

#endif
