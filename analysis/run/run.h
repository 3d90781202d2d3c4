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

#include "formats/frames.h"
#include "text/kvfile.h"
#include "metrics/metrics.h"
#include "formats/relayfile.h"
#include "run/reload.h"
#include "report/report.h"
#include "run/swapchain.h"
#include "base/util.h"

#define HB_RUNDIR_FORMAT 1 /* bench.txt "format=" this hitchbench writes and reads */

struct run {
	char *dir;              /* as given */
	char *name;             /* the directory's base name */
	struct kvfile bench;    /* bench.txt, in order */
	const char *id;         /* run_id= (into bench) */
	const char *game;
	const char *variant;
	const char *status;     /* "ok" or why the run failed; "invalid" after run_validate() refused it */
	const char *recorded_status; /* bench.txt's status when run_validate() changed it, else NULL */
	char *invalid;          /* why the run's data fails a check (run_validate()), or NULL */
	bool have_window;
	uint64_t window_start_ns, window_end_ns;
	bool have_frames;
	struct hb_frames frames;
	/* its Vulkan swapchains (a copy: kept when the frames are released) */
	struct swapchain_log swapchains;
	/* run_report_row(): the API its window's frames came from
	 * (run_frames_api()) and the report's note of them, or NULL */
	char *frames_api;
	char *frames_note;
	char *cpu_what;         /* run_report_row(): profile_stall_cpu_what(), or NULL */
	char *disturbed;        /* "invalid=1 (REASON)", "interfered=1 (REASON)" or NULL */
	/* a run of a relay or a duet: its relay.txt (runrelay.h), else NULL */
	struct relay_record *relay;
};

/* Loads DIR/bench.txt and, when present, DIR/frames.bin. 0, or -errno with
 * a message in err ("DIR/bench.txt:3: ..."). */
int run_load(const char *dir, struct run *out, struct strbuf *err);
void run_release(struct run *run);
/* The run's own time, bench.txt's started_utc to ended_utc, s (whole
 * seconds); 0 when not known. */
double run_wall_seconds(const struct run *run);
/* The run's metrics over its window. 0, or -ENODATA when the run has no
 * window or no frames (a failed run). */
int run_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m);

/* The run's swapchain recreations as metrics_compute_recreated() takes
 * them, in rec (*buf holds the times: the caller frees it), or NULL when
 * not known: its frame file has no swapchain event (version 1, a GL
 * game). */
const struct metric_recreations *run_recreations(const struct run *run, struct metric_recreations *rec,
						 uint64_t **buf);

/* Run integrity (analysis/run/run-check.c, docs/formats.md "Run integrity"):
 * whether the run's data is whole and consistent enough to be counted,
 * checked in this order: frames.bin is there and holds the records its
 * header says; bench.txt's numbers the analysis reads (window_start_ns,
 * window_end_ns, first_frame_ns, pass.N.start_ns, warmup_s, window_s, and
 * of the host's noise noise.t0_ns, noise.t1_ns, noise.game_cpu_ms,
 * noise.steal_pct ("-" too), noise.foreign_cpu_pct, noise.irq_pct,
 * noise.game_runq_ms_per_s) parse; the window is present, starts before
 * it ends and overlaps the frames; it holds at least opts->min_frames frames (NULL opts:
 * METRIC_OPTS_DEFAULT); with frame_source=vulkan, they all came from
 * vkQueuePresentKHR (run_check_api()); last, the run's SHA256SUMS, when it
 * has one, matches its files (common/formats/sha256sums.h: "SHA256SUMS does not
 * match: game.log: checksum mismatch"). 0, or -EINVAL with the first failure in err
 * ("frames.bin: 7841 records in the header, 54 in the file",
 * "bench.txt:12: window_start_ns=abc is not a number"). The frames must
 * still be loaded. */
int run_check(const struct run *run, const struct metric_opts *opts, struct strbuf *err);
/* The frames of a window counted by the function that presented them
 * (analysis/run/run-check-api.c): records whose present is in
 * (start_ns, end_ns], as the window's frames are counted. */
#define RUN_SOURCES 16 /* enum hb_present_source values kept apart; others count as unknown */
struct run_window_sources {
	uint64_t n;
	uint64_t per_source[RUN_SOURCES];
};
/* Counts them in loaded frames: the presents in (start_ns, end_ns]. */
void run_window_sources_of(const struct hb_frames *f, uint64_t start_ns, uint64_t end_ns,
			   struct run_window_sources *out);
/* The same from a frame file (version 1 or 2). 0; -errno, or -EINVAL
 * with *why (hb_frames_load()'s), when the file cannot be read. */
int run_window_sources(const char *frames_path, uint64_t start_ns, uint64_t end_ns,
		       struct run_window_sources *out, const char **why);
/* The API they came from, a new string for bench.txt's frames_api:
 * "opengl", "vulkan", "sdl-renderer", "log" (another tool's log),
 * "unknown", "mixed(vulkan 3000, opengl 12)" (most presents first) or
 * "none" (no frame). */
char *run_frames_api(const struct run_window_sources *ws);
/* The whole frame file's presents by source (struct hb_frames keeps
 * their counts), as run_window_sources() gives a window's. */
void run_sources_of_file(const struct hb_frames *f, struct run_window_sources *ws);
/* "vkQueuePresentKHR 3000, glXSwapBuffers 12" (source order) into out,
 * the Vulkan presents left out with skip_vulkan. */
void run_window_sources_describe(const struct run_window_sources *ws, bool skip_vulkan,
				 struct strbuf *out);
