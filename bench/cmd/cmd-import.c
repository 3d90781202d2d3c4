/*
 * hitchbench import: another tool's frame log (MangoHud, Gallium HUD,
 * PresentMon/FrameView) or a loose hook frame file, made into a run
 * directory like the runner's, so report, frames and the database treat
 * it as any run. The log is kept by its path and SHA-256 and what it says
 * about its machine goes into bench.txt as log.* keys; nothing of the
 * importing machine is recorded as the run's. Formats: docs/formats.md
 * "Imported frame logs".
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "formats/frames.h"
#include "import/import.h"
#include "db/resultsdb.h"
#include "run/run.h"
#include "formats/sha256sums.h"
#include "base/timeutil.h"
#include "base/util.h"
#include "text/argv.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char import_usage[] =
	"usage: hitchbench import [--format FORMAT] [options] FILE...\n"
	"\n"
	"  makes each FILE, a frame log of another tool, into a run directory\n"
	"  (bench.txt, frames.bin, result.txt), indexes it in the database and\n"
	"  prints its path. Each FILE's format is told from its marks (said on\n"
	"  stderr: the format and why) unless --format FORMAT names it, one of:\n"
	"    mangohud     a MangoHud CSV log, any version (per-frame or log_interval)\n"
	"    presentmon   a PresentMon 1.x/2.x CSV (console tool or capture app)\n"
	"    frameview    an NVIDIA FrameView log (its summary file read beside it)\n"
	"    ocat         an AMD OCAT capture\n"
	"    capframex    a CapFrameX capture, CSV or JSON\n"
	"    gallium-hud  a Mesa GALLIUM_HUD_DUMP_DIR directory, or its frametime_(ms) file\n"
	"    hook         a hitchbench frame file (frames.bin)\n"
	"\n"
	"  --game G         the game's name (default: the log's file name up to its\n"
	"                   date, the PresentMon process, else 'imported')\n"
	"  --variant V      the variant (default: base)\n"
	"  --out DIR        where the run directory goes (default: results/runs/imported)\n"
	"  --process NAME   presentmon: the process to keep, by Application or ProcessID\n"
	"                   (default: the one with the most presents that is not a\n"
	"                   compositor, dwm.exe; the one kept is said on stderr)\n"
	"  --hud-period S   gallium-hud: the GALLIUM_HUD_PERIOD of the log (default 0.5;\n"
	"                   0: a value per frame, else the rows are samples)\n"
	"  --run N|all      capframex: of a JSON capture's runs, run N (from 1), or all\n"
	"                   of them one after the other (the default: CapFrameX's own\n"
	"                   figures join them)\n"
	"  --interval       mangohud: take a log without a frametime column (MangoHud\n"
	"                   before 0.6 logged fps samples only) as an interval log;\n"
	"                   without it such a log is refused\n"
	"  --warmup S       leave the first S seconds out of the measured window (default 0;\n"
	"                   shorter than the log)\n"
	"  --db PATH        the database (default: results/hitchbench.db); --no-db: none\n"
	"\n"
	"  Frame times become present times by summing them from 1 s; an interval\n"
	"  log (rows are periodic samples) is marked frame_source_kind=interval and\n"
	"  its metrics are over samples, not frames. Rows that are no frame (a\n"
	"  frame time not positive, not a number or over 60 s; a last row cut\n"
	"  short by a crash) are dropped, said on stderr and counted in bench.txt\n"
	"  (log.rows_dropped, log.first_dropped). A file that is not in FORMAT\n"
	"  is refused with FILE:LINE and what was expected (exit 2).\n";

struct import_args {
	enum import_format format;
	bool have_format;
	const char *game, *variant, *out_dir, *db_path;
	bool no_db;
	double warmup_s;
	struct import_opts opts;
};

static const unsigned format_source[IMPORT_FORMAT_COUNT] = {
	[IMPORT_MANGOHUD] = HB_SRC_MANGOHUD,
	[IMPORT_GALLIUM_HUD] = HB_SRC_GALLIUM_HUD,
	[IMPORT_PRESENTMON] = HB_SRC_PRESENTMON,
	[IMPORT_HOOK] = HB_SRC_UNKNOWN,
	[IMPORT_OCAT] = HB_SRC_OCAT,
	[IMPORT_FRAMEVIEW] = HB_SRC_FRAMEVIEW,
	[IMPORT_CAPFRAMEX] = HB_SRC_CAPFRAMEX,
};

/* "dsda-doom_2026-11-30_10-02-37.csv" -> "dsda-doom" (MangoHud names its
 * logs PROGRAM_DATE_TIME.csv); names not like that lose their extension. */
