/*
 * The stall table's model (stalltable.h): a run's stalls as every output
 * shows them, built here once from stall_run_load() so that the text, the
 * JSON and the HTML report read the same rows, evidence, waits and
 * sources. What each output makes of it: stalltable-text.c,
 * stalltable-json.c, analysis/report/report-html-stalls.c.
 */
#include "stalls/stalltable.h"
#include "profile/profile.h"
#include "run/run.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *stall_table_section_words(enum stall_section sec)
{
	return sec == SS_LOAD ? "each pass's launch to its first present" : "frames over the threshold";
}

/* A number of a record's trailer (the recorder's own), NAN when absent
 * or not a number: shown as such, never guessed as atof() would. */
static double trailer_num(const char *v)
{
	double d;

	return v && safe_atod(v, &d) == 0 ? d : NAN;
}

/* t0: a record's clock pair (meta clock_pair=MONO_NS RT_NS) against
 * bench.txt's. */
/* "MONO_NS RT_NS", each by the strict parser (sscanf's %llu took a "-1"
 * as 2^64 - 1 and junk after a number). 0 or -EINVAL. */
static int clock_pair(const char *text, uint64_t *mono, uint64_t *rt)
{
	char *copy = xstrdup(text), *w[2];
	int r = str_words(copy, w, 2) == 2 && safe_atou64(w[0], mono) == 0 && safe_atou64(w[1], rt) == 0
			? 0 : -EINVAL;

	free(copy);
	return r;
}

static struct stall_table_t0 clock_t0(const char *bench_pair, const char *rec_pair)
{
	struct stall_table_t0 t0 = { .bench_lacks = !bench_pair };
	uint64_t bm, br, rm, rr;

	if (bench_pair && rec_pair && clock_pair(bench_pair, &bm, &br) == 0 &&
	    clock_pair(rec_pair, &rm, &rr) == 0) {
		t0.known = true;
		t0.ms = ((double)((int64_t)(rr - rm) - (int64_t)(br - bm))) / 1e6;
	}
	return t0;
}

/* The trailer's cost.PART_ns: what each part of a full row cost. */
static void stallrec_costs(const struct kvfile *tr, struct stall_table_stallrec *out)
{
	for (size_t i = 0; i < tr->n; i++) {
		const char *k = tr->items[i].key;
		size_t len = strlen(k);
		struct stall_table_cost *c;

		if (!str_startswith(k, "cost.") || len < 8 || strcmp(k + len - 3, "_ns"))
			continue;
		out->cost = xrealloc(out->cost, (out->n_cost + 1) * sizeof(*out->cost));
		c = &out->cost[out->n_cost++];
		c->part = xasprintf("%.*s", (int)(len - 8), k + 5);
		c->us = trailer_num(tr->items[i].value) / 1e3;
	}
}

/* frames: for each stall frame (not a load), the first sample whose
 * frames column counts its present, minus the present. */
static void stallrec_alignment(const struct stall_run *sr, struct stall_table_stallrec *out)
{
	const struct stallrec *r = &sr->rec;
	double *d = zalloc((sr->n_stall ? sr->n_stall : 1) * sizeof(*d));
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
	out->n_aligned = n;
	out->align_median_ms = stats_median(d, n);
	out->align_max_ms = NAN;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || d[i] > out->align_max_ms)
			out->align_max_ms = d[i];
	free(d);
}

