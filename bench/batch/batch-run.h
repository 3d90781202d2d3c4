/*
 * Running a batch: every pending slot of its plan, in order, each a run of
 * the runner with its variant and switch token; the machine quieted before
 * each run; a run an observer marks invalid run once more at once when
 * asked; every event noted in runs.txt; each finished run indexed in the
 * results database; a line per run start and end with the time left.
 */
#ifndef HB_BATCH_RUN_H
#define HB_BATCH_RUN_H

#include <stdbool.h>

#include "batch/batch.h"
#include "report/report.h"
#include "db/labsync.h"
#include "db/resultsdb.h"
#include "runner/runner.h"
#include "switch/switch.h"

struct quiet_session;

struct batch_run {
	struct batch *batch;
	const struct recipe *recipe;
	const struct switch_set *sets;  /* one per batch->tokens entry */
	struct run_request req;         /* the template: everything but the variant and switches */
	struct resultsdb *db;           /* NULL: no database */
	const char *db_path;
	struct lab_sync *lab;           /* NULL: no lab's database to send runs to */
	bool rerun_invalid;
	bool silent;                    /* --quiet: no progress lines */
	struct quiet_session *quiet;    /* NULL: the machine is not quieted */
	int stop_fd;                    /* readable on SIGINT/SIGTERM/SIGHUP (never read) */
	/* Called when a round's last run has its result (not when a rerun of
	 * it is owed), with the round (from 1): > 0 stops the batch there
	 * (hitchbench ab's test has its verdict), < 0 is an error (message in
	 * err), 0 goes on. NULL: none. Rounds that ended before a --resume are
	 * not called again: the caller looks at them before. */
	int (*after_round)(struct batch_run *br, int round, void *data, struct strbuf *err);
	void *round_data;

	/* out */
	size_t runs_done, runs_failed, runs_invalid;
	bool interrupted;
	bool stopped;                   /* after_round stopped it */
};

/* Runs what is pending. 0, -EINTR when interrupted (the run in progress
 * was stopped and noted aborted), or -errno when the batch could not go on
 * (message in err). */
int batch_run_pending(struct batch_run *br, struct strbuf *err);

/*
 * A command that is a batch with more to it (hitchbench ab): it takes
 * run's options and setup whole (bench/cmd/cmd-run.c's batch_command()) and
 * adds its cells, a look at the batch before it runs, a call after each
 * round and the last word. hitchbench run is batch_command() without
 * hooks; *batch_dir (when not NULL) gets the batch's directory, malloc'd,
 * left alone when no batch ran (calibrate reads its batch back that way).
 */
struct batch_hooks {
	const char *name;       /* "ab": recorded in batch.txt (command=), so only it resumes the batch */
	const char *usage;
	/* One of its own options (run's table has them, run refuses them):
	 * HB_EXIT_OK or the exit code after saying what is wrong. */
	int (*option)(void *data, const char *name, const char *arg);
	/* A new batch's positional arguments after the recipe: sets the
	 * variants and tokens (as run's arguments) and the rounds. HB_EXIT_OK or
	 * the exit code after saying what is wrong. */
	int (*cells)(void *data, char **args, int n, const char **variants, const char **tokens,
		     int *rounds);
	/* The batch is made or opened, nothing run yet: 0 go on, > 0 nothing
	 * more to run (its test ended before), < 0 a failure (said). */
	int (*begin)(void *data, struct batch *b, const struct metric_opts *metric, bool resumed);
	int (*after_round)(struct batch_run *br, int round, void *data, struct strbuf *err);
	/* After the report: the exit code, from the batch's own. */
	int (*end)(void *data, struct batch *b, int ret);
	void *data;
	/* NULL, or true once the command's options ask for one document on
	 * stdout (ab --format json): the batch's report then goes to stderr */
	const bool *document;
};
struct context;
int batch_command(int argc, char **argv, struct context *ctx, const struct batch_hooks *hooks,
		  char **batch_dir);

/* Prints the report of every finished run of the batch in the order they
 * ran, invalid runs too (listed, never counted in a median). */
int batch_print_report(const struct batch *b, const struct metric_opts *metric, FILE *out);

#endif
