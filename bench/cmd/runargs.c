/*
 * run's option table (see runargs.h): each option's check and what it
 * sets, with the words run has always said about a bad value.
 */
#include "cmd/runargs.h"
#include "cmd/cmd-run.h"
#include "batch/batch-run.h"
#include "cmd/cmd.h"
#include "cmd/reportrows.h"
#include "base/exitcodes.h"
#include "batch/batch.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define FIELD(type, a, o) (*(type *)((char *)(a) + (o)->field))

static int set_string(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	FIELD(const char *, a, o) = arg;
	return HB_EXIT_OK;
}

static int set_null(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	FIELD(const char *, a, o) = NULL;
	return HB_EXIT_OK;
}

static int set_true(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	FIELD(bool, a, o) = true;
	return HB_EXIT_OK;
}

static int set_rounds(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	if (safe_atoi(arg, &a->rounds) < 0 || a->rounds < 1)
		return usage_error(usage, "--rounds wants a count of 1 or more, not '%s'", arg);
	return HB_EXIT_OK;
}

static int set_seed(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	if (safe_atou64(arg, &a->seed) < 0)
		return usage_error(usage, "--seed wants a number, not '%s'", arg);
	a->have_seed = true;
	return HB_EXIT_OK;
}

static int set_warmup(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	if (safe_atosec(arg, &a->warmup) < 0)
		return usage_error(usage, "--warmup wants seconds from 0 to %d, not '%s'", HB_MAX_DURATION_S, arg);
	a->have_metric_opts = true;
	return HB_EXIT_OK;
}

static int set_window(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	if (safe_atosec(arg, &a->window) < 0 || a->window == 0)
		return usage_error(usage, "--window wants seconds over 0, at most %d, not '%s'",
				   HB_MAX_DURATION_S, arg);
	a->have_metric_opts = true;
	return HB_EXIT_OK;
}

/* --segment and --settle: seconds, as a flip run takes them */
static int set_flip_seconds(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	double v;
	bool seg = strcmp(o->name, "segment") == 0;

	if (safe_atod(arg, &v) < 0 || !(seg ? v >= 0.05 && v <= 600 : v >= 0 && v <= 60))
		return usage_error(usage, "--%s wants seconds from %s, not '%s'", o->name,
				   seg ? "0.05 to 600" : "0 to 60", arg);
	FIELD(double, a, o) = v;
	if (strcmp(o->name, "settle") == 0)
		a->settle_given = true;
	return HB_EXIT_OK;
}

static int set_relay(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	enum relay_mode m;

	if (relay_mode_parse(arg, &m) < 0)
		return usage_error(usage, "--relay wants relay or duet, not '%s'", arg);
	a->relay = arg;
	return HB_EXIT_OK;
}

static int set_turn(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	if (safe_atod(arg, &a->turn_s) < 0 || !(a->turn_s >= 0.05 && a->turn_s <= 60))
		return usage_error(usage, "--turn wants seconds from 0.05 to 60, not '%s'", arg);
	return HB_EXIT_OK;
}

static int set_display(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	if (arg[0] != ':' && !strchr(arg, ':'))
		return usage_error(usage, "--display wants an X display like ':0', not '%s'", arg);
	a->display = arg;
	return HB_EXIT_OK;
}

static int set_stall_ms(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	double v;

	if (safe_atod(arg, &v) < 0 || !(v > 0))
		return usage_error(usage, "--stall-ms wants milliseconds > 0, not '%s'", arg);
	a->metric.stall_ms = v;
	a->have_metric_opts = true;
	return HB_EXIT_OK;
}

static int set_min_frames(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	if (min_frames_parse(arg, &a->metric.min_frames) < 0)
		return usage_error(usage, "--min-frames wants a whole number, not '%s'", arg);
	a->have_metric_opts = true;
	return HB_EXIT_OK;
}

static int set_percentile(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	if (percentile_def_parse(arg, &a->metric.pct) < 0)
		return usage_error(usage, "unknown percentile definition '%s'", arg);
	a->have_metric_opts = true;
	return HB_EXIT_OK;
}

/* --profile P, and --no-quieting as a profile of none */
static int set_profile(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	a->profile = arg;
	a->profile_given = true;
	return HB_EXIT_OK;
}

