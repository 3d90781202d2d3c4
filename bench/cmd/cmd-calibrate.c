/*
 * hitchbench calibrate: what a verdict is worth on this machine. One batch
 * of three cells interleaved round by round: SLOWDOWN=0 (A) and no switch
 * (A'), which behave the same, and SLOWDOWN=PCT (B), a known effect; then,
 * per metric, the spread of the runs, how often compare and the
 * sequential test call A and A' DIFFERENT, the smallest effect N rounds
 * can see, and whether they found the known one (analysis/stats/calibrate.h).
 */
#include "batch/batch.h"
#include "cmd/cmd-run.h"
#include "stats/calibrate.h"
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "metrics/metrics.h"
#include "run/run.h"
#include "base/timeutil.h"
#include "batch/abtest.h"
#include "cmd/runargs.h"
#include "base/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char calibrate_usage[] =
	"usage: hitchbench calibrate RECIPE [VARIANT] [--design runs|flip|relay|duet] [--minutes M]\n"
	"                            [--rounds N]\n"
	"                            [--effect PCT] [--resamples N] [--with TERMS] [run options]\n"
	"\n"
	"--design runs (the default): one batch of three tokens, 'SLOWDOWN=0 - SLOWDOWN=PCT',\n"
	"N rounds, and per metric the spread of the runs, the false-positive rate of compare's\n"
	"verdict and of the sequential test, and the minimum detectable effect at alpha 0.01,\n"
	"power 0.8: for N rounds, and within M minutes of runs.\n"
	"--design flip: N flip runs of SLOWDOWN=0 against SLOWDOWN=PCT (a window of 120 s\n"
	"unless --window says), and the same minimum detectable effect within M minutes from\n"
	"their blocks of segment pairs, the known effect's estimate and the sequential test.\n"
	"--design relay|duet: N relays (duets) of SLOWDOWN=0 (A) and SLOWDOWN=PCT (B), the\n"
	"same row from their blocks of pairs (docs/metrics.md \"Relay\").\n"
	"Each design's minimum detectable effect is given for 5, 15 and 30 minutes (and M):\n"
	"the designs' figures say which to use on this machine.\n"
	"\n"
	"  --design D        runs, flip, relay or duet: the design calibrated (default runs)\n"
	"  --minutes M       a time budget of the minimum detectable effect besides 5, 15, 30\n"
	"  --rounds N        rounds (default 10; flip: runs, relay, duet: rounds, default 2)\n"
	"  --effect PCT      the known effect, SLOWDOWN's percentage (default 3)\n"
	"  --resamples N     resamples of the A/A rounds for the false-positive rates\n"
	"                    (default 1000, seeded)\n"
	"  --with TERMS      switch terms added to all three tokens, joined by '+'\n"
	"                    (GAMECPU=1, INTF=0): A' is then TERMS instead of '-'\n"
	"  run options       passed to 'hitchbench run': --warmup S, --window S, --db PATH,\n"
	"                    --no-db, --out DIR, --display :N, --profile P, --no-quieting,\n"
	"                    --order rotate|shuffle, --seed N, --stall-ms MS, --percentile D,\n"
	"                    --rerun-invalid, --quiet, -v\n"
	"\n"
	"The batch is an ordinary one: 'hitchbench run --resume' finishes it, 'report' and\n"
	"'compare --batch' read it. docs/metrics.md (\"Calibrating\") says how each figure is\n"
	"computed.\n";

/* The metrics calibrated, as the issue names them; one this build does
 * not know (a metric another branch adds) is skipped with a line. */
static const char *const calib_metrics[] = { "fps", "steady_fps", "low1", "stall_s", "cpu_ms_per_frame" };

enum { CELL_A, CELL_A2, CELL_B, CELLS };

/* --design flip's defaults: runs, and a run's window when --window is not
 * given (ab --design flip's) */
#define CALIB_FLIP_RUNS 2
#define CALIB_FLIP_WINDOW_S 120

