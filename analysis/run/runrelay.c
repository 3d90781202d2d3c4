/*
 * The runs of a relay or a duet read back (runrelay.h).
 */
#include "run/runrelay.h"
#include "stats/flip.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void run_relay_gaps(const struct run *run, struct run_relay_gaps *g)
{
	const struct relay_record *r = run->relay;
	uint64_t settle, ws = run->window_start_ns, we = run->window_end_ns;

	memset(g, 0, sizeof(*g));
	if (!r || r->mode != RELAY_MODE_RELAY || !r->n_ev)
		return;
	settle = (uint64_t)(r->settle_ms * 1e6);
	g->from = zalloc(sizeof(*g->from) * r->n_ev);
	g->to = zalloc(sizeof(*g->to) * r->n_ev);
	for (size_t i = 0; i < r->n_ev; i++) {
		uint64_t to = UINT64_MAX;

		if (r->ev[i].resume)
			continue;
		for (size_t j = i + 1; j < r->n_ev; j++)
			if (r->ev[j].resume) {
				to = r->ev[j].applied_ns + settle;
				break;
			}
		g->from[g->n] = r->ev[i].due_ns;
		g->to[g->n] = to;
		if (run->have_window && to > ws && g->from[g->n] < we)
			g->gap_ns += (to < we ? to : we) - (g->from[g->n] > ws ? g->from[g->n] : ws);
		g->n++;
	}
}

void run_relay_gaps_release(struct run_relay_gaps *g)
{
	free(g->from);
	free(g->to);
	memset(g, 0, sizeof(*g));
}

bool run_relay_in_gap(const struct run_relay_gaps *g, size_t *k, uint64_t a, uint64_t b)
{
	while (*k < g->n && g->to[*k] <= a)
		(*k)++;
	return *k < g->n && g->from[*k] < b;
}

void run_relay_cmp_init(struct run_relay_cmp *c)
{
	memset(c, 0, sizeof(*c));
	c->estimate = c->se = NAN;
}

void run_relay_cmp_release(struct run_relay_cmp *c)
{
	free(c->d);
	free(c->blocks);
	run_relay_cmp_init(c);
}

/* One side's counted frame intervals: interval i (present i-1 to i) in the
 * window, of one process, touching no gap. */
struct side {
	const struct run *run;
	struct run_relay_gaps g;
	bool *counted;              /* [i]: interval ending at present i */
	uint64_t counted_ns, n_counted;
	uint64_t *pass_first;       /* the first present of each pass */
	size_t n_passes;
};

static void side_load(const struct run *run, struct side *s)
{
	const struct hb_frames *f = &run->frames;
	size_t k = 0;

	memset(s, 0, sizeof(*s));
	s->run = run;
	run_relay_gaps(run, &s->g);
	s->counted = zalloc(sizeof(*s->counted) * (f->n ? f->n : 1));
	for (size_t i = 1; i < f->n; i++) {
		uint64_t a = f->t_ns[i - 1], b = f->t_ns[i];

		if (b <= run->window_start_ns || b > run->window_end_ns || a < run->window_start_ns)
			continue;
		if (f->pid[i] && f->pid[i - 1] && f->pid[i] != f->pid[i - 1])
			continue; /* a relaunch's gap is not a frame */
		if (run_relay_in_gap(&s->g, &k, a, b))
			continue;
		s->counted[i] = true;
		s->counted_ns += b - a;
		s->n_counted++;
	}
	/* the passes' first presents (bench.txt pass.N.start_ns, in order) */
	{
		struct reload_pass *p;
		size_t n = run_passes(run, &p), j = 0;

		s->pass_first = zalloc(sizeof(*s->pass_first) * (n + 1));
		for (size_t q = 0; q < n; q++) {
			while (j < f->n && f->t_ns[j] < p[q].start_ns)
				j++;
			s->pass_first[s->n_passes++] = j;
		}
		s->pass_first[s->n_passes] = f->n;
		free(p);
	}
}

static void side_release(struct side *s)
{
	run_relay_gaps_release(&s->g);
	free(s->counted);
	free(s->pass_first);
}

static void push(struct run_relay_cmp *c, size_t *cap, double v)
{
	if (c->n_d == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		c->d = xrealloc(c->d, sizeof(*c->d) * *cap);
	}
	c->d[c->n_d++] = v;
}

/* The mean frame time (ns) of side s's counted intervals among presents
 * [from, to) of its frame file, or 0 when fewer than least. */
static double mean_ft(const struct side *s, uint64_t from, uint64_t to, uint64_t least)
{
	const uint64_t *t = s->run->frames.t_ns;
	uint64_t ns = 0, n = 0;

	for (uint64_t i = from < 1 ? 1 : from; i < to; i++)
		if (s->counted[i]) {
			ns += t[i] - t[i - 1];
			n++;
		}
	return n >= least && n ? (double)ns / (double)n : 0;
}

