/*
 * A run's stalls with their causes (stallcause.h): the loads, the
 * warm-up's and the window's stall frames placed on the stall record, and
 * the metrics users read from them (stall_*_s, load_disk_s, warm_disk_s,
 * the recorder's own cost). run_metrics() calls stall_metrics(), so
 * result.txt, reports, the matrix and the database all get them; the
 * stall table (stalltable.h: `hitchbench stalls`, the HTML report) shows
 * the stalls themselves.
 */
#include "text/argv.h"
#include "run/run.h"
#include "stalls/stallwaits.h"
#include "stalls/stallcause.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The main thread of the stall that present f ends: the process that
 * presented it, else the stall record's pid at the stall's end. 0 when
 * neither says (frames imported from a log, no stall record): the wait
 * record cannot then tell which of its threads is the main one. */
static int32_t main_tid(const struct run *run, const struct stall_run *sr, size_t f, uint64_t end_ns)
{
	size_t i;

	if (run->frames.pid && f < run->frames.n && run->frames.pid[f] > 0 && run->frames.pid[f] <= INT32_MAX)
		return (int32_t)run->frames.pid[f];
	if (sr->have_stallrec) {
		i = stall_first_sample(&sr->an, (int64_t)(end_ns / 1000));
		if (i < sr->rec.n_rows && stallrec_at(&sr->rec, SR_PID, i) > 0)
			return (int32_t)stallrec_at(&sr->rec, SR_PID, i);
	}
	return 0;
}

/* The wait record decides where its lines speak for at least half of the
 * stall, and wherever the run has no stall record. */
static void bpf_decide(const struct run *run, struct stall_run *sr, struct stall *st, size_t present)
{
	int32_t tid = main_tid(run, sr, present, st->end_ns);
	double len = (double)(st->end_ns - st->start_ns) / 1e9;
	struct stall bst = *st;
	struct argv_list lines;

	if (tid <= 0)
		return;
	argv_init(&lines);
	if (stall_waits_attribute(sr->bpf, tid, st->start_ns, st->end_ns, &bst, &lines) * 2 > len &&
	    sr->have_stallrec) {
		argv_release(&lines);
		return;
	}
	*st = bst;
	st->waits = lines.v;
	st->n_waits = lines.n;
}

/* A stall (a, b] ended by present f. */
static struct stall *add_stall(const struct run *run, struct stall_run *sr, size_t *cap,
			       enum stall_section sec, size_t frame, size_t present, uint64_t a, uint64_t b)
{
	struct stall *st;

	if (sr->n_stall == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		sr->stall = xrealloc(sr->stall, *cap * sizeof(*sr->stall));
	}
	st = &sr->stall[sr->n_stall++];
	memset(st, 0, sizeof(*st));
	st->section = sec;
	st->frame = frame;
	stall_attribute(&sr->an, a, b, st);
	if (sr->have_waitrec)
		bpf_decide(run, sr, st, present);
	return st;
}

/* Each pass's load: its launch (bench.txt pass.N.start_ns) to the first
 * present after it. Its disk seconds: the wait record's where it decided,
 * else the delay accounting's, else the disk samples'. */
static void add_loads(const struct run *run, struct stall_run *sr, size_t *cap)
{
	const uint64_t *t = run->frames.t_ns;
	int blkio = sr->rec.known[SR_DLY_BLKIO_US];
	struct reload_pass *passes;
	size_t n = run_passes(run, &passes), f = 0;

	sr->load_disk_delay = blkio >= 0;
	for (size_t k = 0; k < n; k++) {
		uint64_t start = passes[k].start_ns;
		const struct stall *st;

		while (f < run->frames.n && t[f] <= start)
			f++;
		if (f == run->frames.n)
			break;
		st = add_stall(run, sr, cap, SS_LOAD, (size_t)passes[k].pass, f, start, t[f]);
		if (sr->load_disk_s < 0)
			sr->load_disk_s = 0;
		if (st->decided == SD_BPF)
			sr->load_disk_s += st->share_s[SC_DISK];
		else
			sr->load_disk_s += blkio >= 0 ? stall_delta_in(&sr->an, blkio, start, t[f]) / 1e6
						      : stall_sampled_in(&sr->an, SC_DISK, start, t[f]);
	}
	free(passes);
}

/* The run's records: either may be missing (-ENOENT when both are); a
 * run without a stall record gets an empty one, so the sampled split says
 * unknown and the wait record decides. A record that is not there is no
 * error: only one that does not read says why in err. */
