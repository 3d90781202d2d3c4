/*
 * Flip runs: the record the runner writes (common/formats/flipfile.c) and
 * the statistics (analysis/stats/flip.c): pairs that cancel the demo's
 * content, blocks sized by their measured autocorrelation, and the error
 * rates of the whole procedure measured by simulation of what this VM's
 * noise was measured to be (docs/metrics.md "Flip"): a machine whose speed
 * drifts by ~11% from pass to pass, content that changes from segment to
 * segment by ~15%, fast noise of ~7% a segment with a negative lag-one
 * correlation, and a switch that partly acts a segment late.
 *
 * Tolerance as in test-sequential.c: three binomial standard deviations at
 * the nominal 5% over SEQUENCES sequences.
 */
#include "formats/flipfile.h"
#include "run/runflip.h"
#include "stats/flip.h"
#include "stats/stats.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEQUENCES 1000
#define TOLERANCE 0.021 /* 3 x sqrt(0.05 x 0.95 / 1000) */

static const char record[] =
	"# a comment\n"
	"format=1\nswitch=SLOWDOWN\na=SLOWDOWN=0\nb=SLOWDOWN=3\norder=passes\nunit=frames\n"
	"segment_s=0.5\nsettle_ms=100\nact_ms=0\nlate_ms=50\nseed=7\n"
	"segment_frames=120\n"
	"flip=1 0 A 1000 1500\n"
	"flip=1 1 B 2000 2100\n"
	"flip=2 0 B 5000 0 failed: cannot write: No space left on device\n";

START_TEST(test_record_round_trip)
{
	struct flip_record r, r2;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	bool cut;

	flip_record_init(&r);
	ck_assert_int_eq(flip_record_parse(record, strlen(record), "flip.txt", &r, &cut, &err), 0);
	ck_assert(!cut);
	ck_assert_str_eq(r.switch_name, "SLOWDOWN");
	ck_assert_int_eq(r.order, FLIP_ORDER_PASSES);
	ck_assert_uint_eq(r.segment_frames, 120);
	ck_assert_uint_eq(r.n_ev, 3);
	ck_assert_int_eq(r.ev[1].side, 'B');
	ck_assert_uint_eq(r.ev[1].applied_ns, 2100);
	ck_assert_str_eq(r.ev[2].failed, "cannot write: No space left on device");
	ck_assert_int_eq(flip_side(&r, 1, 0), 'A');
	ck_assert_int_eq(flip_side(&r, 2, 0), 'B');
	ck_assert_int_eq(flip_side(&r, 2, 1), 'A');
	/* written back, read again: the same */
	flip_record_header(&r, &out);
	strbuf_addf(&out, "segment_frames=%u\n", r.segment_frames);
	for (size_t i = 0; i < r.n_ev; i++)
		flip_event_line(&r.ev[i], &out);
	flip_record_init(&r2);
	ck_assert_int_eq(flip_record_parse(out.buf, out.len, "again", &r2, &cut, &err), 0);
	ck_assert_uint_eq(r2.n_ev, 3);
	ck_assert_uint_eq(r2.ev[0].due_ns, 1000);
	ck_assert_str_eq(r2.ev[2].failed, r.ev[2].failed);
	/* a runner killed mid-line: the whole lines stay, the cut one is said */
	flip_record_release(&r2);
	flip_record_init(&r2);
	ck_assert_int_eq(flip_record_parse(out.buf, out.len - 5, "cut", &r2, &cut, &err), 0);
	ck_assert(cut);
	ck_assert_uint_eq(r2.n_ev, 2);
	flip_record_release(&r);
	flip_record_release(&r2);
	strbuf_release(&out);
	strbuf_release(&err);
}
END_TEST

