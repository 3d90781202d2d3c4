/*
 * hitchbench run: runs a recipe's game ROUNDS times, prints the report of
 * those runs and indexes them in the results database.
 */
#include "argv.h"
#include "cmd.h"
#include "exitcodes.h"
#include "gameuser.h"
#include "recipe.h"
#include "report.h"
#include "resultsdb.h"
#include "run.h"
#include "runner.h"
#include "stage.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

static const char run_usage[] =
	"usage: hitchbench run RECIPE [VARIANT] [--rounds N] [--warmup S] [--window S]\n"
	"                      [--db PATH | --no-db] [--out DIR] [--display :N]\n"
	"                      [--stall-ms MS] [--percentile nearest-rank|linear] [-v]\n"
	"\n"
	"  RECIPE          a name in recipes/ (dsda-doom) or a path to a recipe file\n"
	"  VARIANT         a [variant NAME] of the recipe (default: its default_variant)\n"
	"  --rounds N      run it N times (default 1)\n"
	"  --warmup S      seconds after the first frame before the window (default: the recipe's)\n"
	"  --window S      seconds measured (default: the recipe's)\n"
	"  --db PATH       results database (default results/hitchbench.db); --no-db: none\n"
	"  --out DIR       put run directories under DIR (default results/runs)\n"
	"  --display :N    use this running X server instead of starting Xvfb\n"
	"  --stall-ms MS   a frame over MS is a stall (default 100)\n"
	"  --percentile D  percentile definition for p50/p99/p99.9 (default nearest-rank)\n";

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
	fprintf(stderr, "hitchbench: %s\n", line);
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