static int load_records(const struct run *run, struct stall_run *out, struct strbuf *err)
{
	static const char *const t_only[] = { "t_us" };
	static const uint8_t t_enc[] = { SR_ENC_DELTA2 };
	struct strbuf why = STRBUF_INIT;
	char *path = xasprintf("%s/%s", run->dir, HB_STALLREC_FILE);
	int r = stallrec_load(path, &out->rec, &why);

	free(path);
	if (r < 0 && r != -ENOENT)
		goto out;
	out->have_stallrec = r == 0;
	if (!out->have_stallrec)
		stallrec_set_columns(&out->rec, t_only, t_enc, 1);
	strbuf_reset(&why);
	path = xasprintf("%s/%s", run->dir, HB_WAITREC_FILE);
	r = waitrec_load(path, &out->waits, &why);
	free(path);
	if (r < 0 && r != -ENOENT)
		goto out;
	out->have_waitrec = r == 0;
	if (out->have_waitrec) {
		out->bpf = zalloc(sizeof(*out->bpf));
		stall_waits_init(out->bpf, &out->waits, kvfile_get(&out->rec.meta, "swaps"));
	}
	r = out->have_stallrec || out->have_waitrec ? 0 : -ENOENT;
out:
	if (r < 0 && r != -ENOENT && why.len)
		strbuf_addstr(err, why.buf);
	strbuf_release(&why);
	return r;
}

int stall_run_load(const struct run *run, const struct metric_opts *opts, struct stall_run *out,
		   struct strbuf *err)
{
	static const struct metric_opts defaults = METRIC_OPTS_DEFAULT;
	const char *ff = kvfile_get(&run->bench, "first_frame_ns");
	const uint64_t *t = run->frames.t_ns;
	struct metric_recreations rec;
	uint64_t *rec_ns = NULL;
	size_t cap = 0, k = 0;
	int r;

	if (!opts)
		opts = &defaults;
	memset(out, 0, sizeof(*out));
	out->load_disk_s = -1;
	stallrec_init(&out->rec);
	waitrec_init(&out->waits);
	r = load_records(run, out, err);
	if (r < 0) {
		stall_run_release(out);
		return r;
	}
	if (stall_analysis_init(&out->an, &out->rec) < 0) {
		strbuf_addf(err, "%s/%s: no t_us column", run->dir, HB_STALLREC_FILE);
		stall_run_release(out);
		return -EINVAL;
	}
	if (!run->have_frames || !run->have_window || run->frames.n == 0) {
		stall_run_release(out);
		return -ENODATA;
	}
	out->first_present_ns = t[0];
	if (ff && safe_atou64(ff, &out->first_present_ns) < 0)
		out->first_present_ns = t[0];
	add_loads(run, out, &cap);
	if (!run_recreations(run, &rec, &rec_ns))
		rec.n = 0;
	/* the warm-up (first present, window start] and the window: frames
	 * over the threshold, as metrics_compute() counts them (one that
	 * spans a swapchain recreation is none) */
	for (size_t i = 1; i < run->frames.n; i++) {
		enum stall_section sec;
		bool recreated;

		while (k < rec.n && rec_ns[k] <= t[i - 1])
			k++;
		recreated = k < rec.n && rec_ns[k] <= t[i];
		if (t[i] > out->first_present_ns && t[i] <= run->window_start_ns)
			sec = SS_WARM;
		else if (t[i] > run->window_start_ns && t[i] <= run->window_end_ns)
			sec = SS_WINDOW;
		else
			continue;
		if (!recreated && (double)(t[i] - t[i - 1]) / 1e6 > opts->stall_ms)
			add_stall(run, out, &cap, sec, i, i, t[i - 1], t[i]);
	}
	free(rec_ns);
	return 0;
}

void stall_run_release(struct stall_run *sr)
{
	if (!sr)
		return;
	for (size_t k = 0; k < sr->n_stall; k++) {
		for (size_t i = 0; i < sr->stall[k].n_waits; i++)
			free(sr->stall[k].waits[i]);
		free(sr->stall[k].waits);
	}
	stall_waits_release(sr->bpf);
	free(sr->bpf);
	waitrec_release(&sr->waits);
	stall_analysis_release(&sr->an);
	stallrec_release(&sr->rec);
	free(sr->stall);
	memset(sr, 0, sizeof(*sr));
}

