/*
 * A run's Vulkan swapchains and its frames' API (see swapchain.h).
 */
#include "run/swapchain.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Recreations listed by name in a note; the rest are counted. */
#define NOTE_LIST_MAX 3

static void swapchain_log_init(struct swapchain_log *log)
{
	memset(log, 0, sizeof(*log));
}

void swapchain_log_release(struct swapchain_log *log)
{
	if (!log)
		return;
	free(log->ev);
	swapchain_log_init(log);
}

static bool is_create(const struct swapchain_event *e)
{
	return e->ev.kind == HB_EV_SWAPCHAIN_CREATE;
}

/* The latest creation before i in i's process whose swapchain is object
 * (by_surface false) or whose surface is object (true); -1 if none. */
static long earlier_create(const struct swapchain_log *log, size_t i, uint64_t object, bool by_surface)
{
	for (size_t j = i; j-- > 0;) {
		const struct swapchain_event *e = &log->ev[j];

		if (is_create(e) && e->ev.pid == log->ev[i].ev.pid &&
		    (by_surface ? e->ev.surface : e->ev.object) == object)
			return (long)j;
	}
	return -1;
}

void swapchain_log_build(struct swapchain_log *log, const struct hb_frames *f)
{
	swapchain_log_init(log);
	log->dropped = f->events_dropped;
	if (!f->n_events)
		return;
	log->ev = zalloc(f->n_events * sizeof(*log->ev));
	for (size_t i = 0; i < f->n_events; i++) {
		struct swapchain_event *e = &log->ev[log->n++];

		e->ev = f->events[i];
		e->from = -1;
		if (!is_create(e))
			continue;
		/* the swapchain it names as old, else its surface's last one */
		if (e->ev.old_object)
			e->from = earlier_create(log, i, e->ev.old_object, false);
		if (e->from < 0 && e->ev.surface)
			e->from = earlier_create(log, i, e->ev.surface, true);
		e->recreation = e->ev.old_object || e->from >= 0;
		log->n_recreations += e->recreation;
	}
}

size_t swapchain_recreation_times(const struct swapchain_log *log, uint64_t **out)
{
	uint64_t *t = log->n_recreations ? zalloc(log->n_recreations * sizeof(*t)) : NULL;
	size_t n = 0;

	for (size_t i = 0; i < log->n; i++)
		if (log->ev[i].recreation)
			t[n++] = log->ev[i].ev.t_ns;
	*out = t;
	return n;
}

bool swapchain_note_applies(const struct swapchain_log *log, uint64_t vulkan_presents)
{
	return log->n || log->dropped || vulkan_presents;
}

/* "800x600 fifo 3 images (asked 2)" */
static void describe_swapchain(const struct hb_frame_event *e, struct strbuf *out)
{
	char buf[24];

	strbuf_addf(out, "%" PRIu32 "x%" PRIu32 " %s ", e->width, e->height,
		    hb_present_mode_name(e->present_mode, buf));
	if (!e->image_count)
		strbuf_addf(out, "%" PRIu32 " images asked (got: not known)", e->min_image_count);
	else if (e->image_count == e->min_image_count)
		strbuf_addf(out, "%" PRIu32 " images", e->image_count);
	else
		strbuf_addf(out, "%" PRIu32 " images (asked %" PRIu32 ")", e->image_count,
			    e->min_image_count);
}

void swapchain_event_describe(const struct swapchain_log *log, size_t i, struct strbuf *out)
{
	const struct swapchain_event *e = &log->ev[i];

	if (!is_create(e)) {
		strbuf_addf(out, "%s 0x%" PRIx64,
			    e->ev.kind == HB_EV_SWAPCHAIN_DESTROY ? "destroy" : "unknown-event", e->ev.object);
		return;
	}
	strbuf_addf(out, "create 0x%" PRIx64 " ", e->ev.object);
	describe_swapchain(&e->ev, out);
	strbuf_addf(out, " format %" PRIu32 " surface 0x%" PRIx64, e->ev.format, e->ev.surface);
	if (e->recreation && e->ev.old_object)
		strbuf_addf(out, ": a recreation, replaces 0x%" PRIx64, e->ev.old_object);
	else if (e->recreation)
		strbuf_addf(out, ": a recreation, its surface had 0x%" PRIx64,
			    log->ev[e->from].ev.object);
}

/* The swapchains alive at t (made at or before it, neither destroyed nor
 * replaced since), else the first made after it. */
