/*
 * The numbers users rank, computed from present times over a window.
 * Definitions (docs/metrics.md, printed under every report):
 *
 *   frame        the interval between two consecutive presents; it belongs to
 *                the window when its end (the later present) is in
 *                (window_start, window_end]
 *   frames       frames in the window
 *   window_s     window_end - window_start, seconds
 *   fps          frames / window_s
 *   steady_fps   1000 / p50_ms
 *   smooth_fps   frames not over the stall threshold / the seconds they took
 *   stalls       frames over the stall threshold (100 ms unless set)
 *   stall_s      the seconds those frames took
 *   longest_ms   the longest frame
 *   p50_ms, p99_ms, p999_ms   percentiles of frame time
 *   low1, low01  1000 / p99_ms and 1000 / p999_ms ("1% low", "0.1% low")
 *   low1_avg .. mangohud_avg   other tools' 1% lows, stutter share and
 *                MangoHud's summary, each named after its tool (lows.h)
 *   frameview_low1, frameview_low01   FrameView's "1% Low FPS" and
 *                "0.1% Low FPS" (lows.h)
 *   capframex_p5, capframex_p1, capframex_p01   CapFrameX's "P5", "P1",
 *                "P0.1": percentiles of the frames' fps (capframex.h)
 *   presentmon_min, presentmon_p1, presentmon_p5, presentmon_max
 *                PresentMon 2.x capture's stats file: 1000 / the longest,
 *                R-7 99th and 95th percentile, shortest frame time
 *                (presentmon-stats.h)
 *   stalls_warm, stall_warm_s, longest_warm   the same over the warm-up
 *   stalls_play, stall_play_s, longest_play, low1_play   over the window's
 *                frames less those in reload segments (reload.h)
 *   win_play     seconds of the window outside reload segments
 *   reload_s, reload_n   seconds and segments of reload in the window
 *   recreations  Vulkan swapchain recreations (swapchain.h) in the window
 *   recreation_s the seconds of the window's frames that span one; such a
 *                frame (its start before the recreation, its end at or
 *                after it) is never a stall: it is in no stall count
 *                (stalls, stall_s, the _warm, _play and cause variants)
 *                and, over the threshold, not in smooth_fps either; it
 *                stays in frames, the percentiles and longest_ms
 *   stall_disk_s .. stall_other_s   stall_s split by cause (a stall record)
 *   load_disk_s, warm_disk_s   disk waits of the load and the warm-up
 *   stallrec_*   the stall recorder's own cost
 *   cpu_ms_per_frame   the game's CPU time (bench.txt noise.game_cpu_ms) /
 *                the frames whose end is in (noise.t0_ns, noise.t1_ns]
 *   steal_pct, foreign_cpu_pct, irq_pct, game_runq_ms_per_s   the host's
 *                noise over the same interval, as bench.txt noise.* says
 *
 * Percentiles use one definition at a time (enum percentile_def); the
 * default is nearest-rank: the value at rank ceil(p/100 * N) of the frame
 * times sorted ascending (1-based), an actual frame's time, never an
 * interpolation. More definitions extend the enum and the metric table.
 */
#ifndef HB_METRICS_H
#define HB_METRICS_H

#include "metrics/mangohud-summary.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum percentile_def {
	PCT_NEAREST_RANK = 0, /* rank ceil(p*N), 1-based, no interpolation */
	PCT_LINEAR,           /* (N-1)*p interpolated between neighbours (numpy's default, R type 7) */
};