/* Bad lines: file:line and what is wrong. */
START_TEST(test_record_refusals)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "format=2\n", "x:1: format is not 1" },
		{ "format=1\nformat=1\n", "x:2: a key that appears once appears again" },
		{ "format=1\nwho=me\n", "x:2: unknown key" },
		{ "flip=1 0 A 1 2\n", "x:1: a flip line before the format line" },
		{ "format=1\nflip=1 0 C 1 2\n", "x:2: flip wants" },
		/* the strict parsers: sscanf's %d took a pass past an int */
		{ "format=1\nflip=4294967297 0 A 1 2\n", "x:2: flip wants" },
		{ "format=1\nflip=1 0 A -1 2\n", "x:2: flip wants" },
		{ "format=1\nflip=1  0 A 1 2\n", "x:2: flip wants" },
		{ "format=1\nflip=1 0 AB 1 2\n", "x:2: flip wants" },
		{ "format=1\nflip=1 0 A 1 2 \n", "x:2: flip wants" },
		{ "format=1\nflip=1 0 A 5 2\n", "x:2: a flip applied before it was due" },
		{ "format=1\nflip=1 0 A 5 0\n", "x:2: a flip applied at 0 says why" },
		{ "format=1\norder=sometimes\n", "x:2: order is passes or pairs" },
		{ "format=1\nswitch=SLOWDOWN\n", "x: the header is not whole" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct flip_record r;
		struct strbuf err = STRBUF_INIT;

		flip_record_init(&r);
		ck_assert_int_eq(flip_record_parse(bad[i].text, strlen(bad[i].text), "x", &r, NULL, &err),
				 -EINVAL);
		ck_assert_msg(strncmp(err.buf, bad[i].want, strlen(bad[i].want)) == 0, "%zu: '%s'", i,
			      err.buf);
		flip_record_release(&r);
		strbuf_release(&err);
	}
}
END_TEST

/* A pairs plan: AB and BA only, the same for a seed, both kinds used. */
START_TEST(test_plan_pairs)
{
	char *p = flip_plan_pairs(42, 200), *q = flip_plan_pairs(42, 200);
	size_t ab = 0;

	ck_assert_str_eq(p, q);
	for (size_t i = 0; i < 200; i += 2) {
		ck_assert(p[i] != p[i + 1]);
		ab += p[i] == 'A';
	}
	ck_assert(ab > 30 && ab < 70);
	free(p);
	free(q);
}
END_TEST

/* Two passes of opposite order, content that changes wildly from segment
 * to segment and a linear drift: the crossover's pairs are the effect. */
START_TEST(test_crossover_cancels_content)
{
	struct flip_seg s[40];
	struct flip_pair pairs[40];
	double mu = -0.03;
	size_t n = 0, m;

	for (int p = 1; p <= 2; p++)
		for (int k = 0; k < 20; k++) {
			char side = ((p + k) % 2 == 1) ? 'A' : 'B';
			double content = 0.3 * sin(k * 1.7) + (k % 3) * 0.1, drift = 0.001 * (double)n;

			s[n++] = (struct flip_seg){ .pass = p, .seg = k, .side = side, .counted = true,
						    .frames = 50,
						    .log_ft = content + drift - (side == 'B' ? mu : 0) };
		}
	m = flip_pairs(s, n, true, pairs);
	ck_assert_uint_eq(m, 19);
	for (size_t i = 0; i < m; i++)
		ck_assert_double_eq_tol(pairs[i].d, mu, 1e-9);
	/* a segment not counted takes its two pairs with it */
	s[25].counted = false;
	ck_assert_uint_eq(flip_pairs(s, n, true, pairs), 17);
	/* pairs order: segments 2j, 2j+1 */
	ck_assert_uint_eq(flip_pairs(s, 20, false, pairs), 10);
}
END_TEST

