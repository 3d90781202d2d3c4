/*
 * What several commands do alike with their arguments, in one place so
 * they say it in one voice: input paths that must exist, run directories,
 * and metric names (the database --db names is the command table's:
 * cmd_db_open() in cmd.h). Command-layer code: each function says
 * what is wrong through error_msg() and returns an exit code (exitcodes.h),
 * HB_EXIT_OK when all is well.
 */
#ifndef HB_CMDARGS_H
#define HB_CMDARGS_H

#include "text/argv.h"
#include "report/report.h"
#include "run/run.h"

/* An input file or directory the user named: HB_EXIT_OK when it exists,
 * else "cannot open 'PATH': No such file or directory" and HB_EXIT_USAGE. */
int input_arg_check(const char *path);

/* RUNDIR arguments expanded (rundirs.h) into out: a missing path is
 * input_arg_check()'s, a directory that holds no run is "'X' is not a run
 * directory nor a directory of them"; both HB_EXIT_USAGE. */
int rundir_args_expand(char **args, int n, struct argv_list *out);

/* One run directory, loaded (run_load()): a missing path or a directory
 * without bench.txt is a usage error (2), a run that does not load a
 * failure (1). */
int rundir_arg_load(const char *dir, struct run *run);

/* --metric NAME: the metric's id in *id, or "unknown metric 'NAME'" with
 * the list of those there are, the usage, and HB_EXIT_USAGE. */
int metric_arg(const char *usage, const char *name, int *id);

/* --format NAME of a command that prints the formats in allowed (a mask of
 * FORMAT_BIT(REPORT_...)): the format in *out, or "unknown format 'NAME'
 * (this command prints table, json)" with the usage, and HB_EXIT_USAGE. */
#define FORMAT_BIT(f) (1u << (f))
int format_arg(const char *usage, const char *name, unsigned allowed, enum report_format *out);

/* ab's and compare --paired's options of the sequential test: --metric,
 * --effect PCT, --alpha, --beta, --max-rounds (name without the dashes)
 * into t. HB_EXIT_OK or the exit code after saying what is wrong with
 * usage. */
struct ab_test;
int ab_test_option(struct ab_test *t, const char *usage, const char *name, const char *arg);

#endif