struct calib_args {
	const char *recipe, *variant;
	const char *with;       /* terms added to every token, or NULL */
	int rounds;             /* 0: the design's default */
	double effect;
	const char *design;     /* --design: "runs", "flip", "relay" or "duet" */
	bool flip;              /* --design flip, relay or duet: blocks of pairs */
	double minutes;
	bool have_window;       /* --window among the run options */
	unsigned resamples;
	struct argv_list run_opts;
	struct metric_opts metric;
};

/* calibrate's own options; getopt's values of the run options it passes on
 * are run_options' (runargs.h) */
static const struct option calib_options[] = {
	{ "rounds", required_argument, NULL, 'r' },
	{ "effect", required_argument, NULL, 'E' },
	{ "resamples", required_argument, NULL, 'R' },
	{ "with", required_argument, NULL, 'T' },
	{ "design", required_argument, NULL, 'D' },
	{ "minutes", required_argument, NULL, 'M' },
	{ "help", no_argument, NULL, 'h' },
};

static int own_option(int c, const char *arg, struct calib_args *a)
{
	int n;

	switch (c) {
	case 'r':
		if (safe_atoi(arg, &a->rounds) < 0 || a->rounds < 2)
			return usage_error(calibrate_usage, "--rounds wants 2 or more, not '%s'", arg);
		break;
	case 'E':
		if (safe_atod(arg, &a->effect) < 0 || !(a->effect > 0 && a->effect <= 100))
			return usage_error(calibrate_usage, "--effect wants a percentage over 0, at most "
					   "100, not '%s'", arg);
		break;
	case 'R':
		if (safe_atoi(arg, &n) < 0 || n < 1 || n > 1000000)
			return usage_error(calibrate_usage, "--resamples wants 1 to 1000000, not '%s'", arg);
		a->resamples = (unsigned)n;
		break;
	case 'T':
		if (!*arg || strchr(arg, ' ') || strstr(arg, "SLOWDOWN"))
			return usage_error(calibrate_usage, "--with wants switch terms joined by '+' "
					   "(no SLOWDOWN: calibrate sets it), not '%s'", arg);
		a->with = arg;
		break;
	case 'D':
		if (strcmp(arg, "runs") && strcmp(arg, "flip") && strcmp(arg, "relay") && strcmp(arg, "duet"))
			return usage_error(calibrate_usage, "--design wants runs, flip, relay or duet, not '%s'", arg);
		a->design = arg;
		a->flip = strcmp(arg, "runs") != 0;
		break;
	case 'M':
		if (safe_atod(arg, &a->minutes) < 0 || !(a->minutes > 0 && a->minutes <= 100000))
			return usage_error(calibrate_usage, "--minutes wants minutes over 0, not '%s'", arg);
		break;
	case 'h':
		fputs(calibrate_usage, stdout);
		return HB_ARGS_DONE;
	default:
		fputs(calibrate_usage, stderr);
		return HB_EXIT_USAGE;
	}
	return 0;
}

/* A run option: checked as run checks it (the stall threshold and the
 * percentiles are calibrate's too), then passed on as given. */
static int run_option(const struct run_option *o, const char *arg, struct run_args *run,
		      struct calib_args *a)
{
	char *s;
	int r;

	if (strcmp(o->name, "flip") == 0 || strcmp(o->name, "relay") == 0)
		return usage_error(calibrate_usage, "calibrate sets the %s itself: --design %s", o->name, o->name);
	s = xasprintf("--%s", o->name);
	r = o->set(run, o, arg, calibrate_usage);

	if (r == HB_EXIT_OK) {
		a->have_window = a->have_window || strcmp(o->name, "window") == 0;
		argv_push(&a->run_opts, s);
		if (o->flags & RUN_OPT_ARG)
			argv_push(&a->run_opts, arg);
	}
	free(s);
	return r;
}