static void set(struct metrics *m, enum metric_id id, double v)
{
	m->v[id] = v;
	m->have[id] = true;
}

static bool trailer_num(const struct kvfile *tr, const char *key, double *d)
{
	const char *v = kvfile_get(tr, key);

	return v && safe_atod(v, d) == 0;
}

static void trailer_metric(const struct kvfile *tr, struct metrics *m, enum metric_id id,
			   const char *key, double scale)
{
	double d;

	if (trailer_num(tr, key, &d))
		set(m, id, d * scale);
}

/* The BPF recorder's cost from the wait record's trailer: the kernel's
 * run time an event, the kernel's and the user side's share of one CPU,
 * and the events its programs handled (the sum of prog.NAME.runs). */
static void waitrec_metrics(const struct waitrec *w, struct metrics *m)
{
	const struct kvfile *tr = &w->trailer;
	double k, u, runs = 0, v;
	bool any = false;

	trailer_metric(tr, m, M_STALLBPF_NS_PER_EVENT, "ns_per_event", 1);
	if (trailer_num(tr, "kernel_cpu_pct", &k) && trailer_num(tr, "user_cpu_pct", &u))
		set(m, M_STALLBPF_CPU_PCT, k + u);
	for (size_t i = 0; i < tr->n; i++) {
		const char *key = tr->items[i].key;
		size_t len = strlen(key);

		if (str_startswith(key, "prog.") && len > 10 && !strcmp(key + len - 5, ".runs") &&
		    safe_atod(tr->items[i].value, &v) == 0) {
			runs += v;
			any = true;
		}
	}
	if (any)
		set(m, M_STALLBPF_EVENTS, runs);
}

void stall_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m)
{
	struct strbuf err = STRBUF_INIT;
	struct stall_run sr;
	double warm_disk = 0;
	bool warm = false;

	/* an unreadable record cannot be reported from here: `hitchbench
	 * stalls` says what is wrong with it */
	if (stall_run_load(run, opts, &sr, &err) < 0) {
		strbuf_release(&err);
		return;
	}
	for (int g = 0; g < SG_COUNT; g++)
		set(m, (enum metric_id)(M_STALL_DISK_S + g), 0);
	for (size_t k = 0; k < sr.n_stall; k++) {
		const struct stall *st = &sr.stall[k];

		if (st->section == SS_WARM) {
			warm = true;
			warm_disk += st->share_s[SC_DISK];
		}
		if (st->section != SS_WINDOW)
			continue;
		for (int c = 0; c < SC_COUNT; c++)
			m->v[M_STALL_DISK_S + stall_cause_group((enum stall_cause)c)] += st->share_s[c];
	}
	if (sr.load_disk_s >= 0)
		set(m, M_LOAD_DISK_S, sr.load_disk_s);
	/* a warm-up without stall frames waited 0 s on the disk in them */
	if (warm || m->have[M_STALLS_WARM])
		set(m, M_WARM_DISK_S, warm_disk);
	trailer_metric(&sr.rec.trailer, m, M_STALLREC_SAMPLES, "samples", 1);
	trailer_metric(&sr.rec.trailer, m, M_STALLREC_CPU_S, "cpu_us", 1e-6);
	trailer_metric(&sr.rec.trailer, m, M_STALLREC_CPU_PCT, "cpu_pct", 1);
	trailer_metric(&sr.rec.trailer, m, M_STALLREC_US_PER_SAMPLE, "us_per_sample", 1);
	trailer_metric(&sr.rec.trailer, m, M_STALLREC_WORK_US, "work_us_per_sample", 1);
	if (sr.have_waitrec)
		waitrec_metrics(&sr.waits, m);
	stall_run_release(&sr);
	strbuf_release(&err);
}

void stall_shares_describe(const struct stall *st, struct strbuf *out)
{
	double len = (double)(st->end_ns - st->start_ns) / 1e9;
	bool used[SC_COUNT] = { false };

	for (int n = 0; n < 3; n++) {
		int best = -1;

		for (int c = 0; c < SC_COUNT; c++)
			if (!used[c] && st->share_s[c] >= 0.005 * len && (best < 0 || st->share_s[c] > st->share_s[best]))
				best = c;
		if (best < 0)
			break;
		used[best] = true;
		strbuf_addf(out, "%s%s %.0f%%", n ? " " : "", stall_cause_name((enum stall_cause)best),
			    100 * st->share_s[best] / len);
	}
}
