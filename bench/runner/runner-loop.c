/*
 * The run's poll loop (runner-internal.h): one poll over the game's
 * output and the signals, sleeping until the next deadline; the first
 * frame places the warm-up and the window, the host noise is taken at the
 * window's edges, and the loop decides how the run ends: the window full,
 * the game's exit (a looping demo is relaunched), its end line, or a
 * failure (no frame, no start line, X gone).
 */
#include "runner/runner-internal.h"
#include "runner/framesource.h"
#include "base/timeutil.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

static void note_first_frame(struct runner *rn)
{
	const char *start_line = rn->req->recipe->start_line;
	uint64_t t;

	if (!rn->have_first && runner_frames(rn) > 0) {
		t = hb_frames_view_time(&rn->frames, 0);
		if (t == 0)
			return;
		rn->have_first = true;
		rn->first_frame = t;
		kvfile_addf(&rn->bench, "first_frame_ns", "%llu", (unsigned long long)t);
		runner_progress(rn, "first frame %.1f s after launch; warm-up %g s%s, window %g s",
				(double)(t - rn->t_launch) / 1e9, rn->req->warmup_s,
				start_line ? " from the start line" : "", rn->req->window_s);
	}
	if (!rn->have_first || rn->have_window)
		return;
	/* the warm-up counts from the first frame, or from the start line
	 * (a menu or a load that takes as long as the machine makes it) */
	t = rn->first_frame;
	if (start_line) {
		if (!rn->out.start.matched)
			return;
		if (rn->out.start.matched_ns > t)
			t = rn->out.start.matched_ns;
		kvfile_addf(&rn->bench, "start_line_ns", "%llu", (unsigned long long)t);
		runner_progress(rn, "start line %.1f s after the first frame",
				(double)(t - rn->first_frame) / 1e9);
	}
	rn->have_window = true;
	rn->window_start = t + (uint64_t)(rn->req->warmup_s * 1e9);
	rn->window_end = rn->window_start + (uint64_t)(rn->req->window_s * 1e9);
}

/* Cuts the window short at t (the game ended it early). */
static void cut_window(struct runner *rn, uint64_t t)
{
	if (t < rn->window_end)
		rn->window_end = t;
}

/* The runner's own CPU time (all its threads), in seconds. */
static double cpu_seconds(void)
{
	return (double)self_cpu_ns() / 1e9;
}

/* The runner watches the game too: it says what that cost. */
static void note_own_cost(struct runner *rn, double cpu0, uint64_t t0)
{
	double cpu = cpu_seconds() - cpu0, wall = (double)(mono_ns() - t0) / 1e9;

	kvfile_addf(&rn->bench, "runner_cpu_s", "%.3f", cpu);
	kvfile_addf(&rn->bench, "runner_cpu_ms_per_s", "%.3f", wall > 0 ? cpu * 1000 / wall : 0);
}

/*
 * How long the loop may sleep: until the next deadline (the window's start
 * and end, the current pass's load timeout), at most a second. Output and children
 * wake it anyway. The runner is an observer too, and its wakeups are kept
 * rare in the measured window; nothing it measures depends on when it
 * wakes (window and frames come from the presents' own stamps).
 */