/* Index into struct metrics and metric_defs[]; the order is the CSV column order. */
enum metric_id {
	M_FRAMES,
	M_WINDOW_S,
	M_FPS,
	M_STEADY_FPS,
	M_SMOOTH_FPS,
	M_STALLS,
	M_STALL_S,
	M_LONGEST_MS,
	M_P50_MS,
	M_P99_MS,
	M_P999_MS,
	M_LOW1,
	M_LOW01,
	/* other tools' definitions (lows.h), one block */
	M_LOW1_AVG,
	M_LOW01_AVG,
	M_LOW1_INTEGRAL,
	M_STUTTER_PCT,
	M_MANGOHUD_LOW01,
	M_MANGOHUD_LOW1,
	M_MANGOHUD_P97,
	M_MANGOHUD_AVG,
	M_FRAMEVIEW_LOW1,
	M_FRAMEVIEW_LOW01,
	/* CapFrameX's percentiles of fps (capframex.h) */
	M_CAPFRAMEX_P5,
	M_CAPFRAMEX_P1,
	M_CAPFRAMEX_P01,
	/* PresentMon 2.x capture's stats file (presentmon-stats.h) */
	M_PRESENTMON_MIN,
	M_PRESENTMON_P1,
	M_PRESENTMON_P5,
	M_PRESENTMON_MAX,
	/* the warm-up (first present to window start) and the play window (the
	 * window less its reload segments): analysis/run/run-windows.c, reload.h */
	M_STALLS_WARM,
	M_STALL_WARM_S,
	M_LONGEST_WARM,
	M_STALLS_PLAY,
	M_STALL_PLAY_S,
	M_LONGEST_PLAY,
	M_LOW1_PLAY,
	M_WIN_PLAY,
	M_RELOAD_S,
	M_RELOAD_N,
	/* Vulkan swapchain recreations (a resize, a present mode change):
	 * events of the run whose frames are not stalls */
	M_RECREATIONS,
	M_RECREATION_S,
	/* why the stalls happened, from the stall record (stallcause.h,
	 * docs/stalls.md); the stall_*_s add up to stall_s */
	M_STALL_DISK_S,
	M_STALL_SWAP_S,
	M_STALL_RECLAIM_S,
	M_STALL_GPU_S,
	M_STALL_CPU_S,
	M_STALL_IO_S,
	M_STALL_WAIT_S,
	M_STALL_OTHER_S,
	M_LOAD_DISK_S,
	M_WARM_DISK_S,
	/* the stall recorder's own cost (the record's trailer) */
	M_STALLREC_SAMPLES,
	M_STALLREC_CPU_S,
	M_STALLREC_CPU_PCT,
	M_STALLREC_US_PER_SAMPLE,
	M_STALLREC_WORK_US,
	/* the BPF stall recorder's own cost (the wait record's trailer) */
	M_STALLBPF_NS_PER_EVENT,
	M_STALLBPF_CPU_PCT,
	M_STALLBPF_EVENTS,
	/* the PROBE switch's wakeup lateness (bench.txt probe.cpuN.*), the
	 * largest over the CPUs */
	M_PROBE_WORST_US,
	M_PROBE_P999_US,
	/* the game's CPU time per frame and the host's noise, from bench.txt
	 * noise.* (the runner's two /proc snapshots near the window's ends,
	 * docs/formats.md "Host noise"); unset when the run has none */
	M_CPU_MS_PER_FRAME,
	M_STEAL_PCT,
	M_FOREIGN_CPU_PCT,
	M_IRQ_PCT,
	M_GAME_RUNQ_MS_PER_S,
	M_COUNT
};

/* Which way a metric gets better: a frame rate up, a frame time, a stall
 * or a cost down; a count of frames or a window's seconds neither. */
enum metric_better {
	BETTER_NEITHER = 0,
	BETTER_HIGHER,
	BETTER_LOWER,
};

struct metric_def {
	const char *name;        /* as stored: result.txt, the database, CSV/JSON */
	const char *column;      /* short table heading */
	int decimals;            /* digits after the point in table and CSV */
	const char *definition;  /* one line, printed with reports */
	enum metric_better better;
};

extern const struct metric_def metric_defs[M_COUNT];

struct metric_opts {
	double stall_ms;               /* a frame over this is a stall; default 100 */
	enum percentile_def pct;       /* default PCT_NEAREST_RANK */
	/* where gamedb/<game>/analysis.ini (the reload rule) is looked for
	 * first, NULL-terminated; NULL: only next to the run's recipe */
	const char *const *gamedb_dirs;
	enum mangohud_formula mangohud; /* whose summary mangohud_* reproduce; default MH_068 (Debian 12) */
	/* a run whose window holds fewer frames is invalid (run_check(),
	 * analysis/run/run-check.c); 0: no minimum */
	unsigned min_frames;
};
/* The default minimum of frames in a run's window (--min-frames): the
 * shortest windows the tests' fake games make hold 60; a window under 50
 * frames is a run that ended early or a mistyped window, and its
 * percentiles are one or two frames. docs/formats.md "Run integrity". */
#define METRIC_MIN_FRAMES_DEFAULT 50
#define METRIC_OPTS_DEFAULT { 100.0, PCT_NEAREST_RANK, NULL, MH_068, METRIC_MIN_FRAMES_DEFAULT }