static int parse_args(int argc, char **argv, struct calib_args *a)
{
	struct option opts[56];
	struct run_args run = { .metric = METRIC_OPTS_DEFAULT };
	size_t n = ARRAY_SIZE(calib_options);
	int c, r, which = 0;

	memcpy(opts, calib_options, sizeof(calib_options));
	run_options_getopt(opts, &n, ARRAY_SIZE(opts), RUN_OPT_BATCH);
	while ((c = getopt_long(argc, argv, "hqv", opts, &which)) != -1) {
		const struct run_option *o = run_option_of(c, opts[which].name);

		r = o ? run_option(o, optarg, &run, a) : own_option(c, optarg, a);
		if (r != 0)
			return r;
	}
	a->metric.stall_ms = run.metric.stall_ms;
	a->metric.pct = run.metric.pct;
	if (argc - optind < 1 || argc - optind > 2)
		return usage_error(calibrate_usage, "calibrate wants a recipe and at most one variant");
	a->recipe = argv[optind];
	a->variant = argc - optind == 2 ? argv[optind + 1] : NULL;
	if (a->variant && strchr(a->variant, ' '))
		return usage_error(calibrate_usage, "calibrate takes one variant, not '%s'", a->variant);
	return 0;
}

/* values[cell][round] of each metric, NAN where the round has no valid run */
struct calib_values {
	double *v[CELLS];
};

/* Reads the batch's runs into per-round values of each metric. *valid[c]
 * counts the valid runs of each cell. 0 or -1 (said). */
/* The calibration batch opened: 0, or -1 (said). */
static int open_batch(const char *dir, struct batch *b)
{
	struct strbuf err = STRBUF_INIT;
	int r = 0;

	batch_init(b);
	if (batch_open(b, dir, NULL, &err) < 0) {
		error_msg("cannot read batch '%s': %s", dir, err.buf);
		batch_release(b);
		r = -1;
	}
	strbuf_release(&err);
	return r;
}

/* Slot i's run loaded (runs.txt names it by its directory in the
 * batch's): 0, or -errno with why in err. */
static int load_slot_run(const struct batch *b, size_t i, struct run *run, struct strbuf *err)
{
	char *path = b->run_dir[i][0] == '/' ? xstrdup(b->run_dir[i]) : xasprintf("%s/%s", b->dir, b->run_dir[i]);
	int r = run_load(path, run, err);

	free(path);
	return r;
}

static int read_batch(const char *dir, const struct metric_opts *mo, const int *ids, size_t n_ids,
		      struct calib_values *vals, size_t *valid, int *rounds, double *mean_run_s)
{
	struct strbuf err = STRBUF_INIT;
	double run_s = 0;
	size_t timed = 0;
	struct batch b;

	*mean_run_s = NAN;
	if (open_batch(dir, &b) < 0)
		return -1;
	*rounds = b.rounds;
	for (size_t k = 0; k < n_ids; k++)
		for (int c = 0; c < CELLS; c++) {
			vals[k].v[c] = zalloc(sizeof(double) * (size_t)b.rounds);
			for (int i = 0; i < b.rounds; i++)
				vals[k].v[c][i] = NAN;
		}
	for (size_t i = 0; i < b.n_slots; i++) {
		const struct batch_slot *s = &b.slots[i];
		struct report_row row;
		struct run run;

		if (!b.run_dir[i] || s->token >= CELLS || s->round < 1 || s->round > b.rounds)
			continue;
		strbuf_reset(&err);
		if (load_slot_run(&b, i, &run, &err) < 0) {
			warn_msg("%s", err.buf);
			continue;
		}
		if (run_wall_seconds(&run) > 0) {
			run_s += run_wall_seconds(&run);
			timed++;
		}
		if (run_report_row(&run, mo, &row) && strcmp(row.status, "ok") == 0 && !row.disturbed) {
			valid[s->token]++;
			for (size_t k = 0; k < n_ids; k++)
				if (ids[k] >= 0 && row.m.have[ids[k]])
					vals[k].v[s->token][s->round - 1] = row.m.v[ids[k]];
		}
		run_release(&run);
	}
	if (timed)
		*mean_run_s = run_s / (double)timed;
	batch_release(&b);
	strbuf_release(&err);
	return 0;
}

