/*
 * A run's stalls with their causes (stallcause.h): the loads, the
 * warm-up's and the window's stall frames placed on the stall record, and
 * the metrics users read from them (stall_*_s, load_disk_s, warm_disk_s,
 * the recorder's own cost). run_metrics() calls run_stall_metrics(), so
 * result.txt, reports, the matrix and the database all get them;
 * `hitchbench stalls` prints the stalls themselves.
 */
#include "run.h"
#include "stallcause.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_stall(struct stall_run *sr, size_t *cap, enum stall_section sec, size_t frame,
		      uint64_t a, uint64_t b)
{
	struct stall *st;

	if (sr->n_stall == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		sr->stall = xrealloc(sr->stall, *cap * sizeof(*sr->stall));
	}
	st = &sr->stall[sr->n_stall++];
	memset(st, 0, sizeof(*st));
	st->section = sec;
	st->frame = frame;
	stall_attribute(&sr->an, a, b, st);
}

/* Each pass's load: its launch (bench.txt pass.N.start_ns) to the first
 * present after it. */
static void add_loads(const struct run *run, struct stall_run *sr, size_t *cap)
{
	const uint64_t *t = run->frames.t_ns;
	int blkio = sr->rec.known[SR_DLY_BLKIO_US];
	struct reload_pass *passes;
	size_t n = run_passes(run, &passes), f = 0;

	sr->load_disk_delay = blkio >= 0;
	for (size_t k = 0; k < n; k++) {
		uint64_t start = passes[k].start_ns;

		while (f < run->frames.n && t[f] <= start)
			f++;
		if (f == run->frames.n)
			break;
		add_stall(sr, cap, SS_LOAD, (size_t)passes[k].pass, start, t[f]);
		if (sr->load_disk_s < 0)
			sr->load_disk_s = 0;
		sr->load_disk_s += blkio >= 0 ? stall_delta_in(&sr->an, blkio, start, t[f]) / 1e6
					      : stall_sampled_in(&sr->an, SC_DISK, start, t[f]);
	}
	free(passes);
}

int stall_run_load(const struct run *run, const struct metric_opts *opts, struct stall_run *out,
		   struct strbuf *err)
{
	static const struct metric_opts defaults = METRIC_OPTS_DEFAULT;
	const char *ff = kvfile_get(&run->bench, "first_frame_ns");
	char *path = xasprintf("%s/%s", run->dir, HB_STALLREC_FILE);
	const uint64_t *t = run->frames.t_ns;
	struct metric_recreations rec;
	uint64_t *rec_ns = NULL;
	size_t cap = 0, k = 0;
	int r;

	if (!opts)
		opts = &defaults;
	memset(out, 0, sizeof(*out));
	out->load_disk_s = -1;
	stallrec_init(&out->rec);
	r = stallrec_load(path, &out->rec, err);
	free(path);
	if (r < 0)
		return r;
	if (stall_analysis_init(&out->an, &out->rec) < 0) {
		strbuf_addf(err, "%s/%s: no t_us column", run->dir, HB_STALLREC_FILE);
		stall_run_release(out);
		return -EINVAL;
	}
	if (!run->have_frames || !run->have_window || run->frames.n == 0) {
		stall_run_release(out);
		return -ENODATA;
	}
	out->first_present_ns = t[0];
	if (ff && safe_atou64(ff, &out->first_present_ns) < 0)
		out->first_present_ns = t[0];
	add_loads(run, out, &cap);
	if (!run_recreations(run, &rec, &rec_ns))
		rec.n = 0;
	/* the warm-up (first present, window start] and the window: frames
	 * over the threshold, as metrics_compute() counts them (one that
	 * spans a swapchain recreation is none) */
	for (size_t i = 1; i < run->frames.n; i++) {
		enum stall_section sec;
		bool recreated;

		while (k < rec.n && rec_ns[k] <= t[i - 1])
			k++;
		recreated = k < rec.n && rec_ns[k] <= t[i];
		if (t[i] > out->first_present_ns && t[i] <= run->window_start_ns)
			sec = SS_WARM;
		else if (t[i] > run->window_start_ns && t[i] <= run->window_end_ns)
			sec = SS_WINDOW;
		else
			continue;
		if (!recreated && (double)(t[i] - t[i - 1]) / 1e6 > opts->stall_ms)
			add_stall(out, &cap, sec, i, t[i - 1], t[i]);
	}
	free(rec_ns);
	return 0;
}

void stall_run_release(struct stall_run *sr)
{
	if (!sr)
		return;
	stall_analysis_release(&sr->an);
	stallrec_release(&sr->rec);
	free(sr->stall);
	memset(sr, 0, sizeof(*sr));
}

static void set(struct metrics *m, enum metric_id id, double v)
{
	m->v[id] = v;
	m->have[id] = true;
}

static void trailer_metric(const struct stallrec *r, struct metrics *m, enum metric_id id,
			   const char *key, double scale)
{
	const char *v = kvfile_get(&r->trailer, key);
	double d;

	if (v && safe_atod(v, &d) == 0)
		set(m, id, d * scale);
}

void run_stall_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m)
{
	struct strbuf err = STRBUF_INIT;
	struct stall_run sr;
	double warm_disk = 0;
	bool warm = false;

	/* an unreadable record cannot be reported from here: `hitchbench
	 * stalls` says what is wrong with it */
	if (stall_run_load(run, opts, &sr, &err) < 0) {
		strbuf_release(&err);
		return;
	}
	for (int g = 0; g < SG_COUNT; g++)
		set(m, (enum metric_id)(M_STALL_DISK_S + g), 0);
	for (size_t k = 0; k < sr.n_stall; k++) {
		const struct stall *st = &sr.stall[k];

		if (st->section == SS_WARM) {
			warm = true;
			warm_disk += st->share_s[SC_DISK];
		}
		if (st->section != SS_WINDOW)
			continue;
		for (int c = 0; c < SC_COUNT; c++)
			m->v[M_STALL_DISK_S + stall_cause_group((enum stall_cause)c)] += st->share_s[c];
	}
	if (sr.load_disk_s >= 0)
		set(m, M_LOAD_DISK_S, sr.load_disk_s);
	/* a warm-up without stall frames waited 0 s on the disk in them */
	if (warm || m->have[M_STALLS_WARM])
		set(m, M_WARM_DISK_S, warm_disk);
	trailer_metric(&sr.rec, m, M_STALLREC_SAMPLES, "samples", 1);
	trailer_metric(&sr.rec, m, M_STALLREC_CPU_S, "cpu_us", 1e-6);
	trailer_metric(&sr.rec, m, M_STALLREC_CPU_PCT, "cpu_pct", 1);
	trailer_metric(&sr.rec, m, M_STALLREC_US_PER_SAMPLE, "us_per_sample", 1);
	trailer_metric(&sr.rec, m, M_STALLREC_WORK_US, "work_us_per_sample", 1);
	stall_run_release(&sr);
	strbuf_release(&err);
}

void stall_shares_describe(const struct stall *st, struct strbuf *out)
{
	double len = (double)(st->end_ns - st->start_ns) / 1e9;
	bool used[SC_COUNT] = { false };

	for (int n = 0; n < 3; n++) {
		int best = -1;

		for (int c = 0; c < SC_COUNT; c++)
			if (!used[c] && st->share_s[c] >= 0.005 * len && (best < 0 || st->share_s[c] > st->share_s[best]))
				best = c;
		if (best < 0)
			break;
		used[best] = true;
		strbuf_addf(out, "%s%s %.0f%%", n ? " " : "", stall_cause_name((enum stall_cause)best),
			    100 * st->share_s[best] / len);
	}
}
