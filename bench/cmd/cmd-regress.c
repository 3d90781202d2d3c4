/*
 * hitchbench regress: a metric of one run name across kernel versions,
 * in version order, with the change points E-divisive finds
 * (analysis/stats/changepoint.h). Exit 3 when there is a change point (in either
 * direction), 0 when there is none.
 */
#include "stats/changepoint.h"
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "text/jsonout.h"
#include "metrics/metrics.h"
#include "db/resultsdb-query.h"
#include "stats/stats.h"
#include "base/util.h"

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char regress_usage[] =
	"usage: hitchbench regress [--db PATH|URL] [--machine M] --metric M [--format table|tsv|json]\n"
	"                          [--no-notes] [--seed N] GAME RUN_NAME\n"
	"\n"
	"  RUN_NAME        variant@switches, or the variant for runs without switches\n"
	"  --metric M      the metric followed (names as in 'hitchbench report')\n"
	"  --machine M     only runs of this host name or machine id: a lab's database\n"
	"                  holds many, and a kernel is tracked on one machine at a time\n"
	"  --format tsv    columns: kernel median min max n change p magnitude\n"
	"  --format json   format 1: every kernel's figures, each change point, the\n"
	"                  options, the runs left out and the definitions\n"
	"  --no-notes      the table without the lines saying how it was computed\n"
	"\n"
	"exit status: 0 no change point, 3 a change point, 1 failure, 2 usage\n";

/* The runs of one kernel release: values[from, to) once sorted. */
struct kernel_row {
	const char *kernel;
	size_t from, to;
	double median, min, max;
	const struct changepoint *change;    /* the change that starts here, if any */
};

static int cmp_kernel(const void *x, const void *y)
{
	const struct resultsdb_value *a = x, *b = y;
	int c;

	if (!a->kernel_release || !b->kernel_release)
		return !!b->kernel_release - !!a->kernel_release;   /* NULL last */
	c = stats_version_cmp(a->kernel_release, b->kernel_release);
	if (c)
		return c;
	/* start order within a kernel (NULL first, as the query has it) */
	if (!a->started_utc || !b->started_utc)
		return !!a->started_utc - !!b->started_utc;
	return strcmp(a->started_utc, b->started_utc);
}

/* The version of regress's JSON document (docs/formats.md). */
#define HB_REGRESS_JSON_FORMAT 1
#define DEF_KERNEL_STATS "median, min, max, n: of the valid runs (status ok, not marked invalid) of each kernel"
#define DEF_CHANGE "E-divisive (Matteson and James 2014) over every run in kernel order, splits only " \
	"between kernels, with a permutation test; magnitude: the median of the runs from here to the " \
	"next change minus the median from the previous one to here"

static void print_table(const char *game, const char *name, const char *metric, int decimals,
			const struct kernel_row *rows, size_t nrows, size_t nvalues, size_t skipped,
			const struct changepoint_opts *o, bool no_notes)
{
	const int d = decimals + 1;

	printf("regress %s %s %s: %zu valid runs on %zu kernels, in version order\n", game, name, metric,
	       nvalues, nrows);
	if (skipped)
		printf("(%zu runs without a kernel release left out)\n", skipped);
	printf("%-24s %12s %12s %12s %5s  %s\n", "kernel", "median", "min", "max", "n", "change");
	for (size_t i = 0; i < nrows; i++) {
		printf("%-24s %12.*f %12.*f %12.*f %5zu", rows[i].kernel, d, rows[i].median, d, rows[i].min,
		       d, rows[i].max, rows[i].to - rows[i].from);
		if (rows[i].change)
			printf("  here: %+.*f (%+.2f%%), p=%.3g", d, rows[i].change->magnitude,
			       rows[i].change->median_before != 0.0 ?
				       100.0 * rows[i].change->magnitude / rows[i].change->median_before : NAN,
			       rows[i].change->p);
		putchar('\n');
	}
	if (no_notes)
		return;
	printf("\nmedian, min, max, n: of the valid runs (status ok, not marked invalid) of each kernel\n"
	       "change: E-divisive (Matteson and James 2014) over every run in kernel order, splits only\n"
	       "        between kernels; exponent %.1f, minimum segment %zu runs, permutation test of %u\n"
	       "        shuffles (seed %llu), significant at p <= %.2f; the change is the median of the runs\n"
	       "        from here to the next change minus the median from the previous one to here\n",
	       o->exponent, o->min_size, o->permutations, (unsigned long long)o->seed, o->sig_level);
}

