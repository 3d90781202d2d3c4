/*
 * The numbers users rank, computed from a run's present times (see
 * metrics.h for the definitions). Everything a report, result.txt or the
 * database shows comes from metrics_compute() and metrics_median(), so the
 * definitions live in one place and print with every report.
 *
 * Frame times are integer nanosecond differences converted once to double
 * milliseconds; sums of frame times are kept in integer nanoseconds so a
 * long run does not accumulate rounding. The percentiles' sort is on the
 * integers (sort_u64, a radix sort: a million frames in milliseconds where
 * qsort took a fifth of a second); ns / 1e6 never reverses two frames, so
 * the sorted milliseconds are the same array either way.
 */
#include "metrics/metrics.h"
#include "base/sort.h"
#include "metrics/lows.h"
#include "metrics/capframex.h"
#include "metrics/presentmon-stats.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PPM 1000000u

const struct metric_def metric_defs[M_COUNT] = {
	[M_FRAMES]     = { "frames",     "frames",  0, "frames whose end (the later present) is in the window", BETTER_NEITHER },
	[M_WINDOW_S]   = { "window_s",   "window",  3, "window end - window start, seconds", BETTER_NEITHER },
	[M_FPS]        = { "fps",        "fps",     1, "frames / window_s", BETTER_HIGHER },
	[M_STEADY_FPS] = { "steady_fps", "steady",  1, "1000 / p50_ms", BETTER_HIGHER },
	[M_SMOOTH_FPS] = { "smooth_fps", "smooth",  1, "frames not over the stall threshold / the seconds they took", BETTER_HIGHER },
	[M_STALLS]     = { "stalls",     "stalls",  0, "frames over the stall threshold (not one that spans a swapchain recreation)", BETTER_LOWER },
	[M_STALL_S]    = { "stall_s",    "stall_s", 2, "the seconds the frames counted in stalls took", BETTER_LOWER },
	[M_LONGEST_MS] = { "longest_ms", "longest", 1, "the longest frame time, ms", BETTER_LOWER },
	[M_P50_MS]     = { "p50_ms",     "p50",     2, "50th percentile of frame time, ms", BETTER_LOWER },
	[M_P99_MS]     = { "p99_ms",     "p99",     2, "99th percentile of frame time, ms", BETTER_LOWER },
	[M_P999_MS]    = { "p999_ms",    "p999",    2, "99.9th percentile of frame time, ms", BETTER_LOWER },
	[M_LOW1]       = { "low1",       "low1",    1, "1000 / p99_ms (the \"1% low\")", BETTER_HIGHER },
	[M_LOW01]      = { "low01",      "low01",   1, "1000 / p999_ms (the \"0.1% low\")", BETTER_HIGHER },
	[M_LOW1_AVG]   = { "low1_avg",   "low1avg", 1,
			   "1000 / mean of the frame times at or above their R-8 99th percentile "
			   "(CapFrameX \"1% low average\")", BETTER_HIGHER },
	[M_LOW01_AVG]  = { "low01_avg",  "low01avg", 1,
			   "1000 / mean of the frame times at or above their R-8 99.9th percentile "
			   "(CapFrameX \"0.1% low average\")", BETTER_HIGHER },
	[M_LOW1_INTEGRAL] = { "low1_integral", "low1int", 1,
			   "1000 / the frame time at which the longest frames first add up to 1% of "
			   "the time (MSI Afterburner / CapFrameX \"1% low integral\")", BETTER_HIGHER },
	[M_STUTTER_PCT] = { "stutter_pct", "stutter", 2,
			   "% of the time in frames over 2.5 x the trailing 500 ms moving average "
			   "(CapFrameX \"stuttering time\")", BETTER_LOWER },
	[M_MANGOHUD_LOW01] = { "mangohud_low01", "mh01", 1,
			   "MangoHud's \"0.1% Min FPS\" by the formula of the MangoHud version named "
			   "in the notes (0.6.8 unless imported from a newer log)", BETTER_HIGHER },
	[M_MANGOHUD_LOW1] = { "mangohud_low1", "mh1", 1,
			   "MangoHud's \"1% Min FPS\", same formula version", BETTER_HIGHER },
	[M_MANGOHUD_P97] = { "mangohud_p97", "mh97", 1,
			   "MangoHud's \"97% Percentile FPS\" (fast frames), same formula version", BETTER_HIGHER },
	[M_MANGOHUD_AVG] = { "mangohud_avg", "mhavg", 1,
			   "MangoHud's \"Average FPS\", same formula version", BETTER_HIGHER },
	[M_FRAMEVIEW_LOW1] = { "frameview_low1", "fv1", 1,
			   "1000 / mean of the n/100 + 1 longest frame times (FrameView \"1% Low FPS\")",
			   BETTER_HIGHER },
	[M_FRAMEVIEW_LOW01] = { "frameview_low01", "fv01", 1,
			   "1000 / mean of the n/1000 + 1 longest frame times (FrameView \"0.1% Low FPS\")",
			   BETTER_HIGHER },
	[M_CAPFRAMEX_P5] = { "capframex_p5", "cx_p5", 2,
			   "R-8 5th percentile of the frames' fps (1000 / frame time) (CapFrameX \"P5\")",
			   BETTER_HIGHER },
	[M_CAPFRAMEX_P1] = { "capframex_p1", "cx_p1", 2,
			   "R-8 1st percentile of the frames' fps (CapFrameX \"P1\")", BETTER_HIGHER },
	[M_CAPFRAMEX_P01] = { "capframex_p01", "cx_p01", 2,
			   "R-8 0.1th percentile of the frames' fps (CapFrameX \"P0.1\")", BETTER_HIGHER },
	[M_PRESENTMON_MIN] = { "presentmon_min", "pm_min", 2,
			   "1000 / the longest frame time (PresentMon 2.x capture stats \"Minimum FPS\")",
			   BETTER_HIGHER },
	[M_PRESENTMON_P1] = { "presentmon_p1", "pm_p1", 2,
			   "1000 / the R-7 (linear) 99th percentile of frame time "
			   "(PresentMon 2.x capture stats \"1st Percentile FPS\")", BETTER_HIGHER },
	[M_PRESENTMON_P5] = { "presentmon_p5", "pm_p5", 2,
			   "1000 / the R-7 (linear) 95th percentile of frame time "
			   "(PresentMon 2.x capture stats \"5th Percentile FPS\")", BETTER_HIGHER },
	[M_PRESENTMON_MAX] = { "presentmon_max", "pm_max", 2,
			   "1000 / the shortest frame time (PresentMon 2.x capture stats \"Maximum FPS\")",
			   BETTER_NEITHER },
	[M_STALLS_WARM]  = { "stalls_warm",  "st_warm",  0, "frames over the stall threshold in the warm-up (first present to window start)", BETTER_LOWER },
	[M_STALL_WARM_S] = { "stall_warm_s", "stw_s",    2, "the seconds the warm-up's frames over the stall threshold took", BETTER_LOWER },
	[M_LONGEST_WARM] = { "longest_warm", "lg_warm",  1, "the longest frame of the warm-up, ms", BETTER_LOWER },
	[M_STALLS_PLAY]  = { "stalls_play",  "st_play",  0, "frames over the stall threshold in the window, reload segments left out", BETTER_LOWER },
	[M_STALL_PLAY_S] = { "stall_play_s", "stp_s",    2, "the seconds the play frames over the stall threshold took", BETTER_LOWER },
	[M_LONGEST_PLAY] = { "longest_play", "lg_play",  1, "the longest play frame (window less reload segments), ms", BETTER_LOWER },
	[M_LOW1_PLAY]    = { "low1_play",    "low1_pl",  1, "1000 / p99 of the play frames (window less reload segments)", BETTER_HIGHER },
	[M_WIN_PLAY]     = { "win_play",     "win_pl",   3, "seconds of the window outside reload segments", BETTER_NEITHER },
	[M_RELOAD_S]     = { "reload_s",     "rel_s",    3, "seconds of the window inside reload segments", BETTER_NEITHER },
	[M_RELOAD_N]     = { "reload_n",     "rel_n",    0, "reload segments that overlap the window", BETTER_NEITHER },
	[M_RECREATIONS]  = { "recreations",  "recreate", 0,
			     "Vulkan swapchain recreations in the window (a resize, a present mode change): "
			     "a frame spanning one is not a stall", BETTER_NEITHER },
	[M_RECREATION_S] = { "recreation_s", "recr_s",   3, "the seconds of the window's frames that span a swapchain recreation", BETTER_NEITHER },
	[M_STALL_DISK_S]    = { "stall_disk_s",    "disk",    2, "stall_s waiting on a page fault read from a disk (stall record, docs/stalls.md)", BETTER_LOWER },
	[M_STALL_SWAP_S]    = { "stall_swap_s",    "swap",    2, "stall_s waiting on swap-ins (zram, VRAM or disk swap)", BETTER_LOWER },
	[M_STALL_RECLAIM_S] = { "stall_reclaim_s", "reclaim", 2, "stall_s in direct or cgroup memory reclaim, compaction, or GPU memory growth (gart)", BETTER_LOWER },
	[M_STALL_GPU_S]     = { "stall_gpu_s",     "gpu",     2, "stall_s asleep in a DRM ioctl or a fence wait", BETTER_LOWER },
	[M_STALL_CPU_S]     = { "stall_cpu_s",     "cpu",     2, "stall_s running (cpu) or runnable without a CPU (runq)", BETTER_LOWER },
	[M_STALL_IO_S]      = { "stall_io_s",      "io",      2, "stall_s blocked in a system call (read, fsync, ...)", BETTER_LOWER },
	[M_STALL_WAIT_S]    = { "stall_wait_s",    "wait",    2, "stall_s asleep: futex, poll or socket, sleep", BETTER_LOWER },
	[M_STALL_OTHER_S]   = { "stall_other_s",   "other",   2, "stall_s in page faults without reads, or not sampled (unknown)", BETTER_LOWER },
	[M_LOAD_DISK_S]     = { "load_disk_s",     "ld_disk", 2,
				"seconds waiting on the disk from each pass's launch to its first present: the main "
				"thread's delay accounting (delay.blkio_us) when recorded, else the samples classified disk", BETTER_LOWER },
	[M_WARM_DISK_S]     = { "warm_disk_s",     "wm_disk", 2, "the warm-up's stall frames' disk seconds (as stall_disk_s)", BETTER_LOWER },
	[M_STALLREC_SAMPLES]  = { "stallrec_samples",  "rec_n",   0, "samples the stall recorder took (its trailer)", BETTER_NEITHER },
	[M_STALLREC_CPU_S]    = { "stallrec_cpu_s",    "rec_cpu", 3, "the stall recorder's own CPU time, seconds", BETTER_LOWER },
	[M_STALLREC_CPU_PCT]  = { "stallrec_cpu_pct",  "rec_pct", 2, "the stall recorder's CPU time, % of one thread over its run", BETTER_LOWER },
	[M_STALLREC_US_PER_SAMPLE] = { "stallrec_us_per_sample", "rec_us", 1, "the stall recorder's CPU time a sample, us (its wakeups included)", BETTER_LOWER },
	[M_STALLREC_WORK_US]  = { "stallrec_work_us",  "rec_work", 1, "the stall recorder's CPU time inside a sample, us (the sampling itself, without the wakeup)", BETTER_LOWER },
	[M_STALLBPF_NS_PER_EVENT] = { "stallbpf_ns_per_event", "bpf_ns", 1, "the BPF stall recorder's kernel run time an event, ns (its programs' run time over their runs, bpf_stats; the wait record's trailer)", BETTER_LOWER },
	[M_STALLBPF_CPU_PCT]  = { "stallbpf_cpu_pct",  "bpf_pct", 3, "the BPF stall recorder's CPU time, % of one CPU over its run: its programs' in the kernel plus its user side's", BETTER_LOWER },
	[M_STALLBPF_EVENTS]   = { "stallbpf_events",   "bpf_n",   0, "events the BPF stall recorder's programs handled (the sum of their runs)", BETTER_NEITHER },
	[M_PROBE_WORST_US]    = { "probe_worst_us",    "pr_worst", 1, "the PROBE switch's worst timer wakeup lateness, us, the largest over the CPUs (each CPU's in bench.txt)", BETTER_LOWER },
	[M_PROBE_P999_US]     = { "probe_p999_us",     "pr_p999",  0, "the largest over the CPUs of the nearest-rank 99.9th percentile of the PROBE switch's wakeup lateness, us (20000: at least that, past its histogram)", BETTER_LOWER },
	[M_CPU_MS_PER_FRAME]  = { "cpu_ms_per_frame",  "cpu_ms/f", 3,
				  "the game's CPU time over (noise.t0_ns, noise.t1_ns] (utime+stime of its processes, "
				  "threads and reaped children, bench.txt noise.game_cpu_ms) / the frames whose end is in that "
				  "interval, ms", BETTER_LOWER },
	[M_STEAL_PCT]         = { "steal_pct",         "steal",    2,
				  "% of all CPUs' ticks stolen by the hypervisor over (noise.t0_ns, noise.t1_ns] "
				  "(/proc/stat steal, bench.txt noise.steal_pct; none without a steal clock)", BETTER_LOWER },
	[M_FOREIGN_CPU_PCT]   = { "foreign_cpu_pct",   "foreign",  2,
				  "% of all CPUs' time over (noise.t0_ns, noise.t1_ns] busy outside the run's own "
				  "processes (/proc/stat busy less their CPU time, bench.txt noise.foreign_cpu_pct)",
				  BETTER_LOWER },
	[M_IRQ_PCT]           = { "irq_pct",           "irq",      2,
				  "% of all CPUs' ticks in irq and softirq over (noise.t0_ns, noise.t1_ns] "
				  "(/proc/stat, bench.txt noise.irq_pct)", BETTER_LOWER },
	[M_GAME_RUNQ_MS_PER_S] = { "game_runq_ms_per_s", "runq/s", 2,
				  "ms a second the game's threads waited runnable for a CPU over (noise.t0_ns, "
				  "noise.t1_ns] (proc/PID/task/TID/schedstat, bench.txt noise.game_runq_ms_per_s)",
				  BETTER_LOWER },
};

