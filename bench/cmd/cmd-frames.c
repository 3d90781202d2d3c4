/*
 * hitchbench frames: a run's frames as text, one per line, for plotting
 * (gnuplot, a spreadsheet) or for checking a number by hand.
 *
 *   # hitchbench frames 2: RUN
 *   # invalid: WHY             (only for a run whose data fails a check)
 *   # t_s: seconds from the run's first present to the frame's end;
 *   # frame_ms: the frame (interval between consecutive presents);
 *   # in_window: 1 when the frame's end is in (window_start, window_end]
 *   # api: vulkan (presents: vkQueuePresentKHR 3121)
 *   # swapchain: ...          (a Vulkan run: what the lines below say)
 *   # swapchain 0.812345 pid 4242: create 0x1 800x600 fifo 3 images ...
 *   t_s	frame_ms	in_window
 *   0.013702	13.702	0
 *
 * Version 2 added the api line and the swapchain lines (docs/formats.md).
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "run/run.h"
#include "run/swapchain.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char frames_usage[] =
	"usage: hitchbench frames [--window] RUNDIR\n"
	"\n"
	"  prints every frame of a run (tab-separated, with a header saying what\n"
	"  each column is); --window: only the frames of the measured window\n"
	"\n"
	"  A run whose data fails a check (frames.bin cut short, a bench.txt number\n"
	"  that does not parse, a window outside the frames or with too few) is\n"
	"  printed as far as it goes, said on stderr and in the header, and exits 1.\n";

/* The run's API and, for a Vulkan run, its swapchain events, on the
 * frames' clock (seconds from the first present; an event before it is
 * negative). */
static void print_sources(const struct run *run)
{
	const struct swapchain_log *log = &run->swapchains;
	struct strbuf sb = STRBUF_INIT;
	uint64_t t0 = run->frames.n ? run->frames.t_ns[0] : 0;
	struct run_window_sources ws;
	char *api;

	/* every frame is printed: the whole file's */
	run_sources_of_file(&run->frames, &ws);
	api = run_frames_api(&ws);
	run_window_sources_describe(&ws, false, &sb);
	printf("# api: %s (presents: %s)\n", api, ws.n ? sb.buf : "none");
	free(api);
	if (!log->n && !log->dropped) {
		strbuf_release(&sb);
		return;
	}
	printf("# swapchain: a Vulkan swapchain made or destroyed at t_s by pid; a frame whose span "
	       "holds a recreation is not a stall\n");
	for (size_t i = 0; i < log->n; i++) {
		const struct hb_frame_event *e = &log->ev[i].ev;

		strbuf_reset(&sb);
		swapchain_event_describe(log, i, &sb);
		printf("# swapchain %.6f pid %" PRIu32 ": %s\n", (double)((int64_t)(e->t_ns - t0)) / 1e9,
		       e->pid, sb.buf);
	}
	if (log->dropped)
		printf("# swapchain: %" PRIu64 " more lost (the frame file's event slots were full)\n",
		       log->dropped);
	strbuf_release(&sb);
}

int cmd_frames(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "window", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool only_window = false;
	struct run run;
	int c, ret = HB_EXIT_OK;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			only_window = true;
			break;
		case 'h':
			fputs(frames_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(frames_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (argc - optind != 1)
		return usage_error(frames_usage, "frames wants one run directory");
	ret = rundir_arg_load(argv[optind], &run);
	if (ret != HB_EXIT_OK)
		return ret;
	if (!run.have_frames) {
		error_msg("'%s' has no frames.bin", run.dir);
		run_release(&run);
		return HB_EXIT_FAILURE;
	}
	/* what is there is printed, but the run is not whole: said, exit 1 */
	if (run_validate(&run, NULL) < 0) {
		error_msg("'%s' is invalid: %s", run.dir, run.invalid);
		ret = HB_EXIT_FAILURE;
	}
	printf("# hitchbench frames 2: %s\n", run.name);
	if (run.invalid)
		printf("# invalid: %s\n", run.invalid);
	printf("# t_s: seconds from the run's first present to the frame's end;\n"
	       "# frame_ms: the frame (interval between consecutive presents);\n"
	       "# in_window: 1 when the frame's end is in (window_start, window_end]\n");
	print_sources(&run);
	printf("t_s\tframe_ms\tin_window\n");
	for (uint64_t i = 1; i < run.frames.n; i++) {
		uint64_t end = run.frames.t_ns[i];
		bool in = run.have_window && end > run.window_start_ns && end <= run.window_end_ns;

		if (only_window && !in)
			continue;
		printf("%.6f\t%.3f\t%d\n", (double)(end - run.frames.t_ns[0]) / 1e9,
		       (double)(end - run.frames.t_ns[i - 1]) / 1e6, in);
	}
	run_release(&run);
	return ret;
}
