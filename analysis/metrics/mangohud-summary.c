/*
 * MangoHud's summary numbers from frame times (see mangohud-summary.h).
 *
 * Where the formulas come from: flightlessmango/MangoHud, src/logging.cpp
 * (writeSummary, Logger::try_log) at the 0.6.8 era and src/fps_metrics.h
 * (fpsMetrics::calculate) with src/logging.cpp at 0.8. Only the arithmetic
 * was taken from there, restated here; checked against the summaries real
 * MangoHud 0.6.8 wrote (tests/unit/test-lows.c, tests/game/t9040).
 *
 * MangoHud does this in `float`; so does this file, in the same order (sums
 * run over the sorted values), since the last printed digit can depend on
 * it. x86-64 evaluates float in float (FLT_EVAL_METHOD 0).
 */
#include "metrics/mangohud-summary.h"
#include "base/sort.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The frame times sorted ascending (a copy), on the integers. Both
 * formulas' values (fps from whole microseconds, float milliseconds) are
 * monotonic in the frame time, so reading the sorted times from either end
 * gives them sorted, equal values and all, without sorting floats (which
 * took two thirds of a million-frame report). */
static uint64_t *sorted_copy(const uint64_t *frame_ns, size_t n)
{
	uint64_t *v = zalloc(n * sizeof(*v));

	memcpy(v, frame_ns, n * sizeof(*v));
	sort_u64(v, n);
	return v;
}

/* 0.6.8: mean of the lowest ceil(N * p) fps values (p in float, as there). */
/* 0.6.8's fps of the i-th lowest fps value: the logger keeps whole
 * microseconds and derives fps from them; the longest frame is the lowest
 * fps, so fps ascends from the end of the ascending frame times. */
static float fps_068(const uint64_t *ns, size_t n, size_t i)
{
	return 1000.0f / ((float)(ns[n - 1 - i] / 1000) / 1000.0f);
}

/* 0.6.8: mean of the lowest ceil(N * p) fps values (p in float, as there),
 * summed in ascending order as MangoHud does. */
static float mean_of_lowest(const uint64_t *ns, size_t n, float p)
{
	size_t k = (size_t)ceilf((float)n * p);
	float total = 0.0f;

	for (size_t i = 0; i < k; i++)
		total = total + fps_068(ns, n, i);
	return total / (float)k;
}

static void summary_068(const uint64_t *ns, size_t n, struct mangohud_summary *out)
{
	float total = 0.0f;

	out->low01 = mean_of_lowest(ns, n, 0.001f);
	out->low1 = mean_of_lowest(ns, n, 0.01f);
	out->p97 = fps_068(ns, n, (size_t)floor(0.97 * (double)(n - 1)));
	for (size_t i = 0; i < n; i++)
		total = total + fps_068(ns, n, i);
	out->avg = total / (float)n;
}

/* 0.7's and 0.8's frame time in float ms of the i-th longest frame (the
 * logger's `float frametime`). */
static float ft_ms(const uint64_t *ns, size_t n, size_t i)
{
	return (float)((double)ns[n - 1 - i] / 1e6);
}

/* 0.7.0 to 0.7.2 (src/logging.cpp writeSummary: v0.7.0 lines 75-100,
 * v0.7.2 lines 77-127): the
 * logged rows sorted by fps ascending (longest frame first); "0.1%" and
 * "1% Min" are 1000 / the MEAN frame time of the first ceil(N * p) rows
 * (N * p in float), "97%" 1000 / the frame time at index
 * floor(0.97 * (N - 1)) (in double), "Average" 1000 / the mean frame time;
 * float sums run longest frame first. */
static float fps_of_mean_longest(const uint64_t *ns, size_t n, size_t k)
{
	float total = 0.0f;

	for (size_t i = 0; i < k; i++)
		total = total + ft_ms(ns, n, i);
	return 1000.0f / (total / (float)k);
}

static void summary_07(const uint64_t *ns, size_t n, struct mangohud_summary *out)
{
	out->low01 = fps_of_mean_longest(ns, n, (size_t)ceilf((float)n * 0.001f));
	out->low1 = fps_of_mean_longest(ns, n, (size_t)ceilf((float)n * 0.01f));
	out->p97 = 1000.0f / ft_ms(ns, n, (size_t)floor(0.97 * (double)(n - 1)));
	out->avg = fps_of_mean_longest(ns, n, n);
}

