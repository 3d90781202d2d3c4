/*
 * Running a batch: every pending slot of its plan, in order, each a run of
 * the runner with its variant and switch token; the machine quieted before
 * each run; a run an observer marks invalid run once more at once when
 * asked; every event noted in runs.txt; each finished run indexed in the
 * results database; a line per run start and end with the time left.
 */
#ifndef HB_BATCHRUN_H
#define HB_BATCHRUN_H

#include <stdbool.h>

#include "batch.h"
#include "report.h"
#include "resultsdb.h"
#include "runner.h"
#include "switch.h"

struct quiet_session;

struct batch_run {
	struct batch *batch;
	const struct recipe *recipe;
	const struct switch_set *sets;  /* one per batch->tokens entry */
	struct run_request req;         /* the template: everything but the variant and switches */
	struct resultsdb *db;           /* NULL: no database */
	const char *db_path;
	bool rerun_invalid;
	bool silent;                    /* --quiet: no progress lines */
	struct quiet_session *quiet;    /* NULL: the machine is not quieted */
	int stop_fd;                    /* readable on SIGINT/SIGTERM/SIGHUP (never read) */

	/* out */
	size_t runs_done, runs_failed, runs_invalid;
	bool interrupted;
};

/* Runs what is pending. 0, -EINTR when interrupted (the run in progress
 * was stopped and noted aborted), or -errno when the batch could not go on
 * (message in err). */
int batch_run_pending(struct batch_run *br, struct strbuf *err);

/* Prints the report of every finished run of the batch in the order they
 * ran, invalid runs too (listed, never counted in a median). */
int batch_print_report(const struct batch *b, const struct metric_opts *metric, FILE *out);

#endif
