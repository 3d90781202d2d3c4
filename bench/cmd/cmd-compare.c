/*
 * hitchbench compare: do two sets of runs differ? Medians, their ratio, a
 * bootstrap interval of the difference, Mann-Whitney and
 * Kolmogorov-Smirnov, and Pinpoint's verdict (analysis/stats/stats.h), from the
 * results database. The exit code is the verdict, so a script can gate on
 * it: 0 SAME, 3 DIFFERENT, 4 UNKNOWN.
 */
#include "batch/abtest.h"
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "text/jsonout.h"
#include "metrics/metrics.h"
#include "db/resultsdb-query.h"
#include "stats/stats.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char compare_usage[] =
	"usage: hitchbench compare [--db PATH|URL] [--machine M] [--metric M] [--batch ID] [--cross-boot]\n"
	"                          [--magnitude IQR] [--seed N] [--format table|json|markdown]\n"
	"                          [--no-notes] GAME A B\n"
	"       hitchbench compare --paired BATCH [--metric M] [--effect PCT] [--alpha A]\n"
	"                          [--beta B] [--max-rounds N] [--format table|json]\n"
	"\n"
	"  A, B            run names: variant@switches, or the variant for runs without switches\n"
	"  --metric M      the metric compared (default fps; names as in 'hitchbench report')\n"
	"  --batch ID      only runs of this batch (batch_id)\n"
	"  --machine M     only runs of this host name or machine id (a lab's database\n"
	"                  holds many; runs of two machines are never compared)\n"
	"  --cross-boot    allow runs from different boots (refused otherwise: a reboot\n"
	"                  changes enough to make a difference of its own)\n"
	"  --magnitude X   the smallest difference worth finding, in interquartile ranges\n"
	"                  (default 1.0): SAME means a difference this large is unlikely\n"
	"  --seed N        seed of the bootstrap and the threshold simulation\n"
	"  --format F      table (default; its last column says how each line is computed),\n"
	"                  json (format 1: every figure, the values and the definitions;\n"
	"                  --paired: ab's document), markdown (a GitHub table, the\n"
	"                  definitions as a list below it)\n"
	"  --no-notes      the table without its \"how\" column, markdown without the definitions\n"
	"  --paired BATCH  the rounds of a two-cell batch (hitchbench ab's, or run's) as\n"
	"                  pairs, through ab's sequential test in round order (its options\n"
	"                  are ab.txt's unless given: --effect, --alpha, --beta, --max-rounds)\n"
	"\n"
	"exit status: 0 SAME, 3 DIFFERENT, 4 UNKNOWN (more rounds needed), 1 failure, 2 usage\n";