static void print_tsv(const struct kernel_row *rows, size_t nrows)
{
	printf("kernel\tmedian\tmin\tmax\tn\tchange\tp\tmagnitude\n");
	for (size_t i = 0; i < nrows; i++) {
		printf("%s\t%.17g\t%.17g\t%.17g\t%zu\t%d\t", rows[i].kernel, rows[i].median, rows[i].min,
		       rows[i].max, rows[i].to - rows[i].from, rows[i].change ? 1 : 0);
		if (rows[i].change)
			printf("%.17g\t%.17g\n", rows[i].change->p, rows[i].change->magnitude);
		else
			printf("-\t-\n");
	}
}

static void print_json(const struct resultsdb_query *q, const struct kernel_row *rows, size_t nrows,
		       size_t nvalues, size_t skipped, const struct changepoint_opts *o, size_t ncps,
		       const struct resultsdb_excluded *ex, size_t n_ex, int exit_status)
{
	struct json_out j;

	json_out_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_int(&j, "format", HB_REGRESS_JSON_FORMAT);
	json_string(&j, "game", q->game);
	json_string(&j, "run_name", q->run_name);
	json_string(&j, "metric", q->metric);
	json_string(&j, "machine", q->machine);
	json_uint(&j, "runs", nvalues);
	json_uint(&j, "runs_without_kernel", skipped);
	json_array_begin(&j, "kernels");
	for (size_t i = 0; i < nrows; i++) {
		const struct changepoint *c = rows[i].change;

		json_object_begin_inline(&j, NULL);
		json_string(&j, "kernel", rows[i].kernel);
		json_number(&j, "median", true, rows[i].median);
		json_number(&j, "min", true, rows[i].min);
		json_number(&j, "max", true, rows[i].max);
		json_uint(&j, "n", rows[i].to - rows[i].from);
		if (c) {
			json_object_begin_inline(&j, "change");
			json_number(&j, "p", true, c->p);
			json_number(&j, "magnitude", true, c->magnitude);
			json_number(&j, "median_before", true, c->median_before);
			json_number(&j, "median_after", true, c->median_after);
			json_object_end(&j);
		} else {
			json_null(&j, "change");
		}
		json_object_end(&j);
	}
	json_array_end(&j);
	json_uint(&j, "change_points", ncps);
	json_object_begin_inline(&j, "options");
	json_number(&j, "exponent", true, o->exponent);
	json_uint(&j, "min_size", o->min_size);
	json_uint(&j, "permutations", o->permutations);
	json_uint(&j, "seed", o->seed);
	json_number(&j, "sig_level", true, o->sig_level);
	json_object_end(&j);
	json_int(&j, "exit_status", exit_status);
	json_array_begin(&j, "excluded");
	for (size_t i = 0; i < n_ex; i++) {
		json_object_begin_inline(&j, NULL);
		json_string(&j, "run", ex[i].name);
		json_string(&j, "why", ex[i].why);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_begin(&j, "definitions");
	json_string(&j, "kernels", DEF_KERNEL_STATS);
	json_string(&j, "change", DEF_CHANGE);
	json_object_end(&j);
	json_object_end(&j);
}

/* "excluded RUN: WHY" for each run of the run name that does not count
 * (on stderr, where the data goes to stdout, with the program's prefix). */
static void print_excluded(FILE *out, const struct resultsdb_excluded *ex, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%sexcluded %s: %s\n", out == stderr ? "hitchbench: " : "", ex[i].name,
			ex[i].why);
}

/* The values of one kernel release after another: rows of x (sorted by
 * kernel), and where E-divisive may split (only between kernels). */
static size_t kernel_rows(const struct resultsdb_value *v, size_t n, double *x, bool *may_split,
			  struct kernel_row *rows)
{
	size_t nrows = 0;

	for (size_t i = 0; i < n; i++) {
		x[i] = v[i].value;
		if (i == 0 || strcmp(v[i].kernel_release, v[i - 1].kernel_release) != 0) {
			may_split[i] = true;
			rows[nrows++] = (struct kernel_row){ .kernel = v[i].kernel_release, .from = i };
		}
		rows[nrows - 1].to = i + 1;
	}
	for (size_t r = 0; r < nrows; r++) {
		struct kernel_row *k = &rows[r];

		k->median = stats_median(x + k->from, k->to - k->from);
		k->min = k->max = x[k->from];
		for (size_t i = k->from; i < k->to; i++) {
			k->min = fmin(k->min, x[i]);
			k->max = fmax(k->max, x[i]);
		}
	}
	return nrows;
}

struct regress_args {
	struct resultsdb_query q;
	struct changepoint_opts co;
	int metric;
	bool tsv, json, no_notes;
};

