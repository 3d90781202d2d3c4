/*
 * hitchbench: the command dispatcher. Sets up what every command shares
 * (where the hook, the recipes and the results are), runs the command,
 * and makes sure stdout reached its destination (a full disk fails
 * loudly, not silently).
 */
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "db/resultsdb.h"
#include "text/suggest.h"
#include "base/util.h"
#include "base/xdgdir.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version.h" /* generated: HB_VERSION */
#ifndef HB_SRCDIR
#define HB_SRCDIR "."
#endif

/* What the table's runner does for a command before and after it runs
 * (git's RUN_SETUP habit): enum cmd_flags in cmd.h. */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct context *ctx);
	unsigned flags;         /* enum cmd_flags */
	const char *summary;
} commands[] = {
	{ "run", cmd_run, 0, "run a recipe's game and measure every frame" },
	{ "recipes", cmd_recipes, 0, "the recipes 'run' can name, with their variants" },
	{ "report", cmd_report, CMD_DB_OPTION | CMD_DB_READ,
	  "print the numbers of run directories or of the database" },
	{ "matrix", cmd_matrix, CMD_DB_OPTION | CMD_DB_READ,
	  "each game and variant@switches against each batch or kernel, as CSV" },
	{ "db", cmd_db, CMD_DB_OPTION | CMD_DB_WRITE,
	  "the results database: import run directories, show what it holds" },
	{ "import", cmd_import, 0, "make another tool's frame log (MangoHud, PresentMon, ...) a run directory" },
	{ "export", cmd_export, 0, "write run directories as MangoHud, PresentMon or CapFrameX logs" },
	{ "ab", cmd_ab, 0, "A against B in pairs until a sequential test knows: SAME, DIFFERENT, UNKNOWN (0, 3, 4)" },
	{ "compare", cmd_compare, CMD_DB_OPTION | CMD_DB_READ,
	  "do two sets of runs differ? SAME, DIFFERENT or UNKNOWN (exit 0, 3, 4)" },
	{ "calibrate", cmd_calibrate, 0, "the machine's noise: spread, false-positive rates, smallest effect seen" },
	{ "regress", cmd_regress, CMD_DB_OPTION | CMD_DB_READ,
	  "a metric across kernel versions, with its change points" },
	{ "site", cmd_site, CMD_DB_OPTION | CMD_DB_READ,
	  "the database as a static site: trends across kernels per machine, batches, change points" },
	{ "stalls", cmd_stalls, 0, "why each run stalled, stall by stall, from its stall record (STALLS=1)" },
	{ "profile", cmd_profile, 0, "where the game's CPU time went, per stall frame, from its profile record (PROFILE=1)" },
	{ "frames", cmd_frames, 0, "print a run's frames as text, for plots and checks" },
	{ "flip", cmd_flip, 0, "what flip runs measured: segments, pairs, each run's estimate, the test (0, 3, 4)" },
	{ "plot", cmd_plot, 0, "draw PNG and SVG pictures: frames, percentiles, a matrix, a kernel trend" },
	{ "quiet", cmd_quiet, 0, "quiet the machine for a manual session (stop services, governor, ...)" },
	{ "thaw", cmd_thaw, 0, "give the machine back: restore what quiet or a killed batch changed" },
	{ "pull", cmd_pull, CMD_DB_OPTION | CMD_DB_WRITE,
	  "copy a target's finished batches back, verified, and import them" },
	{ "interference-scan", cmd_interference_scan, 0,
	  "old runs whose X server, kernel or game logs show someone using the machine" },
	{ "target", cmd_target, 0, "the machines to push to and run on: add, list, remove, check" },
	{ "push", cmd_push, 0, "install this harness on a target over SSH (only what changed is copied)" },
	{ "lab", cmd_lab, CMD_DB_OPTION | CMD_DB_READ,
	  "batches as Slurm jobs on a lab's machines: init, submit, status, cancel, results" },
};