static int set_hook_option(struct run_args *a, const struct run_option *o, const char *arg, const char *usage)
{
	if (!a->hooks)
		return usage_error(usage, "--%s is an option of 'hitchbench ab', not of run", o->name);
	return a->hooks->option(a->hooks->data, o->name, arg);
}

#define AT(f) offsetof(struct run_args, f)

/* The table; the last entry's name is NULL. */
static const struct run_option run_options[] = {
	{ "rounds", 0, RUN_OPT_ARG, set_rounds, 0 },
	{ "switches", 0, RUN_OPT_ARG, set_string, AT(tokens) },
	{ "order", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_string, AT(order) },
	{ "seed", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_seed, 0 },
	{ "rerun-invalid", 0, RUN_OPT_BATCH, set_true, AT(rerun) },
	{ "resume", 0, RUN_OPT_ARG, set_string, AT(resume) },
	{ "warmup", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_warmup, 0 },
	{ "window", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_window, 0 },
	{ "db", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_string, AT(db_path) },
	{ "no-db", 0, RUN_OPT_BATCH, set_null, AT(db_path) },
	{ "out", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_string, AT(out_dir) },
	{ "display", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_display, 0 },
	{ "stall-ms", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_stall_ms, 0 },
	{ "percentile", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_percentile, 0 },
	{ "min-frames", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_min_frames, 0 },
	{ "quiet", 'q', RUN_OPT_BATCH, set_true, AT(silent) },
	{ "plan", 0, 0, set_true, AT(plan_only) },
	{ "profile", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_profile, 0 },
	{ "no-quieting", 0, RUN_OPT_BATCH, set_profile, 0 },
	{ "verbose", 'v', RUN_OPT_BATCH, set_true, AT(verbose) },
	{ "detach", 0, 0, set_true, AT(detach) },
	{ "follow", 0, 0, set_true, AT(follow) },
	{ "target", 0, RUN_OPT_ARG, set_string, AT(target) },
	{ "no-wait", 0, 0, set_true, AT(no_wait) },
	{ "no-pull", 0, 0, set_true, AT(no_pull) },
	{ "flip", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_string, AT(flip) },
	{ "segment", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_flip_seconds, AT(segment_s) },
	{ "settle", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_flip_seconds, AT(settle_s) },
	{ "flip-by-time", 0, RUN_OPT_BATCH, set_true, AT(flip_by_time) },
	{ "relay", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_relay, 0 },
	{ "turn", 0, RUN_OPT_ARG | RUN_OPT_BATCH, set_turn, 0 },
	/* ab's own (batch_hooks.option) */
	{ "metric", 0, RUN_OPT_ARG | RUN_OPT_HOOK, set_hook_option, 0 },
	{ "effect", 0, RUN_OPT_ARG | RUN_OPT_HOOK, set_hook_option, 0 },
	{ "alpha", 0, RUN_OPT_ARG | RUN_OPT_HOOK, set_hook_option, 0 },
	{ "beta", 0, RUN_OPT_ARG | RUN_OPT_HOOK, set_hook_option, 0 },
	{ "max-rounds", 0, RUN_OPT_ARG | RUN_OPT_HOOK, set_hook_option, 0 },
	{ "format", 0, RUN_OPT_ARG | RUN_OPT_HOOK, set_hook_option, 0 },
	{ "design", 0, RUN_OPT_ARG | RUN_OPT_HOOK, set_hook_option, 0 },
	{ "max-minutes", 0, RUN_OPT_ARG | RUN_OPT_HOOK, set_hook_option, 0 },
	{ NULL, 0, 0, NULL, 0 },
};

void run_options_getopt(struct option *opts, size_t *n, size_t max, unsigned need)
{
	for (size_t i = 0; run_options[i].name; i++) {
		const struct run_option *o = &run_options[i];

		if ((o->flags & need) != need)
			continue;
		if (*n + 1 >= max)
			abort(); /* a table too small for the options: a bug, not input */
		opts[(*n)++] = (struct option){ o->name, o->flags & RUN_OPT_ARG ? required_argument : no_argument,
						NULL, o->flags & RUN_OPT_HOOK ? RUN_OPT_HOOK_VAL : RUN_OPT_VAL + (int)i };
	}
	opts[*n] = (struct option){ NULL, 0, NULL, 0 };
}

