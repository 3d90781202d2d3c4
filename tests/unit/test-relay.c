/*
 * Relays and duets: the record each run writes (common/formats/relayfile.c),
 * a run's gaps and its metrics over the frames of its own turns, and the
 * comparison of a relay's two runs (analysis/run/runrelay.c) with its error
 * rates measured by simulation: two looping demos played in turns on one
 * machine whose speed drifts (a random walk shared by both: one machine),
 * the demo's content the same frame by frame for both sides (an AR(1) in
 * the frame index, sd CONTENT_SD), and each frame's own noise. The whole
 * procedure (gaps, same-frame blocks, blocks of pairs, the sequential test
 * over them as ab runs it) must call an A/A DIFFERENT at most at its
 * nominal 5% (with three binomial sds of tolerance) and find a 3% change.
 */
#include "formats/relayfile.h"
#include "run/runrelay.h"
#include "plot/plot-runs.h"
#include "stats/sequential.h"
#include "stats/stats.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char record[] =
	"# a comment\n"
	"format=1\nrelay=0123abc\nmode=relay\nrole=B\nfirst=A\nturn_s=0.5\nsettle_ms=50\n"
	"epoch_ns=1000000000\ncpus=-\n"
	"stop=0 1000000000 1000100000\n"
	"resume=1 1500000000 1500200000\n"
	"stop=2 2000000000 2000300000\n";

START_TEST(test_record_round_trip)
{
	struct relay_record r, r2;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	bool cut;

	relay_record_init(&r);
	ck_assert_int_eq(relay_record_parse(record, strlen(record), "relay.txt", &r, &cut, &err), 0);
	ck_assert(!cut);
	ck_assert_str_eq(r.id, "0123abc");
	ck_assert_int_eq(r.mode, RELAY_MODE_RELAY);
	ck_assert_int_eq(r.role, 'B');
	ck_assert_uint_eq(r.n_ev, 3);
	ck_assert(r.ev[1].resume && !r.ev[2].resume);
	ck_assert_uint_eq(r.ev[2].applied_ns, 2000300000);
	/* the grid: turn 0 is A's, then B's, ... */
	ck_assert_int_eq(relay_turn_at(&r, 1000000000), 0);
	ck_assert_int_eq(relay_turn_at(&r, 1499999999), 0);
	ck_assert_int_eq(relay_turn_at(&r, 1500000000), 1);
	ck_assert_int_eq(relay_turn_at(&r, 5), 0); /* before the epoch */
	ck_assert(relay_turn_is(&r, 0, 'A') && relay_turn_is(&r, 1, 'B') && !relay_turn_is(&r, 2, 'B'));
	ck_assert_uint_eq(relay_turn_start(&r, 3), 2500000000);
	/* written back, read again: the same */
	relay_record_header(&r, &out);
	for (size_t i = 0; i < r.n_ev; i++)
		relay_event_line(&r.ev[i], &out);
	relay_record_init(&r2);
	ck_assert_int_eq(relay_record_parse(out.buf, out.len, "again", &r2, NULL, &err), 0);
	ck_assert_str_eq(r2.id, r.id);
	ck_assert_uint_eq(r2.epoch_ns, r.epoch_ns);
	ck_assert_uint_eq(r2.n_ev, r.n_ev);
	ck_assert_uint_eq(r2.ev[1].due_ns, r.ev[1].due_ns);
	/* a runner killed mid-line: the line is left out, and said */
	relay_record_release(&r2);
	relay_record_init(&r2);
	ck_assert_int_eq(relay_record_parse(out.buf, out.len - 3, "cut", &r2, &cut, &err), 0);
	ck_assert(cut);
	ck_assert_uint_eq(r2.n_ev, 2);
	relay_record_release(&r);
	relay_record_release(&r2);
	strbuf_release(&out);
	strbuf_release(&err);
}
END_TEST

