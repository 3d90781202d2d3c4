/*
 * hitchbench db (cmd-db.c): what its import does for other commands too
 * (hitchbench pull indexes what it fetched the same way).
 */
#ifndef HB_CMD_DB_H
#define HB_CMD_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "db/resultsdb.h"

/* hitchbench db import's work: the run directories args name (and their
 * batches) indexed, each line said when verbose; the runs indexed in
 * *imported (may be NULL). HB_EXIT_OK or the exit code. */
struct metric_opts;
int db_import_dirs(struct resultsdb *db, char **args, int n, const struct metric_opts *mo, bool verbose,
		   size_t *imported);

#endif
