/*
 * hitchbench stalls: why each run stalled, stall by stall, from its stall
 * record and its wait record (analysis/stalls/stallcause.h, analysis/stalls/stallbpf.h,
 * docs/stalls.md): the records' sources and their own cost, how the frames
 * and t0 alignments agree, a table per section (load, warm-up, window)
 * with the waits of each stall the wait record decided, and the seconds
 * per cause.
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "text/jsonout.h"
#include "run/run.h"
#include "stalls/stallcause.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char stalls_usage[] =
	"usage: hitchbench stalls [--stall-ms MS] [-v] [--format table|json] [--no-notes] RUNDIR...\n"
	"\n"
	"  RUNDIR          a run directory with a stall record (STALLS=1) or a wait record\n"
	"                  (STALLS=bpf), or a directory of them\n"
	"  --stall-ms MS   a frame over MS is a stall (default 100)\n"
	"  -v              the samples of each stall too\n"
	"  --format json   format 1: per run, every stall (section, when, length, cause, who\n"
	"                  decided, each cause's seconds, the evidence, its waits) and the seconds\n"
	"                  per cause\n"
	"  --no-notes      the table without its closing line saying what the columns are\n";

/* The version of stalls' JSON document (docs/formats.md). */
#define HB_STALLS_JSON_FORMAT 1

struct stalls_opts {
	struct metric_opts mo;
	bool verbose, json, no_notes;
	struct json_out j;      /* json: the document being written */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A number of the record's trailer (the recorder's own), NAN when absent
 * or not a number: printed as such, never guessed as atof() would. */
static double trailer_num(const char *v)
{
	double d;

	return v && safe_atod(v, &d) == 0 ? d : NAN;
}

static void print_sources(const struct stall_run *sr)
{
	const struct stallrec *r = &sr->rec;
	const struct kvfile *tr = &r->trailer;
	const char *v;
	double span = r->n_rows > 1 ? (double)(stallrec_at(r, SR_T_US, r->n_rows - 1) -
					       stallrec_at(r, SR_T_US, 0)) / 1e6 : 0;
	uint64_t samples = r->n_rows;

	printf("  record: %zu samples over %.3f s, period %.1f ms (meta period_us)\n", r->n_rows,
	       span, (double)sr->an.period_us / 1e3);
	printf("  sources:");
	for (size_t i = 0; i < r->meta.n; i++)
		if (str_startswith(r->meta.items[i].key, "sources."))
			printf(" %s=%s", r->meta.items[i].key + 8, r->meta.items[i].value);
	printf("\n");
	if ((v = kvfile_get(tr, "samples")) && safe_atou64(v, &samples) == 0)
		printf("  stallrec: %s samples, own CPU %.3f s (%s%% of a thread, %s us a sample)\n", v,
		       trailer_num(kvfile_get(tr, "cpu_us")) / 1e6,
		       kvfile_get(tr, "cpu_pct") ? kvfile_get(tr, "cpu_pct") : "?",
		       kvfile_get(tr, "us_per_sample") ? kvfile_get(tr, "us_per_sample") : "?");
	else
		printf("  stallrec: no trailer (the recorder did not end cleanly)\n");
	if ((v = kvfile_get(tr, "work_us_per_sample")))
		printf("  the sampling itself: %s us a sample (light rows %s us, full rows %s us); the rest "
		       "of the CPU is the wakeup (trailer work_us_*)\n", v,
		       kvfile_get(tr, "work_us_light") ? kvfile_get(tr, "work_us_light") : "?",
		       kvfile_get(tr, "work_us_full") ? kvfile_get(tr, "work_us_full") : "?");
	printf("  a full row's parts (trailer cost.*_ns: the mean over the full rows timed):");
	for (size_t i = 0; i < tr->n; i++) {
		const char *k = tr->items[i].key;
		size_t len = strlen(k);

		if (!str_startswith(k, "cost.") || len < 8 || strcmp(k + len - 3, "_ns"))
			continue;
		printf(" %.*s %.1f us", (int)(len - 8), k + 5, trailer_num(tr->items[i].value) / 1e3);
	}
	printf("\n");
}

/* t0: a record's clock pair (meta clock_pair=MONO_NS RT_NS) against
 * bench.txt's. */
static void print_t0(const char *bp, const char *rp, const char *which)
{
	unsigned long long bm, br, rm, rr;

	if (bp && rp && sscanf(bp, "%llu %llu", &bm, &br) == 2 && sscanf(rp, "%llu %llu", &rm, &rr) == 2)
		printf("  alignment (t0): the %s's clock pair against bench.txt's: realtime - "
		       "monotonic differs by %+.3f ms\n", which,
		       ((double)((long long)(rr - rm) - (long long)(br - bm))) / 1e6);
	else
		printf("  alignment (t0): no clock pair in %s\n", bp ? which : "bench.txt");
}

