/*
 * One result model, several outputs (table, CSV, JSON), as
 * redis-benchmark and hyperfine do: a row per run, then per group of runs
 * (game and run name, "variant@switches") the median, min and max of each
 * metric over its valid runs and their count n, then the runs left out and
 * why. The table ends with '#' lines saying how every number was computed;
 * CSV has a header row and full precision; JSON carries the definitions in
 * a "definitions" object; Markdown is the table with the definitions as a
 * list.
 *
 * A run is valid when its status is "ok" (a run whose data fails a check
 * has status "invalid" and its reason in row->invalid) and nothing marked it disturbed
 * (bench.txt invalid=1 or interfered=1, or results/interfered.txt: the
 * row's disturbed). Only valid runs are counted, unless include_interfered
 * counts disturbed ones too; a run that failed is never counted.
 */
#ifndef HB_REPORT_H
#define HB_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "metrics/metrics.h"
#include "run/swapchain.h"

enum report_format {
	REPORT_TABLE,
	REPORT_CSV,
	REPORT_JSON,
	REPORT_MARKDOWN,        /* GitHub-flavoured Markdown tables (report-markdown.c) */
	REPORT_HTML,            /* a page with pictures: report_html_write() (report-html.h), not report_print() */
};

struct kvfile;

/* A flip run's own figures (docs/metrics.md "Flip", analysis/run/runflip.h),
 * for the report's notes and JSON. */
struct report_flip {
	bool have;
	const char *what;       /* bench.txt flip=: "SWITCH A B" */
	size_t segments, counted, pairs, blocks, block_size;
	double estimate, se;    /* ln(B/A) of fps, the mean of its blocks and its standard error (NAN under 2) */
	uint64_t stalls_a, stalls_b, frames_a, frames_b; /* in paired segments, over the stall threshold */
	double p99_a, p99_b;    /* ms, each side's paired segments pooled */
};

struct report_row {
	const char *run;        /* the run directory's name */
	const char *game;
	const char *run_name;   /* the run name: "variant@switches" (or the variant) */
	const char *status;     /* "ok", or why the run has no numbers */
	struct metrics m;
	/* The rest may be NULL (unknown). */
	const char *disturbed;  /* why the run is taken as disturbed; NULL: it is not */
	const char *invalid;    /* status "invalid": why its data failed a check (run_check()) */
	bool interval;          /* from an interval log: per-frame metrics are unset */
	const char *run_id;     /* bench.txt run_id */
	const char *dir;        /* the run directory as given or stored */
	const struct kvfile *provenance;   /* every bench.txt pair (JSON "provenance") */
	const char *batch;      /* bench.txt batch_id */
	const char *kernel;     /* bench.txt kernel_release */
	const char *started_utc;
	/* run_window_api(): "vulkan", "opengl", "mixed(...)", ... (from the
	 * database: runs.api, NULL when imported before schema 5) */
	const char *api;
	/* Where the frames came from, known for run directories only: */
	const char *cpu_what;   /* with a profile record: what the CPU did in its stall frames
				 * (profile_stall_cpu_what(): "shader compile 62%, game 30%") */
	const char *frames_note; /* a "# RUN: NOTE" line under the table (swapchain_note()) */
	const struct swapchain_log *swapchains; /* JSON "swapchain_events"; NULL: not known */
	uint64_t first_present_ns;               /* the events' t_s count from here */
	uint64_t window_start_ns, window_end_ns; /* the events' in_window */
	struct report_flip flip;                 /* a flip run's, have false otherwise */
};

/* Median, min and max of each metric over some runs. */
struct run_stats {
	size_t n;                   /* runs */
	size_t n_metric[M_COUNT];   /* of them, those that have the metric */
	struct metrics median, min, max;
};

/* A group: the runs of one game with one run name. */
struct report_group {
	const char *game;
	const char *run_name;
	struct run_stats s;         /* over the group's counted runs */
};

/* The window note of numbers computed from run directories. */
#define REPORT_WINDOW_RUNDIR "frames ending in each run's measured window " \
	"(after the warm-up, from bench.txt window_start_ns/window_end_ns)"

struct report_opts {
	enum report_format format;
	struct metric_opts metric;  /* printed in the notes: threshold, percentile definition */
	const char *window_note;    /* e.g. "frames ending in each run's measured window" */
	bool include_interfered;    /* count disturbed runs in the groups (never failed ones) */
	/* The table's number columns, in order; NULL: the headline ones
	 * (frames fps steady stalls stall_s longest low1; with cpu_ms/f and
	 * a noise column when a run has the host's noise). CSV and JSON
	 * carry every metric. */
	const enum metric_id *table_metrics;
	size_t n_table_metrics;
	bool stall_why;             /* the table ends with a "why" column (metrics_stall_why) */
	bool no_notes;              /* the table without its '#' notes, Markdown without its definitions */
};

/* "table" / "csv" / "json" / "markdown" / "html". 0 or -EINVAL. */
int report_format_parse(const char *s, enum report_format *out);
/* The name report_format_parse() takes for f; NULL for no format. */
const char *report_format_name(enum report_format f);

/* Why the row is not counted (its status, the check an invalid run
 * failed, or why it is disturbed), or NULL when it is. */
const char *report_row_excluded(const struct report_row *row, bool include_interfered);

/* Prints "LEADexcluded RUN: WHY\n" ("excluded RUN: invalid: WHY" for a run
 * whose data failed a check) when the row is not counted; nothing else. */
void report_print_excluded(FILE *out, const char *lead, const struct report_row *row,
			   bool include_interfered);

/* Median, min and max of every metric over runs[0..n) (only the values
 * that are set; have[] false where none is). */
void run_stats_compute(const struct metrics *runs, size_t n, struct run_stats *out);

/* The groups of rows[0..n) by (game, variant), in order of first
 * appearance, each over its counted rows (a group may have n 0). Returns
 * how many; *out is the caller's to free. */
size_t report_groups(const struct report_row *rows, size_t n, bool include_interfered,
		     struct report_group **out);

/* Prints the counted rows (in the order given), then the groups
 * ("median/min/max GAME VARIANT"), then the rows left out and why. A row
 * whose status is not "ok" prints no numbers (whatever its have[] says).
 * The exact table, CSV and JSON layouts are documented at the top of
 * report.c. Returns 0, -EINVAL for bad arguments, or -errno of the stream
 * (-EIO when ferror is set without an errno). */
int report_print(FILE *out, const struct report_row *rows, size_t n,
		 const struct report_opts *opts);

#endif