const struct run_option *run_option_of(int c, const char *long_name)
{
	for (size_t i = 0; run_options[i].name; i++) {
		const struct run_option *o = &run_options[i];

		if (c == RUN_OPT_HOOK_VAL) {
			if ((o->flags & RUN_OPT_HOOK) && long_name && strcmp(o->name, long_name) == 0)
				return o;
		} else if (RUN_OPT_VAL + (int)i == c || (o->short_name && o->short_name == c)) {
			return o;
		}
	}
	return NULL;
}

/* The settings a resumed batch must run with, kept in batch.txt. */
void run_args_record(struct kvfile *kf, const struct run_args *a, const char *recipe_path,
		     double warmup, double window)
{
	kvfile_add(kf, "recipe", recipe_path);
	kvfile_addf(kf, "warmup_s", "%g", warmup);
	kvfile_addf(kf, "window_s", "%g", window);
	kvfile_addf(kf, "stall_ms", "%g", a->metric.stall_ms);
	kvfile_add(kf, "percentile", percentile_def_name(a->metric.pct));
	kvfile_addf(kf, "min_frames", "%u", a->metric.min_frames);
	kvfile_add(kf, "rerun_invalid", a->rerun ? "1" : "0");
	kvfile_add(kf, "quiet_profile", a->profile ? a->profile : "none");
	if (a->hooks)
		kvfile_add(kf, "command", a->hooks->name);
	if (a->flip) {
		kvfile_add(kf, "flip", a->flip);
		kvfile_addf(kf, "flip_segment_s", "%g", a->segment_s);
		kvfile_addf(kf, "flip_settle_s", "%g", a->settle_s);
		kvfile_add(kf, "flip_by_time", a->flip_by_time ? "1" : "0");
	}
	if (a->relay) {
		kvfile_add(kf, "relay", a->relay);
		kvfile_addf(kf, "relay_turn_s", "%g", a->turn_s);
		kvfile_addf(kf, "relay_settle_s", "%g", a->settle_s);
	}
}

/* Reads those settings back from a batch being resumed. */
int run_args_read_batch(const struct batch *b, struct run_args *a, struct strbuf *err)
{
	const char *v;

	a->recipe = kvfile_get(&b->info, "recipe");
	if (!a->recipe ||
	    !(v = kvfile_get(&b->info, "warmup_s")) || safe_atod(v, &a->warmup) < 0 ||
	    !(v = kvfile_get(&b->info, "window_s")) || safe_atod(v, &a->window) < 0) {
		strbuf_addf(err, "%s/batch.txt: recipe, warmup_s or window_s missing or bad", b->dir);
		return -EINVAL;
	}
	if (batch_metric_opts(b, &a->metric, err) < 0)
		return -EINVAL;
	/* a batch of ab is resumed by ab, which goes on with its test */
	v = kvfile_get(&b->info, "command");
	if ((v || a->hooks) && (!v || !a->hooks || strcmp(v, a->hooks->name) != 0)) {
		strbuf_addf(err, "it is a batch of 'hitchbench %s': resume it with 'hitchbench %s --resume'",
			    v ? v : "run", v ? v : "run");
		return -EINVAL;
	}
	a->flip = kvfile_get(&b->info, "flip");
	if (a->flip && (!(v = kvfile_get(&b->info, "flip_segment_s")) || safe_atod(v, &a->segment_s) < 0 ||
			!(v = kvfile_get(&b->info, "flip_settle_s")) || safe_atod(v, &a->settle_s) < 0)) {
		strbuf_addf(err, "%s/batch.txt: a flip batch without flip_segment_s or flip_settle_s", b->dir);
		return -EINVAL;
	}
	a->relay = kvfile_get(&b->info, "relay");
	if (a->relay && (relay_mode_parse(a->relay, &(enum relay_mode){ 0 }) < 0 ||
			 !(v = kvfile_get(&b->info, "relay_turn_s")) || safe_atod(v, &a->turn_s) < 0 ||
			 !(v = kvfile_get(&b->info, "relay_settle_s")) || safe_atod(v, &a->settle_s) < 0)) {
		strbuf_addf(err, "%s/batch.txt: a relay batch without a good relay, relay_turn_s or relay_settle_s",
			    b->dir);
		return -EINVAL;
	}
	v = kvfile_get(&b->info, "flip_by_time");
	a->flip_by_time = v && strcmp(v, "1") == 0;
	v = kvfile_get(&b->info, "rerun_invalid");
	a->rerun = v && strcmp(v, "1") == 0;
	v = kvfile_get(&b->info, "quiet_profile");
	if (!a->profile_given) /* quieted as before, unless told otherwise */
		a->profile = v && strcmp(v, "none") != 0 ? v : NULL;
	return 0;
}