static void fmt_num(char *buf, size_t size, double v, const char *f, double scale)
{
	if (isfinite(v))
		snprintf(buf, size, f, v * scale);
	else
		snprintf(buf, size, "-");
}

static const char *verdict_text(char *buf, size_t size, bool have, enum stats_verdict v, int sign,
				size_t pairs)
{
	if (!have)
		snprintf(buf, size, "-");
	else if (pairs)
		snprintf(buf, size, "%s%s/%zu", stats_verdict_name(v),
			 v == VERDICT_DIFFERENT ? (sign > 0 ? "+" : "-") : "", pairs);
	else
		snprintf(buf, size, "%s", stats_verdict_name(v));
	return buf;
}

/* The minutes the minimum detectable effect is given for: 5, 15 and 30,
 * and --minutes when it is none of them. How many. */
static size_t mde_minutes(double minutes, double out[4])
{
	static const double fixed[] = { 5, 15, 30 };
	size_t n = 0;
	bool have = false;

	for (size_t k = 0; k < ARRAY_SIZE(fixed); k++) {
		out[n++] = fixed[k];
		have = have || fixed[k] == minutes;
	}
	if (!have)
		out[n++] = minutes;
	return n;
}

static void print_header(const struct calib_opts *o, const char *batch_dir, int rounds, double effect,
			 const char *with, double minutes, double mean_run_s)
{
	char mde_col[32];
	double m[4];
	size_t nm = mde_minutes(minutes, m);

	if (with)
		printf("\n# calibrate: batch %s, %d round(s), A = SLOWDOWN=0+%s, A' = %s, B = SLOWDOWN=%g+%s\n",
		       batch_dir, rounds, with, with, effect, with);
	else
		printf("\n# calibrate: batch %s, %d round(s), A = SLOWDOWN=0, A' = - (no switch), "
		       "B = SLOWDOWN=%g\n", batch_dir, rounds, effect);
	printf("# runs        valid runs of A, A' and B (status ok, not disturbed); a round counts where both\n"
	       "#              sides compared have a valid run\n"
	       "# cv_A cv_A'  per-run coefficient of variation: sample sd (n-1) / mean, %%\n"
	       "# sd_AA       sample sd of the paired log-ratio ln(A'/A) over the rounds, %%\n"
	       "# fp_cmp      false-positive rate of compare's verdict (DIFFERENT at p <= 0.01, Pinpoint's\n"
	       "#              thresholds, magnitude %.2g IQR) on A against A', over %u resamples (seed %llu):\n"
	       "#              A' scaled to A's level (divided by exp(mean ln(A'/A))), the rounds in a random\n"
	       "#              order, A and A' exchanged in each by a fair coin\n"
	       "# fp_seq      the same for the sequential test (seq_run: effect %.3g%%, alpha %.3g, beta %.3g,\n"
	       "#              %zu to %zu pairs) on the resampled ln(A'/A)\n"
	       "# mde_pair    minimum detectable effect, alpha %.3g two-sided, power %.2g, N rounds:\n"
	       "#              (z_%.4g + z_%.2g) x sd_AA / sqrt(N) x 100 = %.3f x sd_AA / sqrt(N), %%\n"
	       "# mde_unp     the same for two unpaired samples: sd = sqrt(cv_A^2 + cv_A'^2)\n"
	       "# mde_Mm      mde_pair within M minutes of runs: N = M x 60 / (2 x %.1f s, the mean run's own\n"
	       "#              time, started_utc to ended_utc) pairs (compare: calibrate --design\n"
	       "#              flip|relay|duet, the same columns)\n"
	       "# AA_cmp AA_seq  the verdicts on A against A' as the batch is (ought to be SAME or UNKNOWN);\n"
	       "#              seq: VERDICT[sign]/pairs used\n"
	       "# B/A         median B / median A\n"
	       "# B_cmp B_seq the verdicts on A against B: the known effect found when DIFFERENT\n",
	       o->compare.magnitude, o->resamples, (unsigned long long)o->seed, o->seq.effect * 100,
	       o->seq.alpha, o->seq.beta, o->seq.min_pairs, o->seq.max_pairs, o->alpha, o->power,
	       1 - o->alpha / 2, o->power, stats_normal_isf(o->alpha / 2) + stats_normal_isf(1 - o->power),
	       mean_run_s);
	printf("%-17s %-9s %6s %6s %6s %6s %6s %8s %7s", "metric", "runs", "cv_A", "cv_A'", "sd_AA", "fp_cmp",
	       "fp_seq", "mde_pair", "mde_unp");
	for (size_t k = 0; k < nm; k++) {
		snprintf(mde_col, sizeof(mde_col), "mde_%gm", m[k]);
		printf(" %8s", mde_col);
	}
	printf(" %-8s %-12s %7s %-9s %-12s\n", "AA_cmp", "AA_seq", "B/A", "B_cmp", "B_seq");
}

