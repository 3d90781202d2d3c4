/*
 * Run integrity: whether a run directory's data is whole and consistent
 * enough to be counted. A run's bench.txt may say status=ok while its frame
 * file was cut short by a copy, a number in bench.txt was mangled by hand,
 * its window lies outside the frames or holds a handful of them; such a run
 * would enter medians, matrix cells and comparisons as zeros or as a few
 * frames' noise. Every consumer (report, matrix, db import and through the
 * database compare and regress, result.txt of the runner and of import)
 * asks run_validate() here, so the rules live in one place and a run is
 * refused for the same reason everywhere. The rules, in the order checked
 * (the first that fails is the reason): docs/formats.md "Run integrity".
 *
 * Also here: what an interval log (rows are periodic samples, not frames)
 * cannot tell, the per-frame metrics run_metrics() leaves unset for it.
 */
#include "run/run.h"
#include "formats/sha256sums.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The metrics that need every frame: counts of frames, stalls, the
 * longest frame, percentiles and everything made of them. An interval
 * log's "frames" are samples, each the mean of many frames, so none of
 * these can be known from it; its window, fps (samples over the summed
 * sample frame times: an average) and MangoHud's average stay. */
static const enum metric_id per_frame_metrics[] = {
	M_FRAMES, M_STEADY_FPS, M_SMOOTH_FPS, M_STALLS, M_STALL_S, M_LONGEST_MS,
	M_P50_MS, M_P99_MS, M_P999_MS, M_LOW1, M_LOW01, M_LOW1_AVG, M_LOW01_AVG,
	M_LOW1_INTEGRAL, M_STUTTER_PCT, M_MANGOHUD_LOW01, M_MANGOHUD_LOW1, M_MANGOHUD_P97,
	M_STALLS_WARM, M_STALL_WARM_S, M_LONGEST_WARM, M_STALLS_PLAY, M_STALL_PLAY_S,
	M_LONGEST_PLAY, M_LOW1_PLAY, M_STALL_DISK_S, M_STALL_SWAP_S, M_STALL_RECLAIM_S,
	M_STALL_GPU_S, M_STALL_CPU_S, M_STALL_IO_S, M_STALL_WAIT_S, M_STALL_OTHER_S,
	M_WARM_DISK_S, M_CPU_MS_PER_FRAME,
};

bool run_is_interval(const struct run *run)
{
	const char *kind = kvfile_get(&run->bench, "frame_source_kind");

	return kind && strcmp(kind, "interval") == 0;
}

bool metric_is_per_frame(enum metric_id id)
{
	for (size_t i = 0; i < ARRAY_SIZE(per_frame_metrics); i++)
		if (per_frame_metrics[i] == id)
			return true;
	return false;
}

void run_interval_unset(struct metrics *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(per_frame_metrics); i++)
		m->have[per_frame_metrics[i]] = false;
}

/* bench.txt keys the analysis reads as numbers: nanoseconds (whole) and
 * amounts (seconds, milliseconds, percentages: any number >= 0; the
 * noise.* ones are the host's noise, run.c). pass.N.start_ns is matched
 * apart, and noise.steal_pct may be "-" (no steal clock). */
static const char *const ns_keys[] = {
	"window_start_ns", "window_end_ns", "first_frame_ns", "noise.t0_ns", "noise.t1_ns",
};
static const char *const s_keys[] = {
	"warmup_s", "window_s", "noise.game_cpu_ms", "noise.steal_pct", "noise.foreign_cpu_pct",
	"noise.irq_pct", "noise.game_runq_ms_per_s",
};

static bool is_pass_start(const char *key)
{
	int pass;

	return run_pass_start_key(key, &pass);
}

static bool in_list(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(key, list[i]) == 0)
			return true;
	return false;
}

/* Every number the analysis reads parses: a value present but mangled
 * would silently become "no window" or "no warm-up". */
static int check_numbers(const struct run *run, struct strbuf *err)
{
	for (size_t i = 0; i < run->bench.n; i++) {
		const struct kv *kv = &run->bench.items[i];
		uint64_t u;
		double d;
		bool ok;

		if (in_list(kv->key, ns_keys, ARRAY_SIZE(ns_keys)) || is_pass_start(kv->key))
			ok = safe_atou64(kv->value, &u) == 0;
		else if (strcmp(kv->key, "noise.steal_pct") == 0 && strcmp(kv->value, "-") == 0)
			ok = true;
		else if (in_list(kv->key, s_keys, ARRAY_SIZE(s_keys)))
			ok = safe_atod(kv->value, &d) == 0 && isfinite(d) && d >= 0;
		else
			continue;
		if (!ok) {
			strbuf_addf(err, "bench.txt:%d: %s=%s is not a number", kv->line, kv->key,
				    kv->value);
			return -EINVAL;
		}
	}
	return 0;
}

/* Seconds from the run's first present, for messages. */
static double since_first(const struct run *run, uint64_t t)
{
	uint64_t first = run->frames.t_ns[0];

	return t >= first ? (double)(t - first) / 1e9 : -(double)(first - t) / 1e9;
}

