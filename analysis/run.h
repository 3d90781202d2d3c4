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
	char *disturbed;        /* "invalid=1 (REASON)", "interfered=1 (REASON)" or NULL */
};

/* Loads DIR/bench.txt and, when present, DIR/frames.bin. 0, or -errno with
 * a message in err ("DIR/bench.txt:3: ..."). */
int run_load(const char *dir, struct run *out, struct strbuf *err);
void run_release(struct run *run);
/* The run's metrics over its window. 0, or -ENODATA when the run has no
 * window or no frames (a failed run). */
int run_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m);

/* A report row for the run: its names, provenance, batch and kernel
 * (pointing into run; the variant is bench.txt's run_name,
 * "variant@switches", when it has one) and its metrics. A run that an
 * observer marked (bench.txt invalid=1 or interfered=1: both mean
 * disturbed) gets row->disturbed, which keeps it out of the groups.
 * Returns whether the run had numbers (run_metrics() == 0). */
bool run_report_row(const struct run *run, const struct metric_opts *opts, struct report_row *row);

#endif
