/*
 * hitchbench run's options as a table, so the commands that are a batch
 * (run, ab through batch_hooks, calibrate, which passes a batch's settings
 * on to run) name and check them in one place: each entry says its long
 * name, whether it takes a value and what it sets in struct run_args.
 */
#ifndef HB_RUNARGS_H
#define HB_RUNARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "metrics/metrics.h"

struct batch_hooks;

/* What a batch command's command line asks for (bench/cmd/cmd-run.c). */
struct run_args {
	const char *recipe, *variants, *tokens, *resume, *db_path, *out_dir, *display, *order;
	const char *profile;       /* the quiet profile; NULL: --no-quieting */
	const char *target;        /* --target NAME: the batch runs there (remote-run.c) */
	double warmup, window;
	int rounds;
	bool have_seed, rerun, silent, verbose, have_metric_opts, plan_only, profile_given;
	bool detach;               /* --detach: the runner goes on in a session of its own */
	bool follow;               /* --follow (with --detach): the foreground follows it to its end */
	bool no_wait, no_pull;     /* with --target: return after the start; wait but do not pull */
	uint64_t seed;
	const char *flip;          /* --flip TOKEN: each run a flip run between its token and this */
	double segment_s, settle_s; /* --segment, --settle (a flip run's) */
	bool flip_by_time;         /* --flip-by-time */
	const char *relay;         /* --relay relay|duet: each round's two cells at once */
	double turn_s;             /* --turn: a relay's turn */
	bool settle_given;         /* --settle was given (a relay's default differs) */
	struct metric_opts metric;
	const struct batch_hooks *hooks;   /* NULL: hitchbench run itself */
};

enum run_option_flags {
	RUN_OPT_ARG = 1 << 0,      /* takes a value */
	RUN_OPT_BATCH = 1 << 1,    /* a setting of the batch that calibrate passes on to run */
	RUN_OPT_HOOK = 1 << 2,     /* a batch_hooks command's own (ab's): run refuses it */
};

struct run_option {
	const char *name;          /* the long option, without "--" */
	char short_name;           /* -q, -v, or 0 */
	unsigned flags;            /* enum run_option_flags */
	/* Sets it in a: HB_EXIT_OK, or the exit code after saying what is
	 * wrong (usage is the command's usage text, printed after). */
	int (*set)(struct run_args *a, const struct run_option *o, const char *arg, const char *usage);
	size_t field;              /* for the setters that set one field: its offset */
};

/* getopt_long's value of the table's (runargs.c) entry i is RUN_OPT_VAL + i,
 * but for the hook options (ab's), which share RUN_OPT_HOOK_VAL: getopt_long
 * takes a prefix of several options of one value as the first of them, so
 * "--m" stays --metric (not ambiguous with --max-rounds), as it always was. */
#define RUN_OPT_VAL 0x200
#define RUN_OPT_HOOK_VAL 0x1ff

/* getopt_long entries for the run options having every flag of need (0:
 * all), appended to opts from *n; opts has room for max entries, the
 * terminating one included, which is written after them. */
void run_options_getopt(struct option *opts, size_t *n, size_t max, unsigned need);

/* The option getopt_long returned c for (RUN_OPT_VAL + i, a short name, or
 * RUN_OPT_HOOK_VAL with the long option's name as getopt_long's longindex
 * found it in long_name), or NULL when c is none of them. */
const struct run_option *run_option_of(int c, const char *long_name);

/* The settings a resumed batch must run with, into its batch.txt pairs:
 * recipe, warmup_s, window_s, stall_ms, percentile, rerun_invalid,
 * quiet_profile and (ab's) command. */
struct kvfile;
void run_args_record(struct kvfile *kf, const struct run_args *a, const char *recipe_path,
		     double warmup, double window);
/* Reads them back from a batch being resumed into a; -EINVAL with why in
 * err (a batch of another command is resumed by that command). */
struct batch;
struct strbuf;
int run_args_read_batch(const struct batch *b, struct run_args *a, struct strbuf *err);

/* run's (or a batch_hooks command's) command line into a: the options,
 * then the recipe, variants and rounds, or the hooks' cells; run_usage is
 * run's usage text. HB_EXIT_OK (0), HB_ARGS_DONE after --help, or the exit
 * code after saying what is wrong. */
int run_args_parse(int argc, char **argv, struct run_args *a, const char *run_usage);

#endif
