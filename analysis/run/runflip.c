/*
 * A flip run read back (runflip.h).
 */
#include "run/runflip.h"
#include "metrics/metrics.h"
#include "base/util.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void run_flip_init(struct run_flip *f)
{
	memset(f, 0, sizeof(*f));
	flip_record_init(&f->rec);
	f->stall_ms = FLIP_STALL_MS_DEFAULT;
}

void run_flip_release(struct run_flip *f)
{
	flip_record_release(&f->rec);
	free(f->ft[0]);
	free(f->ft[1]);
	free(f->segs);
	free(f->left_out);
	free(f->pairs);
	free(f->blocks);
	run_flip_init(f);
}

/* The first frame at or after t (frames sorted by time). */
static uint64_t first_at(const struct hb_frames *fr, uint64_t t)
{
	uint64_t lo = 0, hi = fr->n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (fr->t_ns[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether frame interval j (present j to j + 1) is between presents of one
 * process (a relaunched pass's gap is not a frame). */
static bool same_process(const struct hb_frames *fr, uint64_t j)
{
	return fr->pid[j] == fr->pid[j + 1] || !fr->pid[j] || !fr->pid[j + 1];
}

/* The frame times (ms) of each side's paired segments, pooled, and their
 * p99: only segments in a pair, so that both sides hold the same content
 * (a pass's first segment, its load, pairs with none). */
static void pooled_p99(const struct run *run, struct run_flip *f)
{
	const struct hb_frames *fr = &run->frames;

	for (size_t i = 0; i < f->n_segs; i++) {
		const struct flip_seg *g = &f->segs[i];
		int s = g->side == 'B';

		if (!g->counted || !flip_seg_paired(g, f->pairs, f->n_pairs))
			continue;
		for (uint64_t j = first_at(fr, g->from_ns); j + 1 < fr->n && fr->t_ns[j + 1] <= g->to_ns; j++) {
			if (!same_process(fr, j))
				continue;
			if (f->n_ft[s] == f->cap_ft[s]) {
				f->cap_ft[s] = f->cap_ft[s] ? f->cap_ft[s] * 2 : 1024;
				f->ft[s] = xrealloc(f->ft[s], sizeof(*f->ft[s]) * f->cap_ft[s]);
			}
			f->ft[s][f->n_ft[s]++] = (double)(fr->t_ns[j + 1] - fr->t_ns[j]) / 1e6;
		}
	}
	for (int k = 0; k < 2; k++) {
		double *p99 = k ? &f->p99_b : &f->p99_a;

		qsort(f->ft[k], f->n_ft[k], sizeof(*f->ft[k]), cmp_double);
		*p99 = f->n_ft[k] ? percentile_sorted(f->ft[k], f->n_ft[k], 990000, PCT_NEAREST_RANK) : NAN;
	}
}

/* Segment i of the record measured from the frames into g; NULL, or why
 * it is not counted. */
static const char *measure(const struct run *run, struct run_flip *f, size_t i, struct flip_seg *g)
{
	const struct flip_record *r = &f->rec;
	const struct flip_event *e = &r->ev[i];
	const struct hb_frames *fr = &run->frames;
	double lead_ms = r->settle_ms > r->act_ms ? r->settle_ms : r->act_ms;
	uint64_t start, end, sum = 0, stall_ns = (uint64_t)(f->stall_ms * 1e6);
	unsigned n = 0, stalls = 0;

	*g = (struct flip_seg){ .pass = r->order == FLIP_ORDER_PASSES ? e->pass : 1, .seg = e->seg,
				.side = e->side };
	if (!e->applied_ns) {
		f->failed++;
		return "the switch failed";
	}
	if ((double)(e->applied_ns - e->due_ns) / 1e6 > r->late_ms) {
		f->late++;
		return "switched late";
	}
	if (i + 1 >= r->n_ev) {
		f->outside++; /* the last: its end is not known */
		return "outside the window";
	}
	start = e->applied_ns + (uint64_t)(lead_ms * 1e6);
	end = r->ev[i + 1].applied_ns ? r->ev[i + 1].applied_ns : r->ev[i + 1].due_ns;
	if (e->applied_ns < run->window_start_ns || end > run->window_end_ns) {
		f->outside++;
		return "outside the window";
	}
	for (uint64_t j = first_at(fr, start); j + 1 < fr->n && fr->t_ns[j + 1] <= end; j++) {
		uint64_t dt = fr->t_ns[j + 1] - fr->t_ns[j];

		if (!same_process(fr, j))
			continue;
		sum += dt;
		stalls += dt > stall_ns;
		n++;
	}
	if (n < FLIP_SEG_LEAST || sum == 0) {
		f->thin++;
		return "too few frames";
	}
	g->from_ns = start;
	g->to_ns = end;
	g->counted = true;
	g->frames = n;
	g->stalls = stalls;
	g->log_ft = log((double)sum / n / 1e6);
	return NULL;
}

/* The mean of x[0..n-1] and its standard error (NAN under two). */
/* Stalls per side (in the paired segments: both sides' content alike), and
 * B - A per 1000 frames over the same pairs and
 * blocks as fps: each segment's value is its stall rate, paired by
 * flip_pairs() (which takes a pair's A value minus its B value of log_ft:
 * the rate goes in negated, so a pair's value is B's rate minus A's). */
static void stalls(struct run_flip *f)
{
	struct flip_seg *v = zalloc(sizeof(*v) * (f->n_segs ? f->n_segs : 1));
	struct flip_pair *p = zalloc(sizeof(*p) * (f->n_segs ? f->n_segs : 1));
	double *d, *blocks;
	size_t n;

	for (size_t i = 0; i < f->n_segs; i++) {
		const struct flip_seg *g = &f->segs[i];

		v[i] = *g;
		if (!g->counted)
			continue;
		v[i].log_ft = -1000.0 * g->stalls / g->frames;
		if (!flip_seg_paired(g, f->pairs, f->n_pairs))
			continue;
		if (g->side == 'A') {
			f->stalls_a += g->stalls;
			f->frames_a += g->frames;
		} else {
			f->stalls_b += g->stalls;
			f->frames_b += g->frames;
		}
	}
	n = flip_pairs(v, f->n_segs, f->rec.order == FLIP_ORDER_PASSES, p);
	d = zalloc(sizeof(*d) * (n ? n : 1));
	blocks = zalloc(sizeof(*blocks) * (n ? n : 1));
	for (size_t i = 0; i < n; i++)
		d[i] = p[i].d;
	f->n_stall_blocks = f->block_size ? flip_block_means(d, n, f->block_size, blocks) : 0;
	flip_mean_se(blocks, f->n_stall_blocks, &f->stall_diff, &f->stall_se);
	free(v);
	free(p);
	free(d);
	free(blocks);
}

int run_flip_analyse(const struct run *run, struct run_flip *f, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	double *d;
	int r;

	strbuf_addf(&path, "%s/%s", run->dir, HB_FLIP_FILE);
	r = flip_record_load(path.buf, &f->rec, err);
	strbuf_release(&path);
	if (r < 0)
		return r;
	if (!run->have_frames || !run->have_window) {
		strbuf_addf(err, "%s: a flip run without %s", run->dir,
			    run->have_frames ? "a measured window" : "frames");
		return -EINVAL;
	}
	f->segs = zalloc(sizeof(*f->segs) * (f->rec.n_ev ? f->rec.n_ev : 1));
	f->left_out = zalloc(sizeof(*f->left_out) * (f->rec.n_ev ? f->rec.n_ev : 1));
	f->pairs = zalloc(sizeof(*f->pairs) * (f->rec.n_ev ? f->rec.n_ev : 1));
	for (size_t i = 0; i < f->rec.n_ev; i++) {
		f->left_out[i] = measure(run, f, i, &f->segs[i]);
		f->counted += !f->left_out[i];
	}
	f->n_segs = f->rec.n_ev;
	f->n_pairs = flip_pairs(f->segs, f->n_segs, f->rec.order == FLIP_ORDER_PASSES, f->pairs);
	d = zalloc(sizeof(*d) * (f->n_pairs ? f->n_pairs : 1));
	for (size_t i = 0; i < f->n_pairs; i++)
		d[i] = f->pairs[i].d;
	f->r1_pairs = flip_lag1(d, f->n_pairs);
	f->block_size = flip_block_size(d, f->n_pairs, &f->r1_blocks);
	f->blocks = zalloc(sizeof(*f->blocks) * (f->n_pairs ? f->n_pairs : 1));
	f->n_blocks = flip_block_means(d, f->n_pairs, f->block_size, f->blocks);
	if (f->n_blocks)
		flip_mean_se(f->blocks, f->n_blocks, &f->estimate, &f->se);
	free(d);
	stalls(f);
	pooled_p99(run, f);
	return 0;
}