static void print_row(const char *name, const size_t *valid, const struct calib_result *c, const double *mdes,
		      size_t nm)
{
	char cva[16], cva2[16], sd[16], fpc[16], fps[16], mp[16], mu[16], mw[16], aac[16], aas[24], ra[16];
	char bc[16], bs[24], runs[32];

	snprintf(runs, sizeof(runs), "%zu/%zu/%zu", valid[CELL_A], valid[CELL_A2], valid[CELL_B]);
	fmt_num(cva, sizeof(cva), c->cv_a, "%.2f", 100);
	fmt_num(cva2, sizeof(cva2), c->cv_a2, "%.2f", 100);
	fmt_num(sd, sizeof(sd), c->sd_log, "%.2f", 100);
	fmt_num(fpc, sizeof(fpc), c->fpr_compare, "%.3f", 1);
	fmt_num(fps, sizeof(fps), c->fpr_seq, "%.3f", 1);
	fmt_num(mp, sizeof(mp), c->mde_paired_pct, "%.2f", 1);
	fmt_num(mu, sizeof(mu), c->mde_unpaired_pct, "%.2f", 1);
	fmt_num(ra, sizeof(ra), c->have_ab ? c->ab.ratio : NAN, "%.4f", 1);
	printf("%-17s %-9s %6s %6s %6s %6s %6s %8s %7s", name, runs, cva, cva2, sd, fpc, fps, mp, mu);
	for (size_t k = 0; k < nm; k++) {
		fmt_num(mw, sizeof(mw), mdes[k], "%.2f", 1);
		printf(" %8s", mw);
	}
	printf(" %-8s %-12s %7s %-9s %-12s\n", verdict_text(aac, sizeof(aac), c->have_aa, c->aa.verdict, 0, 0),
	       verdict_text(aas, sizeof(aas), c->have_aa_seq, c->aa_seq.verdict, c->aa_seq.sign, c->aa_seq.pairs),
	       ra, verdict_text(bc, sizeof(bc), c->have_ab, c->ab.verdict, 0, 0),
	       verdict_text(bs, sizeof(bs), c->have_ab_seq, c->ab_seq.verdict, c->ab_seq.sign, c->ab_seq.pairs));
}

/* --design relay or duet: a batch of relays of SLOWDOWN=0 (A) and
 * SLOWDOWN=PCT (B), a round each */
static bool relay_design(const struct calib_args *a)
{
	return a->design && (strcmp(a->design, "relay") == 0 || strcmp(a->design, "duet") == 0);
}

/* The batch: run's argv (main's program name before it), through run's
 * own code; *batch_dir as batch_command() leaves it. */