int cmd_run(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "window", required_argument, NULL, 'w' },
		{ "db", required_argument, NULL, 'd' },
		{ "no-db", no_argument, NULL, 'N' },
		{ "out", required_argument, NULL, 'o' },
		{ "display", required_argument, NULL, 'D' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "percentile", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_request req = {
		.metric = METRIC_OPTS_DEFAULT, .signal_fd = -1, .progress = print_progress,
	};
	const char *db_path = ctx->default_db, *out_dir = NULL, *display = NULL;
	double warmup = -1, window = -1;
	int rounds = 1, c, ret = HB_EXIT_OK, failures = 0;
	struct recipe recipe;
	struct game_user user = { 0 };
	struct resultsdb *db = NULL;
	struct strbuf err = STRBUF_INIT;
	struct report_row *rows = NULL;
	struct run *runs = NULL;
	char *recipe_path = NULL, *default_out = NULL, *dberr = NULL, *cmdline = NULL;
	size_t n_rows = 0;

	while ((c = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (safe_atoi(optarg, &rounds) < 0 || rounds < 1)
				return usage_error(run_usage, "--rounds wants a count of 1 or more, not '%s'", optarg);
			break;
		case 'W':
			if (positive_double(optarg, true, &warmup) < 0)
				return usage_error(run_usage, "--warmup wants seconds >= 0, not '%s'", optarg);
			break;
		case 'w':
			if (positive_double(optarg, false, &window) < 0)
				return usage_error(run_usage, "--window wants seconds > 0, not '%s'", optarg);
			break;
		case 'd':
			db_path = optarg;
			break;
		case 'N':
			db_path = NULL;
			break;
		case 'o':
			out_dir = optarg;
			break;
		case 'D':
			if (optarg[0] != ':' && !strchr(optarg, ':'))
				return usage_error(run_usage, "--display wants an X display like ':0', not '%s'", optarg);
			display = optarg;
			break;
		case 's':
			if (positive_double(optarg, false, &req.metric.stall_ms) < 0)
				return usage_error(run_usage, "--stall-ms wants milliseconds > 0, not '%s'", optarg);
			break;
		case 'p':
			if (percentile_def_parse(optarg, &req.metric.pct) < 0)
				return usage_error(run_usage, "unknown percentile definition '%s'", optarg);
			break;
		case 'v':
			req.verbose = true;
			break;
		case 'h':
			fputs(run_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(run_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc || argc - optind > 2)
		return usage_error(run_usage, "run wants a recipe and at most one variant");
	recipe_init(&recipe);

	/* Everything is checked before anything starts. */
	recipe_path = recipe_resolve(argv[optind], (const char *const *)ctx->recipe_dirs);
	if (!recipe_path) {
		struct strbuf where = STRBUF_INIT;

		for (size_t i = 0; i < ARRAY_SIZE(ctx->recipe_dirs) && ctx->recipe_dirs[i]; i++)
			strbuf_addf(&where, "%s%s", i ? ", " : "", ctx->recipe_dirs[i]);
		error_msg("no recipe '%s' (looked in %s)", argv[optind], where.buf);
		strbuf_release(&where);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	if (recipe_load(recipe_path, &recipe, &err) < 0) {
		fprintf(stderr, "%s\n", err.buf);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	req.recipe = &recipe;
	req.variant_name = argc - optind == 2 ? argv[optind + 1] : recipe.default_variant;
	req.variant = recipe_find_variant(&recipe, req.variant_name);
	/* "base" is the recipe alone, unless the recipe defines a [variant base] */
	if (!req.variant && strcmp(req.variant_name, "base") != 0) {
		struct strbuf names = STRBUF_INIT;

		strbuf_addstr(&names, "base");
		for (size_t i = 0; i < recipe.n_variants; i++)
			if (strcmp(recipe.variants[i].name, "base") != 0)
				strbuf_addf(&names, ", %s", recipe.variants[i].name);
		error_msg("recipe '%s' has no variant '%s' (it has: %s)", recipe.name,
			  req.variant_name, names.buf);
		strbuf_release(&names);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	req.warmup_s = warmup >= 0 ? warmup : recipe.warmup_s;
	req.window_s = window > 0 ? window : recipe.window_s;
	if (access(ctx->hook_path, R_OK) < 0) {
		error_msg("cannot find the frame hook '%s': build it with 'make'", ctx->hook_path);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if (game_user_resolve(&user, &err) < 0) {
		error_msg("%s", err.buf);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	/* the database is opened first, so a bad path fails now, not after an hour */
	if (db_path && resultsdb_open(db_path, &db, &dberr) < 0) {
		error_msg("cannot open the results database '%s': %s", db_path, dberr);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if (stage_sweep() > 0)
		warn_msg("removed the staging directories of runners that were killed");
	req.signal_fd = setup_signals();
	if (req.signal_fd < 0) {
		error_msg("cannot set up signal handling: %s", strerror(-req.signal_fd));
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	default_out = xasprintf("%s/runs", ctx->results_dir);
	req.out_dir = out_dir ? out_dir : default_out;
	req.display = display;
	req.hook_path = ctx->hook_path;
	req.helper_dir = ctx->helper_dir;
	req.user = &user;
	cmdline = argv_join(argv - 1); /* main's argv: the whole command */
	req.harness_command = cmdline;

	rows = zalloc(sizeof(*rows) * (size_t)rounds);
	runs = zalloc(sizeof(*runs) * (size_t)rounds);
	for (int round = 1; round <= rounds; round++) {
		struct run_outcome o;
		bool have;
		int r;

		fprintf(stderr, "hitchbench: round %d/%d: %s %s\n", round, rounds, recipe.name,
			req.variant_name);
		strbuf_reset(&err);
		r = runner_run(&req, &o, &err);
		if (r == -EINTR) {
			error_msg("interrupted: the game and its X server are stopped; "
				  "%zu finished run(s) kept", n_rows);
			ret = HB_EXIT_INTERRUPTED;
			break;
		}
		if (r < 0) {
			error_msg("%s", err.buf);
			ret = HB_EXIT_FAILURE;
			break;
		}
		fprintf(stderr, "hitchbench: %s: %s\n", o.dir, o.status);
		if (strncmp(o.status, "ok", 2) != 0)
			failures++;
		if (run_load(o.dir, &runs[n_rows], &err) == 0) {
			struct report_row *row = &rows[n_rows];
			struct run *run = &runs[n_rows];

			have = run_report_row(run, &req.metric, row);
			if (db && resultsdb_import(db, run, have ? &row->m : NULL, &req.metric, &dberr) < 0) {
				error_msg("cannot store '%s' in '%s': %s", run->dir, db_path, dberr);
				free(dberr);
				dberr = NULL;
				ret = HB_EXIT_FAILURE;
			}
			hb_frames_release(&run->frames); /* the numbers are taken */
			n_rows++;
		} else {
			error_msg("%s", err.buf);
			ret = HB_EXIT_FAILURE;
		}
		run_outcome_release(&o);
	}
	if (n_rows > 0) {
		struct report_opts ro = {
			.format = REPORT_TABLE, .metric = req.metric, .window_note = REPORT_WINDOW_RUNDIR,
		};

		putchar('\n');
		report_print(stdout, rows, n_rows, &ro);
		if (db)
			printf("# stored in %s\n", db_path);
	}
	if (ret == HB_EXIT_OK && failures > 0)
		ret = HB_EXIT_FAILURE;
out:
	free(cmdline);
	for (size_t i = 0; runs && i < n_rows; i++)
		run_release(&runs[i]);
	free(runs);
	free(rows);
	if (req.signal_fd >= 0)
		close(req.signal_fd);
	resultsdb_close(db);
	game_user_release(&user);
	recipe_release(&recipe);
	strbuf_release(&err);
	free(recipe_path);
	free(default_out);
	free(dberr);
	return ret;
}