/* The last rule of run_check(): a run whose bench.txt says
 * frame_source=vulkan (a recipe's `frames = vulkan`) holds in its window
 * only presents from vkQueuePresentKHR, and at least one. 0, or -EINVAL
 * with why ("frames = vulkan, but the window's 3120 presents came from
 * glXSwapBuffers: the game did not render through Vulkan"), counted from
 * the run's loaded frames. */
int run_check_api(const struct run *run, struct strbuf *err);
/* Applies run_check() to a run whose status is "ok": one that fails gets
 * status "invalid", its reason in run->invalid and bench.txt's status in
 * run->recorded_status. A run that failed (status not ok) is left as it
 * is. May be called again with other options. 0, or -EINVAL when the run
 * was made invalid. */
int run_validate(struct run *run, const struct metric_opts *opts);
/* Whether the run was imported from an interval log (bench.txt
 * frame_source_kind=interval: rows are periodic samples, not frames). */
bool run_is_interval(const struct run *run);
/* Whether a metric needs every frame (counts, stalls, the longest frame,
 * percentiles, lows): those an interval log never yields. The tests hold
 * run_interval_unset() against it. */
bool metric_is_per_frame(enum metric_id id);
/* Unsets the per-frame metrics of m (run_metrics() does, for an interval run). */
void run_interval_unset(struct metrics *m);

/* The reload split of a run (reload.h): the rule that applies and the
 * segments it gives. */
struct run_reload {
	struct reload_rule rule;         /* kind RELOAD_NONE when no rule exists */
	char *note;                      /* where the rule came from, in words */
	bool split;                      /* false: a pass lacks the rule's line (no play numbers) */
	struct reload_segment *segments; /* in pass order */
	size_t n_segments;
};

/* The version of bench.txt's reload.* keys (docs/formats.md). */
#define RUN_RELOAD_FORMAT 1

/* The reload rule a run is made with, resolved by the runner before the
 * game starts: the recipe's [reload] (recipe_rule, when its kind is set),
 * else GAME/analysis.ini in each of gamedb_dirs (NULL-terminated, may be
 * NULL), else the gamedb directory beside the recipe's directory
 * (RECIPEDIR/../gamedb), else none. out is initialized here; origin gets
 * "recipe PATH:LINE", "gamedb PATH:LINE" or "none: why". 0; -EINVAL with
 * "PATH:LINE: ..." in err for a bad analysis.ini; -errno. */
int run_reload_resolve(const struct reload_rule *recipe_rule, const char *recipe_path,
		       const char *game, const char *const *gamedb_dirs, struct reload_rule *out,
		       struct strbuf *origin, struct strbuf *err);
/* Adds the rule to bench.txt as reload.format, reload.source (origin)
 * and the rule's [reload] keys as reload.KEY. */
void run_reload_record(struct kvfile *bench, const struct reload_rule *rule, const char *origin);

/* Finds the run's reload rule and its segments. The rule is the one the
 * runner recorded in bench.txt (reload.*), whatever the recipe or the
 * gamedb say now; a run from before those keys gets the game's rule
 * without its recipe (never read): DIR/GAME/analysis.ini in each of
 * gamedb_dirs, else RECIPEDIR/../gamedb, else none; the note says so.
 * 0; -EINVAL with "PATH:LINE: ..." in err for bad reload.* keys, a bad
 * analysis.ini or an unreadable game.log; -ENODATA for a run without
 * frames or window. A missing line is not an error: split is false. */
int run_reload_find(const struct run *run, const char *const *gamedb_dirs, struct run_reload *out,
		    struct strbuf *err);
void run_reload_release(struct run_reload *rr);

/* Adds the warm-up and play metrics (M_STALLS_WARM .. M_RELOAD_N) to m,
 * which run_metrics() filled over the window; called by run_metrics(). A
 * metric that cannot be computed stays unset: warm-up ones without a
 * warm-up, play ones without a split (a missing line, a bad analysis.ini). */
void run_window_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m);

/* The run's passes (bench.txt pass.N.start_ns), in order of start; *out
 * is the caller's to free. Returns how many. */
size_t run_passes(const struct run *run, struct reload_pass **out);
/* Whether key is bench.txt's pass.N.start_ns, N a whole number from 1 to
 * INT_MAX in digits only (the strict parser's: a key too long for an int
 * is no pass key); N into *pass. */
bool run_pass_start_key(const char *key, int *pass);

/* The API of the run's window's frames (the whole file's without a
 * window), run_frames_api()'s words: what the report's row says (api) and
 * the results database keeps (runs.api). A new string; NULL for a run
 * without frames. */
char *run_window_api(const struct run *run);

/* A report row for the run: its names, provenance, batch and kernel
 * (pointing into run; the variant is bench.txt's run_name,
 * "variant@switches", when it has one) and its metrics. The run is
 * validated first (run_validate()): one that fails a check gets status
 * "invalid" and row->invalid, which keep it out of the groups. A run
 * that an observer marked (bench.txt invalid=1 or interfered=1: both mean
 * disturbed) gets row->disturbed, which keeps it out of the groups too.
 * Returns whether the run had numbers (run_metrics() == 0). */
bool run_report_row(struct run *run, const struct metric_opts *opts, struct report_row *row);

/* A new run_id: 32 random hex digits (getrandom, or the clocks and pid
 * when it fails). */
void run_make_id(char out[33]);

/* Writes DIR/result.txt (key=value, docs/formats.md) for the run directory
 * DIR, whose bench.txt and frames.bin are written: the status (a status
 * "ok" whose run fails run_check() becomes "invalid", with check_failed=
 * saying why), how the numbers were computed, and the metrics over its
 * window when it has one.
 * The runner and `hitchbench import` both end with it. 0, or -errno with a
 * message in err. */
int run_write_result(const char *dir, const char *status, const struct metric_opts *opts,
		     struct strbuf *err);

#endif
