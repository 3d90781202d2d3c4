/*
 * The stall table as `hitchbench stalls` prints it (stalltable.h): per
 * run the records' sources and their own cost, how the frames and t0
 * alignments agree, a table per section (load, warm-up, window) with the
 * waits of each stall the wait record decided, and the seconds per cause.
 * The words and columns are pinned by tests/cli/t1000, t1040 and t1041.
 */
#include "stalls/stalltable.h"

static const char *or_unknown(const char *v)
{
	return v ? v : "?";
}

void stall_table_text_heading(FILE *out, const char *run_name, const char *run_dir)
{
	fprintf(out, "run %s (%s)\n", run_name, run_dir);
}

static void text_t0(FILE *out, const struct stall_table_t0 *t0, const char *which)
{
	if (t0->known)
		fprintf(out, "  alignment (t0): the %s's clock pair against bench.txt's: realtime - "
			"monotonic differs by %+.3f ms\n", which, t0->ms);
	else
		fprintf(out, "  alignment (t0): no clock pair in %s\n", t0->bench_lacks ? "bench.txt" : which);
}

static void text_stallrec(FILE *out, const struct stall_table_stallrec *r)
{
	fprintf(out, "  record: %zu samples over %.3f s, period %.1f ms (meta period_us)\n", r->samples,
		r->span_s, r->period_ms);
	fprintf(out, "  sources:");
	for (size_t i = 0; i < r->sources.n; i++)
		fprintf(out, " %s=%s", r->sources.items[i].key, r->sources.items[i].value);
	fprintf(out, "\n");
	if (r->trailer_samples)
		fprintf(out, "  stallrec: %s samples, own CPU %.3f s (%s%% of a thread, %s us a sample)\n",
			r->trailer_samples, r->cpu_s, or_unknown(r->cpu_pct), or_unknown(r->us_per_sample));
	else
		fprintf(out, "  stallrec: no trailer (the recorder did not end cleanly)\n");
	if (r->work_us)
		fprintf(out, "  the sampling itself: %s us a sample (light rows %s us, full rows %s us); the "
			"rest of the CPU is the wakeup (trailer work_us_*)\n", r->work_us,
			or_unknown(r->work_us_light), or_unknown(r->work_us_full));
	fprintf(out, "  a full row's parts (trailer cost.*_ns: the mean over the full rows timed):");
	for (size_t i = 0; i < r->n_cost; i++)
		fprintf(out, " %s %.1f us", r->cost[i].part, r->cost[i].us);
	fprintf(out, "\n");
	if (r->n_aligned)
		fprintf(out, "  alignment (frames): %zu stall frames, first sample counting the present minus "
			"the present: median %.3f ms, max %.3f ms (expected within 0..%.1f ms, one period)\n",
			r->n_aligned, r->align_median_ms, r->align_max_ms, r->period_ms);
	else
		fprintf(out, "  alignment (frames): no stall frame to align\n");
	text_t0(out, &r->t0, "record");
}

static void text_waitrec(FILE *out, const struct stall_table_waitrec *w)
{
	fprintf(out, "  wait record: %zu waits, %zu block requests, %zu threads, %llu events lost%s "
		"(meta min_off_ns %s)\n", w->n_off, w->n_bio, w->n_thread, (unsigned long long)w->lost,
		w->cut ? ", its last line cut" : "", or_unknown(w->min_off_ns));
	if (w->have_cost)
		fprintf(out, "  stallbpf: %.0f ns an event in the kernel (bpf_stats), %.4f%% of one CPU (kernel "
			"%s%% + user %s%%) over %.3f s\n", w->ns_per_event, w->cpu_pct,
			or_unknown(w->kernel_cpu_pct), or_unknown(w->user_cpu_pct), w->wall_s);
	else
		fprintf(out, "  stallbpf: no trailer (the recorder did not end cleanly)\n");
	if (w->stop)
		fprintf(out, "  stallbpf stopped: %s\n", w->stop);
	text_t0(out, &w->t0, "wait record");
}

static void text_samples(FILE *out, const struct stall_table_row *row)
{
	for (size_t i = 0; i < row->n_sample; i++) {
		const struct stall_table_sample *s = &row->sample[i];

		fprintf(out, "      %+9.3f s  %c %-10s %-24s %-10s majflt +%lld\n", s->t_s, s->state,
			s->syscall, s->target, stall_cause_name(s->cause), s->majflt);
	}
}

static void text_section(FILE *out, const struct stall_table *t, enum stall_section sec, bool verbose)
{
	fprintf(out, "\n  %s (%s)\n", stall_section_name(sec), stall_table_section_words(sec));
	if (!t->n_in[sec]) {
		fprintf(out, "  none\n");
		return;
	}
	fprintf(out, "  %9s %8s  %-9s %-9s  %-28s %s\n", "when_s", "ms", "cause", "decided", "shares",
		"evidence");
	for (size_t k = 0; k < t->n_row; k++) {
		const struct stall_table_row *row = &t->row[k];

		if (row->section != sec)
			continue;
		fprintf(out, "  %+9.3f %8.1f  %-9s %-9s  %-28s %s\n", row->when_s, row->ms,
			stall_cause_name(row->cause), stall_decider_name(row->decided), row->shares,
			row->evidence);
		for (size_t i = 0; i < row->n_waits; i++)
			fprintf(out, "      - %s\n", row->waits[i]);
		if (verbose)
			text_samples(out, row);
	}
	fprintf(out, "  seconds per cause:");
	for (int c = 0; c < SC_COUNT; c++)
		if (t->seconds[sec][c] >= 0.0005)
			fprintf(out, " %s %.3f", stall_cause_name((enum stall_cause)c), t->seconds[sec][c]);
	fprintf(out, "\n");
}

void stall_table_text(FILE *out, const struct stall_table *t, enum stall_table_text_flags flags)
{
	if (t->none == STN_NO_RECORD) {
		fprintf(out, "  no stall record (%s) nor wait record (%s): the run was made without STALLS=1 "
			"or STALLS=bpf\n\n", HB_STALLREC_FILE, HB_WAITREC_FILE);
		return;
	}
	if (t->none == STN_NO_FRAMES) {
		fprintf(out, "  a stall record, but no frames or window to place stalls in\n\n");
		return;
	}
	if (t->have_stallrec)
		text_stallrec(out, &t->rec);
	else
		fprintf(out, "  stall record: none (%s): the sampler did not run; the wait record decides "
			"alone\n", HB_STALLREC_FILE);
	if (t->have_waitrec)
		text_waitrec(out, &t->waits);
	for (int s = 0; s < SS_COUNT; s++)
		text_section(out, t, (enum stall_section)s, flags & STT_VERBOSE);
	if (!(flags & STT_NO_NOTES))
		fprintf(out, "  (when_s: seconds after the first present; shares: of the stall's time, the "
			"sampled split or the exact counters' or the wait record's that decided; the lines "
			"under a stall are its waits from the wait record; docs/stalls.md)\n");
	fputc('\n', out);
}