/* Blocks of K frames at the same place in each pass. */
static void by_frame(struct run_relay_cmp *c, const struct side *a, const struct side *b, double turn_s)
{
	size_t passes = a->n_passes < b->n_passes ? a->n_passes : b->n_passes, cap = 0;
	unsigned k = (unsigned)lround(c->fps_a * turn_s);

	if (k < RELAY_BLOCK_LEAST)
		k = RELAY_BLOCK_LEAST;
	c->block_frames = k;
	for (size_t p = 0; p < passes; p++) {
		uint64_t a0 = a->pass_first[p], a1 = a->pass_first[p + 1];
		uint64_t b0 = b->pass_first[p], b1 = b->pass_first[p + 1];
		uint64_t len = a1 - a0 < b1 - b0 ? a1 - a0 : b1 - b0;

		/* interval j of the pass ends at its present j (j >= 1) */
		for (uint64_t j = 1; j + k <= len; j += k) {
			double fa = mean_ft(a, a0 + j, a0 + j + k, k / 2), fb = mean_ft(b, b0 + j, b0 + j + k, k / 2);

			if (fa > 0 && fb > 0)
				push(c, &cap, log(fa / fb));
		}
	}
}

/* The counted frames of side s in [t0, t1): ln fps, or NAN when too few. */
static double stretch_log_fps(const struct side *s, uint64_t t0, uint64_t t1)
{
	const struct hb_frames *f = &s->run->frames;
	uint64_t lo = 0, hi = f->n, ns = 0, n = 0;

	while (lo < hi) { /* the first present at or after t0 */
		uint64_t mid = lo + (hi - lo) / 2;

		if (f->t_ns[mid] < t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint64_t i = lo; i < f->n && f->t_ns[i] <= t1; i++)
		if (i >= 1 && s->counted[i] && f->t_ns[i - 1] >= t0) {
			ns += f->t_ns[i] - f->t_ns[i - 1];
			n++;
		}
	return n >= 3 && ns ? log((double)n * 1e9 / (double)ns) : NAN;
}

/* Adjacent turns (a relay) or the same stretches (a duet), in time. */
static void by_turn(struct run_relay_cmp *c, const struct side *a, const struct side *b,
		    const struct relay_record *r)
{
	uint64_t from = a->run->window_start_ns > b->run->window_start_ns ? a->run->window_start_ns :
									     b->run->window_start_ns;
	uint64_t to = a->run->window_end_ns < b->run->window_end_ns ? a->run->window_end_ns :
								       b->run->window_end_ns;
	size_t cap = 0;

	if (to <= from)
		return;
	for (int k = relay_turn_at(r, from); relay_turn_start(r, k) < to; k++) {
		uint64_t t0 = relay_turn_start(r, k), t1 = relay_turn_start(r, k + 1);
		double la, lb, lb2;

		if (t0 < from)
			continue;
		if (r->mode == RELAY_MODE_DUET) {
			la = stretch_log_fps(a, t0, t1);
			lb = stretch_log_fps(b, t0, t1);
			if (!isnan(la) && !isnan(lb))
				push(c, &cap, lb - la);
			continue;
		}
		if (!relay_turn_is(r, k, 'A') || relay_turn_start(r, k + 2) > to || k == 0)
			continue;
		la = stretch_log_fps(a, t0, t1);
		lb = stretch_log_fps(b, relay_turn_start(r, k - 1), t0);
		lb2 = stretch_log_fps(b, t1, relay_turn_start(r, k + 2));
		if (!isnan(la) && !isnan(lb) && !isnan(lb2))
			push(c, &cap, (lb + lb2) / 2 - la);
	}
}

int run_relay_compare(const struct run *ra, const struct run *rb, struct run_relay_cmp *c, struct strbuf *err)
{
	const struct relay_record *a = ra->relay, *b = rb->relay;
	const char *ra_loop = kvfile_get(&ra->bench, "relaunch"), *rb_loop = kvfile_get(&rb->bench, "relaunch");
	struct side sa, sb;

	if (!a || !b || strcmp(a->id, b->id) != 0 || a->role != 'A' || b->role != 'B' || a->mode != b->mode) {
		strbuf_addf(err, "%s and %s are not the A and B of one relay", ra->name, rb->name);
		return -EINVAL;
	}
	if (!ra->have_frames || !rb->have_frames || !ra->have_window || !rb->have_window) {
		strbuf_addf(err, "%s: a run of the relay without frames or a measured window",
			    !ra->have_frames || !ra->have_window ? ra->name : rb->name);
		return -EINVAL;
	}
	c->mode = a->mode;
	side_load(ra, &sa);
	side_load(rb, &sb);
	c->fps_a = sa.counted_ns ? (double)sa.n_counted * 1e9 / (double)sa.counted_ns : 0;
	c->fps_b = sb.counted_ns ? (double)sb.n_counted * 1e9 / (double)sb.counted_ns : 0;
	c->pairing = ra_loop && rb_loop && !strcmp(ra_loop, "yes") && !strcmp(rb_loop, "yes") && sa.n_passes &&
		     sb.n_passes ? RELAY_BY_FRAME : RELAY_BY_TURN;
	if (c->pairing == RELAY_BY_FRAME)
		by_frame(c, &sa, &sb, a->turn_s);
	else
		by_turn(c, &sa, &sb, a);
	side_release(&sa);
	side_release(&sb);
	c->block_size = flip_block_size(c->d, c->n_d, &c->r1_blocks);
	c->blocks = zalloc(sizeof(*c->blocks) * (c->n_d ? c->n_d : 1));
	c->n_blocks = flip_block_means(c->d, c->n_d, c->block_size, c->blocks);
	if (c->n_blocks)
		flip_mean_se(c->blocks, c->n_blocks, &c->estimate, &c->se);
	return 0;
}
