/*
 * A flip run's switches (runner-internal.h; docs/metrics.md "Flip"): the
 * schedule written into flip.txt before the game starts, and from the
 * window's start each segment's side applied by the flipping switch's
 * flip hook, with the time it was due and the time the hook returned
 * appended to flip.txt at once (a runner killed later leaves every switch
 * made so far). Segments count in the pass's own presents for a looping
 * demo (segment k of every pass is the same stretch of the demo whatever
 * the machine's speed; pass 1 starts with A, pass 2 with B), else in time
 * from the window's start (AB and BA pairs in a seeded order, planned in
 * full beforehand).
 */
#include "runner/runner-internal.h"
#include "base/timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How often the loop looks for the first frame in a flip run. */
#define FLIP_FIRST_FRAME_POLL_MS 50

/* The least segment in presents, whatever the frame rate. */
#define FLIP_SEG_FRAMES_LEAST 10

static const struct switch_def *flip_def(const struct flip_plan *p)
{
	return p->a ? p->a->def : p->b->def;
}

static void append(struct runner *rn, const struct strbuf *line)
{
	runner_record_append(rn, rn->flip.fd, HB_FLIP_FILE, &rn->flip.write_failed, line);
}

int runner_flip_begin(struct runner *rn, struct strbuf *err)
{
	const struct flip_plan *p = rn->req->flip;
	struct flip_record *r = &rn->flip.rec;
	struct strbuf text = STRBUF_INIT;

	rn->flip.fd = -1;
	if (!p)
		return 0;
	flip_record_init(r);
	r->switch_name = xstrdup(flip_def(p)->name);
	r->a = xstrdup(p->a_term);
	r->b = xstrdup(p->b_term);
	r->order = rn->req->recipe->relaunch && !p->by_time ? FLIP_ORDER_PASSES : FLIP_ORDER_PAIRS;
	r->unit = r->order == FLIP_ORDER_PASSES ? FLIP_UNIT_FRAMES : FLIP_UNIT_SECONDS;
	r->segment_s = p->segment_s;
	r->settle_ms = p->settle_s * 1e3;
	r->act_ms = flip_def(p)->flip_act_ms;
	r->late_ms = r->settle_ms * FLIP_LATE_OF_SETTLE;
	r->seed = p->seed;
	if (r->order == FLIP_ORDER_PAIRS) {
		size_t n = (size_t)ceil(rn->req->window_s / p->segment_s) + 2;

		if (n > HB_FLIP_PLAN_MAX) {
			strbuf_addf(err, "a flip run of %g s in segments of %g s would have %zu segments (at most %u)",
				    rn->req->window_s, p->segment_s, n, HB_FLIP_PLAN_MAX);
			flip_record_release(r);
			return -EINVAL;
		}
		r->plan = flip_plan_pairs(p->seed, n + n % 2);
	}
	flip_record_header(r, &text);
	rn->flip.fd = runner_record_create(rn, HB_FLIP_FILE, &text, err);
	strbuf_release(&text);
	if (rn->flip.fd < 0) {
		rn->flip.fd = -1;
		flip_record_release(r);
		return -EIO;
	}
	rn->flip.on = true;
	rn->flip.side = 'A'; /* the run was prepared with A's setting */
	rn->flip.seg = -1;
	kvfile_addf(&rn->bench, "flip", "%s %s %s", r->switch_name, r->a, r->b);
	return 0;
}

void runner_flip_pass(struct runner *rn)
{
	if (!rn->flip.on)
		return;
	rn->flip.pass_slot0 = rn->count_at_launch;
	if (rn->flip.rec.order == FLIP_ORDER_PASSES)
		rn->flip.seg = -1; /* segments count from each pass's first present */
}

/* frames unit: the segment in presents, from the warm-up's frame rate in
 * this pass (the window starts now). */
static void choose_frames(struct runner *rn)
{
	struct flip_record *r = &rn->flip.rec;
	uint64_t n = runner_frames(rn) - rn->flip.pass_slot0, t0, t1;
	struct strbuf line = STRBUF_INIT;
	double fps = 0;

	t0 = hb_frames_view_time(&rn->frames, rn->flip.pass_slot0);
	t1 = hb_frames_view_last(&rn->frames);
	if (n > 1 && t1 > t0)
		fps = (double)(n - 1) * 1e9 / (double)(t1 - t0);
	r->segment_frames = (unsigned)lround(fps * r->segment_s);
	if (r->segment_frames < FLIP_SEG_FRAMES_LEAST)
		r->segment_frames = FLIP_SEG_FRAMES_LEAST;
	strbuf_addf(&line, "segment_frames=%u\n", r->segment_frames);
	append(rn, &line);
	strbuf_release(&line);
	kvfile_addf(&rn->bench, "flip.segment_frames", "%u", r->segment_frames);
}

/* The segment the game is in now, and when it began (0: not known yet). */
static int current_segment(struct runner *rn, uint64_t now, uint64_t *due)
{
	struct flip_record *r = &rn->flip.rec;

	if (r->unit == FLIP_UNIT_SECONDS) {
		uint64_t len = (uint64_t)(r->segment_s * 1e9);
		int k = (int)((now - rn->window_start) / len);

		*due = rn->window_start + (uint64_t)k * len;
		return k;
	}
	{
		uint64_t n = runner_frames(rn) - rn->flip.pass_slot0;
		int k;

		if (n == 0)
			return -1;
		k = (int)((n - 1) / r->segment_frames);
		*due = hb_frames_view_time(&rn->frames, rn->flip.pass_slot0 + (uint64_t)k * r->segment_frames);
		return k;
	}
}