/* floor(a * ppm / 1e6) and its remainder, exact for any a: a is split at
 * 1e6 so no product exceeds 64 bits (ppm <= 1e6). */
static uint64_t mul_ppm(uint64_t a, uint32_t ppm, uint64_t *rem)
{
	uint64_t q = a / PPM, r = a % PPM;
	uint64_t low = r * ppm;

	*rem = low % PPM;
	return q * ppm + low / PPM;
}

double percentile_sorted(const double *sorted, size_t n, uint32_t ppm, enum percentile_def def)
{
	uint64_t rank, lo, rem;

	if (n == 0)
		return NAN;
	if (ppm > PPM)
		ppm = PPM;

	switch (def) {
	case PCT_LINEAR:
		/* R type 7: position h = (n-1)*p (0-based), lo = floor(h),
		 * interpolated towards lo+1 by the fraction of h. */
		lo = mul_ppm(n - 1, ppm, &rem);
		if (rem == 0 || lo + 1 >= n)
			return sorted[lo];
		return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * ((double)rem / PPM);
	case PCT_NEAREST_RANK:
	default:
		/* rank = ceil(p * n), 1-based, clamped to [1, n] */
		rank = mul_ppm(n, ppm, &rem);
		if (rem)
			rank++;
		if (rank < 1)
			rank = 1;
		if (rank > n)
			rank = n;
		return sorted[rank - 1];
	}
}