/* The version of compare's JSON document (docs/formats.md). */
#define HB_COMPARE_JSON_FORMAT 1

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
	struct strbuf err = STRBUF_INIT;

	q->run_name = s->name;
	if (resultsdb_metric_values(db, q, &s->v, &s->n, &err) < 0 ||
	    resultsdb_excluded_runs(db, q, &s->ex, &s->n_ex, &err) < 0) {
		error_msg("%s", err.buf);
		strbuf_release(&err);
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

/* What each line of the comparison means (the table's "how" column; JSON's
 * "definitions"; Markdown's list). */
#define DEF_RUNS "valid runs: status ok, not marked invalid"
#define DEF_MEDIAN "the middle value (mean of the two middle ones)"
#define DEF_RATIO "median B / median A"
#define DEF_DIFFERENCE "median B - median A"
#define DEF_INTERVAL "percentile bootstrap of the difference of the medians, resampling each side"
#define DEF_MWU "Mann-Whitney U of A, two-sided; exact without ties, else the normal " \
	"approximation, tie and continuity corrected"
#define DEF_KS "two-sample Kolmogorov-Smirnov, two-sided"
#define DEF_P "the smaller of the two p values (Pinpoint)"
#define DEF_THRESHOLDS "DIFFERENT at p <= low; SAME at p > high, where 99 percent of samples of n runs " \
	"a side that differ by magnitude_iqr interquartile ranges have p under high (simulated)"
#define DEF_ROUNDS "UNKNOWN: the further runs of each side after which a verdict is likely, the " \
	"smaller of: the observed effect significant at the low threshold with 80% power " \
	"(Noether 1987), and the high threshold reaching the low one"

/* Which side a DIFFERENT verdict favours, for a metric with a direction; NULL otherwise. */
static const char *better_side(const struct stats_comparison *c, enum metric_id id)
{
	const enum metric_better better = metric_defs[id].better;

	if (c->verdict != VERDICT_DIFFERENT || better == BETTER_NEITHER || c->median_a == c->median_b)
		return NULL;
	return (c->median_b < c->median_a) == (better == BETTER_LOWER) ? "B" : "A";
}

static void json_side_values(struct json_out *j, const char *key, const struct side *s)
{
	json_array_begin_inline(j, key);
	for (size_t i = 0; i < s->n; i++)
		json_number(j, NULL, true, s->x[i]);
	json_array_end(j);
}

static void json_rounds(struct json_out *j, const char *key, size_t r)
{
	if (r == SIZE_MAX)
		json_null(j, key);     /* beyond max_rounds */
	else
		json_uint(j, key, r);
}

static void json_comparison(const struct resultsdb_query *q, const struct side *a, const struct side *b,
			    const struct stats_compare_opts *o, const struct stats_comparison *c,
			    enum metric_id id, int exit_status)
{
	struct json_out j;

	json_out_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_int(&j, "format", HB_COMPARE_JSON_FORMAT);
	json_string(&j, "game", q->game);
	json_string(&j, "metric", q->metric);
	json_string(&j, "a", a->name);
	json_string(&j, "b", b->name);
	json_string(&j, "batch", q->batch);
	json_string(&j, "machine", q->machine);
	json_object_begin_inline(&j, "runs");
	json_uint(&j, "a", c->na);
	json_uint(&j, "b", c->nb);
	json_object_end(&j);
	json_object_begin_inline(&j, "values");
	json_side_values(&j, "a", a);
	json_side_values(&j, "b", b);
	json_object_end(&j);
	json_object_begin_inline(&j, "median");
	json_number(&j, "a", true, c->median_a);
	json_number(&j, "b", true, c->median_b);
	json_object_end(&j);
	json_number(&j, "ratio", true, c->ratio);
	json_number(&j, "difference", true, c->median_b - c->median_a);
	json_object_begin_inline(&j, "difference_interval");
	json_number(&j, "lo", true, c->ci_lo);
	json_number(&j, "hi", true, c->ci_hi);
	json_number(&j, "confidence", true, o->bootstrap.confidence);
	json_uint(&j, "resamples", o->bootstrap.resamples);
	json_uint(&j, "seed", o->bootstrap.seed);
	json_object_end(&j);
	json_object_begin_inline(&j, "mann_whitney");
	json_number(&j, "u", true, c->mwu.statistic);
	json_number(&j, "p", true, c->mwu.p);
	json_string(&j, "method", stats_pmethod_name(c->mwu.method));
	json_object_end(&j);
	json_object_begin_inline(&j, "kolmogorov_smirnov");
	json_number(&j, "d", true, c->ks.statistic);
	json_number(&j, "p", true, c->ks.p);
	json_string(&j, "method", stats_pmethod_name(c->ks.method));
	json_object_end(&j);
	json_number(&j, "p", true, c->p);
	json_object_begin_inline(&j, "thresholds");
	json_number(&j, "low", true, c->low_threshold);
	json_number(&j, "high", true, c->high_threshold);
	json_uint(&j, "n", c->n);
	json_number(&j, "magnitude_iqr", true, o->magnitude);
	json_uint(&j, "simulations", o->simulations);
	json_uint(&j, "seed", o->seed);
	json_object_end(&j);
	json_string(&j, "verdict", stats_verdict_name(c->verdict));
	json_string(&j, "better", better_side(c, id));
	if (c->verdict == VERDICT_UNKNOWN) {
		json_object_begin_inline(&j, "rounds_needed");
		json_rounds(&j, "estimate", c->rounds_needed);
		json_rounds(&j, "noether", c->rounds_noether);
		json_rounds(&j, "crossing", c->rounds_crossing);
		json_object_end(&j);
	} else {
		json_null(&j, "rounds_needed");
	}
	json_int(&j, "exit_status", exit_status);
	json_array_begin(&j, "excluded");
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < (s ? b : a)->n_ex; i++) {
			json_object_begin_inline(&j, NULL);
			json_string(&j, "side", s ? "B" : "A");
			json_string(&j, "run", (s ? b : a)->ex[i].name);
			json_string(&j, "why", (s ? b : a)->ex[i].why);
			json_object_end(&j);
		}
	json_array_end(&j);
	json_object_begin(&j, "definitions");
	json_string(&j, "runs", DEF_RUNS);
	json_string(&j, "median", DEF_MEDIAN);
	json_string(&j, "ratio", DEF_RATIO);
	json_string(&j, "difference", DEF_DIFFERENCE);
	json_string(&j, "difference_interval", DEF_INTERVAL);
	json_string(&j, "mann_whitney", DEF_MWU);
	json_string(&j, "kolmogorov_smirnov", DEF_KS);
	json_string(&j, "p", DEF_P);
	json_string(&j, "thresholds", DEF_THRESHOLDS);
	json_string(&j, "rounds_needed", DEF_ROUNDS);
	json_object_end(&j);
	json_object_end(&j);
}