static const struct {
	const char *text, *why;
} refused[] = {
	{ "format=2\n", "relay.txt:1: format is not 1" },
	{ "relay=x\n", "relay.txt:1: the format line is not first" },
	{ "format=1\nrelay=x\nmode=relay\nrole=A\nfirst=A\nturn_s=0.5\nsettle_ms=50\nepoch_ns=1\ncpus=-\nrole=B\n",
	  "relay.txt:10: a key that appears once appears again" },
	{ "format=1\nstop=0 1 2\n", "relay.txt:2: a stop or resume before the whole header" },
	{ "format=1\nrelay=x\nmode=solo\n", "relay.txt:3: mode is relay or duet" },
	{ "format=1\nrelay=X Y\n", "relay.txt:2: relay is an id" },
	{ "format=1\nrelay=x\nmode=relay\nrole=C\n", "relay.txt:4: role and first are A or B" },
	{ "format=1\nrelay=x\nmode=relay\nrole=A\nfirst=A\nturn_s=0\n", "relay.txt:6: turn_s is seconds" },
	{ "format=1\nrelay=x\nmode=relay\nrole=A\nfirst=A\nturn_s=0.5\nsettle_ms=50\nepoch_ns=1\ncpus=-\n"
	  "stop=0 10 5\n", "relay.txt:10: a stop or resume applied before it was due" },
	{ "format=1\nrelay=x\nmode=relay\nrole=A\nfirst=A\nturn_s=0.5\nsettle_ms=50\nepoch_ns=1\ncpus=-\n"
	  "stop=1 10 11\nresume=2 5 6\n", "relay.txt:11: the stops and resumes are not in time order" },
	{ "format=1\nrelay=x\nmode=relay\nrole=A\nfirst=A\nturn_s=0.5\nsettle_ms=50\nepoch_ns=1\ncpus=-\n"
	  "stop=1 10 11 12\n", "relay.txt:10: stop and resume want" },
	{ "format=1\nrelay=x\nmode=relay\nrole=A\nfirst=A\nturn_s=0.5\nsettle_ms=50\nepoch_ns=1\ncpus=-\n"
	  "stop=4294967297 10 11\n", "relay.txt:10: stop and resume want" },
	{ "format=1\nrelay=x\nmode=relay\nrole=A\nfirst=A\nturn_s=0.5\nsettle_ms=50\nepoch_ns=1\ncpus=-\n"
	  "stop=1 -10 11\n", "relay.txt:10: stop and resume want" },
	{ "format=1\nrelay=x\nmode=relay\n", "relay.txt: the header is not whole" },
	{ "format=1\nsize=3\n", "relay.txt:2: unknown key" },
};

START_TEST(test_record_refusals)
{
	struct relay_record r;
	struct strbuf err = STRBUF_INIT;

	relay_record_init(&r);
	ck_assert_int_eq(relay_record_parse(refused[_i].text, strlen(refused[_i].text), "relay.txt", &r, NULL,
					    &err), -EINVAL);
	ck_assert_msg(strncmp(err.buf, refused[_i].why, strlen(refused[_i].why)) == 0, "%s: %s", refused[_i].why,
		      err.buf);
	relay_record_release(&r);
	strbuf_release(&err);
}
END_TEST

/* ---- simulated relays ------------------------------------------------------ */

#define MS 1000000ull
#define SEQUENCES 400
#define TOLERANCE 0.033 /* 3 x sqrt(0.05 x 0.95 / 400) */
#define CONTENT_SD 0.15
#define CONTENT_AR 0.98
#define FRAME_SD 0.25
#define DRIFT_SD 0.02    /* of ln speed, a turn */

struct sim_side {
	struct run run;
	struct relay_record rec;
	size_t cap;
	unsigned frame;          /* the next frame's index in the demo */
};

static void side_init(struct sim_side *s, const char *id, char role, uint64_t epoch, uint64_t window_s)
{
	memset(s, 0, sizeof(*s));
	relay_record_init(&s->rec);
	s->rec.id = xstrdup(id);
	s->rec.mode = RELAY_MODE_RELAY;
	s->rec.role = role;
	s->rec.first = 'A';
	s->rec.turn_s = 0.5;
	s->rec.settle_ms = 50;
	s->rec.epoch_ns = epoch;
	s->rec.cpus = xstrdup("-");
	kvfile_init(&s->run.bench);
	kvfile_add(&s->run.bench, "relaunch", "yes");
	kvfile_addf(&s->run.bench, "pass.1.start_ns", "%llu", (unsigned long long)epoch);
	s->run.name = xasprintf("sim-%c", role);
	s->run.relay = &s->rec;
	s->run.have_frames = s->run.have_window = true;
	s->run.window_start_ns = epoch + 2000 * MS;
	s->run.window_end_ns = s->run.window_start_ns + window_s * 1000 * MS;
}

static void side_release(struct sim_side *s)
{
	free(s->run.frames.t_ns);
	free(s->run.frames.pid);
	free(s->run.name);
	kvfile_release(&s->run.bench);
	relay_record_release(&s->rec);
}

static void present(struct sim_side *s, uint64_t t)
{
	if (s->run.frames.n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->run.frames.t_ns = xrealloc(s->run.frames.t_ns, s->cap * sizeof(uint64_t));
		s->run.frames.pid = xrealloc(s->run.frames.pid, s->cap * sizeof(uint32_t));
	}
	s->run.frames.t_ns[s->run.frames.n] = t;
	s->run.frames.pid[s->run.frames.n++] = 1;
}

