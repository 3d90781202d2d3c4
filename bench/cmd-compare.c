/*
 * hitchbench compare: do two sets of runs differ? Medians, their ratio, a
 * bootstrap interval of the difference, Mann-Whitney and
 * Kolmogorov-Smirnov, and Pinpoint's verdict (analysis/stats.h), from the
 * results database. The exit code is the verdict, so a script can gate on
 * it: 0 SAME, 3 DIFFERENT, 4 UNKNOWN.
 */
#include "abtest.h"
#include "cmd.h"
#include "cmdargs.h"
#include "exitcodes.h"
#include "metrics.h"
#include "resultsdb-query.h"
#include "stats.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char compare_usage[] =
	"usage: hitchbench compare [--db PATH] [--metric M] [--batch ID] [--cross-boot]\n"
	"                          [--magnitude IQR] [--seed N] GAME A B\n"
	"       hitchbench compare --paired BATCH [--metric M] [--effect PCT] [--alpha A]\n"
	"                          [--beta B] [--max-rounds N]\n"
	"\n"
	"  A, B            run names: variant@switches, or the variant for runs without switches\n"
	"  --metric M      the metric compared (default fps; names as in 'hitchbench report')\n"
	"  --batch ID      only runs of this batch (batch_id)\n"
	"  --cross-boot    allow runs from different boots (refused otherwise: a reboot\n"
	"                  changes enough to make a difference of its own)\n"
	"  --magnitude X   the smallest difference worth finding, in interquartile ranges\n"
	"                  (default 1.0): SAME means a difference this large is unlikely\n"
	"  --seed N        seed of the bootstrap and the threshold simulation\n"
	"  --paired BATCH  the rounds of a two-cell batch (hitchbench ab's, or run's) as\n"
	"                  pairs, through ab's sequential test in round order (its options\n"
	"                  are ab.txt's unless given: --effect, --alpha, --beta, --max-rounds)\n"
	"\n"
	"exit status: 0 SAME, 3 DIFFERENT, 4 UNKNOWN (more rounds needed), 1 failure, 2 usage\n";

struct side {
	const char *name;
	struct resultsdb_value *v;
	size_t n;
	double *x;
	struct resultsdb_excluded *ex;  /* its runs that do not count, and why */
	size_t n_ex;
};

static int load_side(struct resultsdb *db, struct resultsdb_query *q, struct side *s)
{
	char *err = NULL;

	q->run_name = s->name;
	if (resultsdb_metric_values(db, q, &s->v, &s->n, &err) < 0 ||
	    resultsdb_excluded_runs(db, q, &s->ex, &s->n_ex, &err) < 0) {
		error_msg("%s", err);
		free(err);
		return -1;
	}
	s->x = zalloc(sizeof(double) * (s->n ? s->n : 1));
	for (size_t i = 0; i < s->n; i++)
		s->x[i] = s->v[i].value;
	return 0;
}

/* The boots the runs of both sides come from; a run that does not say
 * counts as a boot of its own ("unknown"). */
static size_t count_boots(const struct side *sides, size_t nsides, const char **first,
			  const char **other)
{
	const char *seen[2] = { NULL, NULL };
	size_t n = 0;

	for (size_t s = 0; s < nsides; s++)
		for (size_t i = 0; i < sides[s].n; i++) {
			const char *b = sides[s].v[i].boot_id ? sides[s].v[i].boot_id : "unknown";

			if (n == 0)
				seen[n++] = b;
			else if (strcmp(seen[0], b) != 0 && (n < 2 || strcmp(seen[1], b) != 0)) {
				if (n < 2)
					seen[1] = b;
				n++;
			}
		}
	*first = seen[0];
	*other = seen[1];
	return n;
}

/* "excluded B RUN: WHY", a line for each run of the side left out. */
static void print_excluded(FILE *out, const struct side *s, const char *label)
{
	for (size_t i = 0; i < s->n_ex; i++)
		fprintf(out, "%sexcluded %s %s: %s\n", out == stderr ? "hitchbench: " : "", label,
			s->ex[i].name, s->ex[i].why);
}

static const char *rounds_text(size_t r, char *buf, size_t size, size_t max)
{
	if (r == SIZE_MAX)
		snprintf(buf, size, "over %zu", max);
	else
		snprintf(buf, size, "%zu", r);
	return buf;
}

static void print_comparison(const char *game, const char *metric, const char *batch,
			     const struct side *a, const struct side *b,
			     const struct stats_compare_opts *o, const struct stats_comparison *c,
			     enum metric_id id)
{
	const int d = metric_defs[id].decimals + 1;
	const enum metric_better better = metric_defs[id].better;
	char r1[32], r2[32], r3[32];