/* A Markdown table of the comparison, then its definitions as a list. */
static void markdown_comparison(const struct resultsdb_query *q, const struct side *a, const struct side *b,
				const struct stats_compare_opts *o, const struct stats_comparison *c,
				enum metric_id id, bool no_notes)
{
	const int d = metric_defs[id].decimals + 1;
	const char *better = better_side(c, id);

	printf("compare %s %s: A = %s, B = %s%s%s\n\n", q->game, q->metric, a->name, b->name,
	       q->batch ? ", batch " : "", q->batch ? q->batch : "");
	printf("| | A | B |\n| :--- | ---: | ---: |\n");
	printf("| runs | %zu | %zu |\n", c->na, c->nb);
	printf("| median | %.*f | %.*f |\n", d, c->median_a, d, c->median_b);
	printf("| ratio | | %.4f |\n", c->ratio);
	printf("| difference | | %.*f |\n", d, c->median_b - c->median_a);
	printf("| difference interval (%.0f%%) | %.*f | %.*f |\n", o->bootstrap.confidence * 100.0, d, c->ci_lo,
	       d, c->ci_hi);
	printf("| Mann-Whitney | U=%.1f | p=%.4g |\n", c->mwu.statistic, c->mwu.p);
	printf("| Kolmogorov-Smirnov | D=%.4f | p=%.4g |\n", c->ks.statistic, c->ks.p);
	printf("| p | | %.4g |\n", c->p);
	printf("| thresholds | low %.4g | high %.4g |\n", c->low_threshold, c->high_threshold);
	printf("| verdict | | **%s** |\n", stats_verdict_name(c->verdict));
	if (better)
		printf("| better | | %s |\n", better);
	if (c->verdict == VERDICT_UNKNOWN) {
		char r[32];

		printf("| rounds needed | | about %s more of each |\n",
		       rounds_text(c->rounds_needed, r, sizeof(r), o->max_rounds));
	}
	for (int s = 0, k = 0; s < 2; s++)
		for (size_t i = 0; i < (s ? b : a)->n_ex; i++)
			printf("%s- excluded %s %s: %s\n", k++ ? "" : "\n", s ? "B" : "A",
			       (s ? b : a)->ex[i].name, (s ? b : a)->ex[i].why);
	if (no_notes)
		return;
	printf("\nDefinitions:\n- runs: " DEF_RUNS "\n- median: " DEF_MEDIAN "\n- ratio: " DEF_RATIO
	       "\n- difference: " DEF_DIFFERENCE "\n- difference interval: " DEF_INTERVAL
	       " (%u resamples, seed %llu)\n- Mann-Whitney: " DEF_MWU "\n- Kolmogorov-Smirnov: " DEF_KS
	       "\n- p: " DEF_P "\n- thresholds: " DEF_THRESHOLDS " (n %zu, magnitude %.2f IQR, %u "
	       "simulations, seed %llu)\n", o->bootstrap.resamples, (unsigned long long)o->bootstrap.seed,
	       c->n, o->magnitude, o->simulations, (unsigned long long)o->seed);
	if (c->verdict == VERDICT_UNKNOWN)
		fputs("- rounds needed: " DEF_ROUNDS "\n", stdout);
}

/* A line of the table: the label, the values (29 columns) and, unless
 * --no-notes, how they are computed (how_fmt: printf's). */
