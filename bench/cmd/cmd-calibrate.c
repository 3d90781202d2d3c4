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
#include "cmd/runargs.h"
#include "base/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char calibrate_usage[] =
	"usage: hitchbench calibrate RECIPE [VARIANT] [--rounds N] [--effect PCT] [--resamples N]\n"
	"                            [--with TERMS] [run options]\n"
	"\n"
	"Runs one batch of three tokens, 'SLOWDOWN=0 - SLOWDOWN=PCT', N rounds, and prints\n"
	"per metric the spread of the runs, the false-positive rate of compare's verdict and\n"
	"of the sequential test, and the minimum detectable effect at alpha 0.01, power 0.8.\n"
	"\n"
	"  --rounds N        rounds (default 10)\n"
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

struct calib_args {
	const char *recipe, *variant;
	const char *with;       /* terms added to every token, or NULL */
	int rounds;
	double effect;
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
	char *s = xasprintf("--%s", o->name);
	int r = o->set(run, o, arg, calibrate_usage);

	if (r == HB_EXIT_OK) {
		argv_push(&a->run_opts, s);
		if (o->flags & RUN_OPT_ARG)
			argv_push(&a->run_opts, arg);
	}
	free(s);
	return r;
}

static int parse_args(int argc, char **argv, struct calib_args *a)
{
	struct option opts[40];
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
static int read_batch(const char *dir, const struct metric_opts *mo, const int *ids, size_t n_ids,
		      struct calib_values *vals, size_t *valid, int *rounds)
{
	struct strbuf err = STRBUF_INIT;
	struct batch b;
	int r = 0;

	batch_init(&b);
	if (batch_open(&b, dir, NULL, &err) < 0) {
		error_msg("cannot read batch '%s': %s", dir, err.buf);
		r = -1;
		goto out;
	}
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
		char *path;

		if (!b.run_dir[i] || s->token >= CELLS || s->round < 1 || s->round > b.rounds)
			continue;
		strbuf_reset(&err);
		/* runs.txt names a run by its directory in the batch's */
		path = b.run_dir[i][0] == '/' ? xstrdup(b.run_dir[i]) : xasprintf("%s/%s", b.dir, b.run_dir[i]);
		r = run_load(path, &run, &err);
		free(path);
		if (r < 0) {
			warn_msg("%s", err.buf);
			r = 0;
			continue;
		}
		if (run_report_row(&run, mo, &row) && strcmp(row.status, "ok") == 0 && !row.disturbed) {
			valid[s->token]++;
			for (size_t k = 0; k < n_ids; k++)
				if (ids[k] >= 0 && row.m.have[ids[k]])
					vals[k].v[s->token][s->round - 1] = row.m.v[ids[k]];
		}
		run_release(&run);
	}
out:
	batch_release(&b);
	strbuf_release(&err);
	return r;
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

static void print_header(const struct calib_opts *o, const char *batch_dir, int rounds, double effect,
			 const char *with)
{
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
	       "# AA_cmp AA_seq  the verdicts on A against A' as the batch is (ought to be SAME or UNKNOWN);\n"
	       "#              seq: VERDICT[sign]/pairs used\n"
	       "# B/A         median B / median A\n"
	       "# B_cmp B_seq the verdicts on A against B: the known effect found when DIFFERENT\n",
	       o->compare.magnitude, o->resamples, (unsigned long long)o->seed, o->seq.effect * 100,
	       o->seq.alpha, o->seq.beta, o->seq.min_pairs, o->seq.max_pairs, o->alpha, o->power,
	       1 - o->alpha / 2, o->power, stats_normal_isf(o->alpha / 2) + stats_normal_isf(1 - o->power));
	printf("%-17s %-9s %6s %6s %6s %6s %6s %8s %7s %-8s %-12s %7s %-9s %-12s\n", "metric", "runs", "cv_A",
	       "cv_A'", "sd_AA", "fp_cmp", "fp_seq", "mde_pair", "mde_unp", "AA_cmp", "AA_seq", "B/A", "B_cmp",
	       "B_seq");
}

static void print_row(const char *name, const size_t *valid, const struct calib_result *c)
{
	char cva[16], cva2[16], sd[16], fpc[16], fps[16], mp[16], mu[16], aac[16], aas[24], ra[16];
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
	printf("%-17s %-9s %6s %6s %6s %6s %6s %8s %7s %-8s %-12s %7s %-9s %-12s\n", name, runs, cva, cva2, sd,
	       fpc, fps, mp, mu, verdict_text(aac, sizeof(aac), c->have_aa, c->aa.verdict, 0, 0),
	       verdict_text(aas, sizeof(aas), c->have_aa_seq, c->aa_seq.verdict, c->aa_seq.sign, c->aa_seq.pairs),
	       ra, verdict_text(bc, sizeof(bc), c->have_ab, c->ab.verdict, 0, 0),
	       verdict_text(bs, sizeof(bs), c->have_ab_seq, c->ab_seq.verdict, c->ab_seq.sign, c->ab_seq.pairs));
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
	if (a->with)
		s = xasprintf("SLOWDOWN=0+%s %s SLOWDOWN=%g+%s", a->with, a->with, a->effect, a->with);
	else
		s = xasprintf("SLOWDOWN=0 - SLOWDOWN=%g", a->effect);
	argv_push(&run_argv, s);
	free(s);
	for (size_t i = 0; i < a->run_opts.n; i++)
		argv_push(&run_argv, a->run_opts.v[i]);
	optind = 0; /* run parses its own options afresh */
	ret = batch_command((int)run_argv.n - 1, run_argv.v + 1, ctx, NULL, batch_dir);
	argv_release(&run_argv);
	return ret;
}

/* A row per metric calibrated, or the line that says why it is skipped. */
static int print_rows(const int *ids, struct calib_values *vals, const size_t *valid, int rounds,
		      const struct calib_opts *co)
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
		print_row(calib_metrics[k], valid, &c);
	}
	/* the table is the answer: failed runs are missing values, said in it */
	return HB_EXIT_OK;
}

int cmd_calibrate(int argc, char **argv, struct context *ctx)
{
	struct calib_args a = { .rounds = 10, .effect = 3, .metric = METRIC_OPTS_DEFAULT };
	struct calib_opts co = CALIB_OPTS_DEFAULT;
	struct calib_values vals[ARRAY_SIZE(calib_metrics)];
	int ids[ARRAY_SIZE(calib_metrics)];
	size_t valid[CELLS] = { 0, 0, 0 };
	char *batch_dir = NULL;
	int ret, rounds = 0;

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
	if (read_batch(batch_dir, &a.metric, ids, ARRAY_SIZE(calib_metrics), vals, valid, &rounds) < 0) {
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	print_header(&co, batch_dir, rounds, a.effect, a.with);
	if (valid[CELL_A] + valid[CELL_A2] + valid[CELL_B] == 0)
		printf("# no valid run in the batch (failed or disturbed: the report above says which)\n");
	ret = print_rows(ids, vals, valid, rounds, &co);
out:
	for (size_t k = 0; k < ARRAY_SIZE(calib_metrics); k++)
		for (int c = 0; c < CELLS; c++)
			free(vals[k].v[c]);
	free(batch_dir);
	argv_release(&a.run_opts);
	return ret;
}