static void event(struct sim_side *s, bool resume, int turn, uint64_t due)
{
	struct relay_event e = { .resume = resume, .turn = turn, .due_ns = due, .applied_ns = due + MS };

	if (s->rec.n_ev == s->rec.alloc_ev) {
		s->rec.alloc_ev = s->rec.alloc_ev ? 2 * s->rec.alloc_ev : 64;
		s->rec.ev = xrealloc(s->rec.ev, s->rec.alloc_ev * sizeof(*s->rec.ev));
	}
	s->rec.ev[s->rec.n_ev++] = e;
}

/* The demo's content: ln frame time of frame j, the same for both sides. */
static double content(const double *c, unsigned j, unsigned n)
{
	return c[j % n];
}

/* One relay of window_s seconds: A and B (B's frames longer by exp(-mu):
 * mu is ln(B/A) of fps) in turns of 0.5 s from the epoch, each turn
 * played from its start with the machine's speed of that turn. */
static void simulate(struct sim_side *a, struct sim_side *b, double mu, uint64_t window_s,
		     struct stats_rng *rng, const double *c, unsigned nc)
{
	uint64_t epoch = 1000 * MS, turn = 500 * MS, end = epoch + (window_s + 4) * 1000 * MS;
	double drift = 0;

	side_init(a, "simrelay", 'A', epoch, window_s);
	side_init(b, "simrelay", 'B', epoch, window_s);
	event(b, false, 0, epoch); /* launched together: B stopped at once */
	for (int k = 0; epoch + (uint64_t)k * turn < end; k++) {
		struct sim_side *s = k % 2 == 0 ? a : b, *o = k % 2 == 0 ? b : a;
		uint64_t t0 = epoch + (uint64_t)k * turn, t = t0 + MS, t1 = t0 + turn;

		drift += DRIFT_SD * stats_rng_normal(rng);
		if (k > 0) {
			event(s, true, k, t0);
			event(o, false, k, t0);
		}
		while (t < t1) {
			double ln_ft = log(5.0) + content(c, s->frame, nc) + drift + FRAME_SD * stats_rng_normal(rng) -
				       (s == b ? mu : 0);
			uint64_t ft = (uint64_t)(exp(ln_ft) * MS);

			if (t + ft >= t1)
				break; /* stopped mid-frame: it ends after the resume */
			t += ft;
			present(s, t);
			s->frame++;
		}
	}
}

static void make_content(struct stats_rng *rng, double *c, unsigned n)
{
	double x = 0, innov = CONTENT_SD * sqrt(1 - CONTENT_AR * CONTENT_AR);

	for (unsigned j = 0; j < n; j++) {
		x = CONTENT_AR * x + innov * stats_rng_normal(rng);
		c[j] = x;
	}
}

/* A sequence as ab runs one: relays of 60 s until the test decides or
 * max_relays are done; its verdict. */
static enum stats_verdict sequence(double mu, int max_relays, struct stats_rng *rng, const double *c, unsigned nc,
				   size_t *blocks_used)
{
	struct seq_opts o = SEQ_OPTS_DEFAULT;
	struct seq_result r = { 0 };
	double *d = NULL;
	size_t n = 0;

	o.max_pairs = 1000000;
	for (int i = 0; i < max_relays; i++) {
		struct sim_side a, b;
		struct run_relay_cmp cmp;
		struct strbuf err = STRBUF_INIT;

		simulate(&a, &b, mu, 60, rng, c, nc);
		run_relay_cmp_init(&cmp);
		ck_assert_int_eq(run_relay_compare(&a.run, &b.run, &cmp, &err), 0);
		ck_assert_int_eq(cmp.pairing, RELAY_BY_FRAME);
		d = xrealloc(d, sizeof(*d) * (n + cmp.n_blocks + 1));
		memcpy(d + n, cmp.blocks, sizeof(*d) * cmp.n_blocks);
		n += cmp.n_blocks;
		run_relay_cmp_release(&cmp);
		side_release(&a);
		side_release(&b);
		strbuf_release(&err);
		seq_run(d, n, &o, &r);
		if (r.done)
			break;
	}
	free(d);
	*blocks_used = r.pairs;
	return r.done ? r.verdict : VERDICT_UNKNOWN;
}