/* Blocks: iid pairs stay single; pairs that follow a slow wave are merged. */
START_TEST(test_block_size)
{
	double d[400], r1;
	struct stats_rng rng;

	stats_rng_init(&rng, 9);
	for (size_t i = 0; i < 400; i++)
		d[i] = stats_rng_normal(&rng);
	ck_assert_uint_eq(flip_block_size(d, 400, &r1), 1);
	for (size_t i = 0; i < 400; i++)
		d[i] = stats_rng_normal(&rng) * 0.3 + sin((double)i / 15.0);
	ck_assert_uint_gt(flip_block_size(d, 400, &r1), 4);
	ck_assert(fabs(r1) <= FLIP_BLOCK_R1 || 400 / flip_block_size(d, 400, NULL) < 2 * FLIP_BLOCKS_LEAST);
}
END_TEST

/* The noise measured here: 0.5 s segments, 50 a 25 s pass, 8 passes a
 * run (a 200 s window), pass-to-pass drift ~11% (0.015 a segment of a
 * random walk), content 15%, fast noise 7% with lag-one -0.2. */
struct flip_case {
	double drift_sd, lag, effect;
	int max_runs;
};
static const struct flip_case cases[] = {
	{ 0.015, 0.00, 0.03, 6 },
	{ 0.015, 0.05, 0.03, 6 },  /* a switch that acts partly a segment late */
	{ 0.040, 0.00, 0.03, 6 },  /* a machine three times as drifty */
	{ 0.015, 0.00, 0.01, 24 }, /* 1%: uncapped, the power as designed */
};

static void simulate(const struct flip_case *c, double mu, uint64_t seed, struct seq_sim_result *r)
{
	struct seq_opts o = SEQ_OPTS_DEFAULT;
	struct flip_sim s = { .passes = 8, .segments = 50, .max_runs = c->max_runs,
			      .drift_sd = c->drift_sd, .content_sd = 0.15, .noise_sd = 0.07, .ar = -0.2,
			      .lag = c->lag, .mu = mu, .sequences = SEQUENCES, .seed = seed };

	o.effect = c->effect;
	o.max_pairs = 100000;
	ck_assert_int_eq(flip_simulate(&o, &s, r), 0);
	ck_assert_uint_eq(r->same + r->faster + r->slower + r->unknown, SEQUENCES);
}

START_TEST(test_false_positive_rate)
{
	struct seq_sim_result r;
	double fp;

	simulate(&cases[_i], 0, 0xf11b + (uint64_t)_i, &r);
	fp = (double)(r.faster + r.slower) / SEQUENCES;
	ck_assert_msg(fp <= 0.05 + TOLERANCE, "case %d: false positives %.4f", _i, fp);
	ck_assert_msg((double)r.covered / SEQUENCES >= 0.95 - TOLERANCE, "case %d: coverage %.4f", _i,
		      (double)r.covered / SEQUENCES);
}
END_TEST

/* B slower by the effect: DIFFERENT (slower) at least 1 - beta - tolerance
 * of the time (less the share the late-acting part hides), never faster. */
START_TEST(test_power)
{
	const struct flip_case *c = &cases[_i];
	struct seq_sim_result r;
	double mu = -log(1 + c->effect), power;

	simulate(c, mu, 0xb0b0 + (uint64_t)_i, &r);
	power = (double)r.slower / SEQUENCES;
	ck_assert_msg(power >= 0.95 - TOLERANCE - 2 * c->lag, "case %d: power %.4f", _i, power);
	ck_assert_msg(r.faster <= SEQUENCES / 100, "case %d: faster %u", _i, r.faster);
}
END_TEST

START_TEST(test_simulation_options)
{
	struct seq_opts o = SEQ_OPTS_DEFAULT;
	struct flip_sim s = { .passes = 1, .segments = 50, .max_runs = 1, .sequences = 1 };
	struct seq_sim_result r;

	ck_assert_int_eq(flip_simulate(&o, &s, &r), -EINVAL);
	s.passes = 2;
	s.ar = 1;
	ck_assert_int_eq(flip_simulate(&o, &s, &r), -EINVAL);
}
END_TEST

