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
 *   stalls_warm, stall_warm_s, longest_warm   the same over the warm-up
 *   stalls_play, stall_play_s, longest_play, low1_play   over the window's
 *                frames less those in reload segments (reload.h)
 *   win_play     seconds of the window outside reload segments
 *   reload_s, reload_n   seconds and segments of reload in the window
 *
 * Percentiles use one definition at a time (enum percentile_def); the
 * default is nearest-rank: the value at rank ceil(p/100 * N) of the frame
 * times sorted ascending (1-based), an actual frame's time, never an
 * interpolation. More definitions extend the enum and the metric table.
 */
#ifndef HB_METRICS_H
#define HB_METRICS_H

#include "mangohud-summary.h"

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
	/* the warm-up (first present to window start) and the play window (the
	 * window less its reload segments): analysis/windows.c, reload.h */
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
	M_COUNT
};

struct metric_def {
	const char *name;        /* as stored: result.txt, the database, CSV/JSON */
	const char *column;      /* short table heading */
	int decimals;            /* digits after the point in table and CSV */
	const char *definition;  /* one line, printed with reports */
};

extern const struct metric_def metric_defs[M_COUNT];

struct metric_opts {
	double stall_ms;               /* a frame over this is a stall; default 100 */
	enum percentile_def pct;       /* default PCT_NEAREST_RANK */
	/* where gamedb/<game>/analysis.ini (the reload rule) is looked for
	 * first, NULL-terminated; NULL: only next to the run's recipe */
	const char *const *gamedb_dirs;
	enum mangohud_formula mangohud; /* whose summary mangohud_* reproduce; default MH_068 (Debian 12) */
};
#define METRIC_OPTS_DEFAULT { 100.0, PCT_NEAREST_RANK, NULL, MH_068 }

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

/* Computes every metric from present times t_ns[0..n) (ascending) over the
 * window (start, end]. A frame's start may lie before the window (the first
 * frame in it usually does); the first present has no frame. A window
 * without frames sets frames=0, window_s and fps=0 and leaves the
 * frame-time metrics (all the others) unset (have[] false). steady_fps,
 * low1 and low01 are unset when their percentile is 0 ms, smooth_fps when
 * no time was spent in frames under the threshold. opts NULL means
 * METRIC_OPTS_DEFAULT. Returns 0, or -EINVAL for an empty or reversed
 * window, t_ns not ascending, or a negative or non-finite stall_ms; out is
 * written only on success. */
int metrics_compute(const uint64_t *t_ns, size_t n, uint64_t window_start_ns,
		    uint64_t window_end_ns, const struct metric_opts *opts,
		    struct metrics *out);

/* Median of the values that are set across runs; for an even count, the
 * mean of the two middle values. out->have[i] false where no run had it
 * (and for n == 0). */
void metrics_median(const struct metrics *runs, size_t n, struct metrics *out);

/* A metric by name; -1 if unknown. */
int metric_lookup(const char *name);

#endif
