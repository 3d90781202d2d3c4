/*
 * hitchbench site: the results database as a static site (bench/site/
 * site.h): the fleet's history at a glance, every point opened down to its
 * batch. Built incrementally, so a lab job's end can refresh it.
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "cmd/report-paired.h"
#include "base/exitcodes.h"
#include "base/timeutil.h"
#include "site/site.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "version.h" /* generated: HB_VERSION */

static const char site_usage[] =
	"usage: hitchbench site [--db PATH|URL] --out DIR [--metric M]... [--seed N]\n"
	"\n"
	"  --out DIR       the site's directory (made when missing; refreshed when there)\n"
	"  --db PATH|URL   the results database: an SQLite file or a lab's postgresql://...\n"
	"  --metric M      a metric with trend pages (repeatable; default: fps low1 stall_s)\n"
	"  --seed N        the change points' permutation test's seed\n"
	"\n"
	"Pages: index.html (machines, games, newest batches, every change point, newest\n"
	"found first), a trend per game, run name and metric across kernels (a panel per\n"
	"machine, each point a batch linked to its report), a page per machine (what it is,\n"
	"what it ran, its noise) and per batch (its HTML report; an ab batch's verdict).\n"
	"Only pages whose data changed are written again. Prints one line: pages, written,\n"
	"unchanged, removed, change points (new), seconds. docs/site.md.\n"
	"\n"
	"SOURCE_DATE_EPOCH (seconds), when set, is the build's time: when a change point\n"
	"was found.\n"
	"\n"
	"exit status: 0 built, 1 a page lacks a part (said on it and on stderr) or a failure,\n"
	"2 usage, no such database, or a damaged DIR/site.state (its line said)\n";

static const enum metric_id default_metrics[] = { M_FPS, M_LOW1, M_STALL_S };

/* An ab batch's sequential test, as compare --paired prints it. */
static char *ab_text(const char *dir, void *arg)
{
	char *args[] = { (char *)dir };
	struct report_html_text *t = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;

	(void)arg;
	report_paired_tests(args, 1, &t, &n);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? "\n" : "", t[i].text);
	report_paired_free(t, n);
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

struct site_args {
	const char *out;
	enum metric_id metrics[M_COUNT];
	size_t n_metrics;
	uint64_t seed;
};

static int parse_args(int argc, char **argv, struct site_args *a)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "metric", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, id;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->out = optarg;
			break;
		case 'm':
			if (metric_arg(site_usage, optarg, &id) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			for (size_t i = 0; i < a->n_metrics; i++)
				if (a->metrics[i] == (enum metric_id)id)
					id = -1;
			if (id >= 0)
				a->metrics[a->n_metrics++] = (enum metric_id)id;
			break;
		case 's':
			if (safe_atou64(optarg, &a->seed) < 0 || a->seed == 0)
				return usage_error(site_usage, "--seed wants a whole number above 0, not '%s'", optarg);
			break;
		case 'h':
			fputs(site_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(site_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(site_usage, "site takes no arguments ('%s')", argv[optind]);
	if (!a->out || !*a->out)
		return usage_error(site_usage, "site wants --out DIR");
	if (!a->n_metrics) {
		memcpy(a->metrics, default_metrics, sizeof(default_metrics));
		a->n_metrics = ARRAY_SIZE(default_metrics);
	}
	return HB_EXIT_OK;
}

int cmd_site(int argc, char **argv, struct context *ctx)
{
	struct site_args a = { 0 };
	struct strbuf err = STRBUF_INIT, problems = STRBUF_INIT;
	struct site_stats st;
	struct site_opts o;
	struct resultsdb *db;
	char now[32];
	const char *epoch;
	int64_t when;
	int r;
	uint64_t t0 = mono_ns();
	int ret = parse_args(argc, argv, &a);

	if (ret != HB_EXIT_OK)
		return hb_args_exit(ret);
	if (ctx->machine)
		return usage_error(site_usage, "the site shows every machine: --machine is not for it");
	ret = cmd_db_open(ctx, &db);
	if (ret != HB_EXIT_OK)
		return ret;
	/* the build's time, as reproducible builds take it: SOURCE_DATE_EPOCH
	 * when set (two builds of one database then make the same pages) */
	epoch = getenv("SOURCE_DATE_EPOCH");
	if (epoch && *epoch) {
		if (safe_atoi64(epoch, &when) < 0 || when < 0) {
			error_msg("SOURCE_DATE_EPOCH is not a count of seconds: '%s'", epoch);
			return HB_EXIT_USAGE;
		}
		utc_iso8601((time_t)when, now, sizeof(now));
	} else {
		utc_iso8601(time(NULL), now, sizeof(now));
	}
	o = (struct site_opts){ .out = a.out, .metrics = a.metrics, .n_metrics = a.n_metrics,
				.generator = "hitchbench " HB_VERSION, .now_utc = now, .seed = a.seed,
				.ab_text = ab_text };
	r = site_build(db, &o, &st, &problems, &err);
	if (r < 0) {
		error_msg("cannot build the site in '%s': %s", a.out, err.buf);
		/* -EINVAL: its site.state is damaged (bad input, its line said) */
		ret = r == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
		goto out;
	}
	printf("site %s: %zu pages, %zu written, %zu unchanged, %zu removed; %zu change points (%zu new); "
	       "%.1f s\n", a.out, st.pages, st.written, st.unchanged, st.removed, st.change_points,
	       st.new_change_points, (double)(mono_ns() - t0) / 1e9);
	if (st.problems) {
		error_msg("%zu part%s of pages could not be made (the next build tries again):\n%s", st.problems,
			  st.problems == 1 ? "" : "s", problems.buf);
		ret = HB_EXIT_FAILURE;
	}
out:
	strbuf_release(&err);
	strbuf_release(&problems);
	return ret;
}