static void usage(FILE *out)
{
	int width = 8;

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if ((int)strlen(commands[i].name) > width)
			width = (int)strlen(commands[i].name);
	fprintf(out, "usage: hitchbench <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "   %-*s %s\n", width, commands[i].name, commands[i].summary);
	fprintf(out, "\n'hitchbench help <command>' (or '<command> --help') tells more. hitchbench %s\n", HB_VERSION);
}

static bool is_dir(const char *path)
{
	return access(path, F_OK) == 0;
}

static void context_init(struct context *ctx)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *results = getenv("HITCHBENCH_RESULTS");
	char *slash, *probe;

	memset(ctx, 0, sizeof(*ctx));
	if (n <= 0)
		snprintf(exe, sizeof(exe), "./hitchbench");
	else
		exe[n] = '\0';
	slash = strrchr(exe, '/');
	ctx->exe_dir = slash ? strndup(exe, (size_t)(slash - exe)) : xstrdup(".");
	/* running from a build directory (the hook beside the program)? Its
	 * checkout is the parent, or the one it was built from. */
	probe = xasprintf("%s/hitchbench-hook.so", ctx->exe_dir);
	if (access(probe, F_OK) == 0) {
		char *parent_recipes = xasprintf("%s/../recipes", ctx->exe_dir);

		if (is_dir(parent_recipes))
			ctx->srcdir = xasprintf("%s/..", ctx->exe_dir);
		else
			ctx->srcdir = xstrdup(HB_SRCDIR);
		free(parent_recipes);
		if (realpath(ctx->srcdir, exe)) {
			free(ctx->srcdir);
			ctx->srcdir = xstrdup(exe);
		}
	}
	free(probe);
	if (ctx->srcdir) {
		ctx->hook_path = xasprintf("%s/hitchbench-hook.so", ctx->exe_dir);
		ctx->helper_dir = xstrdup(ctx->exe_dir);
		ctx->recipe_dirs[0] = xasprintf("%s/recipes", ctx->srcdir);
		ctx->gamedb_dirs[0] = xasprintf("%s/gamedb", ctx->srcdir);
		ctx->results_dir = xasprintf("%s/results", ctx->srcdir);
	} else {
		/* installed (docs/install.md): PREFIX/bin, PREFIX/lib/hitchbench,
		 * PREFIX/share/hitchbench, found from where the program is, so an
		 * installed tree can move; the results in the user's data
		 * directory, root's in /var/lib/hitchbench, never the current one */
		ctx->helper_dir = xasprintf("%s/../lib/hitchbench", ctx->exe_dir);
		ctx->hook_path = xasprintf("%s/hitchbench-hook.so", ctx->helper_dir);
		ctx->recipe_dirs[0] = xstrdup("recipes");
		ctx->recipe_dirs[1] = xasprintf("%s/../share/hitchbench/recipes", ctx->exe_dir);
		ctx->gamedb_dirs[0] = xstrdup("gamedb");
		ctx->gamedb_dirs[1] = xasprintf("%s/../share/hitchbench/gamedb", ctx->exe_dir);
		ctx->results_dir = geteuid() == 0 ? xstrdup(HB_SYSTEM_STATE_DIR)
						  : xdg_user_dir("XDG_DATA_HOME", ".local/share");
	}
	if (results && *results) {
		free(ctx->results_dir);
		ctx->results_dir = xstrdup(results);
	}
	ctx->default_db = xasprintf("%s/hitchbench.db", ctx->results_dir);
}

static void context_release(struct context *ctx)
{
	free(ctx->srcdir);
	free(ctx->exe_dir);
	free(ctx->hook_path);
	free(ctx->helper_dir);
	for (size_t i = 0; i < ARRAY_SIZE(ctx->recipe_dirs); i++)
		free(ctx->recipe_dirs[i]);
	for (size_t i = 0; i < ARRAY_SIZE(ctx->gamedb_dirs); i++)
		free(ctx->gamedb_dirs[i]);
	free(ctx->results_dir);
	free(ctx->default_db);
}

/* "--NAME VALUE", "--NAME=VALUE" (or a unique prefix of at least "--d"
 * or "--ma", as getopt_long takes one): the option's value, or NULL when
 * arg is not the option. *val_next is set when the value is the next
 * argument. */
static const char *shared_option_value(const char *arg, const char *next, const char *name,
				       size_t min, bool *val_next)
{
	size_t len = strcspn(arg, "=");

	if (len < min || len > strlen(name) || strncmp(arg, name, len) != 0)
		return NULL;
	*val_next = arg[len] != '=';
	return *val_next ? next : arg + len + 1;
}