/* The wait record: what it holds and what the BPF recorder cost. */
static void print_waits_source(const struct run *run, const struct stall_run *sr)
{
	const struct waitrec *w = &sr->waits;
	const struct kvfile *tr = &w->trailer;
	const char *v;

	printf("  wait record: %zu waits, %zu block requests, %zu threads, %llu events lost%s "
	       "(meta min_off_ns %s)\n", w->n_off, w->n_bio, w->n_thread, (unsigned long long)w->lost,
	       w->cut ? ", its last line cut" : "",
	       (v = kvfile_get(&w->meta, "min_off_ns")) ? v : "?");
	if (kvfile_get(tr, "ns_per_event"))
		printf("  stallbpf: %.0f ns an event in the kernel (bpf_stats), %.4f%% of one CPU (kernel %s%% + "
		       "user %s%%) over %.3f s\n", trailer_num(kvfile_get(tr, "ns_per_event")),
		       trailer_num(kvfile_get(tr, "kernel_cpu_pct")) + trailer_num(kvfile_get(tr, "user_cpu_pct")),
		       (v = kvfile_get(tr, "kernel_cpu_pct")) ? v : "?",
		       kvfile_get(tr, "user_cpu_pct") ? kvfile_get(tr, "user_cpu_pct") : "?",
		       trailer_num(kvfile_get(tr, "wall_us")) / 1e6);
	else
		printf("  stallbpf: no trailer (the recorder did not end cleanly)\n");
	if ((v = kvfile_get(tr, "stop")))
		printf("  stallbpf stopped: %s\n", v);
	print_t0(kvfile_get(&run->bench, "clock_pair"), kvfile_get(&w->meta, "clock_pair"), "wait record");
}

/* frames: for each stall frame, the first sample whose frames column
 * counts its present, minus the present; t0: the clock pairs' offsets. */
static void print_alignment(const struct run *run, const struct stall_run *sr)
{
	const struct stallrec *r = &sr->rec;
	double *d = zalloc((sr->n_stall ? sr->n_stall : 1) * sizeof(*d));
	const char *bp = kvfile_get(&run->bench, "clock_pair"), *rp = kvfile_get(&r->meta, "clock_pair");
	size_t n = 0;

	for (size_t k = 0; k < sr->n_stall && r->known[SR_FRAMES] >= 0; k++) {
		const struct stall *st = &sr->stall[k];

		if (st->section == SS_LOAD)
			continue;
		for (size_t i = 0; i < r->n_rows; i++)
			if (stallrec_at(r, SR_FRAMES, i) >= (int64_t)st->frame + 1) {
				d[n++] = (double)stallrec_at(r, SR_T_US, i) / 1e3 - (double)st->end_ns / 1e6;
				break;
			}
	}
	if (n) {
		qsort(d, n, sizeof(*d), cmp_double);
		printf("  alignment (frames): %zu stall frames, first sample counting the present minus "
		       "the present: median %.3f ms, max %.3f ms (expected within 0..%.1f ms, one period)\n",
		       n, n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2, d[n - 1],
		       (double)sr->an.period_us / 1e3);
	} else {
		printf("  alignment (frames): no stall frame to align\n");
	}
	print_t0(bp, rp, "record");
	free(d);
}

/* The evidence of the stall record's samples; a run without one has only
 * the wait record's waits, listed under the stall. */
static void evidence(const struct stall_run *sr, const struct stall *st, struct strbuf *out)
{
	if (sr->have_stallrec)
		stall_evidence(&sr->an, st, out);
	else
		strbuf_addstr(out, "no stall record: its waits below");
}

static void print_samples(const struct stall_run *sr, const struct stall *st)
{
	const struct stall_analysis *a = &sr->an;
	const struct stallrec *r = &sr->rec;
	size_t i = stall_first_sample(a, (int64_t)(st->start_ns / 1000) + 1);

	for (; i < r->n_rows && stallrec_at(r, SR_T_US, i - (i > 0)) < (int64_t)(st->end_ns / 1000); i++) {
		int64_t state = stallrec_at(r, SR_STATE, i);

		if (i == 0)
			continue;
		printf("      %+9.3f s  %c %-10s %-24s %-10s majflt +%lld\n",
		       ((double)stallrec_at(r, SR_T_US, i) * 1e3 - (double)sr->first_present_ns) / 1e9,
		       state ? (char)state : '?', stallrec_str(r, stallrec_at(r, SR_SYSCALL, i)),
		       stallrec_str(r, stallrec_at(r, SR_FD, i))[0] ? stallrec_str(r, stallrec_at(r, SR_FD, i))
								  : stallrec_str(r, stallrec_at(r, SR_WCHAN, i)),
		       stall_cause_name((enum stall_cause)a->cause[i]),
		       (long long)(stallrec_at(r, SR_MAIN_MAJFLT, i) - stallrec_at(r, SR_MAIN_MAJFLT, i - 1)));
	}
}

