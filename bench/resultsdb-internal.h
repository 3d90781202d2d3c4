/*
 * What the other resultsdb-*.c files need of resultsdb.c. Not for commands.
 */
#ifndef HB_RESULTSDB_INTERNAL_H
#define HB_RESULTSDB_INTERNAL_H

#include <sqlite3.h>

#include "resultsdb.h"

sqlite3 *resultsdb_sqlite(struct resultsdb *db);

#endif
