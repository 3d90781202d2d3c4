/*
 * hitchbench stalls: why each run stalled, stall by stall, from its stall
 * record and its wait record (docs/stalls.md): the records' sources and
 * their own cost, how the frames and t0 alignments agree, a table per
 * section (load, warm-up, window) with the waits of each stall the wait
 * record decided, and the seconds per cause. The command parses its
 * arguments and loads the runs; the table is built and written by
 * analysis/stalls/stalltable.h, the model the HTML report shows too.
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "text/jsonout.h"
#include "run/run.h"
#include "stalls/stalltable.h"

#include <getopt.h>

static const char stalls_usage[] =
	"usage: hitchbench stalls [--stall-ms MS] [-v] [--format table|json] [--no-notes] RUNDIR...\n"
	"\n"
	"  RUNDIR          a run directory with a stall record (STALLS=1) or a wait record\n"
	"                  (STALLS=bpf), or a directory of them\n"
	"  --stall-ms MS   a frame over MS is a stall (default 100)\n"
	"  -v              the samples of each stall too\n"
	"  --format json   format 1: per run, every stall (section, when, length, cause, who\n"
	"                  decided, each cause's seconds, the evidence, its waits) and the seconds\n"
	"                  per cause\n"
	"  --no-notes      the table without its closing line saying what the columns are\n";

struct stalls_opts {
	struct metric_opts mo;
	bool json;
	enum stall_table_text_flags text;
	struct json_out j;      /* json: the document being written */
};

/* One run: loaded, its stall table built (stalltable.h) and written. */
static int stalls_one(const char *dir, struct stalls_opts *so, bool *had)
{
	struct strbuf err = STRBUF_INIT;
	struct stall_table t;
	struct run run;
	int r;

	if (run_load(dir, &run, &err) < 0) {
		error_msg("%s", err.buf);
		strbuf_release(&err);
		return HB_EXIT_FAILURE;
	}
	if (!so->json)
		stall_table_text_heading(stdout, run.name, run.dir);
	r = stall_table_build(&run, &so->mo, &t, &err);
	if (r < 0) {
		error_msg("%s", err.buf);
	} else {
		*had = *had || t.none != STN_NO_RECORD;
		if (so->json)
			stall_table_json_run(&so->j, &t);
		else
			stall_table_text(stdout, &t, so->text);
		stall_table_release(&t);
	}
	run_release(&run);
	strbuf_release(&err);
	return r < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

int cmd_stalls(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "stall-ms", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-notes", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stalls_opts so = { .mo = METRIC_OPTS_DEFAULT };
	enum report_format format = REPORT_TABLE;
	struct argv_list list;
	bool had = false;
	int c, ret = HB_EXIT_OK;

	so.mo.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	while ((c = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (safe_atod(optarg, &so.mo.stall_ms) < 0 || so.mo.stall_ms <= 0)
				return usage_error(stalls_usage, "--stall-ms wants milliseconds > 0, not '%s'", optarg);
			break;
		case 'v':
			so.text |= STT_VERBOSE;
			break;
		case 'f':
			if (format_arg(stalls_usage, optarg, FORMAT_BIT(REPORT_TABLE) | FORMAT_BIT(REPORT_JSON),
				       &format) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			so.json = format == REPORT_JSON;
			break;
		case 'N':
			so.text |= STT_NO_NOTES;
			break;
		case 'h':
			fputs(stalls_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(stalls_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(stalls_usage, "stalls wants run directories");
	argv_init(&list);
	ret = rundir_args_expand(argv + optind, argc - optind, &list);
	if (ret != HB_EXIT_OK) {
		argv_release(&list);
		return ret;
	}
	if (so.json)
		stall_table_json_begin(&so.j, stdout, so.mo.stall_ms);
	for (size_t i = 0; i < list.n; i++)
		if (stalls_one(list.v[i], &so, &had) != HB_EXIT_OK)
			ret = HB_EXIT_FAILURE;
	if (so.json)
		stall_table_json_end(&so.j);
	argv_release(&list);
	if (!had && ret == HB_EXIT_OK) {
		error_msg("no run given has a stall record (%s) or a wait record (%s): make runs with STALLS=1 "
			  "or STALLS=bpf", HB_STALLREC_FILE, HB_WAITREC_FILE);
		return HB_EXIT_USAGE;
	}
	return ret;
}
