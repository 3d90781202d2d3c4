/*
 * hitchbench run: a batch. Every variant with every switch token once per
 * round, the order balanced across rounds, in one boot; or --resume of a
 * batch that was interrupted. Everything is checked before the first run
 * starts; then batchrun.c runs the plan.
 */
#include "argv.h"
#include "batch.h"
#include "batchrun.h"
#include "cmd.h"
#include "exitcodes.h"
#include "fsroot.h"
#include "gameuser.h"
#include "procwatch.h"
#include "quietrun.h"
#include "recipe.h"
#include "report.h"
#include "resultsdb.h"
#include "run.h"
#include "runner.h"
#include "stage.h"
#include "switch.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

static const char run_usage[] =
	"usage: hitchbench run RECIPE [\"VARIANT...\" [ROUNDS]] [--switches \"TOKEN...\"] [options]\n"
	"       hitchbench run --resume BATCH [--db PATH | --no-db] [--display :N]\n"
	"                      [--profile P | --no-quieting] [--quiet] [-v]\n"
	"\n"
	"Each round runs every variant with every switch token once; the order inside a\n"
	"round moves from round to round so that no run always comes first.\n"
	"\n"
	"  RECIPE            a name in recipes/ (dsda-doom) or a path to a recipe file\n"
	"  VARIANT...        variants of the recipe, in one argument (default: its\n"
	"                    default_variant; \"base\" is the recipe alone)\n"
	"  ROUNDS            rounds (default 1; also --rounds N)\n"
	"  --switches TOKENS switch tokens, '-' for none, else NAME=VALUE terms joined\n"
	"                    by '+' (default: $ENVS, else '-'); the switches are below\n"
	"  --order rotate|shuffle  how rounds are ordered (default rotate); --seed N\n"
	"                    for shuffle (default: random, recorded in batch.txt)\n"
	"  --rerun-invalid   run a run that an observer marked invalid once more, at\n"
	"                    once (also RERUN_INTERFERED=1)\n"
	"  --resume BATCH    finish an interrupted batch (its directory or id)\n"
	"  --warmup S        seconds after the first frame before the window (default: the recipe's)\n"
	"  --window S        seconds measured (default: the recipe's)\n"
	"  --db PATH         results database (default results/hitchbench.db); --no-db: none\n"
	"  --out DIR         batches go under DIR (default results/runs)\n"
	"  --display :N      use this running X server instead of starting Xvfb\n"
	"  --stall-ms MS     a frame over MS is a stall (default 100)\n"
	"  --percentile D    percentile definition for p50/p99/p99.9 (default nearest-rank)\n"
	"  --quiet           no progress lines (the report and errors only)\n"
	"  --plan            print the order the batch would run in, and run nothing\n"
	"  --profile P       quiet the machine before each run by profile P, a name in\n"
	"                    recipes/quiet/ or a path (default: default); the machine is\n"
	"                    thawed when the batch ends, however it ends\n"
	"  --no-quieting     leave the machine as it is\n"
	"\n"
	"switches:\n";

struct run_args {
	const char *recipe, *variants, *tokens, *resume, *db_path, *out_dir, *display, *order;
	const char *profile;       /* the quiet profile; NULL: --no-quieting */
	double warmup, window;
	int rounds;
	bool have_seed, rerun, silent, verbose, have_metric_opts, plan_only, profile_given;
	uint64_t seed;
	struct metric_opts metric;
	const struct batch_hooks *hooks;   /* NULL: hitchbench run itself */
};

static int positive_double(const char *s, bool allow_zero, double *out)
{
	double v;

	if (safe_atod(s, &v) < 0 || v < 0 || (!allow_zero && v == 0))
		return -EINVAL;
	*out = v;
	return 0;
}

static void print_progress(const char *line)
{
	fprintf(stderr, "hitchbench:   %s\n", line);
}

static int usage_with_switches(const char *fmt, const char *arg)
{
	error_msg(fmt, arg);
	fputs("hitchbench: the switches are:\n", stderr);
	switch_help(stderr);
	return HB_EXIT_USAGE;
}

