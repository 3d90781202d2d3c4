/*
 * One result model, several outputs (table, CSV, JSON), as
 * redis-benchmark and hyperfine do: a row per run, then the median of each
 * metric per game and variant. The table ends with '#' lines saying how
 * every number was computed; CSV has a header row; JSON carries the
 * definitions in a "definitions" object.
 */
#ifndef HB_REPORT_H
#define HB_REPORT_H

#include <stdio.h>

#include "metrics.h"

enum report_format {
	REPORT_TABLE,
	REPORT_CSV,
	REPORT_JSON,
};

struct report_row {
	const char *run;        /* the run directory's name */
	const char *game;
	const char *variant;
	const char *status;     /* "ok", or why the run has no numbers */
	struct metrics m;
};

/* The window note of numbers computed from run directories. */
#define REPORT_WINDOW_RUNDIR "frames ending in each run's measured window " \
	"(after the warm-up, from bench.txt window_start_ns/window_end_ns)"

struct report_opts {
	enum report_format format;
	struct metric_opts metric;  /* printed in the notes: threshold, percentile definition */
	const char *window_note;    /* e.g. "frames ending in each run's measured window" */
};

/* "table" / "csv" / "json". 0 or -EINVAL. */
int report_format_parse(const char *s, enum report_format *out);

/* Prints rows (in the order given) and then, per (game, variant) in order of
 * first appearance, the median row "median GAME VARIANT (n=N)" over the rows
 * whose status is "ok". A row whose status is not "ok" prints no numbers
 * (whatever its have[] says), only its status. The exact CSV and JSON
 * layouts are documented at the top of report.c. Returns 0, -EINVAL for
 * bad arguments, or -errno of the stream (-EIO when ferror is set without
 * an errno). */
int report_print(FILE *out, const struct report_row *rows, size_t n,
		 const struct report_opts *opts);

#endif
