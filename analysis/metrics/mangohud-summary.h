/*
 * MangoHud's own summary (the `_summary.csv` it writes when a log ends),
 * recomputed from frame times so a hitchbench run and a MangoHud log can be
 * ranked by the very numbers MangoHud users quote.
 *
 * The formulas changed between MangoHud versions, and the version that wrote
 * a log decides which one its summary used (docs/metrics.md). Every one
 * runs over the rows the log holds (each frame, or with log_interval each
 * sample: the frame time of the frame last presented), so a log of
 * samples gives its own summary too:
 *
 *   MH_068  0.6.x (Debian 12 ships 0.6.8): every logged frame's fps is
 *           1000 / (frametime_us / 1000) in single precision; the values are
 *           sorted ascending; "0.1% Min" and "1% Min" are the MEAN of the
 *           lowest ceil(N * p) fps values; "97% Percentile" is the fps at
 *           0-based index floor(0.97 * (N - 1)) of that ascending list;
 *           "Average" is the mean of the fps values.
 *   MH_07   0.7.0 to 0.7.2 (logging.cpp writeSummary): the logged rows
 *           sorted longest frame first; "0.1% Min" and "1% Min" are
 *           1000 / the MEAN of the longest ceil(N * p) frame times (float
 *           ms); "97% Percentile" is 1000 / the frame time at index
 *           floor(0.97 * (N - 1)) of that list; "Average" 1000 / the mean
 *           frame time.
 *   MH_08   0.8.0 and later (fps_metrics.h): frame times in ms,
 *           single precision, sorted longest first; the value for p is
 *           1000 / sorted[(uint64_t)(p * N - 1)], ONE order statistic
 *           (p * N < 1 truncates to index 0: the slowest frame); "Average"
 *           is 1000 / the mean frame time.
 *
 * Both are computed in single precision with MangoHud's order of operations,
 * because MangoHud's printed digit depends on it.
 */
#ifndef HB_MANGOHUD_SUMMARY_H
#define HB_MANGOHUD_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mangohud_formula {
	MH_068 = 0, /* MangoHud 0.6.x: mean of the lowest fps values (the default) */
	MH_08,      /* MangoHud 0.8.0+: one order statistic of the frame times */
	MH_07,      /* MangoHud 0.7.0-0.7.2: 1000 / the mean of the longest frame times */
};

struct mangohud_summary {
	double low01;   /* "0.1% Min FPS" */
	double low1;    /* "1% Min FPS" */
	double p97;     /* "97% Percentile FPS" */
	double avg;     /* "Average FPS" */
};

/* The summary MangoHud's formula f gives for frames frame_ns[0..n) in the
 * order they happened; the tests (tests/tools/mhsummary.c, t9040; the unit
 * tests) hold MangoHud's own summary against it. MH_068 truncates each frame to whole microseconds as
 * MangoHud 0.6.8 did. Returns 0, or -EINVAL for n == 0, a NULL pointer or an
 * unknown formula; out is written only on success. */
int mangohud_summary_compute(const uint64_t *frame_ns, size_t n, enum mangohud_formula f,
			     struct mangohud_summary *out);
/* The same from the frame times already sorted ascending (metrics_compute
 * has them), saving a sort. */
int mangohud_summary_from_sorted(const uint64_t *sorted_ns, size_t n, enum mangohud_formula f,
				 struct mangohud_summary *out);

/* The formula of a MangoHud version string ("0.6.8", "v0.8.1",
 * "0.6.8-2" as Debian writes it, "0.7.0-0.7.2 (inferred ...)" as the
 * importer does): below 0.7 MH_068, 0.7.x MH_07, else MH_08. NULL, an
 * empty or unparsable string gives MH_068, the formula of Debian 12's
 * MangoHud, which is what a run on this project's machine would have had. */
enum mangohud_formula mangohud_formula_for_version(const char *version);

/* Whether the summary of MangoHud `version` (as mangohud_formula_for_version
 * takes it) counts a row its log does not hold. Since 0.6.9 (commit
 * d6c7b3c1, rows written as they are logged) Logger::writeToFile opens the
 * file only when `!output_file`, which a stream never opened is not: the
 * first row of every log is written nowhere, yet stays in the rows the
 * summary is computed from. False for 0.6.8 and older and for a version
 * that cannot be read. */
bool mangohud_summary_counts_unlogged_row(const char *version);

/* "0.6.8", "0.7" or "0.8": the version whose source the formula was read from
 * (the test tool mhsummary prints it beside the figures, t9040). */
const char *mangohud_formula_name(enum mangohud_formula f);
/* The formula in one line, for report notes. */
const char *mangohud_formula_note(enum mangohud_formula f);

#endif