static int run_batch(const struct calib_args *a, const char *prog, struct context *ctx, char **batch_dir)
{
	struct argv_list run_argv;
	char *s;
	int ret;

	argv_init(&run_argv);
	argv_push(&run_argv, prog);
	argv_push(&run_argv, "run");
	argv_push(&run_argv, a->recipe);
	if (a->variant)
		argv_push(&run_argv, a->variant);
	argv_push(&run_argv, "--rounds");
	s = xasprintf("%d", a->rounds);
	argv_push(&run_argv, s);
	free(s);
	argv_push(&run_argv, "--switches");
	if (relay_design(a))
		s = a->with ? xasprintf("SLOWDOWN=0+%s SLOWDOWN=%g+%s", a->with, a->effect, a->with) :
			      xasprintf("SLOWDOWN=0 SLOWDOWN=%g", a->effect);
	else if (a->flip)
		s = a->with ? xasprintf("SLOWDOWN=0+%s", a->with) : xstrdup("SLOWDOWN=0");
	else if (a->with)
		s = xasprintf("SLOWDOWN=0+%s %s SLOWDOWN=%g+%s", a->with, a->with, a->effect, a->with);
	else
		s = xasprintf("SLOWDOWN=0 - SLOWDOWN=%g", a->effect);
	argv_push(&run_argv, s);
	free(s);
	if (relay_design(a)) {
		argv_push(&run_argv, "--relay");
		argv_push(&run_argv, a->design);
	} else if (a->flip) {
		argv_push(&run_argv, "--flip");
		s = a->with ? xasprintf("SLOWDOWN=%g+%s", a->effect, a->with) : xasprintf("SLOWDOWN=%g", a->effect);
		argv_push(&run_argv, s);
		free(s);
	}
	if (a->flip) {
		if (!a->have_window) {
			argv_push(&run_argv, "--window");
			s = xasprintf("%d", CALIB_FLIP_WINDOW_S);
			argv_push(&run_argv, s);
			free(s);
		}
	}
	for (size_t i = 0; i < a->run_opts.n; i++)
		argv_push(&run_argv, a->run_opts.v[i]);
	optind = 0; /* run parses its own options afresh */
	ret = batch_command((int)run_argv.n - 1, run_argv.v + 1, ctx, NULL, batch_dir);
	argv_release(&run_argv);
	return ret;
}

/* A row per metric calibrated, or the line that says why it is skipped. */
static int print_rows(const int *ids, struct calib_values *vals, const size_t *valid, int rounds,
		      const struct calib_opts *co, double minutes, double mean_run_s)
{
	for (size_t k = 0; k < ARRAY_SIZE(calib_metrics); k++) {
		struct calib_result c;
		bool any = false;

		if (ids[k] < 0) {
			printf("%-17s skipped: no metric of that name in this build\n", calib_metrics[k]);
			continue;
		}
		for (int cell = 0; cell < CELLS; cell++)
			for (int i = 0; i < rounds; i++)
				any = any || isfinite(vals[k].v[cell][i]);
		if (!any) {
			printf("%-17s skipped: no valid run of the batch has a value of it\n", calib_metrics[k]);
			continue;
		}
		if (calib_compute(vals[k].v[CELL_A], vals[k].v[CELL_A2], vals[k].v[CELL_B], (size_t)rounds, co,
				  &c) < 0) {
			error_msg("cannot calibrate %s: bad options", calib_metrics[k]);
			return HB_EXIT_FAILURE;
		}
		{
			double m[4], mdes[4];
			size_t nm = mde_minutes(minutes, m);

			for (size_t j = 0; j < nm; j++)
				mdes[j] = calib_mde_within(c.sd_log, 2 * mean_run_s, m[j], co);
			print_row(calib_metrics[k], valid, &c, mdes, nm);
		}
	}
	/* the table is the answer: failed runs are missing values, said in it */
	return HB_EXIT_OK;
}

/* A flip, relay or duet batch's blocks, in the rounds' order (as ab and
 * compare --paired read them: bench/batch/abtest.h), and the rounds' own
 * time. 0 or -1 (said). */
static int read_flip_batch(const char *dir, const struct metric_opts *mo, double **blocks, size_t *n,
			   double *run_s, size_t *runs, struct strbuf *left)
{
	struct ab_test t;
	struct batch b;

	if (open_batch(dir, &b) < 0)
		return -1;
	ab_test_init(&t);
	t.mo = *mo;
	ab_test_update(&t, &b, NULL);
	for (size_t i = 0; i < t.n_pairs; i++) {
		const struct ab_pair *p = &t.pairs[i];

		if (!p->counted) {
			strbuf_addf(left, "#   round %d: %s\n", p->round, p->why);
			continue;
		}
		*run_s += p->wall_s;
		(*runs)++;
	}
	*blocks = xrealloc(*blocks, sizeof(**blocks) * (t.n_d + 1));
	memcpy(*blocks, t.d, sizeof(**blocks) * t.n_d);
	*n = t.n_d;
	ab_test_release(&t);
	batch_release(&b);
	return 0;
}