/* 0.8: 1000 / the frame time at index (uint64_t)(p * N - 1) of the frame
 * times sorted longest first; an index below 0 truncates to 0. MangoHud
 * leaves the value at 0 when the index falls past the end. 0.8.1+ does
 * exactly this (v0.8.1 src/fps_metrics.h:50,78,82 from logging.cpp:104);
 * 0.8.0 took the same index of the rows' fps sorted ascending
 * (v0.8.0 src/fps_metrics.h:52,81,85, logging.cpp:104): the same row,
 * and its fps is the float 1000 / frametime, the same number. */
static float order_statistic_fps(const uint64_t *ns, size_t n, float p)
{
	float x = p * (float)n - 1.0f;
	uint64_t idx = x < 1.0f ? 0 : (uint64_t)x;

	if (idx >= n)
		return 0.0f;
	return 1000.0f / ft_ms(ns, n, idx);
}

static void summary_08(const uint64_t *ns, size_t n, struct mangohud_summary *out)
{
	out->low01 = order_statistic_fps(ns, n, 0.001f);
	out->low1 = order_statistic_fps(ns, n, 0.01f);
	out->p97 = order_statistic_fps(ns, n, 0.97f);
	/* writeSummary's own loop, as 0.7's: summed longest first */
	out->avg = fps_of_mean_longest(ns, n, n);
}

int mangohud_summary_from_sorted(const uint64_t *sorted_ns, size_t n, enum mangohud_formula f,
				 struct mangohud_summary *out)
{
	struct mangohud_summary s;

	if (!sorted_ns || n == 0 || !out)
		return -EINVAL;
	switch (f) {
	case MH_068:
		summary_068(sorted_ns, n, &s);
		break;
	case MH_08:
		summary_08(sorted_ns, n, &s);
		break;
	case MH_07:
		summary_07(sorted_ns, n, &s);
		break;
	default:
		return -EINVAL;
	}
	*out = s;
	return 0;
}

int mangohud_summary_compute(const uint64_t *frame_ns, size_t n, enum mangohud_formula f,
			     struct mangohud_summary *out)
{
	uint64_t *ns;
	int r;

	if (!frame_ns || n == 0 || !out)
		return -EINVAL;
	ns = sorted_copy(frame_ns, n);
	r = mangohud_summary_from_sorted(ns, n, f, out);
	free(ns);
	return r;
}

/* "v0.8.1", "0.6.8-2", "0.7.0-0.7.2 (...)" as major, minor and patch (0
 * when there is none): 0, or -EINVAL when it does not start with
 * MAJOR.MINOR */
static int parse_version(const char *version, unsigned long v[3])
{
	char *end;

	if (!version)
		return -EINVAL;
	if (*version == 'v' || *version == 'V')
		version++;
	if (*version < '0' || *version > '9')
		return -EINVAL;
	v[0] = strtoul(version, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -EINVAL;
	v[1] = strtoul(end + 1, &end, 10);
	v[2] = 0;
	if (*end == '.' && end[1] >= '0' && end[1] <= '9')
		v[2] = strtoul(end + 1, &end, 10);
	return 0;
}

enum mangohud_formula mangohud_formula_for_version(const char *version)
{
	unsigned long v[3];

	if (parse_version(version, v) < 0)
		return MH_068;
	if (v[0] > 0 || v[1] >= 8)
		return MH_08;
	return v[1] == 7 ? MH_07 : MH_068;
}

bool mangohud_summary_counts_unlogged_row(const char *version)
{
	unsigned long v[3];

	if (parse_version(version, v) < 0)
		return false;
	return v[0] > 0 || v[1] > 6 || (v[1] == 6 && v[2] >= 9);
}

const char *mangohud_formula_name(enum mangohud_formula f)
{
	switch (f) {
	case MH_068:
		return "0.6.8";
	case MH_08:
		return "0.8";
	case MH_07:
		return "0.7";
	}
	return "unknown";
}

const char *mangohud_formula_note(enum mangohud_formula f)
{
	switch (f) {
	case MH_068:
		return "MangoHud 0.6.8's summary: 0.1%/1% Min = mean of the lowest ceil(N*p) per-frame fps "
		       "values (fps = 1000 / whole-microsecond frame time), 97% = fps at index "
		       "floor(0.97*(N-1)) ascending, Average = mean fps; single precision";
	case MH_08:
		return "MangoHud 0.8's summary: 0.1%/1%/97% = 1000 / the frame time at index "
		       "(uint64)(p*N-1) of the frame times sorted longest first, Average = 1000 / mean "
		       "frame time; single precision";
	case MH_07:
		return "MangoHud 0.7's summary: 0.1%/1% Min = 1000 / the mean of the longest ceil(N*p) "
		       "frame times, 97% = 1000 / the frame time at index floor(0.97*(N-1)) longest first, "
		       "Average = 1000 / mean frame time; single precision";
	}
	return "unknown";
}
