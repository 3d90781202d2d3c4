/*
 * A run directory loaded for analysis: its provenance (bench.txt), its
 * frames and its measured window. The run directory is the source of
 * truth; result.txt, reports and the database are all computed from it by
 * run_metrics(). Layout and keys: docs/formats.md.
 */
#ifndef HB_RUN_H
#define HB_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "frames.h"
#include "kvfile.h"
#include "metrics.h"
#include "report.h"
#include "util.h"

#define HB_RUNDIR_FORMAT 1 /* bench.txt "format=" this hitchbench writes and reads */

struct run {
	char *dir;              /* as given */
	char *name;             /* the directory's base name */
	struct kvfile bench;    /* bench.txt, in order */
	const char *id;         /* run_id= (into bench) */
	const char *game;
	const char *variant;
	const char *status;     /* "ok" or why the run failed */
	bool have_window;
	uint64_t window_start_ns, window_end_ns;
	bool have_frames;
	struct hb_frames frames;
};

/* Loads DIR/bench.txt and, when present, DIR/frames.bin. 0, or -errno with
 * a message in err ("DIR/bench.txt:3: ..."). */
int run_load(const char *dir, struct run *out, struct strbuf *err);
void run_release(struct run *run);
/* The run's metrics over its window. 0, or -ENODATA when the run has no
 * window or no frames (a failed run). */
int run_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m);

/* A report row for the run: its names (pointing into run; the variant is
 * bench.txt's run_name, "variant@switches", when it has one) and its
 * metrics. An ok run that an observer marked invalid gets the status
 * "invalid", which keeps it out of medians. Returns whether the run had
 * numbers (run_metrics() == 0). */
bool run_report_row(const struct run *run, const struct metric_opts *opts, struct report_row *row);

/* A new run_id: 32 random hex digits (getrandom, or the clocks and pid
 * when it fails). */
void run_make_id(char out[33]);

/* Writes DIR/result.txt (key=value, docs/formats.md) for the run directory
 * DIR, whose bench.txt and frames.bin are written: the status, how the
 * numbers were computed, and the metrics over its window when it has one.
 * The runner and `hitchbench import` both end with it. 0, or -errno with a
 * message in err. */
int run_write_result(const char *dir, const char *status, const struct metric_opts *opts,
		     struct strbuf *err);

#endif