/* --design flip: the batch of flip runs, then its figures. */
static int calibrate_flip(struct calib_args *a, const char *prog, struct context *ctx,
			  const struct calib_opts *co)
{
	struct strbuf left = STRBUF_INIT;
	struct calib_flip_result c;
	char *batch_dir = NULL;
	double *blocks = NULL, run_s = 0, truth = 1 / (1 + a->effect / 100);
	size_t n = 0, runs = 0;
	int ret;

	ret = run_batch(a, prog, ctx, &batch_dir);
	if (!batch_dir)
		return ret;
	if (ret == HB_EXIT_INTERRUPTED) {
		error_msg("the calibration batch was interrupted: 'hitchbench run --resume %s' finishes it",
			  batch_dir);
		free(batch_dir);
		return ret;
	}
	if (read_flip_batch(batch_dir, &a->metric, &blocks, &n, &run_s, &runs, &left) < 0 ||
	    calib_flip_compute(blocks, n, run_s, truth, a->minutes, co, &c) < 0) {
		free(blocks);
		free(batch_dir);
		strbuf_release(&left);
		return HB_EXIT_FAILURE;
	}
	printf("\n# calibrate --design %s: batch %s, %zu %s of SLOWDOWN=0 against SLOWDOWN=%g%s%s "
	       "(true B/A %.4f)\n", a->design, batch_dir, runs,
	       strcmp(a->design, "flip") == 0 ? "flip run(s)" : "round(s)", a->effect,
	       a->with ? ", both with " : "", a->with ? a->with : "", truth);
	if (left.len)
		printf("# left out:\n%s", left.buf);
	if (strcmp(a->design, "flip") == 0)
		printf("# blocks      the runs' blocks of segment pairs, ln(B/A) of fps (docs/metrics.md \"Flip\")\n"
		       "# s/block     the runs' own time (started_utc to ended_utc: warm-up and start included) over\n"
		       "#              their blocks\n");
	else
		printf("# blocks      the rounds' blocks of pairs, ln(B/A) of fps of the same frames of a looping\n"
		       "#              demo, else of adjacent turns (docs/metrics.md \"Relay\")\n"
		       "# s/block     the rounds' own time (the longer run's, started_utc to ended_utc: warm-up and\n"
		       "#              start included) over their blocks\n");
	printf("# sd_block    the blocks' sample sd (n-1), %%\n"
	       "# mde_Mm      minimum detectable effect within M minutes of such runs, alpha %.3g two-sided,\n"
	       "#              power %.2g: (z_%.4g + z_%.2g) x sd_block / sqrt(M x 60 / s/block) x 100, %%\n"
	       "#              (compare: calibrate --design runs|flip|relay|duet, the same columns)\n"
	       "# B/A         exp(the blocks' mean) and its 95%% interval, mean +- 1.96 x sd_block / sqrt(blocks);\n"
	       "#              covers: the interval holds the true B/A\n"
	       "# seq         the sequential test on the blocks (effect %.3g%%, alpha %.3g, beta %.3g):\n"
	       "#              VERDICT[sign]/blocks used; the known effect found when DIFFERENT-\n",
	       co->alpha, co->power, 1 - co->alpha / 2, co->power, co->seq.effect * 100, co->seq.alpha,
	       co->seq.beta);
	{
		char mcol[4][32], mde[4][16], sd[16], sb[16], est[16], lo[16], hi[16], seq[32];
		double m[4];
		size_t nm = mde_minutes(a->minutes, m);

		for (size_t k = 0; k < nm; k++) {
			snprintf(mcol[k], sizeof(mcol[k]), "mde_%gm", m[k]);
			fmt_num(mde[k], sizeof(mde[k]),
				calib_mde_within(c.sd_block, c.seconds_per_block, m[k], co), "%.2f", 1);
		}
		fmt_num(sd, sizeof(sd), c.sd_block, "%.2f", 100);
		fmt_num(sb, sizeof(sb), c.seconds_per_block, "%.1f", 1);
		fmt_num(est, sizeof(est), c.estimate, "%.4f", 1);
		fmt_num(lo, sizeof(lo), c.ci_lo, "%.4f", 1);
		fmt_num(hi, sizeof(hi), c.ci_hi, "%.4f", 1);
		verdict_text(seq, sizeof(seq), c.have_seq, c.seq.verdict, c.seq.sign, c.seq.pairs);
		printf("%-6s %4s %7s %7s %8s", "design", "runs", "blocks", "s/block", "sd_block");
		for (size_t k = 0; k < nm; k++)
			printf(" %8s", mcol[k]);
		printf(" %7s %-17s %6s %-12s\n", "B/A", "95% interval", "covers", "seq");
		printf("%-6s %4zu %7zu %7s %8s", a->design, runs, c.blocks, sb, sd);
		for (size_t k = 0; k < nm; k++)
			printf(" %8s", mde[k]);
		printf(" %7s [%s, %s] %6s %-12s\n", est, lo, hi, c.blocks >= 2 ? (c.covers ? "yes" : "no") : "-",
		       seq);
	}
	free(blocks);
	free(batch_dir);
	strbuf_release(&left);
	return HB_EXIT_OK;
}