	printf("compare %s %s: A = %s, B = %s%s%s\n", game, metric, a->name, b->name,
	       batch ? ", batch " : "", batch ? batch : "");
	printf("%-20s %14s %14s   %s\n", "", "A", "B", "how");
	printf("%-20s %14zu %14zu   valid runs: status ok, not marked invalid\n", "runs", c->na, c->nb);
	printf("%-20s %14.*f %14.*f   the middle value (mean of the two middle ones)\n", "median", d,
	       c->median_a, d, c->median_b);
	printf("%-20s %14s %14.4f   median B / median A\n", "ratio", "", c->ratio);
	printf("%-20s %14s %14.*f   median B - median A\n", "difference", "", d, c->median_b - c->median_a);
	printf("%-20s %14.*f %14.*f   %.0f%% percentile bootstrap, %u resamples of each side, seed %llu\n",
	       "difference interval", d, c->ci_lo, d, c->ci_hi, o->bootstrap.confidence * 100.0,
	       o->bootstrap.resamples, (unsigned long long)o->bootstrap.seed);
	printf("%-20s U=%-12.1f p=%-12.4g   Mann-Whitney U of A, two-sided, %s%s\n", "Mann-Whitney",
	       c->mwu.statistic, c->mwu.p, stats_pmethod_name(c->mwu.method),
	       c->mwu.method == STATS_EXACT ? " (no ties)" : " normal approximation, tie and continuity corrected");
	printf("%-20s D=%-12.4f p=%-12.4g   two-sample, two-sided, %s\n", "Kolmogorov-Smirnov",
	       c->ks.statistic, c->ks.p, stats_pmethod_name(c->ks.method));
	printf("%-20s %-29.4g   the smaller of the two (Pinpoint)\n", "p", c->p);
	printf("%-20s low %-8.4g high %-9.4g  DIFFERENT at p <= low; SAME at p > high: 99%% of samples of %zu\n"
	       "%-20s %-29s   %.2f IQR apart have p under it (%u simulations, seed %llu)\n",
	       "thresholds", c->low_threshold, c->high_threshold, c->n, "", "", o->magnitude,
	       o->simulations, (unsigned long long)o->seed);
	printf("%-20s %s\n", "verdict", stats_verdict_name(c->verdict));
	/* which side a DIFFERENT verdict favours, for a metric with a direction */
	if (c->verdict == VERDICT_DIFFERENT && better != BETTER_NEITHER && c->median_a != c->median_b)
		printf("%-20s %-29s   %s %s is better\n", "better",
		       (c->median_b < c->median_a) == (better == BETTER_LOWER) ? "B" : "A",
		       better == BETTER_LOWER ? "lower" : "higher", metric);
	if (c->verdict == VERDICT_UNKNOWN)
		printf("%-20s about %s more of each   the smaller of: the observed effect significant at %.2g\n"
		       "%-20s %-29s   with 80%% power (Noether 1987): %s; the high threshold reaching the\n"
		       "%-20s %-29s   low one: %s\n", "rounds needed",
		       rounds_text(c->rounds_needed, r1, sizeof(r1), o->max_rounds), STATS_LOW_THRESHOLD, "", "",
		       rounds_text(c->rounds_noether, r2, sizeof(r2), o->max_rounds), "", "",
		       rounds_text(c->rounds_crossing, r3, sizeof(r3), o->max_rounds));
	print_excluded(stdout, a, "A");
	print_excluded(stdout, b, "B");
}

/* ab's options given to compare --paired, applied over ab.txt's */
struct paired_opt {
	const char *name, *arg;
};

/* compare --paired: the batch's rounds as pairs, the sequential test over
 * them in order, the lines ab printed and its exit code. */
