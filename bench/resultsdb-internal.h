/*
 * What the parts of the results database share; not for commands. The parts:
 *   resultsdb.c        opening, migrating, closing; the SQL helpers below
 *   resultsdb-import.c writing runs and batches
 *   resultsdb-list.c   reading runs back (the report's and db's listing)
 *   resultsdb-query.c  compare's and regress's queries (resultsdb-query.h)
 * Every helper that takes err writes "WHAT 'PATH': sqlite's message" into
 * *err (when err is not NULL) on failure and returns the -errno it means.
 */
#ifndef HB_RESULTSDB_INTERNAL_H
#define HB_RESULTSDB_INTERNAL_H

#include <sqlite3.h>

#include "resultsdb.h"

sqlite3 *resultsdb_sqlite(struct resultsdb *db);
/* A new message into *err (nothing when err is NULL). */
void resultsdb_set_err(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* SQLite's result rc of a failed call as the message and -errno. */
int resultsdb_fail(struct resultsdb *db, int rc, char **err, const char *what);
int resultsdb_exec(struct resultsdb *db, const char *sql, char **err, const char *what);
/* Rolls back what a failed operation left open (SQLite rolls back by
 * itself on some errors, hence the check). */
void resultsdb_rollback(struct resultsdb *db);
int resultsdb_prepare(struct resultsdb *db, const char *sql, sqlite3_stmt **st, char **err,
		      const char *what);
/* Runs a statement that returns no rows and readies it for new bindings. */
int resultsdb_step_done(struct resultsdb *db, sqlite3_stmt *st, char **err, const char *what);
/* A text column as a new string; NULL for SQL NULL. */
char *resultsdb_column_strdup(sqlite3_stmt *st, int col);

#endif