static int parse_options(int argc, char **argv, struct run_args *a, const char *usage)
{
	struct option opts[48];
	size_t n = 0;
	int c, r, which = 0;

	run_options_getopt(opts, &n, ARRAY_SIZE(opts) - 1, 0);
	opts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[n] = (struct option){ NULL, 0, NULL, 0 };
	while ((c = getopt_long(argc, argv, "hqv", opts, &which)) != -1) {
		const struct run_option *o = run_option_of(c, opts[which].name);

		if (o) {
			r = o->set(a, o, optarg, usage);
			if (r != HB_EXIT_OK)
				return r;
		} else if (c == 'h') {
			fputs(usage, stdout);
			switch_help(stdout);
			return HB_ARGS_DONE;
		} else {
			fputs(usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	return 0;
}

/* A new batch's positional arguments: RECIPE ["VARIANT..." [ROUNDS]], and
 * the switches of ENVS (RERUN_INTERFERED=1 is --rerun-invalid). */
static int new_batch_args(int argc, char **argv, struct run_args *a, const char *usage)
{
	const char *env;
	int rounds = 0;

	if (optind >= argc || argc - optind > 3)
		return usage_error(usage, "run wants a recipe, then at most the variants and the rounds");
	a->recipe = argv[optind];
	if (argc - optind >= 2)
		a->variants = argv[optind + 1];
	if (argc - optind == 3) {
		if (safe_atoi(argv[optind + 2], &rounds) < 0 || rounds < 1)
			return usage_error(usage, "ROUNDS wants a count of 1 or more, not '%s'", argv[optind + 2]);
		if (a->rounds && a->rounds != rounds)
			return usage_error(usage, "ROUNDS %d and --rounds %d disagree", rounds, a->rounds);
		a->rounds = rounds;
	}
	if (!a->rounds)
		a->rounds = 1;
	env = getenv("ENVS");
	if (env && a->tokens && strcmp(env, a->tokens) != 0)
		return usage_error(usage, "ENVS='%s' and --switches '%s' disagree", env, a->tokens);
	if (!a->tokens)
		a->tokens = env;
	env = getenv("RERUN_INTERFERED");
	if (env && strcmp(env, "1") == 0)
		a->rerun = true;
	return 0;
}

/* The options and arguments, and what they ask of each other (the parser
 * contract, exitcodes.h). */
int run_args_parse(int argc, char **argv, struct run_args *a, const char *run_usage)
{
	const char *usage = a->hooks ? a->hooks->usage : run_usage;
	int r = parse_options(argc, argv, a, usage);

	if (r != 0)
		return r;
	if (a->resume && a->plan_only)
		return usage_error(usage, "--plan is for a new batch; a batch's plan is in its batch.txt");
	if (a->target && (a->hooks || a->detach || a->plan_only))
		return usage_error(usage, "--target is run's, and starts the batch detached on the target: "
				   "no --detach or --plan with it");
	if (a->follow && !a->detach)
		return usage_error(usage, "--follow is for --detach");
	if ((a->no_wait || a->no_pull) && !a->target)
		return usage_error(usage, "--no-wait and --no-pull are for a batch on a target (--target NAME)");
	if (a->hooks && (a->rounds || a->tokens || a->order || a->have_seed || a->plan_only || a->flip ||
			 a->relay))
		return usage_error(usage, "%s makes its own plan: no --rounds, --switches, --order, --seed, "
				   "--plan, --flip or --relay (ab: --design)", a->hooks->name);
	if (a->resume) {
		if (optind < argc || a->tokens || a->order || a->have_seed || a->rounds || a->have_metric_opts ||
		    a->flip || a->relay)
			return usage_error(usage, "--resume runs the batch as it was planned: "
					   "no recipe, variants, rounds, switches, order or windows with it");
		return 0;
	}
	if (a->hooks) {
		if (optind >= argc)
			return usage_error(usage, "%s wants a recipe first", a->hooks->name);
		a->recipe = argv[optind];
		return a->hooks->cells(a->hooks->data, argv + optind + 1, argc - optind - 1, a);
	}
	return new_batch_args(argc, argv, a, usage);
}
