/*
 * The rows report and matrix work on, from run directories (their metrics
 * computed afresh) or from the results database (as stored), with the
 * interference list applied. Command-layer code: it says what went wrong
 * through error_msg() and returns an exit code.
 */
#ifndef HB_REPORTROWS_H
#define HB_REPORTROWS_H

#include <stddef.h>

#include "interference/interfered.h"
#include "report/report.h"
#include "db/resultsdb.h"
#include "run/run.h"

struct report_rows {
	struct report_row *rows;    /* point into runs or db_runs */
	size_t n;
	struct run *runs;           /* from run directories */
	struct resultsdb_run *db_runs;
	size_t n_db_runs;
};

/* RUNDIR arguments (run, batch or results directories). A directory that
 * is none of them is a usage error (2); a run that does not load is said
 * and left out, and makes the exit code 1; else HB_EXIT_OK. */
int report_rows_from_dirs(struct report_rows *rr, char **dirs, int n,
			  const struct metric_opts *opts);
/* The database's runs of game and variant (NULL: any) and of the
 * command's --machine (none: any), with their provenance when
 * with_provenance; or, with batch, the runs of that batch with their
 * provenance, as the lab's site shows it (resultsdb_list_batch(); game,
 * variant and --machine then unused), from the command's database (cmd_db_open(): --db
 * PATH|URL or the default, read-only). With one_machine (why the command
 * cannot mix machines, for the message), runs of more than one machine
 * are refused with HB_EXIT_USAGE. HB_EXIT_OK; HB_EXIT_USAGE when there is
 * no database there (none is made); else HB_EXIT_FAILURE. */
struct context;
int report_rows_from_db(struct report_rows *rr, struct context *ctx, const char *game,
			const char *variant, const char *batch, int with_provenance, const char *one_machine);
void report_rows_release(struct report_rows *rr);

/* --metric NAME: appends the metric to ids[0..M_COUNT), once (a repeated
 * name is not added twice). 0, or -EINVAL for a name no metric has. */
int metric_list_add(enum metric_id *ids, size_t *n, const char *name);

/* The runs known to be disturbed: --interfered PATH (which must exist) or,
 * when path is NULL, results/interfered.txt (which need not). HB_EXIT_OK,
 * or the exit code after saying what is wrong (a bad line: usage, 2). */
int load_interfered(const struct context *ctx, const char *path, struct interfered_list *list);

/* Prints the report of every finished run of batch b in the order they
 * ran, invalid runs too (listed, never counted in a median); a run that
 * does not load is said. 0, or what report_print() returns. */
struct batch;
int batch_print_report(const struct batch *b, const struct metric_opts *metric, FILE *out);

#endif