/*
 * At the window's start: what a killed runner leaves to be kept. bench.txt
 * as it stands, with the planned window and status "killed" (the run's
 * end writes the real one over it), and the staging directory's pointer
 * to this run directory, so that the next batch's sweep of a dead runner's
 * staging (stage_sweep()) moves the frames here and keeps the run: its
 * pairs so far stay analysable (docs/metrics.md "Flip").
 */
static void leave_for_a_kill(struct runner *rn)
{
	struct kvfile snap;
	char *path;

	kvfile_init(&snap);
	for (size_t i = 0; i < rn->bench.n; i++)
		kvfile_add(&snap, rn->bench.items[i].key, rn->bench.items[i].value);
	kvfile_addf(&snap, "window_start_ns", "%llu", (unsigned long long)rn->window_start);
	kvfile_addf(&snap, "window_end_ns", "%llu", (unsigned long long)rn->window_end);
	kvfile_add(&snap, "status", "killed");
	kvfile_add(&snap, "detail", "the runner was killed in the window: the run ends at its last "
		   "switch in flip.txt, its frames were kept by the next batch's sweep");
	path = xasprintf("%s/bench.txt", rn->tmp_dir);
	if (kvfile_write(&snap, path) < 0 || stage_note_run_dir(&rn->stage, rn->tmp_dir) < 0)
		switch_ctx_note(&rn->sw, "flip: what a killed runner would leave could not be written");
	free(path);
	kvfile_release(&snap);
}

void runner_flip_tick(struct runner *rn, uint64_t now)
{
	struct flip_record *r = &rn->flip.rec;
	const struct flip_plan *p = rn->req->flip;
	struct flip_event e = { 0 };
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	uint64_t due = 0;
	int k, ret;

	if (!rn->flip.on || !rn->have_window || now < rn->window_start || now >= rn->window_end ||
	    rn->game_exited)
		return;
	if (!rn->flip.left) {
		leave_for_a_kill(rn);
		rn->flip.left = true;
	}
	if (r->unit == FLIP_UNIT_FRAMES && !r->segment_frames)
		choose_frames(rn);
	k = current_segment(rn, now, &due);
	if (k < 0 || k == rn->flip.seg)
		return;
	e.pass = rn->pass;
	e.seg = k;
	e.side = flip_side(r, rn->pass, k);
	if (!e.side)
		return; /* past the plan: the window is over */
	e.due_ns = due && due <= now ? due : now;
	ret = flip_def(p)->flip(e.side == 'A' ? p->a : p->b, &rn->sw, &err);
	e.applied_ns = mono_ns();
	if (ret < 0) {
		e.applied_ns = 0;
		e.failed = err.buf;
		rn->flip.failed++;
	} else {
		rn->flip.side = e.side;
		if ((double)(e.applied_ns - e.due_ns) / 1e6 > r->late_ms)
			rn->flip.late++;
	}
	rn->flip.seg = k;
	rn->flip.switches++;
	flip_event_line(&e, &line);
	append(rn, &line);
	strbuf_release(&line);
	strbuf_release(&err);
}

uint64_t runner_flip_next(struct runner *rn, uint64_t now)
{
	const struct flip_record *r = &rn->flip.rec;
	uint64_t n, next, t0, t1;
	double fps;

	if (!rn->flip.on || (rn->have_window && now >= rn->window_end))
		return UINT64_MAX;
	/* the window starts a warm-up after the first frame, which the loop
	 * sees when it wakes: before it, often enough that a short warm-up
	 * has not ended by then (the first switch would come late) */
	if (!rn->have_window)
		return now + FLIP_FIRST_FRAME_POLL_MS * NSEC_PER_MSEC;
	if (now < rn->window_start)
		return rn->window_start;
	if (r->unit == FLIP_UNIT_SECONDS) {
		uint64_t len = (uint64_t)(r->segment_s * 1e9);

		return rn->window_start + ((now - rn->window_start) / len + 1) * len;
	}
	if (!r->segment_frames)
		return now;
	/* the next boundary's present, foreseen from the last second's rate;
	 * woken a little early, then every millisecond until it comes */
	n = runner_frames(rn) - rn->flip.pass_slot0;
	next = ((n ? (n - 1) / r->segment_frames : 0) + 1) * r->segment_frames;
	t1 = hb_frames_view_last(&rn->frames);
	t0 = n > 30 ? hb_frames_view_time(&rn->frames, rn->flip.pass_slot0 + n - 31) : 0;
	fps = t0 && t1 > t0 ? 30e9 / (double)(t1 - t0) : 0;
	if (fps <= 0)
		return now + NSEC_PER_MSEC;
	{
		uint64_t ahead = (uint64_t)((double)(next - n) / fps * 0.8 * 1e9);

		return now + (ahead > NSEC_PER_MSEC ? ahead : NSEC_PER_MSEC);
	}
}

void runner_flip_end(struct runner *rn)
{
	if (!rn->flip.on)
		return;
	kvfile_addf(&rn->bench, "flip.switches", "%zu", rn->flip.switches);
	kvfile_addf(&rn->bench, "flip.late", "%zu", rn->flip.late);
	kvfile_addf(&rn->bench, "flip.failed", "%zu", rn->flip.failed);
	if (rn->flip.late || rn->flip.failed)
		switch_ctx_note(&rn->sw, "flip: %zu of %zu switches late (over %g ms) and %zu failed: their "
				"pairs do not count", rn->flip.late, rn->flip.switches, rn->flip.rec.late_ms,
				rn->flip.failed);
	if (rn->flip.fd >= 0)
		close(rn->flip.fd);
	rn->flip.fd = -1;
	if (rn->flip.left) { /* the run ends here: nothing is left for a kill */
		char *back = xasprintf("%s/staging", rn->tmp_dir);

		unlink(back);
		free(back);
	}
	flip_record_release(&rn->flip.rec);
	rn->flip.on = false;
}
