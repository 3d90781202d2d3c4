/*
 * The hitchbench command table (git's habit): one cmd_<name>() per
 * subcommand, each in cmd-<name>.c, and the shared setup they all get.
 */
#ifndef HB_CMD_H
#define HB_CMD_H

#include <stdbool.h>

#include "base/message.h"
#include "db/resultsdb.h"

/* What a command's entry in the table (main.c) asks its runner for, as
 * git's RUN_SETUP does. */
enum cmd_flags {
	/* takes the shared --db PATH|URL and --machine M: the runner takes
	 * them out of argv (the command's getopt never sees them) into
	 * context.db_path, db_given and machine */
	CMD_DB_OPTION = 1 << 0,
	/* the database cmd_db_open() gives is opened read-only (SQLite
	 * mode=ro; a missing one is "no such database: PATH", exit 2; one of
	 * an older schema is refused with the pointer to 'hitchbench db upgrade') */
	CMD_DB_READ = 1 << 1,
	/* ... or read-write: made when missing, migrated */
	CMD_DB_WRITE = 1 << 2,
};

struct context {
	char *srcdir;       /* the checkout, when running from its build/; else NULL */
	char *exe_dir;      /* where this program is */
	char *hook_path;    /* hitchbench-hook.so */
	char *helper_dir;   /* hitchbench-wadlump and the other helpers */
	char *recipe_dirs[3];
	char *gamedb_dirs[3];  /* beside each recipe directory: gamedb/<game>/analysis.ini */
	char *results_dir;  /* default home of runs/ and hitchbench.db: the checkout's
			     * results/; installed, the user's XDG data directory or
			     * root's /var/lib/hitchbench; $HITCHBENCH_RESULTS first */
	char *default_db;

	/* the results database, for a command with CMD_DB_OPTION */
	const char *db_path;           /* --db PATH|URL, else default_db */
	const char *machine;           /* --machine M (a host name or machine id), or NULL */
	bool db_given;                 /* --db was on the command line */
	enum resultsdb_mode db_mode;   /* from the flags; db's subcommands narrow it */
	struct resultsdb *db;          /* cmd_db_open()'s, closed by the runner */
};

/* The command's database at ctx->db_path in ctx->db_mode, opened by the
 * table's runner once (a second call gives the same) and closed by it when
 * the command returns: the command calls it when its arguments are checked,
 * so a usage error never opens, nor makes, a database. HB_EXIT_OK with *db
 * set, or the exit code after saying what is wrong (2 no such database, 1
 * any other failure). */
int cmd_db_open(struct context *ctx, struct resultsdb **db);

int cmd_run(int argc, char **argv, struct context *ctx);
int cmd_recipes(int argc, char **argv, struct context *ctx);
int cmd_report(int argc, char **argv, struct context *ctx);
int cmd_db(int argc, char **argv, struct context *ctx);
int cmd_frames(int argc, char **argv, struct context *ctx);
int cmd_flip(int argc, char **argv, struct context *ctx);
int cmd_plot(int argc, char **argv, struct context *ctx);
int cmd_quiet(int argc, char **argv, struct context *ctx);
int cmd_thaw(int argc, char **argv, struct context *ctx);
int cmd_import(int argc, char **argv, struct context *ctx);
int cmd_export(int argc, char **argv, struct context *ctx);
int cmd_ab(int argc, char **argv, struct context *ctx);
int cmd_compare(int argc, char **argv, struct context *ctx);
int cmd_calibrate(int argc, char **argv, struct context *ctx);
int cmd_regress(int argc, char **argv, struct context *ctx);
int cmd_site(int argc, char **argv, struct context *ctx);
int cmd_matrix(int argc, char **argv, struct context *ctx);
int cmd_stalls(int argc, char **argv, struct context *ctx);
int cmd_profile(int argc, char **argv, struct context *ctx);
int cmd_interference_scan(int argc, char **argv, struct context *ctx);
int cmd_target(int argc, char **argv, struct context *ctx);
int cmd_push(int argc, char **argv, struct context *ctx);
int cmd_pull(int argc, char **argv, struct context *ctx);
int cmd_target_status(int argc, char **argv, struct context *ctx);
/* hitchbench lab (cmd-lab.c; its subcommands: cmd-lab.h) */
int cmd_lab(int argc, char **argv, struct context *ctx);

/* A command made of subcommands ("hitchbench lab submit ..."). */
struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv, struct context *ctx);
};

/* Runs the subcommand argv[1] names with argc - 1, argv + 1; with none,
 * the usage on stderr (exit 2), with --help or -h on stdout; a name not in
 * the table is a usage error "'x' is not a COMMAND subcommand" with the
 * nearest name suggested. */
int run_subcommand(const char *command, const char *usage, const struct subcommand *table, size_t n,
		   int argc, char **argv, struct context *ctx);

#endif