static void stallrec_part(const struct run *run, const struct stall_run *sr, struct stall_table_stallrec *out)
{
	const struct stallrec *r = &sr->rec;
	const struct kvfile *tr = &r->trailer;
	const char *v;
	uint64_t samples;

	out->samples = r->n_rows;
	out->span_s = r->n_rows > 1 ? (double)(stallrec_at(r, SR_T_US, r->n_rows - 1) -
					       stallrec_at(r, SR_T_US, 0)) / 1e6 : 0;
	out->period_ms = (double)sr->an.period_us / 1e3;
	kvfile_init(&out->sources);
	for (size_t i = 0; i < r->meta.n; i++)
		if (str_startswith(r->meta.items[i].key, "sources."))
			kvfile_add(&out->sources, r->meta.items[i].key + 8, r->meta.items[i].value);
	if ((v = kvfile_get(tr, "samples")) && safe_atou64(v, &samples) == 0)
		out->trailer_samples = v;
	out->cpu_s = trailer_num(kvfile_get(tr, "cpu_us")) / 1e6;
	out->cpu_pct = kvfile_get(tr, "cpu_pct");
	out->us_per_sample = kvfile_get(tr, "us_per_sample");
	out->work_us = kvfile_get(tr, "work_us_per_sample");
	out->work_us_light = kvfile_get(tr, "work_us_light");
	out->work_us_full = kvfile_get(tr, "work_us_full");
	stallrec_costs(tr, out);
	stallrec_alignment(sr, out);
	out->t0 = clock_t0(kvfile_get(&run->bench, "clock_pair"), kvfile_get(&r->meta, "clock_pair"));
}

static void waitrec_part(const struct run *run, const struct waitrec *w, struct stall_table_waitrec *out)
{
	const struct kvfile *tr = &w->trailer;

	out->n_off = w->n_off;
	out->n_bio = w->n_bio;
	out->n_thread = w->n_thread;
	out->lost = w->lost;
	out->cut = w->cut;
	out->min_off_ns = kvfile_get(&w->meta, "min_off_ns");
	out->have_cost = kvfile_get(tr, "ns_per_event") != NULL;
	out->ns_per_event = trailer_num(kvfile_get(tr, "ns_per_event"));
	out->kernel_cpu_pct = kvfile_get(tr, "kernel_cpu_pct");
	out->user_cpu_pct = kvfile_get(tr, "user_cpu_pct");
	out->cpu_pct = trailer_num(out->kernel_cpu_pct) + trailer_num(out->user_cpu_pct);
	out->wall_s = trailer_num(kvfile_get(tr, "wall_us")) / 1e6;
	out->stop = kvfile_get(tr, "stop");
	out->t0 = clock_t0(kvfile_get(&run->bench, "clock_pair"), kvfile_get(&w->meta, "clock_pair"));
}

/* The samples of the stall record that cover st: from the first after
 * its start to the first at or after its end. */
static void row_samples(const struct stall_run *sr, const struct stall *st, struct stall_table_row *row)
{
	const struct stall_analysis *a = &sr->an;
	const struct stallrec *r = &sr->rec;
	size_t i = stall_first_sample(a, (int64_t)(st->start_ns / 1000) + 1), cap = 0;

	for (; i < r->n_rows && stallrec_at(r, SR_T_US, i - (i > 0)) < (int64_t)(st->end_ns / 1000); i++) {
		int64_t state = stallrec_at(r, SR_STATE, i);
		const char *fd = stallrec_str(r, stallrec_at(r, SR_FD, i));
		struct stall_table_sample *s;

		if (i == 0)
			continue;
		if (row->n_sample == cap) {
			cap = cap ? 2 * cap : 8;
			row->sample = xrealloc(row->sample, cap * sizeof(*row->sample));
		}
		s = &row->sample[row->n_sample++];
		s->t_s = ((double)stallrec_at(r, SR_T_US, i) * 1e3 - (double)sr->first_present_ns) / 1e9;
		s->state = state ? (char)state : '?';
		s->syscall = stallrec_str(r, stallrec_at(r, SR_SYSCALL, i));
		s->target = fd[0] ? fd : stallrec_str(r, stallrec_at(r, SR_WCHAN, i));
		s->cause = (enum stall_cause)a->cause[i];
		s->majflt = (long long)(stallrec_at(r, SR_MAIN_MAJFLT, i) -
					stallrec_at(r, SR_MAIN_MAJFLT, i - 1));
	}
}

