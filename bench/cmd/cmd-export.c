/*
 * hitchbench export: run directories written as other tools' frame logs
 * (a MangoHud log and its summary, a PresentMon CSV, a CapFrameX JSON
 * capture), so a run can be opened or posted where people compare runs in
 * those tools, and read back by `hitchbench import`. The writers are
 * analysis/export/; the files' layouts: docs/formats.md "Exported logs".
 */
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "export/export.h"
#include "run/run.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char export_usage[] =
	"usage: hitchbench export --format FORMAT [--out DIR] [--window window|run] RUNDIR...\n"
	"\n"
	"  writes each RUNDIR's frames as a log of another tool, one file a run\n"
	"  named as that tool names its own, into DIR (default: the current\n"
	"  directory), and prints each file's path. FORMAT is one of:\n"
	"    mangohud     a MangoHud 0.8 CSV log (GAME_DATE_TIME.csv), one row a\n"
	"                 frame, and its GAME_DATE_TIME_summary.csv\n"
	"    presentmon   a PresentMon 2.x console CSV (PresentMon-DATETTIME.csv)\n"
	"    capframex    a CapFrameX JSON capture (CapFrameX-GAME.exe-DATETTIME.json)\n"
	"\n"
	"  --out DIR         where the files go (made if missing)\n"
	"  --window window   the measured window's frames (the default)\n"
	"  --window run      every frame of the run, the load and the warm-up too\n"
	"\n"
	"  Frame times are written to the ns, so `hitchbench import` gives the\n"
	"  same frames back; what the tool logs and hitchbench did not measure\n"
	"  (loads, temperatures, display times) is left as that tool leaves a\n"
	"  value it has not got.\n";

struct export_args {
	enum export_format format;
	bool have_format;
	const char *out_dir;
	enum export_span span;
};

/* One file: the writer's bytes into memory, then written whole (under a
 * name no file has: free_name()). */
static int write_one(const char *dir, const char *name, void (*writer)(FILE *, const struct export_input *),
		     const struct export_input *in, char **path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int r;

	*path = xasprintf("%s/%s", dir, name);
	if (!mem) {
		r = -errno;
		goto out;
	}
	writer(mem, in);
	r = ferror(mem) ? -EIO : 0;
	if (fclose(mem) != 0 && r == 0)
		r = -errno;
	if (r == 0)
		r = write_file_atomic(*path, buf, len, 0644);
out:
	if (r < 0)
		error_msg("cannot write '%s': %s", *path, strerror(-r));
	free(buf);
	return r;
}

/* Whether DIR/NAME exists (or cannot be told not to). */
static bool taken(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	bool r = access(path, F_OK) == 0 || errno != ENOENT;

	free(path);
	return r;
}

/* name (which it takes), or, when a file of that name (or of its MangoHud
 * summary) is already in dir, STEM-2.EXT, STEM-3.EXT, ...: an export never
 * replaces a file, another run's that started in the same second
 * included. */
static char *free_name(const char *dir, char *name, bool summary)
{
	const char *dot = strrchr(name, '.');
	char *stem = xstrndup(name, dot ? (size_t)(dot - name) : strlen(name));
	char *ext = xstrdup(dot ? dot : "");

	for (unsigned k = 2;; k++) {
		char *sum = summary ? export_summary_name(name) : NULL;
		bool busy = taken(dir, name) || (sum && taken(dir, sum));

		free(sum);
		if (!busy)
			break;
		free(name);
		name = xasprintf("%s-%u%s", stem, k, ext);
	}
	free(stem);
	free(ext);
	return name;
}

static int export_one(const struct export_args *a, const char *dir)
{
	static void (*const writers[EXPORT_FORMAT_COUNT])(FILE *, const struct export_input *) = {
		[EXPORT_MANGOHUD] = export_mangohud_log,
		[EXPORT_PRESENTMON] = export_presentmon,
		[EXPORT_CAPFRAMEX] = export_capframex,
	};
	struct strbuf err;
	struct run run;
	struct export_input in;
	char *name = NULL, *path = NULL, *sum_name = NULL, *sum_path = NULL;
	int ret = HB_EXIT_FAILURE, r;

	strbuf_init(&err);
	if (run_load(dir, &run, &err) < 0) {
		error_msg("%s", err.buf);
		strbuf_release(&err);
		return HB_EXIT_FAILURE;
	}
	if (export_input_from_run(&run, a->span, &in) < 0) {
		error_msg("%s: no frames in its %s to export", dir, a->span == EXPORT_SPAN_RUN ? "run" : "window");
		goto out;
	}
	name = free_name(a->out_dir, export_file_name(a->format, &in), a->format == EXPORT_MANGOHUD);
	if ((r = write_one(a->out_dir, name, writers[a->format], &in, &path)) < 0)
		goto out_in;
	if (a->format == EXPORT_MANGOHUD) {
		sum_name = export_summary_name(name);
		if (write_one(a->out_dir, sum_name, export_mangohud_summary, &in, &sum_path) < 0)
			goto out_in;
	}
	note_msg("%s: wrote %s (%s, %zu frames of its %s)%s%s", dir, path, export_format_name(a->format), in.n - 1,
		 a->span == EXPORT_SPAN_RUN ? "run" : "window", sum_path ? " and " : "", sum_path ? sum_path : "");
	printf("%s\n", path);
	if (sum_path)
		printf("%s\n", sum_path);
	ret = HB_EXIT_OK;
out_in:
	export_input_release(&in);
out:
	free(name);
	free(path);
	free(sum_name);
	free(sum_path);
	run_release(&run);
	strbuf_release(&err);
	return ret;
}

static int parse_args(int argc, char **argv, struct export_args *a)
{
	enum { O_FORMAT = 256, O_OUT, O_WINDOW };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "out", required_argument, NULL, O_OUT },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_FORMAT:
			if (export_format_parse(optarg, &a->format) < 0)
				return usage_error(export_usage, "unknown format '%s' (mangohud, presentmon, capframex)",
						   optarg);
			a->have_format = true;
			break;
		case O_OUT:
			a->out_dir = optarg;
			break;
		case O_WINDOW:
			if (strcmp(optarg, "window") == 0)
				a->span = EXPORT_SPAN_WINDOW;
			else if (strcmp(optarg, "run") == 0)
				a->span = EXPORT_SPAN_RUN;
			else
				return usage_error(export_usage, "--window wants 'window' or 'run', not '%s'", optarg);
			break;
		case 'h':
			fputs(export_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(export_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (!a->have_format)
		return usage_error(export_usage, "export wants --format mangohud, presentmon or capframex");
	if (optind >= argc)
		return usage_error(export_usage, "export wants at least one RUNDIR");
	return HB_EXIT_OK;
}

int cmd_export(int argc, char **argv, struct context *ctx)
{
	struct export_args a = { .out_dir = ".", .span = EXPORT_SPAN_WINDOW };
	int ret = parse_args(argc, argv, &a), r;

	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);
	if ((r = mkdir_p(a.out_dir, 0755)) < 0) {
		error_msg("cannot create '%s': %s", a.out_dir, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	for (int i = optind; i < argc; i++)
		if (export_one(&a, argv[i]) != HB_EXIT_OK)
			ret = HB_EXIT_FAILURE;
	return ret;
}
