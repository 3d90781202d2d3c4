/*
 * What a run's frame file says of its Vulkan swapchains (the events of
 * frame file version 2, common/formats/frames.h) and of the API its frames came
 * from: which swapchain creations are recreations (a resize, a present
 * mode change: an event of the run, not a stall), what each changed, and
 * the lines a report prints about them (the API itself:
 * run_frames_api(), analysis/run/run-check-api.c). Definitions: docs/metrics.md
 * "Swapchain recreations".
 *
 * run_load() builds a run's log (a copy: the report keeps it after the
 * frames are released); the metrics take its recreation times
 * (metrics_compute_recreated()); the report prints its note and JSON,
 * `hitchbench frames` its events.
 */
#ifndef HB_SWAPCHAIN_H
#define HB_SWAPCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/frames.h"
#include "base/util.h"

/* An event of the frame file with what the analysis makes of it. */
struct swapchain_event {
	struct hb_frame_event ev;   /* as the frame file has it */
	/* A creation that replaced a swapchain: one made with an
	 * oldSwapchain, or for a surface that had a swapchain before in the
	 * same process (a destroy and a create, as many games resize). */
	bool recreation;
	long from;                  /* a recreation: the index of the creation it replaced, -1: not seen */
};

struct swapchain_log {
	struct swapchain_event *ev; /* in time order */
	size_t n;
	size_t n_recreations;
	uint64_t dropped;           /* events the frame file had no slot for */
};

/* The log of the loaded frames' events (none for a version 1 file). */
void swapchain_log_build(struct swapchain_log *log, const struct hb_frames *f);
void swapchain_log_release(struct swapchain_log *log);

/* The recreations' times, ascending, into *out (the caller's to free;
 * NULL when there is none). Returns how many. */
size_t swapchain_recreation_times(const struct swapchain_log *log, uint64_t **out);

/* What a reader of a Vulkan run's frame times needs of its swapchains,
 * for a report's "# RUN: API (...), NOTE" line: the swapchain when the
 * window starts (extent, present mode, images), and the recreations in
 * the window (when, from what to what, times in seconds from t0_ns, the
 * run's first present), which are not counted as stalls. Appended to
 * out. */
void swapchain_note(const struct swapchain_log *log, uint64_t t0_ns, uint64_t window_start_ns,
		    uint64_t window_end_ns, struct strbuf *out);
/* Whether a run has such a note: some of its frames came through Vulkan,
 * or its frame file has swapchain events. */
bool swapchain_note_applies(const struct swapchain_log *log, uint64_t vulkan_presents);

/* Event i of the log in words: "create 0x2 816x616 fifo 3 images (asked
 * 2) format 44 surface 0x55: a recreation, replaces 0x1", "destroy 0x1".
 * Appended to out. */
void swapchain_event_describe(const struct swapchain_log *log, size_t i, struct strbuf *out);

#endif