struct metrics {
	double v[M_COUNT];
	bool have[M_COUNT];      /* false: not computable (no frames, or undefined) */
};

/* p in parts per million (990000 = 99th percentile) of n sorted values;
 * ppm over 1000000 counts as 1000000. n must be > 0 (NAN otherwise).
 * Ranks are computed in integers, so p99 of 1000 values is exactly the
 * 990th value, not one off by rounding. */
double percentile_sorted(const double *sorted, size_t n, uint32_t ppm, enum percentile_def def);
/* "nearest-rank", "linear" ("unknown" for a value outside the enum). */
const char *percentile_def_name(enum percentile_def def);
/* The definition in one line, for report notes and JSON definitions. */
const char *percentile_def_formula(enum percentile_def def);
/* "nearest-rank" / "linear" -> def. 0 or -EINVAL. */
int percentile_def_parse(const char *s, enum percentile_def *out);
/* --min-frames N, batch.txt min_frames: a whole number of frames (0: no
 * minimum) into *out. 0 or -EINVAL. */
int min_frames_parse(const char *s, unsigned *out);

/* Computes every metric from present times t_ns[0..n) (ascending) over the
 * window (start, end]. A frame's start may lie before the window (the first
 * frame in it usually does); the first present has no frame. A window
 * without frames sets frames=0, window_s and fps=0 and leaves the
 * frame-time metrics (all the others) unset (have[] false). steady_fps,
 * low1 and low01 are unset when their percentile is 0 ms, smooth_fps when
 * no time was spent in frames under the threshold. opts NULL means
 * METRIC_OPTS_DEFAULT. Returns 0, or -EINVAL for an empty or reversed
 * window, t_ns not ascending, or a negative or non-finite stall_ms; out is
 * written only on success. Runs go through metrics_compute_recreated()
 * (their swapchains' recreations known); this plain form is the tests'
 * and the fuzzer's. */
int metrics_compute(const uint64_t *t_ns, size_t n, uint64_t window_start_ns,
		    uint64_t window_end_ns, const struct metric_opts *opts,
		    struct metrics *out);

/* The times of a run's swapchain recreations (swapchain.h), ascending. */
struct metric_recreations {
	const uint64_t *t_ns;
	size_t n;
};
/* Whether frame (a, b] holds one of rec's recreations from *k on: a frame
 * that is no stall whatever its length (rec NULL: none does). For frames
 * taken in time order, *k (0 at the first) only moves forward. What
 * metrics_compute_recreated() counts by, and what a picture of the frames
 * draws by (analysis/plot/plot-runs.c). */
bool metric_recreation_spanned(const struct metric_recreations *rec, size_t *k, uint64_t a, uint64_t b);
/* metrics_compute() for frames that span swapchain recreations: a frame
 * (t_ns[i-1], t_ns[i]] that holds one is not a stall, and recreations
 * and recreation_s are set (rec NULL: not known, they are left unset and
 * every frame counts, as metrics_compute() does). Same returns. */
int metrics_compute_recreated(const uint64_t *t_ns, size_t n, uint64_t window_start_ns,
			      uint64_t window_end_ns, const struct metric_recreations *rec,
			      const struct metric_opts *opts, struct metrics *out);

/* Median of the values that are set across runs; for an even count, the
 * mean of the two middle values. out->have[i] false where no run had it
 * (and for n == 0). */
void metrics_median(const struct metrics *runs, size_t n, struct metrics *out);

/* The stall_*_s group with the most seconds ("disk", "swap", "reclaim",
 * "gpu", "cpu", "io", "wait", "other"; the first of a tie), or NULL when
 * m has none of them or they are all 0. The report's stall_why. */
const char *metrics_stall_why(const struct metrics *m);

/* The host's noise in a few characters, the report's noise column:
 * "st0.4 fg2.1 rq9" (steal_pct and foreign_cpu_pct to one decimal,
 * game_runq_ms_per_s to none; a figure m lacks as "st-"), or "-" when m
 * has none of the three. Writes at most size bytes, NUL included. */
void metrics_noise_summary(const struct metrics *m, char *buf, size_t size);

/* v into m as metric id when it is a finite number (the other tools'
 * definitions, lows.c and the like, give NAN when a window has none). */
void metrics_set_finite(struct metrics *m, enum metric_id id, double v);

/* A metric by name; -1 if unknown. */
int metric_lookup(const char *name);

#endif