static int setup_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	/* orphans of the game come to us, so none escapes the end-of-run check */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* A second view of the pending signals without SIGCHLD, for waits that
 * only look (poll) and must not wake for every child that exits: the
 * signal stays pending for the runner's signalfd to read. */
static int stop_signal_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* getopt's value of an option batch_hooks.option takes */
#define HOOK_OPTION 0x100

static int parse_args(int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "switches", required_argument, NULL, 'S' },
		{ "order", required_argument, NULL, 'O' },
		{ "seed", required_argument, NULL, 'e' },
		{ "rerun-invalid", no_argument, NULL, 'R' },
		{ "resume", required_argument, NULL, 'u' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "window", required_argument, NULL, 'w' },
		{ "db", required_argument, NULL, 'd' },
		{ "no-db", no_argument, NULL, 'N' },
		{ "out", required_argument, NULL, 'o' },
		{ "display", required_argument, NULL, 'D' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "percentile", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "plan", no_argument, NULL, 'P' },
		{ "profile", required_argument, NULL, 'Q' },
		{ "no-quieting", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		/* ab's own (batch_hooks.option) */
		{ "metric", required_argument, NULL, HOOK_OPTION },
		{ "effect", required_argument, NULL, HOOK_OPTION },
		{ "alpha", required_argument, NULL, HOOK_OPTION },
		{ "beta", required_argument, NULL, HOOK_OPTION },
		{ "max-rounds", required_argument, NULL, HOOK_OPTION },
		{ NULL, 0, NULL, 0 },
	};
	const char *usage = a->hooks ? a->hooks->usage : run_usage, *env;
	int c, rounds = 0, which = 0, r;

	while ((c = getopt_long(argc, argv, "hqv", opts, &which)) != -1) {
		switch (c) {
		case HOOK_OPTION:
			if (!a->hooks)
				return usage_error(usage, "--%s is an option of 'hitchbench ab', not of run",
						   opts[which].name);
			r = a->hooks->option(a->hooks->data, opts[which].name, optarg);
			if (r != HB_EXIT_OK)
				return r;
			break;
		case 'r':
			if (safe_atoi(optarg, &a->rounds) < 0 || a->rounds < 1)
				return usage_error(usage, "--rounds wants a count of 1 or more, not '%s'", optarg);
			break;
		case 'S':
			a->tokens = optarg;
			break;
		case 'O':
			a->order = optarg;
			break;
		case 'e':
			if (safe_atou64(optarg, &a->seed) < 0)
				return usage_error(usage, "--seed wants a number, not '%s'", optarg);
			a->have_seed = true;
			break;
		case 'R':
			a->rerun = true;
			break;
		case 'u':
			a->resume = optarg;
			break;
		case 'W':
			if (safe_atosec(optarg, &a->warmup) < 0)
				return usage_error(usage, "--warmup wants seconds from 0 to %d, not '%s'",
						   HB_MAX_DURATION_S, optarg);
			a->have_metric_opts = true;
			break;
		case 'w':
			if (safe_atosec(optarg, &a->window) < 0 || a->window == 0)
				return usage_error(usage, "--window wants seconds over 0, at most %d, not '%s'",
						   HB_MAX_DURATION_S, optarg);
			a->have_metric_opts = true;
			break;
		case 'd':
			a->db_path = optarg;
			break;
		case 'N':
			a->db_path = NULL;
			break;
		case 'o':
			a->out_dir = optarg;
			break;
		case 'D':
			if (optarg[0] != ':' && !strchr(optarg, ':'))
				return usage_error(usage, "--display wants an X display like ':0', not '%s'", optarg);
			a->display = optarg;
			break;
		case 's':
			if (positive_double(optarg, false, &a->metric.stall_ms) < 0)
				return usage_error(usage, "--stall-ms wants milliseconds > 0, not '%s'", optarg);
			a->have_metric_opts = true;
			break;
		case 'p':
			if (percentile_def_parse(optarg, &a->metric.pct) < 0)
				return usage_error(usage, "unknown percentile definition '%s'", optarg);
			a->have_metric_opts = true;
			break;
		case 'q':
			a->silent = true;
			break;
		case 'P':
			a->plan_only = true;
			break;
		case 'Q':
			a->profile = optarg;
			a->profile_given = true;
			break;
		case 'n':
			a->profile = NULL;
			a->profile_given = true;
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			switch_help(stdout);
			return -1;
		default:
			fputs(usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (a->resume && a->plan_only)
		return usage_error(usage, "--plan is for a new batch; a batch's plan is in its batch.txt");
	if (a->hooks && (a->rounds || a->tokens || a->order || a->have_seed || a->plan_only))
		return usage_error(usage, "%s makes its own plan: no --rounds, --switches, --order, --seed "
				   "or --plan", a->hooks->name);
	if (a->resume) {
		if (optind < argc || a->tokens || a->order || a->have_seed || a->rounds || a->have_metric_opts)
			return usage_error(usage, "--resume runs the batch as it was planned: "
					   "no recipe, variants, rounds, switches, order or windows with it");
		return 0;
	}
	if (a->hooks) {
		if (optind >= argc)
			return usage_error(usage, "%s wants a recipe first", a->hooks->name);
		a->recipe = argv[optind];
		return a->hooks->cells(a->hooks->data, argv + optind + 1, argc - optind - 1, &a->variants,
				       &a->tokens, &a->rounds);
	}
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

/* The settings a resumed batch must run with, kept in batch.txt. */
static void options_record(struct kvfile *kf, const struct run_args *a, const char *recipe_path,
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
}

/* Reads those settings back from a batch being resumed. */
static int options_read(const struct batch *b, struct run_args *a, struct strbuf *err)
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
	v = kvfile_get(&b->info, "rerun_invalid");
	a->rerun = v && strcmp(v, "1") == 0;
	v = kvfile_get(&b->info, "quiet_profile");
	if (!a->profile_given) /* quieted as before, unless told otherwise */
		a->profile = v && strcmp(v, "none") != 0 ? v : NULL;
	return 0;
}

static int check_variants(const struct recipe *rc, const struct argv_list *v)
{
	for (size_t i = 0; i < v->n; i++) {
		struct strbuf names = STRBUF_INIT;

		/* "base" is the recipe alone, unless the recipe defines a [variant base] */
		if (recipe_find_variant(rc, v->v[i]) || strcmp(v->v[i], "base") == 0)
			continue;
		strbuf_addstr(&names, "base");
		for (size_t k = 0; k < rc->n_variants; k++)
			if (strcmp(rc->variants[k].name, "base") != 0)
				strbuf_addf(&names, ", %s", rc->variants[k].name);
		error_msg("recipe '%s' has no variant '%s' (it has: %s)", rc->name, v->v[i], names.buf);
		strbuf_release(&names);
		return -EINVAL;
	}
	for (size_t i = 0; i < v->n; i++)
		for (size_t k = 0; k < i; k++)
			if (strcmp(v->v[i], v->v[k]) == 0) {
				error_msg("variant '%s' is named twice", v->v[i]);
				return -EINVAL;
			}
	return 0;
}

static int load_recipe(const char *arg, struct context *ctx, struct recipe *recipe, char **path)
{
	struct strbuf err = STRBUF_INIT;
	int r = 0;

	*path = recipe_resolve(arg, (const char *const *)ctx->recipe_dirs);
	if (!*path) {
		struct strbuf where = STRBUF_INIT;

		for (size_t i = 0; i < ARRAY_SIZE(ctx->recipe_dirs) && ctx->recipe_dirs[i]; i++)
			strbuf_addf(&where, "%s%s", i ? ", " : "", ctx->recipe_dirs[i]);
		error_msg("no recipe '%s' (looked in %s)", arg, where.buf);
		strbuf_release(&where);
		return -ENOENT;
	}
	if (recipe_load(*path, recipe, &err) < 0) {
		fprintf(stderr, "%s\n", err.buf);
		r = -EINVAL;
	}
	strbuf_release(&err);
	return r;
}

/* --plan: the order a batch would run in (with --seed, exactly). */
static int print_plan(const struct run_args *a, const struct recipe *rc,
		      const struct argv_list *variants, const struct switch_set *sets, size_t n_sets)
{
	size_t n = (size_t)a->rounds * variants->n * n_sets;
	struct batch_slot *slots = zalloc(sizeof(*slots) * n);
	enum batch_order order = BATCH_ROTATE;

	if (a->order)
		batch_order_parse(a->order, &order);
	if (order == BATCH_SHUFFLE && !a->have_seed)
		fprintf(stderr, "hitchbench: note: without --seed a shuffled batch gets its own order\n");
	batch_plan(variants->n, n_sets, a->rounds, order, a->seed, slots);
	printf("# %s: %zu run(s), order %s%s\n", rc->name, n, batch_order_name(order),
	       order == BATCH_SHUFFLE && a->have_seed ? " (this seed)" : "");
	printf("# index round position run token\n");
	for (size_t i = 0; i < n; i++) {
		char *name = batch_run_name(variants->v[slots[i].variant], sets[slots[i].token].label);

		printf("%d %d %d %s %s\n", slots[i].index, slots[i].round, slots[i].position, name,
		       sets[slots[i].token].token);
		free(name);
	}
	free(slots);
	return HB_EXIT_OK;
}

int cmd_run(int argc, char **argv, struct context *ctx)
{
	return batch_command(argc, argv, ctx, NULL, NULL);
}

int batch_command(int argc, char **argv, struct context *ctx, const struct batch_hooks *hooks,
		  char **batch_dir)
{
	struct run_args a = { .metric = METRIC_OPTS_DEFAULT, .warmup = -1, .window = -1,
			      .db_path = ctx->default_db, .profile = "default", .hooks = hooks };
	struct quiet_session quiet = { 0 };
	struct strbuf notes = STRBUF_INIT;
	struct batch_run br = { 0 };
	struct batch batch;
	struct recipe recipe;
	struct game_user user = { 0 };
	struct resultsdb *db = NULL;
	struct strbuf err = STRBUF_INIT;
	struct switch_set *sets = NULL;
	struct argv_list variants;
	char *recipe_path = NULL, *default_out = NULL, *dberr = NULL, *cmdline = NULL;
	const char *why = NULL;
	size_t n_sets = 0;
	int ret = HB_EXIT_OK, r, signal_fd = -1, stop_fd = -1;

	a.metric.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	batch_init(&batch);
	recipe_init(&recipe);
	argv_init(&variants);
	r = parse_args(argc, argv, &a);
	if (r != 0) {
		ret = r < 0 ? HB_EXIT_OK : r;
		goto out;
	}
	default_out = xasprintf("%s/runs", ctx->results_dir);
	/* What this process starts (helpers, the X server, quieting's commands)
	 * is the harness's: the interference watcher lets it pass. The game's
	 * environment is built afresh and carries the run's marker instead. */
	{
		char pid[24];

		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv(PROCWATCH_HARNESS_ENV, pid, 0);
	}

	/* Everything is checked before anything starts. */
	if (a.resume) {
		if (batch_open(&batch, a.resume, a.out_dir ? a.out_dir : default_out, &err) < 0 ||
		    options_read(&batch, &a, &err) < 0) {
			error_msg("cannot resume '%s': %s", a.resume, err.buf);
			ret = HB_EXIT_USAGE;
			goto out;
		}
	}
	if (load_recipe(a.recipe, ctx, &recipe, &recipe_path) < 0) {
		ret = HB_EXIT_USAGE;
		goto out;
	}
	if (a.resume) {
		for (size_t i = 0; i < batch.variants.n; i++)
			argv_push(&variants, batch.variants.v[i]);
	} else if (argv_split(&variants, a.variants ? a.variants : recipe.default_variant, &why) < 0 ||
		   variants.n == 0) {
		ret = usage_error(hooks ? hooks->usage : run_usage, "variants '%s': %s", a.variants, why ? why : "none named");
		goto out;
	}
	if (check_variants(&recipe, &variants) < 0) {
		ret = HB_EXIT_USAGE;
		goto out;
	}
	if (a.resume) {
		struct strbuf list = STRBUF_INIT;

		for (size_t i = 0; i < batch.tokens.n; i++)
			strbuf_addf(&list, "%s%s", i ? " " : "", batch.tokens.v[i]);
		r = switch_tokens_parse(list.buf, &sets, &n_sets, &err);
		strbuf_release(&list);
	} else {
		r = switch_tokens_parse(a.tokens, &sets, &n_sets, &err);
	}
	if (r < 0) {
		ret = usage_with_switches("%s", err.buf);
		goto out;
	}
	if (!a.resume && a.order && batch_order_parse(a.order, &(enum batch_order){ 0 }) < 0) {
		ret = usage_error(run_usage, "--order wants rotate or shuffle, not '%s'", a.order);
		goto out;
	}
	if (a.plan_only) {
		ret = print_plan(&a, &recipe, &variants, sets, n_sets);
		goto out;
	}
	if (access(ctx->hook_path, R_OK) < 0) {
		error_msg("cannot find the frame hook '%s': build it with 'make'", ctx->hook_path);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if (switch_sets_ready(sets, n_sets, ctx->helper_dir, &err) < 0) {
		error_msg("%s", err.buf);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if (game_user_resolve(&user, &err) < 0) {
		error_msg("%s", err.buf);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	/* the database is opened first, so a bad path fails now, not after an hour */
	if (a.db_path && resultsdb_open(a.db_path, &db, &dberr) < 0) {
		error_msg("cannot open the results database '%s': %s", a.db_path, dberr);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if (stage_sweep() > 0)
		warn_msg("removed the staging directories of runners that were killed");
	signal_fd = setup_signals();
	if (signal_fd >= 0) {
		stop_fd = stop_signal_fd();
		if (stop_fd < 0) {
			close(signal_fd);
			signal_fd = stop_fd;
		}
	}
	if (signal_fd < 0) {
		error_msg("cannot set up signal handling: %s", strerror(-signal_fd));
		ret = HB_EXIT_FAILURE;
		goto out;
	}

	/* the journal first: what a killed runner left is restored before anything */
	if (a.profile) {
		r = quiet_session_start(&quiet, a.profile, ctx->recipe_dirs, ARRAY_SIZE(ctx->recipe_dirs),
					&notes, &err);
		if (notes.len)
			fprintf(stderr, "hitchbench: thaw: %s", notes.buf);
		if (r < 0) {
			error_msg("cannot quiet the machine: %s", err.buf);
			ret = r == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
			goto out;
		}
		strbuf_reset(&err);
	}
	if (!a.resume) {
		struct kvfile options;
		struct argv_list tokens;
		struct batch_spec spec = {
			.game = recipe.name, .variants = &variants, .tokens = &tokens,
			.rounds = a.rounds, .options = &options,
		};

		if (a.order)
			batch_order_parse(a.order, &spec.order);
		spec.seed = a.seed;
		if (!a.have_seed && getrandom(&spec.seed, sizeof(spec.seed), 0) != sizeof(spec.seed))
			spec.seed = (uint64_t)getpid() * 2654435761u ^ (uint64_t)time(NULL);
		if (a.warmup < 0)
			a.warmup = recipe.warmup_s;
		if (a.window <= 0)
			a.window = recipe.window_s;
		argv_init(&tokens);
		for (size_t i = 0; i < n_sets; i++)
			argv_push(&tokens, sets[i].token);
		kvfile_init(&options);
		options_record(&options, &a, recipe_path, a.warmup, a.window);
		cmdline = argv_join(argv - 1); /* main's argv: the whole command */
		kvfile_add(&options, "harness_command", cmdline);
		r = batch_create(&batch, a.out_dir ? a.out_dir : default_out, &spec, &err);
		kvfile_release(&options);
		argv_release(&tokens);
		if (r < 0) {
			error_msg("%s", err.buf);
			ret = HB_EXIT_FAILURE;
			goto out;
		}
	} else {
		const char *boot = kvfile_get(&batch.info, "boot_id");
		char now[64];

		if (boot && fsroot_read_line("proc/sys/kernel/random/boot_id", now, sizeof(now)) == 0 &&
		    strcmp(boot, now) != 0)
			warn_msg("batch '%s' started in another boot (%s): its runs from before and after "
				 "this resume are not same-boot comparisons", batch.id, boot);
		cmdline = argv_join(argv - 1);
	}
	if (!a.silent)
		fprintf(stderr, "hitchbench: batch %s: %zu variant(s) x %zu switch token(s) x %d round(s), "
			"%zu run(s) to go, order %s (seed %llu)\n", batch.id, batch.variants.n,
			batch.tokens.n, batch.rounds, batch_pending(&batch), batch_order_name(batch.order),
			(unsigned long long)batch.seed);

	br.batch = &batch;
	br.recipe = &recipe;
	br.sets = sets;
	br.db = db;
	br.db_path = a.db_path;
	br.rerun_invalid = a.rerun;
	br.silent = a.silent;
	br.quiet = a.profile ? &quiet : NULL;
	br.stop_fd = stop_fd;
	br.req = (struct run_request){
		.recipe = &recipe, .warmup_s = a.warmup, .window_s = a.window, .out_dir = batch.dir,
		.display = a.display, .hook_path = ctx->hook_path, .helper_dir = ctx->helper_dir,
		.harness_command = cmdline, .user = &user, .metric = a.metric, .signal_fd = signal_fd,
		.noise_limits = a.profile ? &quiet.profile.noise : NULL,
		.noise_profile = a.profile ? quiet.profile.path : NULL,
		.verbose = a.verbose, .progress = a.silent ? NULL : print_progress,
	};
	strbuf_reset(&err);
	r = 0;
	if (hooks) {
		/* the test so far (a resumed batch's rounds), and maybe its end */
		r = hooks->begin(hooks->data, &batch, &a.metric, a.resume != NULL);
		br.after_round = hooks->after_round;
		br.round_data = hooks->data;
		br.stopped = r > 0;
	}
	if (r < 0)
		ret = HB_EXIT_FAILURE;
	else if (!br.stopped)
		r = batch_run_pending(&br, &err);
	if (r == -EINTR) {
		error_msg("interrupted: the game and its helpers are stopped; %zu finished run(s) kept; "
			  "'hitchbench run --resume %s' finishes the batch", br.runs_done, batch.dir);
		ret = HB_EXIT_INTERRUPTED;
	} else if (r < 0 && err.len) {
		error_msg("%s", err.buf);
		ret = HB_EXIT_FAILURE;
	}
	/* thawed however the batch ended; signals stay blocked, so a second
	 * Ctrl-C cannot cut the thaw short */
	strbuf_reset(&notes);
	if (quiet_session_end(&quiet, &notes) < 0) {
		error_msg("the machine is not fully thawed ('hitchbench thaw' tries again):\n%s", notes.buf);
		ret = HB_EXIT_FAILURE;
	} else if (notes.len && !a.silent) {
		fprintf(stderr, "hitchbench: thawed:\n%s", notes.buf);
	}
	batch_finish(&batch, r == -EINTR ? "interrupted" : r < 0 ? "failed" : br.stopped ? "stopped" :
			     batch_pending(&batch) ? "incomplete" : "complete");
	if (db && resultsdb_import_batch(db, &batch.info, batch.dir, &dberr) < 0) {
		error_msg("cannot store batch '%s' in '%s': %s", batch.id, a.db_path, dberr);
		ret = HB_EXIT_FAILURE;
	}
	if (br.runs_done + (batch.n_slots - batch_pending(&batch)) > 0) {
		putchar('\n');
		printf("# batch %s (%s)\n", batch.id, batch.dir);
		batch_print_report(&batch, &a.metric, stdout);
		if (db)
			printf("# stored in %s\n", a.db_path);
	}
	if (hooks) /* a failed run is left out of its pair: the verdict decides */
		ret = hooks->end(hooks->data, &batch, ret);
	else if (ret == HB_EXIT_OK && br.runs_failed > 0)
		ret = HB_EXIT_FAILURE;
	if (batch_dir)
		*batch_dir = xstrdup(batch.dir);
out:
	quiet_session_end(&quiet, &notes);
	strbuf_release(&notes);
	free(cmdline);
	if (signal_fd >= 0)
		close(signal_fd);
	if (stop_fd >= 0)
		close(stop_fd);
	switch_sets_free(sets, n_sets);
	argv_release(&variants);
	batch_release(&batch);
	resultsdb_close(db);
	game_user_release(&user);
	recipe_release(&recipe);
	strbuf_release(&err);
	free(recipe_path);
	free(default_out);
	free(dberr);
	return ret;
}