/* The window is a real span inside the recorded frames. One that starts
 * after the frames (a warm-up longer than the recording) is said so even
 * when its end is before its start (an importer's end is the last frame). */
static int check_window(const struct run *run, struct strbuf *err)
{
	uint64_t first, last;

	if (!run->have_window) {
		strbuf_addf(err, "bench.txt: no window (window_start_ns and window_end_ns) "
			    "for a run with status ok");
		return -EINVAL;
	}
	if (run->frames.n < 2) {
		strbuf_addf(err, "frames.bin: %llu frame(s) recorded, no frame time",
			    (unsigned long long)run->frames.n);
		return -EINVAL;
	}
	first = run->frames.t_ns[0];
	last = run->frames.t_ns[run->frames.n - 1];
	if (run->window_start_ns >= last) {
		strbuf_addf(err, "the window starts at %.3f s, after the last frame (%.3f s; times "
			    "from the first present)", since_first(run, run->window_start_ns),
			    since_first(run, last));
		return -EINVAL;
	}
	if (run->window_end_ns <= first) {
		strbuf_addf(err, "the window ends at %.3f s, before the first present (times from "
			    "the first present)", since_first(run, run->window_end_ns));
		return -EINVAL;
	}
	if (run->window_end_ns <= run->window_start_ns) {
		strbuf_addf(err, "bench.txt: the window ends (window_end_ns=%llu) before it starts "
			    "(window_start_ns=%llu)", (unsigned long long)run->window_end_ns,
			    (unsigned long long)run->window_start_ns);
		return -EINVAL;
	}
	return 0;
}

/* Frames whose end (the later present) is in (start, end], as
 * metrics_compute() counts them; the first present ends no frame. */
static uint64_t window_frames(const struct run *run)
{
	uint64_t n = 0;

	for (uint64_t i = 1; i < run->frames.n; i++)
		if (run->frames.t_ns[i] > run->window_start_ns && run->frames.t_ns[i] <= run->window_end_ns)
			n++;
	return n;
}

/* The run's files as the runner left them, when it left a SHA256SUMS
 * (one without is older than checksums, or made by hand: nothing to
 * check). Asked last: a damage one of the checks above names says more
 * than "frames.bin: checksum mismatch". */
static int check_sums(const struct run *run, struct strbuf *err)
{
	struct strbuf vwhy = STRBUF_INIT;
	char *path;
	int r;

	if (!run->dir)
		return 0;
	path = xasprintf("%s/%s", run->dir, SHA256SUMS_NAME);
	r = access(path, F_OK) < 0 && errno == ENOENT ? 0 : sha256sums_verify(run->dir, &vwhy);
	free(path);
	if (r == 1)
		strbuf_addf(err, "%s does not match: %s", SHA256SUMS_NAME, vwhy.buf);
	else if (r == -EINVAL) /* "SHA256SUMS:LINE: what" */
		strbuf_addstr(err, vwhy.buf);
	else if (r < 0)
		strbuf_addf(err, "%s cannot be checked: %s", SHA256SUMS_NAME, vwhy.buf);
	strbuf_release(&vwhy);
	return r == 0 ? 0 : -EINVAL;
}

int run_check(const struct run *run, const struct metric_opts *opts, struct strbuf *err)
{
	static const struct metric_opts defaults = METRIC_OPTS_DEFAULT;
	uint64_t n;
	int r;

	if (!opts)
		opts = &defaults;
	if (!run->have_frames) {
		strbuf_addf(err, "no frames.bin for a run with status ok");
		return -EINVAL;
	}
	if (hb_frames_cut(&run->frames)) {
		strbuf_addf(err, "frames.bin: %llu records in the header, %llu in the file",
			    (unsigned long long)run->frames.header_records,
			    (unsigned long long)run->frames.file_records);
		return -EINVAL;
	}
	r = check_numbers(run, err);
	if (r < 0)
		return r;
	r = check_window(run, err);
	if (r < 0)
		return r;
	n = window_frames(run);
	if (n < opts->min_frames) {
		strbuf_addf(err, "the window holds %llu %s, fewer than the minimum of %u (--min-frames)",
			    (unsigned long long)n, run_is_interval(run) ? "samples" : "frames",
			    opts->min_frames);
		return -EINVAL;
	}
	r = run_check_api(run, err);
	if (r < 0)
		return r;
	return check_sums(run, err);
}

int run_validate(struct run *run, const struct metric_opts *opts)
{
	struct strbuf why = STRBUF_INIT;
	int r;

	/* checked again (other options): start from what bench.txt says */
	free(run->invalid);
	run->invalid = NULL;
	if (run->recorded_status)
		run->status = run->recorded_status;
	/* a run that failed has its own reason and no numbers to check */
	if (!run->status || strcmp(run->status, "ok") != 0)
		return 0;
	r = run_check(run, opts, &why);
	if (r < 0) {
		run->invalid = strbuf_detach(&why);
		run->recorded_status = run->status;
		run->status = "invalid";
	}
	strbuf_release(&why);
	return r;
}