int cmd_calibrate(int argc, char **argv, struct context *ctx)
{
	struct calib_args a = { .effect = 3, .minutes = 30, .metric = METRIC_OPTS_DEFAULT };
	struct calib_opts co = CALIB_OPTS_DEFAULT;
	struct calib_values vals[ARRAY_SIZE(calib_metrics)];
	int ids[ARRAY_SIZE(calib_metrics)];
	size_t valid[CELLS] = { 0, 0, 0 };
	char *batch_dir = NULL;
	int ret, rounds = 0;
	double mean_run_s = NAN;

	memset(vals, 0, sizeof(vals));
	argv_init(&a.run_opts);
	a.resamples = co.resamples;
	ret = parse_args(argc, argv, &a);
	if (ret != 0) {
		ret = hb_args_exit(ret);
		goto out;
	}
	co.resamples = a.resamples;
	/* the sequential test looks for the known effect's size */
	co.seq.effect = a.effect / 100.0;
	a.metric.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	if (!a.rounds)
		a.rounds = a.flip ? CALIB_FLIP_RUNS : 10;
	if (a.flip) {
		ret = calibrate_flip(&a, argv[-1], ctx, &co);
		goto out;
	}

	ret = run_batch(&a, argv[-1], ctx, &batch_dir);
	if (!batch_dir)
		goto out;
	if (ret == HB_EXIT_INTERRUPTED) {
		error_msg("the calibration batch was interrupted: 'hitchbench run --resume %s' finishes it",
			  batch_dir);
		goto out;
	}

	for (size_t k = 0; k < ARRAY_SIZE(calib_metrics); k++)
		ids[k] = metric_lookup(calib_metrics[k]);
	if (read_batch(batch_dir, &a.metric, ids, ARRAY_SIZE(calib_metrics), vals, valid, &rounds,
		       &mean_run_s) < 0) {
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	print_header(&co, batch_dir, rounds, a.effect, a.with, a.minutes, mean_run_s);
	if (valid[CELL_A] + valid[CELL_A2] + valid[CELL_B] == 0)
		printf("# no valid run in the batch (failed or disturbed: the report above says which)\n");
	ret = print_rows(ids, vals, valid, rounds, &co, a.minutes, mean_run_s);
out:
	for (size_t k = 0; k < ARRAY_SIZE(calib_metrics); k++)
		for (int c = 0; c < CELLS; c++)
			free(vals[k].v[c]);
	free(batch_dir);
	argv_release(&a.run_opts);
	return ret;
}
