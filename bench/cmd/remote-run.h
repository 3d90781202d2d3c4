/*
 * The commands' side of a target's batches: run --target (remote-run.c)
 * and the pull it ends with, shared with hitchbench pull (cmd-pull.c).
 */
#ifndef HB_REMOTE_RUN_H
#define HB_REMOTE_RUN_H

#include <stdbool.h>

#include "cmd/cmd.h"
#include "target/remote.h"
#include "cmd/runargs.h"

struct pull_opts {
	bool delete_after;     /* --delete: the batch removed on the target after a verified pull */
	bool no_import;        /* --no-import */
};

/* Opens conn to t and lists the batches in dirs (none: all) into list:
 * HB_EXIT_OK with conn open, or HB_EXIT_FAILURE, said, with conn closed.
 * Unless now, it is refused (HB_EXIT_FAILURE, said, nothing opened) while a
 * record of the host's says a batch there is expected to be measuring: the
 * connection would be a login on the target, which marks the run being
 * measured interfered (target status and pull; run --target's own look
 * comes after the expected end). */
int remote_open_list(const struct context *ctx, const struct ssh_target *t, bool now, struct ssh_conn *conn,
		     const struct argv_list *dirs, struct remote_list *list);

/* pull's and target status's TARGET [BATCH...] (argv from optind): the
 * target found in the config (into targets, the caller's to release) and
 * the batches' directories there: as the host's record of each says (a
 * batch started with --out elsewhere), else results/runs/ID. HB_EXIT_OK or
 * the exit code, said. */
int remote_args(const struct context *ctx, int argc, char **argv, const char *usage, struct target_list *targets,
		const struct ssh_target **t, struct argv_list *dirs);

/* Pulls the ended batches of l over c (one already open to the target),
 * says so batch by batch (runs, bytes, the copy's, verify's and import's
 * seconds), skips a batch not ended with a note, imports into ctx's
 * database (cmd_db_open, read-write) unless o->no_import. HB_EXIT_OK, or
 * HB_EXIT_FAILURE when any batch failed its copy, verification or import. */
int pull_ended(struct ssh_conn *c, struct context *ctx, const struct remote_list *l, const struct pull_opts *o);

/* hitchbench run --target NAME: argv is run's command line as main gave it
 * (before getopt permuted it: the options are passed on to the target as
 * they were written), a its options as parsed. The exit code. */
int remote_run(int argc, char **argv, struct context *ctx, const struct run_args *a);

#endif