static int poll_timeout_ms(struct runner *rn)
{
	uint64_t now = mono_ns(), until = now + NSEC_PER_SEC, flip = runner_flip_next(rn, now);
	uint64_t relay = runner_relay_next(rn, now);
	uint64_t load_end = rn->t_launch + (uint64_t)(rn->req->recipe->load_timeout_s * 1e9);

	if (runner_frames(rn) == rn->count_at_launch && load_end < until)
		until = load_end;
	if (rn->have_window && !rn->noise.asked[0] && rn->window_start < until)
		until = rn->window_start > now ? rn->window_start : now; /* the noise snapshot */
	if (flip < until)
		until = flip > now ? flip : now;
	if (relay < until)
		until = relay > now ? relay : now;
	if (rn->have_window && rn->window_end < until)
		until = rn->window_end > now ? rn->window_end : now + 100 * NSEC_PER_MSEC; /* waiting for a log */
	return until > now ? (int)((until - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC) : 0;
}

/* A host noise snapshot (0: the window's start, 1: its end), once each. */
static void take_noise(struct runner *rn, pid_t sid, int which)
{
	struct pid_list game = { 0 };

	if (rn->noise.asked[which] || (which == 1 && !rn->noise.asked[0]))
		return;
	if (sid > 0)
		runner_scan_tree(rn, sid, &game);
	run_noise_take(&rn->noise, which, &game);
	pid_list_release(&game);
}

/* The noise.* keys, and the run marked invalid when over the profile's
 * [noise] limits. */
static void finish_noise(struct runner *rn)
{
	struct strbuf why = STRBUF_INIT, brief = STRBUF_INIT;

	if (run_noise_finish(&rn->noise, rn->req->noise_limits, rn->req->noise_profile, &rn->bench,
			     &why))
		switch_ctx_invalid(&rn->sw, "%s", why.buf);
	if (rn->noise.have_fig) {
		noise_figures_brief(&rn->noise.fig, &brief);
		runner_progress(rn, "noise over the window: %s", brief.buf);
		free(rn->noise_brief);
		rn->noise_brief = strbuf_detach(&brief);
	}
	strbuf_release(&why);
	strbuf_release(&brief);
}

/* A run that cannot go on: X gone, no frame since the launch, no start
 * line since the first frame (status set, true). */
static bool stuck(struct runner *rn, uint64_t now)
{
	const struct recipe *rc = rn->req->recipe;
	uint64_t timeout = (uint64_t)(rc->load_timeout_s * 1e9);

	if (rn->x_died) {
		runner_set_status(rn, "failed", "the X server died during the run");
		return true;
	}
	if (runner_frames(rn) == rn->count_at_launch && !rn->game_exited &&
	    now - rn->t_launch > timeout) {
		runner_set_status(rn, "failed",
				  "no frame within %g s of launching pass %d (is the frame source right? "
				  "see game.log)", rc->load_timeout_s, rn->pass);
		return true;
	}
	if (rn->have_first && !rn->have_window && !rn->game_exited &&
	    now - rn->first_frame > timeout) {
		runner_set_status(rn, "failed", "no line matching start_line '%s' within %g s of the "
				  "first frame (see game.log)", rc->start_line, rc->load_timeout_s);
		return true;
	}
	return false;
}

/* The game printed its end line: the run ends there (true). */
static bool ended_by_line(struct runner *rn)
{
	if (!rn->out.end.matched)
		return false;
	rn->end_reason = xstrdup("line");
	if (rn->have_window)
		cut_window(rn, rn->out.end.matched_ns);
	return true;
}

/*
 * The game's main process is gone: the run ends (1: by its end line, its
 * exit, a short or failed run) or, for a looping demo, the next pass is
 * launched (0, *sid its session); -errno when it cannot be.
 */
static int after_exit(struct runner *rn, uint64_t now, pid_t *sid, struct strbuf *err)
{
	const struct recipe *rc = rn->req->recipe;
	int r;

	runner_drain_output(rn, true);
	if (ended_by_line(rn))
		return 1;
	if (rc->end == END_EXIT || !rc->relaunch || !rn->have_window) {
		rn->end_reason = xstrdup("exit");
		if (!rn->have_first)
			runner_set_status(rn, "failed", "the game exited before its first frame "
					  "(see game.log)");
		else if (!rn->have_window)
			runner_set_status(rn, "failed", "the game exited before a line matching "
					  "start_line '%s' (see game.log)", rc->start_line);
		else if (rc->end != END_EXIT)
			runner_set_status(rn, "short", "the game exited %.1f s before the window was "
					  "full and the recipe does not relaunch it",
					  (double)(rn->window_end - now) / 1e9);
		cut_window(rn, hb_frames_view_last(&rn->frames));
		return 1;
	}
	/* a looping demo: a new pass, unless this one showed nothing (a game
	 * that fails at once would otherwise be started over and over until
	 * the window ends) */
	if (runner_frames(rn) == rn->count_at_launch) {
		rn->end_reason = xstrdup("exit");
		runner_set_status(rn, "failed", "pass %d exited without a frame (see game.log)", rn->pass);
		cut_window(rn, hb_frames_view_last(&rn->frames));
		return 1;
	}
	runner_end_pass(rn, *sid);
	if (rn->status)
		return 1;
	r = runner_launch_pass(rn, err);
	if (r < 0)
		return r;
	*sid = rn->game_pid;
	if (rn->req->verbose)
		runner_progress(rn, "pass %d", rn->pass);
	return 0;
}

/* The window is over, unless a frame source that writes its log late
 * (MangoHud, the Gallium HUD) is still waited for, the game running. The
 * presents since the window's end count from the loop's first look past
 * it, a poll's wakeup later: a few more than needed at most. */
static bool window_over(struct runner *rn, uint64_t now)
{
	uint64_t frames = runner_frames(rn);

	if (!rn->count_at_window_end)
		rn->count_at_window_end = frames;
	if (!rn->game_exited &&
	    !framesource_log_ready(rn->req->recipe->frames, rn->stage.home, now - rn->window_end,
				   frames - rn->count_at_window_end) &&
	    now - rn->window_end < (uint64_t)(FRAMESOURCE_LINGER_S * 1e9))
		return false;
	rn->end_reason = xstrdup("window");
	return true;
}

int runner_main_loop(struct runner *rn, struct strbuf *err)
{
	pid_t sid = rn->game_pid;
	double cpu0 = cpu_seconds();
	uint64_t t0 = mono_ns();
	int r = 0;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = rn->out.master, .events = POLLIN },
			{ .fd = rn->req->signal_fd, .events = POLLIN },
		};
		uint64_t now;

		poll(p, 2, poll_timeout_ms(rn));
		runner_drain_output(rn, false);
		runner_handle_signals(rn);
		now = mono_ns();
		note_first_frame(rn);
		if (rn->interrupted)
			break;
		runner_flip_tick(rn, now);
		runner_relay_tick(rn, now);
		if (rn->have_window && now >= rn->window_start)
			take_noise(rn, sid, 0);
		if (rn->have_window && now >= rn->window_end)
			take_noise(rn, sid, 1);
		if (stuck(rn, now))
			break;
		if (rn->have_window && now >= rn->window_end) {
			if (window_over(rn, now))
				break;
			continue;
		}
		if (ended_by_line(rn))
			break;
		if (!rn->game_exited)
			continue;
		r = after_exit(rn, now, &sid, err);
		if (r != 0) {
			r = r < 0 ? r : 0;
			break;
		}
	}
	/* a window cut short (the game's exit, its end line): when noticed */
	take_noise(rn, sid, 1);
	finish_noise(rn);
	note_own_cost(rn, cpu0, t0);
	runner_relay_end(rn); /* a stopped game could not be stopped for good */
	if (rn->pass_running)
		runner_end_pass(rn, sid);
	runner_drain_output(rn, true);
	if (rn->have_window && rn->window_end <= rn->window_start && !rn->status)
		runner_set_status(rn, "failed",
				  "the run ended before the warm-up was over: no measured window");
	return r;
}
