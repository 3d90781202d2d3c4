/*
 * run's option table (see runargs.h): each option's check and what it
 * sets, with the words run has always said about a bad value.
 */
#include "cmd/runargs.h"
#include "cmd/cmd-run.h"
#include "batch/batch-run.h"
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "batch/batch.h"
#include "base/util.h"

#include <errno.h>
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
}

/* Reads those settings back from a batch being resumed. */
int run_args_read_batch(const struct batch *b, struct run_args *a, struct strbuf *err)
{
	const char *v;

	a->recipe = kvfile_get(&b->info, "recipe");
	if (!a->recipe ||
	    !(v = kvfile_get(&b->info, "warmup_s")) || safe_atod(v, &a->warmup) < 0 ||
	    !(v = kvfile_get(&b->info, "window_s")) || safe_atod(v, &a->window) < 0 ||
	    !(v = kvfile_get(&b->info, "stall_ms")) || safe_atod(v, &a->metric.stall_ms) < 0 ||
	    !(v = kvfile_get(&b->info, "percentile")) || percentile_def_parse(v, &a->metric.pct) < 0) {
		strbuf_addf(err, "%s/batch.txt: recipe, warmup_s, window_s, stall_ms or percentile "
			    "missing or bad", b->dir);
		return -EINVAL;
	}
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
	v = kvfile_get(&b->info, "flip_by_time");
	a->flip_by_time = v && strcmp(v, "1") == 0;
	v = kvfile_get(&b->info, "rerun_invalid");
	a->rerun = v && strcmp(v, "1") == 0;
	v = kvfile_get(&b->info, "quiet_profile");
	if (!a->profile_given) /* quieted as before, unless told otherwise */
		a->profile = v && strcmp(v, "none") != 0 ? v : NULL;
	return 0;
}