static void table_line(bool notes, const char *label, const char *values, const char *how_fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void table_line(bool notes, const char *label, const char *values, const char *how_fmt, ...)
{
	va_list ap;

	if (!notes || !how_fmt) {
		int len = (int)strlen(values);

		while (len > 0 && values[len - 1] == ' ')   /* no trailing blanks */
			len--;
		printf("%-20s %.*s\n", label, len, values);
		return;
	}
	printf("%-20s %-29s   ", label, values);
	va_start(ap, how_fmt);
	vprintf(how_fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void print_comparison(const char *game, const char *metric, const char *batch,
			     const struct side *a, const struct side *b,
			     const struct stats_compare_opts *o, const struct stats_comparison *c,
			     enum metric_id id, bool notes)
{
	const int d = metric_defs[id].decimals + 1;
	const char *better = better_side(c, id);
	char v[128], r1[32], r2[32], r3[32];

	printf("compare %s %s: A = %s, B = %s%s%s\n", game, metric, a->name, b->name,
	       batch ? ", batch " : "", batch ? batch : "");
	snprintf(v, sizeof(v), "%14s %14s", "A", "B");
	table_line(notes, "", v, "how");
	snprintf(v, sizeof(v), "%14zu %14zu", c->na, c->nb);
	table_line(notes, "runs", v, DEF_RUNS);
	snprintf(v, sizeof(v), "%14.*f %14.*f", d, c->median_a, d, c->median_b);
	table_line(notes, "median", v, DEF_MEDIAN);
	snprintf(v, sizeof(v), "%14s %14.4f", "", c->ratio);
	table_line(notes, "ratio", v, DEF_RATIO);
	snprintf(v, sizeof(v), "%14s %14.*f", "", d, c->median_b - c->median_a);
	table_line(notes, "difference", v, DEF_DIFFERENCE);
	snprintf(v, sizeof(v), "%14.*f %14.*f", d, c->ci_lo, d, c->ci_hi);
	table_line(notes, "difference interval", v, "%.0f%% percentile bootstrap, %u resamples of each side, seed %llu",
		   o->bootstrap.confidence * 100.0, o->bootstrap.resamples, (unsigned long long)o->bootstrap.seed);
	snprintf(v, sizeof(v), "U=%-12.1f p=%-12.4g", c->mwu.statistic, c->mwu.p);
	table_line(notes, "Mann-Whitney", v, "Mann-Whitney U of A, two-sided, %s%s", stats_pmethod_name(c->mwu.method),
		   c->mwu.method == STATS_EXACT ? " (no ties)" : " normal approximation, tie and continuity corrected");
	snprintf(v, sizeof(v), "D=%-12.4f p=%-12.4g", c->ks.statistic, c->ks.p);
	table_line(notes, "Kolmogorov-Smirnov", v, "two-sample, two-sided, %s", stats_pmethod_name(c->ks.method));
	snprintf(v, sizeof(v), "%-29.4g", c->p);
	table_line(notes, "p", v, "the smaller of the two (Pinpoint)");
	snprintf(v, sizeof(v), "low %-8.4g high %-9.4g", c->low_threshold, c->high_threshold);
	table_line(notes, "thresholds", v, "DIFFERENT at p <= low; SAME at p > high: 99%% of samples of %zu", c->n);
	if (notes)
		table_line(notes, "", "", "%.2f IQR apart have p under it (%u simulations, seed %llu)", o->magnitude,
			   o->simulations, (unsigned long long)o->seed);
	table_line(notes, "verdict", stats_verdict_name(c->verdict), NULL);
	/* which side a DIFFERENT verdict favours, for a metric with a direction */
	if (better)
		table_line(notes, "better", better, "%s %s is better",
			   metric_defs[id].better == BETTER_LOWER ? "lower" : "higher", metric);
	if (c->verdict == VERDICT_UNKNOWN) {
		snprintf(v, sizeof(v), "about %s more of each", rounds_text(c->rounds_needed, r1, sizeof(r1), o->max_rounds));
		table_line(notes, "rounds needed", v, "the smaller of: the observed effect significant at %.2g",
			   STATS_LOW_THRESHOLD);
		if (notes) {
			table_line(notes, "", "", "with 80%% power (Noether 1987): %s; the high threshold reaching the",
				   rounds_text(c->rounds_noether, r2, sizeof(r2), o->max_rounds));
			table_line(notes, "", "", "low one: %s",
				   rounds_text(c->rounds_crossing, r3, sizeof(r3), o->max_rounds));
		}
	}
	print_excluded(stdout, a, "A");
	print_excluded(stdout, b, "B");
}

/* ab's options given to compare --paired, applied over ab.txt's */
struct paired_opt {
	const char *name, *arg;
};

/* compare --paired: the batch's rounds as pairs, the sequential test over
 * them in order, the lines ab printed and its exit code. */
static int compare_paired(struct context *ctx, const char *arg, const struct paired_opt *po, size_t n_po,
			  bool json)
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
	r = ab_test_open(&t, &b, arg, parent, &err);
	if (r < 0) {
		error_msg("%s", err.buf ? err.buf : strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < n_po; i++)
		if (ab_test_option(&t, compare_usage, po[i].name, po[i].arg) != HB_EXIT_OK)
			goto out;
	a_name = ab_cell_name(&b, 0);
	b_name = ab_cell_name(&b, 1);
	ab_test_update(&t, &b, NULL);
	if (json)
		ab_print_json(stdout, &t, b.id, a_name, b_name);
	else
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

struct compare_args {
	struct stats_compare_opts so;
	struct resultsdb_query q;
	const char *a, *b;              /* the run names compared */
	const char *paired;             /* --paired BATCH */
	struct paired_opt po[8];
	size_t n_po;
	bool cross_boot, metric_given, no_notes;
	enum report_format format;
};

static int parse_options(int argc, char **argv, struct compare_args *a)
{
	static const struct option opts[] = {
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
		{ "format", required_argument, NULL, 'f' },
		{ "no-notes", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, which = 0;

	while ((c = getopt_long(argc, argv, "h", opts, &which)) != -1) {
		switch (c) {
		case 'p':
			a->paired = optarg;
			break;
		case 'f':
			if (format_arg(compare_usage, optarg, FORMAT_BIT(REPORT_TABLE) | FORMAT_BIT(REPORT_JSON) |
				       FORMAT_BIT(REPORT_MARKDOWN), &a->format) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			break;
		case 'N':
			a->no_notes = true;
			break;
		case 'E':
			if (a->n_po == ARRAY_SIZE(a->po))
				return usage_error(compare_usage, "too many options");
			a->po[a->n_po++] = (struct paired_opt){ opts[which].name, optarg };
			break;
		case 'm':
			a->q.metric = optarg;
			a->metric_given = true;
			break;
		case 'b':
			a->q.batch = optarg;
			break;
		case 'x':
			a->cross_boot = true;
			break;
		case 'M':
			if (safe_atod(optarg, &a->so.magnitude) < 0 || !(a->so.magnitude > 0))
				return usage_error(compare_usage, "--magnitude wants a number > 0, not '%s'", optarg);
			break;
		case 's':
			if (safe_atou64(optarg, &a->so.seed) < 0)
				return usage_error(compare_usage, "--seed wants a whole number, not '%s'", optarg);
			a->so.bootstrap.seed = a->so.seed;
			break;
		case 'h':
			fputs(compare_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(compare_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	return HB_EXIT_OK;
}

/* GAME A B and the checks between the options, once they are parsed. */
static int check_args(int argc, char **argv, bool db_given, struct compare_args *a, int *metric)
{
	if (a->paired) {
		if (optind != argc || db_given || a->q.batch || a->cross_boot)
			return usage_error(compare_usage, "--paired wants the batch alone: no GAME A B, "
					   "--db, --batch or --cross-boot");
		if (a->format == REPORT_MARKDOWN)
			return usage_error(compare_usage, "--paired prints a table or json, not markdown");
		if (a->metric_given) {
			if (a->n_po == ARRAY_SIZE(a->po))
				return usage_error(compare_usage, "too many options");
			a->po[a->n_po++] = (struct paired_opt){ "metric", a->q.metric };
		}
		return HB_EXIT_OK;
	}
	if (a->n_po)
		return usage_error(compare_usage, "--%s is for --paired", a->po[0].name);
	if (argc - optind != 3)
		return usage_error(compare_usage, "compare wants GAME A B");
	if (metric_arg(compare_usage, a->q.metric, metric) != HB_EXIT_OK)
		return HB_EXIT_USAGE;
	a->q.game = argv[optind];
	a->a = argv[optind + 1];
	a->b = argv[optind + 2];
	return HB_EXIT_OK;
}

/* How many machines the two sides' runs come from, and two of them. */
static size_t count_machines(const struct side *sides, const char **m1, const char **m2)
{
	const char *a1, *a2, *b1, *b2;
	size_t na = resultsdb_values_machines(sides[0].v, sides[0].n, &a1, &a2);
	size_t nb = resultsdb_values_machines(sides[1].v, sides[1].n, &b1, &b2);

	*m1 = a1;
	*m2 = na > 1 ? a2 : nb > 1 ? b2 : b1;
	if (na > 1 || nb > 1)
		return na > nb ? na : nb;
	return na && nb && strcmp(a1, b1) != 0 ? 2 : 1;
}

/* The two sides from the database, and the verdict as the exit code. */
static int compare_sides(struct resultsdb *db, const char *path, struct compare_args *a,
			 enum metric_id metric)
{
	struct side sides[2] = { { .name = a->a }, { .name = a->b } };
	const struct resultsdb_query *q = &a->q;
	struct stats_comparison cmp;
	const char *boot1, *boot2;
	int ret = HB_EXIT_FAILURE;

	if (load_side(db, &a->q, &sides[0]) < 0 || load_side(db, &a->q, &sides[1]) < 0)
		goto out;
	for (int i = 0; i < 2; i++)
		if (sides[i].n == 0) {
			error_msg("no valid runs of %s '%s' with %s%s%s in '%s'", q->game, sides[i].name,
				  q->metric, q->batch ? " in batch " : "", q->batch ? q->batch : "", path);
			print_excluded(stderr, &sides[i], i ? "B" : "A");
			goto out;
		}
	if (count_machines(sides, &boot1, &boot2) > 1) {
		error_msg("the runs come from different machines (%s and %s): name one with --machine HOST "
			  "(two machines differ by more than A and B)", boot1, boot2);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	if (count_boots(sides, 2, &boot1, &boot2) > 1 && !a->cross_boot) {
		error_msg("the runs come from different boots (%s and %s): a reboot can make a "
			  "difference of its own; --cross-boot compares them anyway", boot1, boot2);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	if (stats_compare(sides[0].x, sides[0].n, sides[1].x, sides[1].n, &a->so, &cmp) < 0) {
		error_msg("cannot compare: bad options");
		goto out;
	}
	ret = cmp.verdict == VERDICT_SAME ? HB_EXIT_OK :
	      cmp.verdict == VERDICT_DIFFERENT ? HB_EXIT_REGRESSION : HB_EXIT_UNDECIDED;
	switch (a->format) {
	case REPORT_JSON:
		json_comparison(q, &sides[0], &sides[1], &a->so, &cmp, metric, ret);
		break;
	case REPORT_MARKDOWN:
		markdown_comparison(q, &sides[0], &sides[1], &a->so, &cmp, metric, a->no_notes);
		break;
	default:
		print_comparison(q->game, q->metric, q->batch, &sides[0], &sides[1], &a->so, &cmp, metric,
				 !a->no_notes);
		break;
	}
out:
	for (int i = 0; i < 2; i++) {
		resultsdb_values_free(sides[i].v, sides[i].n);
		resultsdb_excluded_free(sides[i].ex, sides[i].n_ex);
		free(sides[i].x);
	}
	return ret;
}

int cmd_compare(int argc, char **argv, struct context *ctx)
{
	struct compare_args a = { .so = STATS_COMPARE_DEFAULT, .q = { .metric = "fps" } };
	struct resultsdb *db;
	int metric = 0, ret = parse_options(argc, argv, &a);

	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);
	ret = check_args(argc, argv, ctx->db_given, &a, &metric);
	if (ret != HB_EXIT_OK)
		return ret;
	if (a.paired)
		return compare_paired(ctx, a.paired, a.po, a.n_po, a.format == REPORT_JSON);
	a.q.machine = ctx->machine;
	ret = cmd_db_open(ctx, &db);
	if (ret != HB_EXIT_OK)
		return ret;
	return compare_sides(db, resultsdb_name(db), &a, (enum metric_id)metric);
}