/* A run's analysis (analysis/run/runflip.c) over frames made to order:
 * segments of 1 s in pairs order, A at 100 fps, B at 1000/11 fps with one
 * 150 ms frame in each; the last segment has no known end. */
START_TEST(test_run_stalls_and_p99)
{
	static const char sides[] = "ABBAABBA";
	const uint64_t base = 1000000000000ull, sec = 1000000000ull, ms = 1000000ull;
	char *dir = test_tmpdir();
	struct strbuf rec = STRBUF_INIT, err = STRBUF_INIT;
	struct run run;
	struct run_flip f;
	size_t cap = 8000, n = 0;

	strbuf_addstr(&rec, "format=1\nswitch=SLOWDOWN\na=SLOWDOWN=0\nb=SLOWDOWN=10\norder=pairs\nunit=seconds\n"
		      "segment_s=1\nsettle_ms=100\nact_ms=0\nlate_ms=50\nseed=1\nplan=ABBAABBA\n");
	for (int k = 0; k < 8; k++)
		strbuf_addf(&rec, "flip=1 %d %c %llu %llu\n", k, sides[k], (unsigned long long)(base + k * sec),
			    (unsigned long long)(base + k * sec + ms));
	test_put(dir, HB_FLIP_FILE, rec.buf);
	memset(&run, 0, sizeof(run));
	run.dir = dir;
	run.have_frames = run.have_window = true;
	run.window_start_ns = base;
	run.window_end_ns = base + 8 * sec;
	run.frames.t_ns = zalloc(sizeof(uint64_t) * cap);
	run.frames.pid = zalloc(sizeof(uint32_t) * cap);
	for (int k = 0; k < 8; k++) {
		uint64_t t = base + k * sec, end = t + sec;
		bool stalled = false;

		while (t < end) {
			run.frames.t_ns[n] = t;
			run.frames.pid[n++] = 42;
			if (sides[k] == 'B' && !stalled && t > base + k * sec + sec / 2) {
				t += 150 * ms;
				stalled = true;
			} else {
				t += sides[k] == 'A' ? 10 * ms : 11 * ms;
			}
		}
	}
	run.frames.n = n;
	run_flip_init(&f);
	ck_assert_msg(run_flip_analyse(&run, &f, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(f.n_pairs, 3);         /* (0,1) (2,3) (4,5): the last has no end */
	ck_assert(f.estimate < 0);               /* B slower */
	ck_assert_uint_eq(f.stalls_a, 0);
	ck_assert_uint_eq(f.stalls_b, 3);        /* one in each paired B segment */
	ck_assert_uint_gt(f.n_stall_blocks, 0);
	ck_assert(f.stall_diff > 10 && f.stall_diff < 20); /* 1 in ~70 frames: ~14 per 1000 */
	ck_assert(fabs(f.p99_a - 10) < 1e-9);
	ck_assert(fabs(f.p99_b - 150) < 1e-9);   /* 3 of ~210 frames: over 1% */
	run_flip_release(&f);
	free(run.frames.t_ns);
	free(run.frames.pid);
	strbuf_release(&rec);
	strbuf_release(&err);
	free(dir);
}
END_TEST

TEST_SUITE(flip_suite)
{
	Suite *s = suite_create("flip");
	TCase *tc = tcase_create("flip");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_record_round_trip);
	tcase_add_test(tc, test_record_refusals);
	tcase_add_test(tc, test_plan_pairs);
	tcase_add_test(tc, test_crossover_cancels_content);
	tcase_add_test(tc, test_block_size);
	tcase_add_loop_test(tc, test_false_positive_rate, 0, (int)ARRAY_SIZE(cases));
	tcase_add_loop_test(tc, test_power, 0, (int)ARRAY_SIZE(cases));
	tcase_add_test(tc, test_simulation_options);
	tcase_add_test(tc, test_run_stalls_and_p99);
	suite_add_tcase(s, tc);
	return s;
}