START_TEST(test_one_relay)
{
	struct stats_rng rng;
	struct sim_side a, b;
	struct run_relay_cmp cmp;
	struct strbuf err = STRBUF_INIT;
	struct run_relay_gaps g;
	struct metrics m;
	double c[30000];
	size_t k = 0;

	stats_rng_init(&rng, 11);
	make_content(&rng, c, 30000);
	simulate(&a, &b, log(1 / 1.05), 60, &rng, c, 30000);
	/* B's gaps: each stop to its resume plus the settle time */
	run_relay_gaps(&b.run, &g);
	ck_assert_uint_eq(g.from[0], 1000 * MS);
	ck_assert_uint_eq(g.to[0], 1500 * MS + MS + 50 * MS);
	ck_assert(run_relay_in_gap(&g, &k, 1400 * MS, 1600 * MS));
	ck_assert(!run_relay_in_gap(&g, &k, 1552 * MS, 1560 * MS));
	/* inside the window, a half of it is gaps and settles */
	ck_assert(g.gap_ns > 30000 * MS && g.gap_ns < 34000 * MS);
	run_relay_gaps_release(&g);
	/* the run's own metrics: no stall from the stops, its own rate */
	ck_assert_int_eq(run_metrics(&a.run, NULL, &m), 0);
	ck_assert(m.v[M_STALLS] == 0);
	ck_assert(m.v[M_LONGEST_MS] < 100);
	ck_assert(m.v[M_WINDOW_S] > 25 && m.v[M_WINDOW_S] < 31);
	ck_assert(m.v[M_FPS] > 150 && m.v[M_FPS] < 250);

	run_relay_cmp_init(&cmp);
	ck_assert_int_eq(run_relay_compare(&a.run, &b.run, &cmp, &err), 0);
	ck_assert_int_eq(cmp.pairing, RELAY_BY_FRAME);
	ck_assert(cmp.block_frames >= RELAY_BLOCK_LEAST);
	ck_assert(cmp.n_blocks >= 8);
	ck_assert_msg(fabs(cmp.estimate - log(1 / 1.05)) < 4 * cmp.se, "estimate %g se %g", cmp.estimate, cmp.se);
	run_relay_cmp_release(&cmp);
	/* A and B swapped: not one relay's A and B */
	ck_assert_int_eq(run_relay_compare(&b.run, &a.run, &cmp, &err), -EINVAL);
	ck_assert(strstr(err.buf, "are not the A and B of one relay"));
	run_relay_cmp_release(&cmp);
	/* not a looping demo: adjacent turns in time, the same sign */
	kvfile_set(&a.run.bench, "relaunch", "no");
	ck_assert_int_eq(run_relay_compare(&a.run, &b.run, &cmp, &err), 0);
	ck_assert_int_eq(cmp.pairing, RELAY_BY_TURN);
	ck_assert(cmp.n_d > 40);
	ck_assert_msg(fabs(cmp.estimate - log(1 / 1.05)) < 0.03, "by turn: estimate %g se %g", cmp.estimate,
		      cmp.se);
	run_relay_cmp_release(&cmp);
	/* its pictures as its numbers: no frame of the plots spans a stop */
	{
		const struct run *runs[1] = { &b.run };
		struct plot_runs pr;

		ck_assert_int_eq(plot_runs_fill(&pr, runs, 1, NULL, &err), 0);
		ck_assert(pr.frames[0].n > 1000 && pr.runs[0].n > 1000);
		for (size_t i = 0; i < pr.frames[0].n; i++)
			ck_assert_msg(pr.frames[0].ms[i] < 100, "a %g ms frame drawn", pr.frames[0].ms[i]);
		for (size_t i = 0; i < pr.runs[0].n; i++)
			ck_assert(pr.runs[0].ms[i] < 100);
		plot_runs_release(&pr);
	}
	side_release(&a);
	side_release(&b);
	strbuf_release(&err);
}
END_TEST

/* How many of n sequences (content and noise from seed) say DIFFERENT. */
static size_t different_of(double mu, int max_relays, uint64_t seed, int n)
{
	static double c[60000];
	struct stats_rng rng;
	size_t different = 0, blocks;

	stats_rng_init(&rng, seed);
	make_content(&rng, c, 60000);
	for (int i = 0; i < n; i++)
		different += sequence(mu, max_relays, &rng, c, 60000, &blocks) == VERDICT_DIFFERENT;
	return different;
}

START_TEST(test_false_positive_rate)
{
	size_t different = different_of(0, 4, 5, SEQUENCES);

	ck_assert_msg((double)different / SEQUENCES <= 0.05 + TOLERANCE, "A/A DIFFERENT in %zu of %d", different,
		      SEQUENCES);
}
END_TEST

START_TEST(test_power)
{
	size_t found = different_of(log(1 / 1.03), 8, 6, SEQUENCES / 4);

	ck_assert_msg((double)found / (SEQUENCES / 4) >= 0.8, "a 3%% change found in %zu of %d", found,
		      SEQUENCES / 4);
}
END_TEST

TEST_SUITE(relay_suite)
{
	Suite *s = suite_create("relay");
	TCase *tc = tcase_create("relay");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_record_round_trip);
	tcase_add_loop_test(tc, test_record_refusals, 0, (int)ARRAY_SIZE(refused));
	tcase_add_test(tc, test_one_relay);
	tcase_add_test(tc, test_false_positive_rate);
	tcase_add_test(tc, test_power);
	suite_add_tcase(s, tc);
	return s;
}
