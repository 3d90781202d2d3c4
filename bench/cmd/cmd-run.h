/*
 * hitchbench run as a command other commands are built on (cmd-run.c):
 * a batch made or resumed from run's options, run, reported and stored.
 */
#ifndef HB_CMD_RUN_H
#define HB_CMD_RUN_H

#include <stdbool.h>

#include "batch/batch-run.h"

/*
 * A command that is a batch with more to it (hitchbench ab): it takes
 * run's options and setup whole (batch_command(), cmd-run.c) and
 * adds its cells, a look at the batch before it runs, a call after each
 * round and the last word. hitchbench run is batch_command() without
 * hooks; *batch_dir (when not NULL) gets the batch's directory, malloc'd,
 * left alone when no batch ran (calibrate reads its batch back that way).
 */
struct run_args;

struct batch_hooks {
	const char *name;       /* "ab": recorded in batch.txt (command=), so only it resumes the batch */
	const char *usage;
	/* One of its own options (run's table has them, run refuses them):
	 * HB_EXIT_OK or the exit code after saying what is wrong. */
	int (*option)(void *data, const char *name, const char *arg);
	/* A new batch's positional arguments after the recipe: sets the
	 * variants and tokens (as run's arguments) and the rounds in a (and
	 * may set its flip, segment and window). HB_EXIT_OK or
	 * the exit code after saying what is wrong. */
	int (*cells)(void *data, char **args, int n, struct run_args *a);
	/* The batch is made or opened, nothing run yet: 0 go on, > 0 nothing
	 * more to run (its test ended before), < 0 a failure (said): -EINVAL
	 * for a bad file or state (exit 2), another -errno (exit 1). */
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

#endif