static int compare_paired(struct context *ctx, const char *arg, const struct paired_opt *po, size_t n_po)
{
	struct strbuf err = STRBUF_INIT;
	struct ab_test t;
	struct batch b;
	char *parent = xasprintf("%s/runs", ctx->results_dir), *a_name = NULL, *b_name = NULL, *dir = NULL;
	int ret = HB_EXIT_USAGE, r;

	batch_init(&b);
	ab_test_init(&t);
	/* a directory, or an id under results/runs, as run --resume takes */
	dir = strchr(arg, '/') || access(arg, F_OK) == 0 ? xstrdup(arg) : xasprintf("%s/%s", parent, arg);
	if (input_arg_check(dir) != HB_EXIT_OK)
		goto out;
	if (batch_open(&b, arg, parent, &err) < 0 || ab_batch_cells(&b, &err) < 0 ||
	    ab_batch_metric_opts(&b, &t.mo, &err) < 0) {
		error_msg("%s", err.buf);
		goto out;
	}
	r = ab_state_read_opts(&t, &b, &err);
	if (r < 0 && r != -ENOENT) {
		error_msg("%s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < n_po; i++)
		if (ab_test_option(&t, compare_usage, po[i].name, po[i].arg) != HB_EXIT_OK)
			goto out;
	a_name = ab_cell_name(&b, 0);
	b_name = ab_cell_name(&b, 1);
	ab_test_update(&t, &b, NULL);
	ab_print_all(stdout, &t, a_name, b_name);
	ret = ab_exit_code(&t);
out:
	free(a_name);
	free(b_name);
	free(parent);
	free(dir);
	ab_test_release(&t);
	batch_release(&b);
	strbuf_release(&err);
	return ret;
}

int cmd_compare(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "metric", required_argument, NULL, 'm' },
		{ "batch", required_argument, NULL, 'b' },
		{ "cross-boot", no_argument, NULL, 'x' },
		{ "magnitude", required_argument, NULL, 'M' },
		{ "seed", required_argument, NULL, 's' },
		{ "paired", required_argument, NULL, 'p' },
		{ "effect", required_argument, NULL, 'E' },
		{ "alpha", required_argument, NULL, 'E' },
		{ "beta", required_argument, NULL, 'E' },
		{ "max-rounds", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stats_compare_opts so = STATS_COMPARE_DEFAULT;
	struct resultsdb_query q = { .metric = "fps" };
	struct side sides[2] = { { 0 }, { 0 } };
	struct stats_comparison cmp;
	struct resultsdb *db = NULL;
	const char *path = NULL, *boot1, *boot2;
	struct paired_opt po[8];
	const char *paired = NULL;
	bool cross_boot = false, metric_given = false;
	size_t n_po = 0;
	int c, metric, ret, which = 0;

	while ((c = getopt_long(argc, argv, "h", opts, &which)) != -1) {
		switch (c) {
		case 'p':
			paired = optarg;
			break;
		case 'E':
			if (n_po == ARRAY_SIZE(po))
				return usage_error(compare_usage, "too many options");
			po[n_po++] = (struct paired_opt){ opts[which].name, optarg };
			break;
		case 'd':
			path = optarg;
			break;
		case 'm':
			q.metric = optarg;
			metric_given = true;
			break;
		case 'b':
			q.batch = optarg;
			break;
		case 'x':
			cross_boot = true;
			break;
		case 'M':
			if (safe_atod(optarg, &so.magnitude) < 0 || !(so.magnitude > 0))
				return usage_error(compare_usage, "--magnitude wants a number > 0, not '%s'", optarg);
			break;
		case 's':
			if (safe_atou64(optarg, &so.seed) < 0)
				return usage_error(compare_usage, "--seed wants a whole number, not '%s'", optarg);
			so.bootstrap.seed = so.seed;
			break;
		case 'h':
			fputs(compare_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(compare_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (paired) {
		if (optind != argc || path || q.batch || cross_boot)
			return usage_error(compare_usage, "--paired wants the batch alone: no GAME A B, "
					   "--db, --batch or --cross-boot");
		if (metric_given) {
			if (n_po == ARRAY_SIZE(po))
				return usage_error(compare_usage, "too many options");
			po[n_po++] = (struct paired_opt){ "metric", q.metric };
		}
		return compare_paired(ctx, paired, po, n_po);
	}
	if (n_po)
		return usage_error(compare_usage, "--%s is for --paired", po[0].name);
	if (argc - optind != 3)
		return usage_error(compare_usage, "compare wants GAME A B");
	if (metric_arg(compare_usage, q.metric, &metric) != HB_EXIT_OK)
		return HB_EXIT_USAGE;
	q.game = argv[optind];
	sides[0].name = argv[optind + 1];
	sides[1].name = argv[optind + 2];
	ret = db_arg_open(ctx, path, RESULTSDB_READ, &db, &path);
	if (ret != HB_EXIT_OK)
		return ret;
	ret = HB_EXIT_FAILURE;
	if (load_side(db, &q, &sides[0]) < 0 || load_side(db, &q, &sides[1]) < 0)
		goto out;
	for (int i = 0; i < 2; i++)
		if (sides[i].n == 0) {
			error_msg("no valid runs of %s '%s' with %s%s%s in '%s'", q.game, sides[i].name,
				  q.metric, q.batch ? " in batch " : "", q.batch ? q.batch : "", path);
			print_excluded(stderr, &sides[i], i ? "B" : "A");
			goto out;
		}
	if (count_boots(sides, 2, &boot1, &boot2) > 1 && !cross_boot) {
		error_msg("the runs come from different boots (%s and %s): a reboot can make a "
			  "difference of its own; --cross-boot compares them anyway", boot1, boot2);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	if (stats_compare(sides[0].x, sides[0].n, sides[1].x, sides[1].n, &so, &cmp) < 0) {
		error_msg("cannot compare: bad options");
		goto out;
	}
	print_comparison(q.game, q.metric, q.batch, &sides[0], &sides[1], &so, &cmp,
			 (enum metric_id)metric);
	ret = cmp.verdict == VERDICT_SAME ? HB_EXIT_OK :
	      cmp.verdict == VERDICT_DIFFERENT ? HB_EXIT_REGRESSION : HB_EXIT_UNDECIDED;
out:
	for (int i = 0; i < 2; i++) {
		resultsdb_values_free(sides[i].v, sides[i].n);
		resultsdb_excluded_free(sides[i].ex, sides[i].n_ex);
		free(sides[i].x);
	}
	resultsdb_close(db);
	return ret;
}
