/*
 * hitchbench: the command dispatcher. Sets up what every command shares
 * (where the hook, the recipes and the results are), runs the command,
 * and makes sure stdout reached its destination (a full disk fails
 * loudly, not silently).
 */
#include "cmd.h"
#include "exitcodes.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "version.h" /* generated: HB_VERSION */
#ifndef HB_SRCDIR
#define HB_SRCDIR "."
#endif

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct context *ctx);
	const char *summary;
} commands[] = {
	{ "run", cmd_run, "run a recipe's game and measure every frame" },
	{ "report", cmd_report, "print the numbers of run directories or of the database" },
	{ "matrix", cmd_matrix, "each game and variant@switches against each batch or kernel, as CSV" },
	{ "db", cmd_db, "the results database: import run directories, show what it holds" },
	{ "import", cmd_import, "make another tool's frame log (MangoHud, PresentMon, ...) a run directory" },
	{ "ab", cmd_ab, "A against B in pairs until a sequential test knows: SAME, DIFFERENT, UNKNOWN (0, 3, 4)" },
	{ "compare", cmd_compare, "do two sets of runs differ? SAME, DIFFERENT or UNKNOWN (exit 0, 3, 4)" },
	{ "calibrate", cmd_calibrate, "the machine's noise: spread, false-positive rates, smallest effect seen" },
	{ "regress", cmd_regress, "a metric across kernel versions, with its change points" },
	{ "stalls", cmd_stalls, "why each run stalled, stall by stall, from its stall record (STALLS=1)" },
	{ "frames", cmd_frames, "print a run's frames as text, for plots and checks" },
	{ "plot", cmd_plot, "draw PNG and SVG pictures: frames, percentiles, a matrix, a kernel trend" },
	{ "quiet", cmd_quiet, "quiet the machine for a manual session (stop services, governor, ...)" },
	{ "thaw", cmd_thaw, "give the machine back: restore what quiet or a killed batch changed" },
	{ "interference-scan", cmd_interference_scan,
	  "old runs whose X server, kernel or game logs show someone using the machine" },
};

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "hitchbench: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void note_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("note: ", fmt, ap);
	va_end(ap);
}

int usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s", usage);
	return HB_EXIT_USAGE;
}

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
		/* installed: PREFIX/bin, PREFIX/lib/hitchbench, PREFIX/share/hitchbench,
		 * found from where the program is, so an installed tree can move */
		ctx->hook_path = xasprintf("%s/../lib/hitchbench/hitchbench-hook.so", ctx->exe_dir);
		ctx->helper_dir = xstrdup(ctx->exe_dir);
		ctx->recipe_dirs[0] = xstrdup("recipes");
		ctx->recipe_dirs[1] = xasprintf("%s/../share/hitchbench/recipes", ctx->exe_dir);
		ctx->gamedb_dirs[0] = xstrdup("gamedb");
		ctx->gamedb_dirs[1] = xasprintf("%s/../share/hitchbench/gamedb", ctx->exe_dir);
		ctx->results_dir = xstrdup("results");
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

int main(int argc, char **argv)
{
	char *help_argv[] = { NULL, NULL, "--help", NULL };
	struct context ctx;
	int r = -1;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? HB_EXIT_USAGE : HB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hitchbench %s\n", HB_VERSION);
		return HB_EXIT_OK;
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
	context_init(&ctx);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		r = commands[i].fn(argc - 1, argv + 1, &ctx);
		break;
	}
	context_release(&ctx);
	if (r < 0) {
		error_msg("'%s' is not a hitchbench command; see 'hitchbench --help'", argv[1]);
		return HB_EXIT_USAGE;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		error_msg("cannot write to standard output: %s", strerror(errno));
		return HB_EXIT_FAILURE;
	}
	return r;
}