static void note_swapchains(const struct swapchain_log *log, uint64_t t, struct strbuf *out)
{
	bool *alive = zalloc((log->n ? log->n : 1) * sizeof(*alive));
	size_t n_alive = 0;
	long first_after = -1;

	for (size_t i = 0; i < log->n; i++) {
		const struct swapchain_event *e = &log->ev[i];

		if (e->ev.t_ns > t) {
			if (first_after < 0 && is_create(e))
				first_after = (long)i;
			continue;
		}
		if (is_create(e)) {
			alive[i] = true;
			if (e->from >= 0)
				alive[e->from] = false;
		} else {
			long j = earlier_create(log, i, e->ev.object, false);

			if (j >= 0)
				alive[j] = false;
		}
	}
	for (size_t i = 0; i < log->n; i++)
		n_alive += alive[i];
	if (!n_alive && first_after < 0) {
		strbuf_addstr(out, "no swapchain recorded");
	} else if (!n_alive) {
		strbuf_addstr(out, "swapchain ");
		describe_swapchain(&log->ev[first_after].ev, out);
	} else {
		strbuf_addstr(out, n_alive > 1 ? "swapchains " : "swapchain ");
		for (size_t i = 0, k = 0; i < log->n; i++) {
			if (!alive[i])
				continue;
			strbuf_addstr(out, k++ ? ", " : "");
			describe_swapchain(&log->ev[i].ev, out);
		}
	}
	free(alive);
}

/* What a recreation changed: "800x600 -> 816x616", "fifo -> mailbox",
 * "3 -> 2 images"; all of the new one when the old one is not known. */
static void note_change(const struct swapchain_log *log, const struct swapchain_event *e,
			struct strbuf *out)
{
	const struct hb_frame_event *a, *b = &e->ev;
	char ba[24], bb[24];
	bool any = false;

	if (e->from < 0) {
		strbuf_addstr(out, "to ");
		describe_swapchain(b, out);
		return;
	}
	a = &log->ev[e->from].ev;
	if (a->width != b->width || a->height != b->height) {
		strbuf_addf(out, "%" PRIu32 "x%" PRIu32 " -> %" PRIu32 "x%" PRIu32, a->width, a->height,
			    b->width, b->height);
		any = true;
	}
	if (a->present_mode != b->present_mode) {
		strbuf_addf(out, "%s%s -> %s", any ? ", " : "", hb_present_mode_name(a->present_mode, ba),
			    hb_present_mode_name(b->present_mode, bb));
		any = true;
	}
	if (a->image_count != b->image_count) {
		strbuf_addf(out, "%s%" PRIu32 " -> %" PRIu32 " images", any ? ", " : "", a->image_count,
			    b->image_count);
		any = true;
	}
	if (!any)
		strbuf_addstr(out, "same extent, mode and images");
}

void swapchain_note(const struct swapchain_log *log, uint64_t t0_ns, uint64_t window_start_ns,
		    uint64_t window_end_ns, struct strbuf *out)
{
	size_t in = 0, listed = 0;

	note_swapchains(log, window_start_ns, out);
	for (size_t i = 0; i < log->n; i++)
		in += log->ev[i].recreation && log->ev[i].ev.t_ns > window_start_ns &&
		      log->ev[i].ev.t_ns <= window_end_ns;
	if (!in)
		strbuf_addstr(out, "; no recreation in the window");
	else
		strbuf_addf(out, "; %zu recreation%s in the window at ", in, in > 1 ? "s" : "");
	for (size_t i = 0; i < log->n && listed < in; i++) {
		const struct swapchain_event *e = &log->ev[i];

		if (!e->recreation || e->ev.t_ns <= window_start_ns || e->ev.t_ns > window_end_ns)
			continue;
		if (listed == NOTE_LIST_MAX) {
			strbuf_addf(out, ", and %zu more", in - listed);
			break;
		}
		strbuf_addf(out, "%s%.2f s (", listed ? ", " : "", (double)(int64_t)(e->ev.t_ns - t0_ns) / 1e9);
		note_change(log, e, out);
		strbuf_addch(out, ')');
		listed++;
	}
	if (in)
		strbuf_addstr(out, in > 1 ? ", their frames not counted as stalls" :
			      ", its frame not counted as a stall");
	if (log->n_recreations > in)
		strbuf_addf(out, "; %zu more outside the window", log->n_recreations - in);
	if (log->dropped)
		strbuf_addf(out, "; %" PRIu64 " swapchain event%s lost (the frame file's event slots were "
			    "full): recreations may be missing", log->dropped, log->dropped > 1 ? "s" : "");
}