static int parse_args(int argc, char **argv, struct regress_args *a)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "seed", required_argument, NULL, 's' },
		{ "no-notes", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			a->q.metric = optarg;
			break;
		case 'f':
			a->tsv = a->json = false;
			if (!strcmp(optarg, "tsv"))
				a->tsv = true;
			else if (!strcmp(optarg, "json"))
				a->json = true;
			else if (strcmp(optarg, "table") != 0)
				return usage_error(regress_usage, "unknown format '%s' (this command prints table, tsv, json)",
						   optarg);
			break;
		case 'N':
			a->no_notes = true;
			break;
		case 's':
			if (safe_atou64(optarg, &a->co.seed) < 0)
				return usage_error(regress_usage, "--seed wants a whole number, not '%s'", optarg);
			break;
		case 'h':
			fputs(regress_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(regress_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (argc - optind != 2)
		return usage_error(regress_usage, "regress wants GAME RUN_NAME");
	if (!a->q.metric)
		return usage_error(regress_usage, "regress wants --metric");
	if (metric_arg(regress_usage, a->q.metric, &a->metric) != HB_EXIT_OK)
		return HB_EXIT_USAGE;
	a->q.game = argv[optind];
	a->q.run_name = argv[optind + 1];
	return HB_EXIT_OK;
}

int cmd_regress(int argc, char **argv, struct context *ctx)
{
	struct regress_args a = { .co = CHANGEPOINT_OPTS_DEFAULT };
	const struct resultsdb_query *q = &a.q;
	struct resultsdb_value *v = NULL;
	struct resultsdb_excluded *ex = NULL;
	struct changepoint *cps = NULL;
	struct kernel_row *rows = NULL;
	struct resultsdb *db;
	const char *path, *m1, *m2;
	size_t n = 0, nused = 0, nrows, ncps = 0, n_ex = 0;
	bool *may_split = NULL;
	double *x = NULL;
	struct strbuf err = STRBUF_INIT;
	int ret = parse_args(argc, argv, &a);

	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);
	a.q.machine = ctx->machine;
	ret = cmd_db_open(ctx, &db);
	if (ret != HB_EXIT_OK)
		return ret;
	path = resultsdb_name(db);
	ret = HB_EXIT_FAILURE;
	if (resultsdb_metric_values(db, q, &v, &n, &err) < 0 ||
	    resultsdb_excluded_runs(db, q, &ex, &n_ex, &err) < 0) {
		error_msg("cannot read the results database '%s': %s", path, err.buf);
		strbuf_release(&err);
		goto out;
	}
	/* a kernel's effect is tracked on one machine: two machines differ by
	 * more than their kernels */
	if (resultsdb_values_machines(v, n, &m1, &m2) > 1) {
		error_msg("the runs of %s '%s' in '%s' come from %zu machines (%s, %s, ...): name one with "
			  "--machine HOST", q->game, q->run_name, path, resultsdb_values_machines(v, n, &m1, &m2),
			  m1, m2);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	/* runs that do not say their kernel cannot be placed: sorted last, left out */
	qsort(v, n, sizeof(*v), cmp_kernel);
	while (nused < n && v[nused].kernel_release)
		nused++;
	if (nused == 0) {
		error_msg("no valid runs of %s '%s' with %s and a kernel release in '%s'", q->game,
			  q->run_name, q->metric, path);
		print_excluded(stderr, ex, n_ex);
		goto out;
	}
	if (nused > CHANGEPOINT_MAX_VALUES) {
		error_msg("%zu runs: change points are looked for in at most %d", nused, CHANGEPOINT_MAX_VALUES);
		goto out;
	}
	x = zalloc(sizeof(*x) * nused);
	may_split = zalloc(sizeof(*may_split) * nused);
	rows = zalloc(sizeof(*rows) * nused);
	nrows = kernel_rows(v, nused, x, may_split, rows);
	if (changepoint_edivisive(x, nused, may_split, &a.co, &cps, &ncps) < 0) {
		error_msg("cannot look for change points in %zu runs", nused);
		goto out;
	}
	for (size_t i = 0; i < ncps; i++)
		for (size_t r = 0; r < nrows; r++)
			if (rows[r].from == cps[i].index)
				rows[r].change = &cps[i];
	ret = ncps ? HB_EXIT_REGRESSION : HB_EXIT_OK;
	if (a.json) {
		print_json(q, rows, nrows, nused, n - nused, &a.co, ncps, ex, n_ex, ret);
		goto out;
	}
	if (a.tsv)
		print_tsv(rows, nrows);
	else
		print_table(q->game, q->run_name, q->metric, metric_defs[a.metric].decimals, rows, nrows,
			    nused, n - nused, &a.co, a.no_notes);
	/* the runs not counted, and why: after the table, or beside the TSV */
	print_excluded(a.tsv ? stderr : stdout, ex, n_ex);
out:
	resultsdb_values_free(v, n);
	resultsdb_excluded_free(ex, n_ex);
	free(cps);
	free(rows);
	free(x);
	free(may_split);
	return ret;
}
