/*
 * Frame sources other than the hook: a recipe's `frames = mangohud` or
 * `frames = gallium-hud`. The hook still runs in every run (the runner
 * finds the first frame and times the window with it); the tool named
 * writes its own log into the game's HOME, and after the run that log,
 * read by analysis/import/import.c's parsers, becomes the run's frames.bin, its
 * present times placed on the hook's clock (framesource_align). The hook's
 * own frames stay beside it as hook-frames.bin. docs/formats.md says what
 * each source writes and the bench.txt keys.
 *
 * Library code: returns 0 or -errno with a message, never prints.
 */
#ifndef HB_FRAMESOURCE_H
#define HB_FRAMESOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/argv.h"
#include "text/kvfile.h"
#include "recipe/recipe.h"
#include "base/util.h"

#define FRAMESOURCE_MANGOHUD_DIR ".hitchbench-mangohud" /* in the game's HOME */
#define FRAMESOURCE_HUD_DIR ".hitchbench-hud"
/* MangoHud writes its log only when log_duration has passed since it began
 * logging (1 s after it started; the duration covers the warm-up, the
 * window and 8 s of a first frame's delay): the runner keeps the game
 * running this long past the window, at most, for the log to appear. */
#define FRAMESOURCE_LINGER_S 15.0

/* Whether the source is another tool's log (mangohud, gallium-hud), which
 * becomes the run's frames.bin after the run; the hook's own frames stay
 * the run's for hook and vulkan. */
bool framesource_has_log(enum frame_source f);
/* The libraries to preload before the hook (NULL: none). MangoHud comes
 * first, as `mangohud --dlsym` puts it, so that it sees the game's
 * lookups; the hook, after it, still sees every present. */
const char *framesource_preload(enum frame_source f);
/* Adds the source's variables to the game's environment: home is the
 * game's HOME, run_s the seconds from the first frame to the window's
 * end (warm-up + window). Nothing for the hook. */
void framesource_env(struct argv_list *env, enum frame_source f, const char *home, double run_s);
/* Makes the log directory in HOME (before HOME is given to the game
 * user). 0 or -errno with err. */
int framesource_prepare(enum frame_source f, const char *home, struct strbuf *err);
/* Whether the source's log is complete in HOME, past_window_ns after the
 * window's end and presents_past presents of the game since (it still
 * running): always for the hook; for the Gallium HUD, which writes a
 * frame's time at a later present, a frame or two late, after
 * FRAMESOURCE_HUD_AFTER_S and FRAMESOURCE_HUD_AFTER_PRESENTS (a game that
 * stalls right after the window has not written its last frames yet); for
 * MangoHud once a log and its summary exist and have not changed for a
 * moment. */
bool framesource_log_ready(enum frame_source f, const char *home, uint64_t past_window_ns,
			   uint64_t presents_past);
#define FRAMESOURCE_HUD_AFTER_S 1.0
#define FRAMESOURCE_HUD_AFTER_PRESENTS 3

/* Where a log's present times go on the hook's clock. */
struct framesource_align {
	size_t hook_index;     /* the hook present matched to the log's present 0 */
	int64_t offset_ns;     /* added to every log present */
	size_t compared;       /* frame times compared */
	double residual_ns;    /* mean |hook frame time - log frame time| over them */
	uint64_t median_ns;    /* their median */
	uint64_t placed_ns;    /* the median distance of the placed presents to the hook's:
				* what decides whether the log is of these presents */
	uint64_t frame_ns;     /* the log's median frame time over those compared */
	size_t ties;           /* other placements within 1% of as good (a periodic game) */
	bool end_matched;      /* the hook has a present for the log's last one */
	int64_t end_error_ns;  /* the log's last present (placed) minus that hook present */
};

/*
 * Places a log's presents (log, n_log, ascending, any origin) on the
 * hook's (hook, n_hook): the log's frame times are slid along the hook's
 * and the placement where they differ least (sum of absolute differences
 * over the first up to 256) wins; the offset is the median distance of the
 * matched presents. Both tools time the same presents, each at its own
 * point of the call, so placed, a log of these presents stays near the
 * hook's: microseconds a present on an idle machine, a few ms on a loaded
 * one, tens of ms on a present preempted in between, never more as the
 * run goes on; another run's presents drift away from them frame by
 * frame, whatever their frame times look like. So the log is of these
 * presents when the median distance of its placed presents to the hook's
 * (placed_ns) is at most half its median frame time, or 1 ms: a
 * statistic no single late present can move (real runs of dsda-doom under
 * the Gallium HUD, idle and beside a busy loop on each CPU,
 * tests/fixtures/framesource/: at most 0.22 of a frame for a log of its
 * own run, at least 1.44 frames for another run's). A log with more
 * presents than the hook's (a last one the hook did not see) is compared
 * over the hook's. 0; -EINVAL for fewer than 2 presents on either side;
 * -ERANGE when no placement matches: the log is not of these presents.
 */
int framesource_align(const uint64_t *hook, size_t n_hook, const uint64_t *log, size_t n_log,
		      struct framesource_align *out);

/*
 * After the run (HOME and the run directory's frames.bin, the hook's,
 * still there): reads the source's log from home, places it on the hook's
 * clock, keeps the hook's file as hook-frames.bin and writes frames.bin
 * from the log; records frame_source, frame_source_kind, source_file,
 * source_sha256, the log's own facts (log.*) and the placement (align.*)
 * in bench. The log's presents must cover the window [window_start_ns,
 * window_end_ns]. 0; -ENOENT (no log), -EINVAL (a log that cannot be
 * read), -ERANGE (not placed, or not covering the window) with a message
 * for status_detail in err; nothing in the run directory changed then.
 */
int framesource_collect(enum frame_source f, const char *home, const char *run_dir,
			uint64_t window_start_ns, uint64_t window_end_ns, struct kvfile *bench,
			struct strbuf *err);

#endif