static void row_fill(struct stall_table *t, const struct stall *st, struct stall_table_row *row)
{
	const struct stall_run *sr = &t->sr;
	struct strbuf sb = STRBUF_INIT;

	row->section = st->section;
	row->when_s = ((double)st->start_ns - (double)sr->first_present_ns) / 1e9;
	row->ms = (double)(st->end_ns - st->start_ns) / 1e6;
	row->cause = st->cause;
	row->decided = st->decided;
	memcpy(row->share_s, st->share_s, sizeof(row->share_s));
	stall_shares_describe(st, &sb);
	row->shares = strbuf_detach(&sb);
	/* what a CPU stall ran, from the profile, before the rest */
	if (t->prof && (st->share_s[SC_CPU] > 0 || st->share_s[SC_RUNQ] > 0)) {
		size_t len;

		strbuf_addstr(&sb, "cpu: ");
		len = sb.len;
		profile_what_in(t->prof, st->start_ns, st->end_ns, &sb);
		if (sb.len == len)
			strbuf_addstr(&sb, "no profile sample");
		strbuf_addstr(&sb, "; ");
	}
	/* a run without a stall record has only the wait record's waits,
	 * listed under the stall */
	if (sr->have_stallrec)
		stall_evidence(&sr->an, st, &sb);
	else
		strbuf_addstr(&sb, "no stall record: its waits below");
	row->evidence = strbuf_detach(&sb);
	row->waits = st->waits;
	row->n_waits = st->n_waits;
	if (sr->have_stallrec)
		row_samples(sr, st, row);
	t->n_in[st->section]++;
	for (int c = 0; c < SC_COUNT; c++)
		t->seconds[st->section][c] += st->share_s[c];
}

/* The run's profile record and the CPU categories, when both are there
 * (a CPU stall's "what"); nothing said otherwise: the table stands without. */
static void load_profile(const struct run *run, const struct metric_opts *opts, struct stall_table *t)
{
	struct strbuf err = STRBUF_INIT;

	if (!opts || !opts->gamedb_dirs)
		return;
	t->rules = zalloc(sizeof(*t->rules));
	t->prof = zalloc(sizeof(*t->prof));
	if (profile_load_run(run->dir, opts->gamedb_dirs, t->rules, t->prof, &err) < 0) {
		free(t->prof);
		free(t->rules);
		t->prof = NULL;
		t->rules = NULL;
	}
	strbuf_release(&err);
}

int stall_table_build(const struct run *run, const struct metric_opts *opts, struct stall_table *t,
		      struct strbuf *err)
{
	int r;

	/* loaded in place: the stall run's parts point at each other, and
	 * the rows into it */
	memset(t, 0, sizeof(*t));
	r = stall_run_load(run, opts, &t->sr, err);
	if (r < 0 && r != -ENOENT && r != -ENODATA)
		return r;
	t->none = r == -ENOENT ? STN_NO_RECORD : r == -ENODATA ? STN_NO_FRAMES : STN_SHOWN;
	t->run_name = xstrdup(run->name);
	t->run_dir = xstrdup(run->dir);
	if (t->none != STN_SHOWN)
		return 0;
	t->have_stallrec = t->sr.have_stallrec;
	t->have_waitrec = t->sr.have_waitrec;
	if (t->have_stallrec)
		stallrec_part(run, &t->sr, &t->rec);
	if (t->have_waitrec)
		waitrec_part(run, &t->sr.waits, &t->waits);
	load_profile(run, opts, t);
	t->row = zalloc((t->sr.n_stall ? t->sr.n_stall : 1) * sizeof(*t->row));
	for (size_t k = 0; k < t->sr.n_stall; k++)
		row_fill(t, &t->sr.stall[k], &t->row[t->n_row++]);
	return 0;
}

void stall_table_release(struct stall_table *t)
{
	if (!t)
		return;
	for (size_t k = 0; k < t->n_row; k++) {
		free(t->row[k].shares);
		free(t->row[k].evidence);
		free(t->row[k].sample);
	}
	free(t->row);
	if (t->prof)
		profile_release(t->prof);
	free(t->prof);
	if (t->rules)
		prof_rules_release(t->rules);
	free(t->rules);
	for (size_t i = 0; i < t->rec.n_cost; i++)
		free(t->rec.cost[i].part);
	free(t->rec.cost);
	kvfile_release(&t->rec.sources);
	stall_run_release(&t->sr);
	free(t->run_name);
	free(t->run_dir);
	memset(t, 0, sizeof(*t));
}