static void print_section(const struct stall_run *sr, enum stall_section sec, bool verbose)
{
	double per[SC_COUNT] = { 0 };
	bool any = false;

	printf("\n  %s%s\n", stall_section_name(sec),
	       sec == SS_LOAD ? " (each pass's launch to its first present)" : " (frames over the threshold)");
	for (size_t k = 0; k < sr->n_stall; k++) {
		const struct stall *st = &sr->stall[k];
		struct strbuf shares = STRBUF_INIT, ev = STRBUF_INIT;

		if (st->section != sec)
			continue;
		if (!any)
			printf("  %9s %8s  %-9s %-9s  %-28s %s\n", "when_s", "ms", "cause", "decided", "shares",
			       "evidence");
		any = true;
		stall_shares_describe(st, &shares);
		evidence(sr, st, &ev);
		printf("  %+9.3f %8.1f  %-9s %-9s  %-28s %s\n",
		       ((double)st->start_ns - (double)sr->first_present_ns) / 1e9,
		       (double)(st->end_ns - st->start_ns) / 1e6, stall_cause_name(st->cause),
		       stall_decider_name(st->decided), shares.buf, ev.buf);
		for (size_t i = 0; i < st->n_waits; i++)
			printf("      - %s\n", st->waits[i]);
		if (verbose && sr->have_stallrec)
			print_samples(sr, st);
		for (int c = 0; c < SC_COUNT; c++)
			per[c] += st->share_s[c];
		strbuf_release(&shares);
		strbuf_release(&ev);
	}
	if (!any) {
		printf("  none\n");
		return;
	}
	printf("  seconds per cause:");
	for (int c = 0; c < SC_COUNT; c++)
		if (per[c] >= 0.0005)
			printf(" %s %.3f", stall_cause_name((enum stall_cause)c), per[c]);
	printf("\n");
}

/* One run's object in the JSON document's "runs". */
static void json_stall_run(struct json_out *j, const struct run *run, const struct stall_run *sr,
			   const char *none)
{
	json_object_begin(j, NULL);
	json_string(j, "run", run->name);
	json_string(j, "dir", run->dir);
	json_string(j, "no_stalls_because", none);
	json_bool(j, "stall_record", sr && sr->have_stallrec);
	json_bool(j, "wait_record", sr && sr->have_waitrec);
	json_array_begin(j, "stalls");
	for (size_t k = 0; sr && k < sr->n_stall; k++) {
		const struct stall *st = &sr->stall[k];
		struct strbuf ev = STRBUF_INIT;

		evidence(sr, st, &ev);
		json_object_begin_inline(j, NULL);
		json_string(j, "section", stall_section_name(st->section));
		json_number(j, "when_s", true, ((double)st->start_ns - (double)sr->first_present_ns) / 1e9);
		json_number(j, "ms", true, (double)(st->end_ns - st->start_ns) / 1e6);
		json_string(j, "cause", stall_cause_name(st->cause));
		json_string(j, "decided", stall_decider_name(st->decided));
		json_object_begin_inline(j, "share_s");
		for (int c = 0; c < SC_COUNT; c++)
			if (st->share_s[c] > 0)
				json_number(j, stall_cause_name((enum stall_cause)c), true, st->share_s[c]);
		json_object_end(j);
		json_string(j, "evidence", ev.buf);
		json_array_begin_inline(j, "waits");
		for (size_t i = 0; i < st->n_waits; i++)
			json_string(j, NULL, st->waits[i]);
		json_array_end(j);
		json_object_end(j);
		strbuf_release(&ev);
	}
	json_array_end(j);
	json_object_begin(j, "seconds_per_cause");
	for (int s = 0; sr && s < SS_COUNT; s++) {
		double per[SC_COUNT] = { 0 };

		for (size_t k = 0; k < sr->n_stall; k++)
			for (int c = 0; c < SC_COUNT && sr->stall[k].section == (enum stall_section)s; c++)
				per[c] += sr->stall[k].share_s[c];
		json_object_begin_inline(j, stall_section_name((enum stall_section)s));
		for (int c = 0; c < SC_COUNT; c++)
			if (per[c] > 0)
				json_number(j, stall_cause_name((enum stall_cause)c), true, per[c]);
		json_object_end(j);
	}
	json_object_end(j);
	json_object_end(j);
}