/* Takes the shared --db PATH|URL and --machine M out of argv (up to a
 * "--"), so the command sees only its own options; the last one given
 * counts, as with getopt. */
static int take_db_option(int *argc, char **argv, struct context *ctx)
{
	int out = 1, i = 1;

	ctx->db_path = ctx->default_db;
	ctx->machine = NULL;
	while (i < *argc && strcmp(argv[i], "--") != 0) {
		const char *next = i + 1 < *argc ? argv[i + 1] : NULL;
		bool db_next = false, machine_next = false;
		const char *db = shared_option_value(argv[i], next, "--db", 3, &db_next);
		const char *machine = shared_option_value(argv[i], next, "--machine", 4, &machine_next);

		if (!db && !db_next && !machine && !machine_next) {
			argv[out++] = argv[i++];
			continue;
		}
		if (!db && !machine) {
			error_msg("option '%s' wants a %s; see 'hitchbench %s --help'",
				  db_next ? "--db" : "--machine", db_next ? "path or URL" : "host name or machine id",
				  argv[0]);
			return HB_EXIT_USAGE;
		}
		if (db) {
			ctx->db_path = db;
			ctx->db_given = true;
		} else {
			ctx->machine = machine;
		}
		i += db_next || machine_next ? 2 : 1;
	}
	while (i < *argc)
		argv[out++] = argv[i++];
	argv[out] = NULL;
	*argc = out;
	return HB_EXIT_OK;
}

/* The command with what its flags ask for set up, and taken down after. */
static int run_command(const struct command *cmd, int argc, char **argv, struct context *ctx)
{
	int r;

	ctx->db_path = ctx->default_db;
	ctx->db_mode = cmd->flags & CMD_DB_WRITE ? RESULTSDB_WRITE : RESULTSDB_READ;
	if (cmd->flags & CMD_DB_OPTION) {
		r = take_db_option(&argc, argv, ctx);
		if (r != HB_EXIT_OK)
			return r;
	}
	r = cmd->fn(argc, argv, ctx);
	resultsdb_close(ctx->db);
	ctx->db = NULL;
	return r;
}

/* The one place stdout is finished: flushed, checked and closed, so a
 * full disk or a closed pipe fails loudly (exit 1) whatever wrote to it.
 * The cause is said when the flush or the close found it; a write that
 * failed before (a library's fflush, its error returned) left only the
 * stream's error flag. A stdout the caller closed (>&-) that nothing was
 * written to is no error: only its close fails, with EBADF. */
static int finish_stdout(int r)
{
	bool earlier = ferror(stdout) != 0;
	int err = 0;

	if (fflush(stdout) != 0)
		err = errno ? errno : EIO;
	if (fclose(stdout) != 0 && !err && errno != EBADF)
		err = errno ? errno : EIO;
	if (!earlier && !err)
		return r;
	if (err)
		error_msg("cannot write to standard output: %s", strerror(err));
	else
		error_msg("cannot write to standard output");
	return HB_EXIT_FAILURE;
}

static const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

/* "'staals' is not a hitchbench command; did you mean 'stalls'?" */
static int unknown_command(const char *name)
{
	char *hint = suggest_or(name, &commands[0].name, ARRAY_SIZE(commands), sizeof(commands[0]),
				" see 'hitchbench --help'");

	error_msg("'%s' is not a hitchbench command;%s", name, hint);
	free(hint);
	return HB_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	char *help_argv[] = { NULL, NULL, "--help", NULL };
	const struct command *cmd;
	struct context ctx;
	int r;

	msg_program("hitchbench");
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(argc < 2 ? stderr : stdout);
		return finish_stdout(argc < 2 ? HB_EXIT_USAGE : HB_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hitchbench %s\n", HB_VERSION);
		return finish_stdout(HB_EXIT_OK);
	}
	/* "help CMD" is "CMD --help" (git's way) */
	if (!strcmp(argv[1], "help")) {
		if (argc > 3) {
			error_msg("help wants one command, not %d", argc - 2);
			return HB_EXIT_USAGE;
		}
		help_argv[0] = argv[0];
		help_argv[1] = argv[2];
		argc = 3;
		argv = help_argv;
	}
	cmd = command_find(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	context_init(&ctx);
	r = run_command(cmd, argc - 1, argv + 1, &ctx);
	context_release(&ctx);
	return finish_stdout(r);
}
