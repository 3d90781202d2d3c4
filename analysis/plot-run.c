/*
 * A run's frames for plot.h (see plot-run.h).
 */
#include "plot-run.h"

#include <errno.h>
#include <stdlib.h>

/* Seconds from the run's first present; clamped at 0. */
static double plot_run_since_first(const struct run *run, uint64_t ns)
{
	return ns > run->frames.t_ns[0] ? (double)(ns - run->frames.t_ns[0]) / 1e9 : 0.0;
}

/*
 * The warm-up (from the first frame to the window's start; bench.txt's
 * first_frame_ns and window_start_ns), what came after the window, and
 * each pass's reload segment (the game's reload rule, analysis/reload.h),
 * as shaded segments. seg has room for 2 + the reload segments.
 */
static size_t run_segments(const struct run *run, const struct run_reload *rr,
			   struct plot_segment *seg)
{
	const uint64_t *t = run->frames.t_ns;
	uint64_t first = t[0], last = t[run->frames.n - 1];
	const char *ff = kvfile_get(&run->bench, "first_frame_ns");
	size_t n = 0;

	if (!run->have_window)
		return 0;
	if (ff)
		safe_atou64(ff, &first);
	if (run->window_start_ns > first)
		seg[n++] = (struct plot_segment){ plot_run_since_first(run, first),
						  plot_run_since_first(run, run->window_start_ns), "warm-up" };
	if (last > run->window_end_ns)
		seg[n++] = (struct plot_segment){ plot_run_since_first(run, run->window_end_ns),
						  plot_run_since_first(run, last), "after window" };
	for (size_t i = 0; rr && i < rr->n_segments; i++)
		seg[n++] = (struct plot_segment){ plot_run_since_first(run, rr->segments[i].start_ns),
						  plot_run_since_first(run, rr->segments[i].end_ns), "reload" };
	return n;
}

int plot_run_frames(const struct run *run, const char *const *gamedb_dirs, const char *title,
		    double stall_ms, struct plot_frames *f)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_segment *seg;
	struct run_reload rr;
	bool have_rr;
	double *t, *ms;

	if (!run->have_frames || run->frames.n < 2)
		return -ENODATA;
	t = zalloc((run->frames.n - 1) * sizeof(*t));
	ms = zalloc((run->frames.n - 1) * sizeof(*ms));
	for (uint64_t i = 1; i < run->frames.n; i++) {
		t[i - 1] = plot_run_since_first(run, run->frames.t_ns[i]);
		ms[i - 1] = (double)(run->frames.t_ns[i] - run->frames.t_ns[i - 1]) / 1e6;
	}
	/* the reload segments when the game has a rule (a bad rule: none drawn) */
	have_rr = run_reload_find(run, gamedb_dirs, &rr, &err) == 0;
	strbuf_release(&err);
	seg = zalloc(sizeof(*seg) * (2 + (have_rr ? rr.n_segments : 0)));
	*f = (struct plot_frames){ .title = title, .t_s = t, .ms = ms, .n = run->frames.n - 1,
				   .stall_ms = stall_ms, .segments = seg,
				   .n_segments = run_segments(run, have_rr ? &rr : NULL, seg) };
	if (have_rr)
		run_reload_release(&rr);
	return 0;
}

void plot_run_frames_release(struct plot_frames *f)
{
	free((double *)f->t_s);
	free((double *)f->ms);
	free((struct plot_segment *)f->segments);
	f->t_s = f->ms = NULL;
	f->segments = NULL;
}

size_t plot_run_window_ms(const struct run *run, double **out)
{
	double *ms = zalloc((run->frames.n ? run->frames.n : 1) * sizeof(*ms));
	size_t k = 0;

	for (uint64_t i = 1; i < run->frames.n; i++) {
		uint64_t end = run->frames.t_ns[i];

		if (run->have_window && (end <= run->window_start_ns || end > run->window_end_ns))
			continue;
		ms[k++] = (double)(end - run->frames.t_ns[i - 1]) / 1e6;
	}
	*out = ms;
	return k;
}