static int stalls_one(const char *dir, struct stalls_opts *so, bool *had)
{
	struct strbuf err = STRBUF_INIT;
	struct stall_run sr;
	struct run run;
	int r;

	if (run_load(dir, &run, &err) < 0) {
		error_msg("%s", err.buf);
		strbuf_release(&err);
		return HB_EXIT_FAILURE;
	}
	if (!so->json)
		printf("run %s (%s)\n", run.name, run.dir);
	r = stall_run_load(&run, &so->mo, &sr, &err);
	if (r == -ENOENT && so->json) {
		json_stall_run(&so->j, &run, NULL, "no stall record nor wait record: the run was made without "
			       "STALLS=1 or STALLS=bpf");
		r = 0;
		goto out;
	}
	if (r == -ENODATA && so->json) {
		*had = true;
		json_stall_run(&so->j, &run, NULL, "no frames or window to place stalls in");
		r = 0;
		goto out;
	}
	if (r == -ENOENT) {
		printf("  no stall record (%s) nor wait record (%s): the run was made without STALLS=1 or "
		       "STALLS=bpf\n\n", HB_STALLREC_FILE, HB_WAITREC_FILE);
		r = 0;
		goto out;
	}
	if (r == -ENODATA) {
		*had = true;
		printf("  a stall record, but no frames or window to place stalls in\n\n");
		r = 0;
		goto out;
	}
	if (r < 0) {
		error_msg("%s", err.buf);
		goto out;
	}
	*had = true;
	if (so->json) {
		json_stall_run(&so->j, &run, &sr, NULL);
		stall_run_release(&sr);
		goto out;
	}
	if (sr.have_stallrec) {
		print_sources(&sr);
		print_alignment(&run, &sr);
	} else {
		printf("  stall record: none (%s): the sampler did not run; the wait record decides alone\n",
		       HB_STALLREC_FILE);
	}
	if (sr.have_waitrec)
		print_waits_source(&run, &sr);
	for (int s = 0; s < SS_COUNT; s++)
		print_section(&sr, (enum stall_section)s, so->verbose);
	if (!so->no_notes)
		printf("  (when_s: seconds after the first present; shares: of the stall's time, the "
		       "sampled split or the exact counters' or the wait record's that decided; the lines "
		       "under a stall are its waits from the wait record; docs/stalls.md)\n");
	putchar('\n');
	stall_run_release(&sr);
out:
	run_release(&run);
	strbuf_release(&err);
	return r < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

int cmd_stalls(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "stall-ms", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-notes", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stalls_opts so = { .mo = METRIC_OPTS_DEFAULT };
	enum report_format format = REPORT_TABLE;
	struct argv_list list;
	bool had = false;
	int c, ret = HB_EXIT_OK;

	so.mo.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	while ((c = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (safe_atod(optarg, &so.mo.stall_ms) < 0 || so.mo.stall_ms <= 0)
				return usage_error(stalls_usage, "--stall-ms wants milliseconds > 0, not '%s'", optarg);
			break;
		case 'v':
			so.verbose = true;
			break;
		case 'f':
			if (format_arg(stalls_usage, optarg, FORMAT_BIT(REPORT_TABLE) | FORMAT_BIT(REPORT_JSON),
				       &format) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			so.json = format == REPORT_JSON;
			break;
		case 'N':
			so.no_notes = true;
			break;
		case 'h':
			fputs(stalls_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(stalls_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(stalls_usage, "stalls wants run directories");
	argv_init(&list);
	ret = rundir_args_expand(argv + optind, argc - optind, &list);
	if (ret != HB_EXIT_OK) {
		argv_release(&list);
		return ret;
	}
	if (so.json) {
		json_out_init(&so.j, stdout);
		json_object_begin(&so.j, NULL);
		json_int(&so.j, "format", HB_STALLS_JSON_FORMAT);
		json_number(&so.j, "stall_ms", true, so.mo.stall_ms);
		json_array_begin(&so.j, "runs");
	}
	for (size_t i = 0; i < list.n; i++)
		if (stalls_one(list.v[i], &so, &had) != HB_EXIT_OK)
			ret = HB_EXIT_FAILURE;
	if (so.json) {
		json_array_end(&so.j);
		json_object_begin(&so.j, "definitions");
		json_string(&so.j, "when_s", "seconds after the run's first present");
		json_string(&so.j, "share_s", "the stall's seconds by cause: the sampled split, or the exact "
			    "counters' of the source that decided (docs/stalls.md)");
		json_string(&so.j, "cause", "the cause with the largest share");
		json_string(&so.j, "waits", "decided by bpf: the main thread's waits inside the stall, from "
			    "the wait record, for people (docs/stalls.md)");
		json_object_end(&so.j);
		json_object_end(&so.j);
	}
	argv_release(&list);
	if (!had && ret == HB_EXIT_OK) {
		error_msg("no run given has a stall record (%s) or a wait record (%s): make runs with STALLS=1 "
			  "or STALLS=bpf", HB_STALLREC_FILE, HB_WAITREC_FILE);
		return HB_EXIT_USAGE;
	}
	return ret;
}