static char *game_from_file(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *name = xstrdup(base), *p;

	for (p = name; *p; p++) {
		if (*p == '_' && p[1] >= '0' && p[1] <= '9' && strlen(p) >= 11 && p[5] == '-' &&
		    p[8] == '-') {
			*p = '\0';
			break;
		}
	}
	if ((p = strrchr(name, '.')) && p != name)
		*p = '\0';
	/* names are parts of directory names and report columns */
	for (p = name; *p; p++)
		if (*p == '/' || *p == ' ' || *p == ',')
			*p = '-';
	if (!*name) {
		free(name);
		name = xstrdup("imported");
	}
	return name;
}

static int make_dir(const char *out_dir, const char *game, const char *variant, char **final,
		    char **tmp)
{
	char stamp[32];
	int r = mkdir_p(out_dir, 0755);

	if (r < 0)
		return r;
	utc_compact(time(NULL), stamp, sizeof(stamp));
	for (int i = 1; i < 100; i++) {
		char *name = i == 1 ? xasprintf("%s-%s-%s", stamp, game, variant)
				    : xasprintf("%s-%s-%s-%d", stamp, game, variant, i);

		free(*final);
		free(*tmp);
		*final = xasprintf("%s/%s", out_dir, name);
		*tmp = xasprintf("%s/.%s.tmp", out_dir, name);
		free(name);
		if (access(*final, F_OK) == 0)
			continue;
		if (mkdir(*tmp, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

#define MAX_HUD_PERIOD_S 3600.0

static void write_bench(struct kvfile *kf, const struct import_args *a, const char *game,
			const char *source, const struct import_series *s, const char *cmdline)
{
	char id[33], iso[32], abs[PATH_MAX];
	uint64_t start = s->t_ns[0] + (uint64_t)llround(a->warmup_s * 1e9);

	run_make_id(id);
	kvfile_addf(kf, "format", "%d", HB_RUNDIR_FORMAT);
	kvfile_add(kf, "run_id", id);
	kvfile_add(kf, "game", game);
	kvfile_add(kf, "variant", a->variant);
	kvfile_add(kf, "run_name", a->variant);
	kvfile_add(kf, "harness_command", cmdline);
	import_series_describe(s, source, realpath(source, abs) ? abs : source, kf);
	kvfile_addf(kf, "frames_recorded", "%zu", s->n_presents);
	kvfile_add(kf, "frames_clock", s->format && strcmp(s->format, "hook") == 0
					       ? "the hook's CLOCK_MONOTONIC stamps"
					       : "the log's frame times summed from 1 s");
	utc_iso8601(time(NULL), iso, sizeof(iso));
	kvfile_add(kf, "imported_utc", iso);
	kvfile_addf(kf, "warmup_s", "%g", a->warmup_s);
	kvfile_addf(kf, "window_start_ns", "%llu", (unsigned long long)start);
	kvfile_addf(kf, "window_end_ns", "%llu", (unsigned long long)s->t_ns[s->n_presents - 1]);
	kvfile_add(kf, "status", "ok");
}

static int index_run(const struct import_args *a, const char *db_path, const char *dir)
{
	struct metric_opts mo = METRIC_OPTS_DEFAULT;
	struct strbuf err = STRBUF_INIT;
	struct resultsdb *db = NULL;
	struct metrics m;
	struct run run;
	int r;

	if ((r = resultsdb_open(db_path, &db, &err)) < 0) {
		error_msg("cannot open the database '%s': %s", db_path, err.buf);
		goto out;
	}
	if ((r = run_load(dir, &run, &err)) < 0) {
		error_msg("%s", err.buf);
		goto out;
	}
	run_validate(&run, &mo);
	r = resultsdb_import(db, &run, run_metrics(&run, &mo, &m) == 0 ? &m : NULL, &mo, &err);
	if (r < 0)
		error_msg("cannot index '%s': %s", dir, err.buf);
	run_release(&run);
out:
	strbuf_release(&err);
	resultsdb_close(db);
	return r;
}

/* The file read into s, with its notes said; refused when it holds fewer
 * than two frames or not more than the warm-up. HB_EXIT_OK or the exit code. */
static int read_series(const struct import_args *a, enum import_format f, const char *file,
		       struct import_series *s, char **source)
{
	struct strbuf err = STRBUF_INIT;
	uint64_t span;
	int r;

	r = import_read(f, file, &a->opts, s, source, &err);
	if (r < 0) {
		error_msg("%s", err.buf);
		strbuf_release(&err);
		return r == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
	}
	strbuf_release(&err);
	/* what the importer dropped and chose, one line each */
	msg_lines(MSG_NOTE, s->notes.buf);
	msg_lines(MSG_WARNING, s->warnings.buf);
	if (s->n_presents < 2) {
		error_msg("%s: no frames to import (%zu rows read, %zu dropped)", *source, s->rows,
			  s->rows_dropped);
		return HB_EXIT_USAGE;
	}
	span = s->t_ns[s->n_presents - 1] - s->t_ns[0];
	if (a->warmup_s * 1e9 >= (double)span) {
		error_msg("%s: --warmup %g s is not shorter than the log (%.3f s of frames): "
			  "the window would be empty", *source, a->warmup_s, (double)span / 1e9);
		return HB_EXIT_USAGE;
	}
	return HB_EXIT_OK;
}

/* frames.bin, bench.txt, result.txt and SHA256SUMS in the temporary directory tmp,
 * which becomes final: 0, or -1 after saying what failed. */
static int write_run_dir(const struct import_args *a, enum import_format f, const struct import_series *s,
			 const char *game, const char *source, const char *cmdline, const char *tmp,
			 const char *final)
{
	struct metric_opts mo = METRIC_OPTS_DEFAULT;
	struct strbuf err = STRBUF_INIT;
	struct kvfile bench;
	char *path = xasprintf("%s/frames.bin", tmp);
	int r = hb_frames_write(path, s->t_ns, s->n_presents, format_source[f], 0644);

	kvfile_init_repeats(&bench, kvfile_bench_repeats);
	if (r < 0) {
		error_msg("cannot write '%s': %s", path, strerror(-r));
		goto out;
	}
	free(path);
	path = xasprintf("%s/bench.txt", tmp);
	write_bench(&bench, a, game, source, s, cmdline);
	if ((r = kvfile_write(&bench, path)) < 0) {
		error_msg("cannot write '%s': %s", path, strerror(-r));
		goto out;
	}
	if ((r = run_write_result(tmp, "ok", &mo, &err)) < 0) {
		error_msg("%s", err.buf);
		goto out;
	}
	if ((r = sha256sums_write(tmp, NULL)) < 0) {
		error_msg("cannot write '%s/%s': %s", tmp, SHA256SUMS_NAME, strerror(-r));
		goto out;
	}
	if ((r = rename(tmp, final)) < 0)
		error_msg("cannot rename '%s' to '%s': %s", tmp, final, strerror(errno));
out:
	free(path);
	kvfile_release(&bench);
	strbuf_release(&err);
	return r < 0 ? -1 : 0;
}

/* The format FILE is read in: --format's, else the one its marks say,
 * said on stderr with the marks. HB_EXIT_OK or the exit code. */
static int format_of(const struct import_args *a, const char *file, enum import_format *f)
{
	struct strbuf why = STRBUF_INIT;
	int r;

	if (a->have_format) {
		*f = a->format;
		return HB_EXIT_OK;
	}
	r = import_detect(file, f, &why);
	if (r < 0)
		error_msg("%s", why.buf);
	else
		note_msg("%s: read as %s: %s", file, import_format_name(*f), why.buf);
	strbuf_release(&why);
	return r == -EINVAL ? HB_EXIT_USAGE : r < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

/* The figures the tool printed for its own log (a summary file beside it)
 * beside ours from the run's result.txt, one note: what a user checks
 * first when a number is quoted from that tool. */
static void say_peer_figures(const struct import_args *a, enum import_format f, const struct import_series *s,
			     const char *source, const char *run_dir)
{
	const struct import_peer_figure *pf;
	struct strbuf line = STRBUF_INIT, err = STRBUF_INIT;
	struct kvfile result;
	char *path = xasprintf("%s/result.txt", run_dir);
	size_t n;

	kvfile_init(&result);
	/* the tool the reader found (FrameView's log read with --format
	 * presentmon is still FrameView's) */
	if (s->format)
		import_format_parse(s->format, &f);
	pf = import_peer_figures(&n);
	if (kvfile_load(&result, path, &err) == 0) {
		for (size_t i = 0; i < n; i++) {
			const char *theirs = kvfile_get(&s->info, pf[i].key), *ours;
			const char *dot;
			double v;

			if (pf[i].format != f || !pf[i].metric || !theirs ||
			    !(ours = kvfile_get(&result, pf[i].metric)) ||
			    safe_atod(ours, &v) < 0)
				continue;
			/* ours to the tool's own decimals, and to 6 more */
			dot = strchr(theirs, '.');
			strbuf_addf(&line, "%s%s %s, ours %.*f (%s %.6f)", line.len ? "; " : "", pf[i].label, theirs,
				    dot ? (int)strspn(dot + 1, "0123456789") : 0, v, pf[i].metric, v);
		}
	}
	if (line.len)
		note_msg("%s: the tool's own figures (%s) against ours%s: %s", source,
			 kvfile_get(&s->info, "summary.file"),
			 a->warmup_s > 0 ? " (ours without the warm-up: not the same frames)" : "", line.buf);
	kvfile_release(&result);
	strbuf_release(&line);
	strbuf_release(&err);
	free(path);
}

static int import_one(const struct import_args *a, const char *file, const char *out_dir,
		      const char *db_path, const char *cmdline)
{
	struct import_series s;
	char *source = NULL, *game = NULL, *final = NULL, *tmp = NULL;
	enum import_format f = IMPORT_MANGOHUD;
	int ret, r;

	import_series_init(&s);
	ret = input_arg_check(file);
	if (ret == HB_EXIT_OK)
		ret = format_of(a, file, &f);
	if (ret == HB_EXIT_OK)
		ret = read_series(a, f, file, &s, &source);
	if (ret != HB_EXIT_OK)
		goto out;
	ret = HB_EXIT_FAILURE;
	if (a->game)
		game = xstrdup(a->game);
	else if ((f == IMPORT_PRESENTMON || f == IMPORT_OCAT || f == IMPORT_FRAMEVIEW) &&
		 kvfile_get(&s.info, "application"))
		game = game_from_file(kvfile_get(&s.info, "application"));
	else
		game = game_from_file(f == IMPORT_GALLIUM_HUD ? file : source);
	if ((r = make_dir(out_dir, game, a->variant, &final, &tmp)) < 0) {
		error_msg("cannot create a run directory in '%s': %s", out_dir, strerror(-r));
		goto out;
	}
	if (write_run_dir(a, f, &s, game, source, cmdline, tmp, final) < 0)
		goto out;
	say_peer_figures(a, f, &s, source, final);
	free(tmp);
	tmp = NULL;
	if (db_path && index_run(a, db_path, final) < 0)
		goto out;
	printf("%s\n", final);
	ret = HB_EXIT_OK;
out:
	if (tmp)
		remove_tree(tmp);
	free(tmp);
	free(final);
	free(game);
	free(source);
	import_series_release(&s);
	return ret;
}

static int parse_args(int argc, char **argv, struct import_args *a)
{
	enum { O_FORMAT = 256, O_GAME, O_VARIANT, O_OUT, O_PROCESS, O_PERIOD, O_INTERVAL, O_WARMUP, O_DB,
	       O_NODB, O_RUN };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "game", required_argument, NULL, O_GAME },
		{ "variant", required_argument, NULL, O_VARIANT },
		{ "out", required_argument, NULL, O_OUT },
		{ "process", required_argument, NULL, O_PROCESS },
		{ "hud-period", required_argument, NULL, O_PERIOD },
		{ "interval", no_argument, NULL, O_INTERVAL },
		{ "run", required_argument, NULL, O_RUN },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "db", required_argument, NULL, O_DB },
		{ "no-db", no_argument, NULL, O_NODB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_FORMAT:
			if (import_format_parse(optarg, &a->format) < 0)
				return usage_error(import_usage, "unknown format '%s'", optarg);
			a->have_format = true;
			break;
		case O_GAME:
			a->game = optarg;
			break;
		case O_VARIANT:
			a->variant = optarg;
			break;
		case O_OUT:
			a->out_dir = optarg;
			break;
		case O_PROCESS:
			a->opts.process = optarg;
			break;
		case O_PERIOD:
			if (safe_atosec(optarg, &a->opts.gallium_period_s) < 0 ||
			    a->opts.gallium_period_s > MAX_HUD_PERIOD_S)
				return usage_error(import_usage, "--hud-period wants seconds from 0 to %g, not '%s'",
						   MAX_HUD_PERIOD_S, optarg);
			break;
		case O_INTERVAL:
			a->opts.interval = true;
			break;
		case O_RUN: {
			int n;

			if (strcmp(optarg, "all") == 0)
				a->opts.run = 0;
			else if (safe_atoi(optarg, &n) < 0 || n < 1)
				return usage_error(import_usage, "--run wants a run's number from 1, or 'all', not '%s'",
						   optarg);
			else
				a->opts.run = (unsigned)n;
			break;
		}
		case O_WARMUP:
			if (safe_atosec(optarg, &a->warmup_s) < 0)
				return usage_error(import_usage, "--warmup wants seconds from 0 to %d, not '%s'",
						   HB_MAX_DURATION_S, optarg);
			break;
		case O_DB:
			a->db_path = optarg;
			break;
		case O_NODB:
			a->no_db = true;
			break;
		case 'h':
			fputs(import_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(import_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(import_usage, "import wants at least one FILE");
	for (const char *p = a->game; p && *p; p++)
		if (*p == '/')
			return usage_error(import_usage, "--game cannot hold '/'");
	for (const char *p = a->variant; *p; p++)
		if (*p == '/' || *p == '@')
			return usage_error(import_usage, "--variant cannot hold '/' or '@'");
	return HB_EXIT_OK;
}

int cmd_import(int argc, char **argv, struct context *ctx)
{
	struct import_args a = { .variant = "base", .opts = IMPORT_OPTS_DEFAULT };
	char *out_dir, *cmdline;
	int ret = parse_args(argc, argv, &a);

	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);
	out_dir = a.out_dir ? xstrdup(a.out_dir) : xasprintf("%s/runs/imported", ctx->results_dir);
	cmdline = argv_join(argv - 1);
	for (int i = optind; i < argc; i++) {
		int r = import_one(&a, argv[i], out_dir, a.no_db ? NULL : a.db_path ? a.db_path : ctx->default_db,
				   cmdline);

		if (r != HB_EXIT_OK && (ret == HB_EXIT_OK || r == HB_EXIT_USAGE))
			ret = r;
	}
	free(cmdline);
	free(out_dir);
	return ret;
}