const char *percentile_def_name(enum percentile_def def)
{
	switch (def) {
	case PCT_NEAREST_RANK:
		return "nearest-rank";
	case PCT_LINEAR:
		return "linear";
	}
	return "unknown";
}

const char *percentile_def_formula(enum percentile_def def)
{
	switch (def) {
	case PCT_NEAREST_RANK:
		return "the frame time at rank ceil(p/100 * N) of the N frame times sorted ascending";
	case PCT_LINEAR:
		return "interpolated at position (N-1) * p/100 (0-based) between the two neighbouring "
		       "sorted frame times (R type 7, numpy's default)";
	}
	return "unknown";
}

int min_frames_parse(const char *s, unsigned *out)
{
	uint64_t v;

	if (!s || safe_atou64(s, &v) < 0 || v > UINT_MAX)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int percentile_def_parse(const char *s, enum percentile_def *out)
{
	if (!s)
		return -EINVAL;
	if (strcmp(s, "nearest-rank") == 0)
		*out = PCT_NEAREST_RANK;
	else if (strcmp(s, "linear") == 0)
		*out = PCT_LINEAR;
	else
		return -EINVAL;
	return 0;
}

static void set(struct metrics *m, enum metric_id id, double v)
{
	m->v[id] = v;
	m->have[id] = true;
}

void metrics_set_finite(struct metrics *m, enum metric_id id, double v)
{
	if (isfinite(v))
		set(m, id, v);
}

/* 1000 / ms, left unset when ms is 0 (frames presented in the same ns). */
static void set_rate(struct metrics *m, enum metric_id id, double ms)
{
	if (ms > 0)
		set(m, id, 1000.0 / ms);
}

int metrics_compute(const uint64_t *t_ns, size_t n, uint64_t window_start_ns,
		    uint64_t window_end_ns, const struct metric_opts *opts,
		    struct metrics *out)
{
	return metrics_compute_recreated(t_ns, n, window_start_ns, window_end_ns, NULL, opts, out);
}

bool metric_recreation_spanned(const struct metric_recreations *rec, size_t *k, uint64_t a, uint64_t b)
{
	if (!rec)
		return false;
	while (*k < rec->n && rec->t_ns[*k] <= a)
		(*k)++;
	return *k < rec->n && rec->t_ns[*k] <= b;
}

int metrics_compute_recreated(const uint64_t *t_ns, size_t n, uint64_t window_start_ns,
			      uint64_t window_end_ns, const struct metric_recreations *rec,
			      const struct metric_opts *opts, struct metrics *out)
{
	static const struct metric_opts defaults = METRIC_OPTS_DEFAULT;
	struct metrics m;
	uint64_t *ns = NULL;
	double *ms = NULL;
	uint64_t *frame_ns = NULL;
	double window_s;
	size_t frames = 0, stalls = 0, smooth = 0, recreations = 0, k = 0;
	uint64_t stall_ns = 0, smooth_ns = 0, longest_ns = 0, recreation_ns = 0;

	if (!opts)
		opts = &defaults;
	if (!out || (n > 0 && !t_ns) || window_end_ns <= window_start_ns ||
	    !isfinite(opts->stall_ms) || opts->stall_ms < 0 || (rec && rec->n && !rec->t_ns))
		return -EINVAL;
	for (size_t i = 1; i < n; i++) {
		if (t_ns[i] < t_ns[i - 1])
			return -EINVAL;
		if (t_ns[i] > window_start_ns && t_ns[i] <= window_end_ns)
			frames++;
	}
	for (size_t i = 0; rec && i < rec->n; i++) {
		if (i && rec->t_ns[i] < rec->t_ns[i - 1])
			return -EINVAL;
		recreations += rec->t_ns[i] > window_start_ns && rec->t_ns[i] <= window_end_ns;
	}

	memset(&m, 0, sizeof(m));
	window_s = (double)(window_end_ns - window_start_ns) / 1e9;
	set(&m, M_FRAMES, (double)frames);
	set(&m, M_WINDOW_S, window_s);
	set(&m, M_FPS, (double)frames / window_s);
	if (rec) {
		set(&m, M_RECREATIONS, (double)recreations);
		set(&m, M_RECREATION_S, 0);
	}
	if (frames == 0)
		goto done;

	ns = zalloc(frames * sizeof(*ns));
	frame_ns = zalloc(frames * sizeof(*frame_ns));
	frames = 0;
	for (size_t i = 1; i < n; i++) {
		uint64_t d;

		if (t_ns[i] <= window_start_ns || t_ns[i] > window_end_ns)
			continue;
		d = t_ns[i] - t_ns[i - 1];
		frame_ns[frames] = d;
		if (metric_recreation_spanned(rec, &k, t_ns[i - 1], t_ns[i])) {
			/* an event of the run, not a stall */
			recreation_ns += d;
			if ((double)d / 1e6 <= opts->stall_ms) {
				smooth++;
				smooth_ns += d;
			}
		} else if ((double)d / 1e6 > opts->stall_ms) {
			stalls++;
			stall_ns += d;
		} else {
			smooth++;
			smooth_ns += d;
		}
		if (d > longest_ns)
			longest_ns = d;
		frames++;
	}
	/* frame_ns stays in order (stutter needs it); ns is sorted */
	memcpy(ns, frame_ns, frames * sizeof(*ns));
	sort_u64(ns, frames);
	ms = zalloc(frames * sizeof(*ms));
	for (size_t i = 0; i < frames; i++)
		ms[i] = (double)ns[i] / 1e6;

	set(&m, M_STALLS, (double)stalls);
	set(&m, M_STALL_S, (double)stall_ns / 1e9);
	if (rec)
		set(&m, M_RECREATION_S, (double)recreation_ns / 1e9);
	if (smooth_ns > 0)
		set(&m, M_SMOOTH_FPS, (double)smooth / ((double)smooth_ns / 1e9));
	set(&m, M_LONGEST_MS, (double)longest_ns / 1e6);
	set(&m, M_P50_MS, percentile_sorted(ms, frames, 500000, opts->pct));
	set(&m, M_P99_MS, percentile_sorted(ms, frames, 990000, opts->pct));
	set(&m, M_P999_MS, percentile_sorted(ms, frames, 999000, opts->pct));
	set_rate(&m, M_STEADY_FPS, m.v[M_P50_MS]);
	set_rate(&m, M_LOW1, m.v[M_P99_MS]);
	set_rate(&m, M_LOW01, m.v[M_P999_MS]);
	lows_compute(frame_ns, ns, ms, frames, opts, &m);
	capframex_compute(ms, frames, &m);
	presentmon_stats_compute(ms, frames, &m);
	free(ns);
	free(frame_ns);
	free(ms);
done:
	*out = m;
	return 0;
}

void metrics_median(const struct metrics *runs, size_t n, struct metrics *out)
{
	double *vals = zalloc((n ? n : 1) * sizeof(*vals));

	memset(out, 0, sizeof(*out));
	for (int id = 0; id < M_COUNT; id++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (runs[i].have[id])
				vals[k++] = runs[i].v[id];
		if (k == 0)
			continue;
		qsort(vals, k, sizeof(*vals), cmp_double);
		out->v[id] = k % 2 ? vals[k / 2] : (vals[k / 2 - 1] + vals[k / 2]) / 2;
		out->have[id] = true;
	}
	free(vals);
}

/* The groups of the stall_*_s metrics, in their order. */
static const char *const stall_group_names[M_STALL_OTHER_S - M_STALL_DISK_S + 1] = {
	"disk", "swap", "reclaim", "gpu", "cpu", "io", "wait", "other",
};

const char *metrics_stall_why(const struct metrics *m)
{
	int best = -1;

	for (int k = 0; k <= M_STALL_OTHER_S - M_STALL_DISK_S; k++) {
		int id = M_STALL_DISK_S + k;

		if (m->have[id] && m->v[id] > 0 && (best < 0 || m->v[id] > m->v[M_STALL_DISK_S + best]))
			best = k;
	}
	return best < 0 ? NULL : stall_group_names[best];
}

void metrics_noise_summary(const struct metrics *m, char *buf, size_t size)
{
	static const struct {
		const char *tag;
		enum metric_id id;
		int decimals;
	} fig[] = { { "st", M_STEAL_PCT, 1 }, { "fg", M_FOREIGN_CPU_PCT, 1 }, { "rq", M_GAME_RUNQ_MS_PER_S, 0 } };
	size_t len = 0;
	bool any = false;

	for (size_t i = 0; i < ARRAY_SIZE(fig); i++)
		any |= m->have[fig[i].id] && isfinite(m->v[fig[i].id]);
	if (!any) {
		snprintf(buf, size, "-");
		return;
	}
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(fig) && len < size; i++) {
		double v = m->v[fig[i].id];
		const char *sep = i ? " " : "";

		if (m->have[fig[i].id] && isfinite(v))
			len += (size_t)snprintf(buf + len, size - len, "%s%s%.*f", sep, fig[i].tag,
						fig[i].decimals, v);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%s-", sep, fig[i].tag);
	}
}

int metric_lookup(const char *name)
{
	if (!name)
		return -1;
	for (int id = 0; id < M_COUNT; id++)
		if (strcmp(metric_defs[id].name, name) == 0)
			return id;
	return -1;
}
