/*
 * Loading a run directory for analysis (see run.h).
 */
#include "run/run.h"
#include "profile/profile.h"
#include "run/runflip.h"
#include "run/runrelay.h"
#include "stalls/stallcause.h"

#include "base/timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int get_u64(const struct run *run, const char *key, uint64_t *out)
{
	const char *v = kvfile_get(&run->bench, key);

	return v ? safe_atou64(v, out) : -ENOENT;
}

/* Observers mark a disturbed run in bench.txt: invalid=1 (the sensor
 * sampler, the thermal guard, a watcher that failed) or interfered=1
 * (the interference watcher), each with a _reason. */
static char *run_disturbed(const struct kvfile *bench)
{
	static const char *const marks[] = { "invalid", "interfered" };

	for (size_t i = 0; i < ARRAY_SIZE(marks); i++) {
		char *key = xasprintf("%s_reason", marks[i]);
		const char *v = kvfile_get(bench, marks[i]), *why = kvfile_get(bench, key);

		free(key);
		if (v && strcmp(v, "1") == 0)
			return why ? xasprintf("%s=1 (%s)", marks[i], why) : xasprintf("%s=1", marks[i]);
	}
	return NULL;
}

int run_load(const char *dir, struct run *out, struct strbuf *err)
{
	struct run run;
	char *path = NULL;
	const char *fmt, *why = NULL;
	const char *slash;
	struct stat st;
	int version, r;

	memset(&run, 0, sizeof(run));
	kvfile_init_repeats(&run.bench, kvfile_bench_repeats);
	run.dir = xstrdup(dir);
	while (strlen(run.dir) > 1 && run.dir[strlen(run.dir) - 1] == '/')
		run.dir[strlen(run.dir) - 1] = '\0';
	slash = strrchr(run.dir, '/');
	run.name = xstrdup(slash ? slash + 1 : run.dir);

	path = xasprintf("%s/bench.txt", run.dir);
	r = kvfile_load(&run.bench, path, err);
	if (r < 0)
		goto fail;
	fmt = kvfile_get(&run.bench, "format");
	if (!fmt || safe_atoi(fmt, &version) < 0 || version < 1) {
		strbuf_addf(err, "%s: no format= line: not a hitchbench run directory", path);
		r = -EINVAL;
		goto fail;
	}
	if (version > HB_RUNDIR_FORMAT) {
		strbuf_addf(err, "%s: format %d is newer than this hitchbench reads (%d)",
			    path, version, HB_RUNDIR_FORMAT);
		r = -EINVAL;
		goto fail;
	}
	run.id = kvfile_get(&run.bench, "run_id");
	run.game = kvfile_get(&run.bench, "game");
	run.variant = kvfile_get(&run.bench, "variant");
	run.status = kvfile_get(&run.bench, "status");
	if (!run.id || !run.game || !run.variant || !run.status) {
		strbuf_addf(err, "%s: run_id, game, variant and status are required", path);
		r = -EINVAL;
		goto fail;
	}
	run.disturbed = run_disturbed(&run.bench);
	run.have_window = get_u64(&run, "window_start_ns", &run.window_start_ns) == 0 &&
			  get_u64(&run, "window_end_ns", &run.window_end_ns) == 0;

	free(path);
	path = xasprintf("%s/frames.bin", run.dir);
	if (stat(path, &st) == 0) {
		r = hb_frames_load(path, &run.frames, &why);
		if (r < 0) {
			strbuf_addf(err, "%s: %s", path, why);
			goto fail;
		}
		run.have_frames = true;
		swapchain_log_build(&run.swapchains, &run.frames);
	}
	free(path);
	path = xasprintf("%s/%s", run.dir, HB_RELAY_FILE);
	run.relay = zalloc(sizeof(*run.relay));
	relay_record_init(run.relay);
	r = relay_record_load(path, run.relay, err);
	if (r == -ENOENT) {
		free(run.relay);
		run.relay = NULL;
	} else if (r < 0) {
		goto fail;
	}
	free(path);
	*out = run;
	return 0;
fail:
	free(path);
	run_release(&run);
	return r;
}

void run_release(struct run *run)
{
	if (!run)
		return;
	free(run->dir);
	free(run->name);
	free(run->disturbed);
	free(run->invalid);
	free(run->frames_note);
	free(run->frames_api);
	free(run->cpu_what);
	swapchain_log_release(&run->swapchains);
	if (run->relay)
		relay_record_release(run->relay);
	free(run->relay);
	kvfile_release(&run->bench);
	hb_frames_release(&run->frames);
	memset(run, 0, sizeof(*run));
}

/* The PROBE switch's lateness, the largest over the CPUs: bench.txt's
 * probe.cpuN.worst_us and probe.cpuN.p999_us (">=20000" counts as 20000,
 * "-" for a CPU with no wakeup is left out). */
static void run_probe_metrics(const struct run *run, struct metrics *m)
{
	for (size_t i = 0; i < run->bench.n; i++) {
		const char *k = run->bench.items[i].key, *v = run->bench.items[i].value;
		enum metric_id id;
		double d;

		if (!str_startswith(k, "probe.cpu"))
			continue;
		if (strstr(k, ".worst_us"))
			id = M_PROBE_WORST_US;
		else if (strstr(k, ".p999_us"))
			id = M_PROBE_P999_US;
		else
			continue;
		if (str_startswith(v, ">="))
			v += 2;
		if (safe_atod(v, &d) < 0 || d < 0)
			continue;
		if (!m->have[id] || d > m->v[id]) {
			m->v[id] = d;
			m->have[id] = true;
		}
	}
}

/* The host's noise figures bench.txt carries as they are (docs/formats.md
 * "Host noise"); "-" (steal without a steal clock) or no key leaves the
 * metric unset, never 0. */
static const struct {
	const char *key;
	enum metric_id id;
} noise_figures[] = {
	{ "noise.steal_pct", M_STEAL_PCT },
	{ "noise.foreign_cpu_pct", M_FOREIGN_CPU_PCT },
	{ "noise.irq_pct", M_IRQ_PCT },
	{ "noise.game_runq_ms_per_s", M_GAME_RUNQ_MS_PER_S },
};

/* A figure of bench.txt: a number >= 0 (run_check() refuses any other). */
static bool get_figure(const struct run *run, const char *key, double *out)
{
	const char *v = kvfile_get(&run->bench, key);

	return v && safe_atod(v, out) == 0 && isfinite(*out) && *out >= 0;
}

/* cpu_ms_per_frame: the game's CPU time between the runner's two
 * snapshots over the frames that ended between them, (t0, t1] as the
 * window counts frames; the snapshots' own interval, not the window's,
 * so the CPU time and the frames cover the same span. Unset without the
 * keys or without a frame in the interval. */
static void run_noise_metrics(const struct run *run, struct metrics *m)
{
	uint64_t t0, t1, frames = 0;
	double v;

	for (size_t i = 0; i < ARRAY_SIZE(noise_figures); i++) {
		if (get_figure(run, noise_figures[i].key, &v)) {
			m->v[noise_figures[i].id] = v;
			m->have[noise_figures[i].id] = true;
		}
	}
	if (get_u64(run, "noise.t0_ns", &t0) < 0 || get_u64(run, "noise.t1_ns", &t1) < 0 || t1 <= t0 ||
	    !get_figure(run, "noise.game_cpu_ms", &v))
		return;
	for (uint64_t i = 1; i < run->frames.n; i++)
		if (run->frames.t_ns[i] > t0 && run->frames.t_ns[i] <= t1)
			frames++;
	if (frames > 0) {
		m->v[M_CPU_MS_PER_FRAME] = v / (double)frames;
		m->have[M_CPU_MS_PER_FRAME] = true;
	}
}

const struct metric_recreations *run_recreations(const struct run *run, struct metric_recreations *rec,
						 uint64_t **buf)
{
	*buf = NULL;
	if (!run->swapchains.n && !run->swapchains.dropped)
		return NULL;
	rec->n = swapchain_recreation_times(&run->swapchains, buf);
	rec->t_ns = *buf;
	return rec;
}

/* A run of a relay (runrelay.h): the window's frames that touch no gap,
 * laid end to end, so that the time the game was stopped is neither frames
 * nor stalls. -ENODATA when none is left. */
static int relay_window_metrics(const struct run *run, const struct metric_opts *o, struct metrics *m)
{
	const uint64_t *t = run->frames.t_ns;
	struct run_relay_gaps g;
	uint64_t *p = zalloc(sizeof(*p) * (run->frames.n + 1));
	size_t n = 0, k = 0;
	int r = -ENODATA;

	run_relay_gaps(run, &g);
	for (size_t i = 1; i < run->frames.n; i++) {
		if (t[i] <= run->window_start_ns || t[i] > run->window_end_ns ||
		    run_relay_in_gap(&g, &k, t[i - 1], t[i]))
			continue;
		p[n + 1] = p[n] + (t[i] - t[i - 1]);
		n++;
	}
	if (n > 0 && p[n] > 0)
		r = metrics_compute(p, n + 1, 0, p[n], o, m);
	run_relay_gaps_release(&g);
	free(p);
	return r;
}

int run_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m)
{
	static const struct metric_opts defaults = METRIC_OPTS_DEFAULT;
	const char *source = kvfile_get(&run->bench, "frame_source");
	const char *version = kvfile_get(&run->bench, "log.version");
	struct metric_opts o = opts ? *opts : defaults;
	struct metric_recreations rec;
	uint64_t *rec_ns;
	int r;

	if (!run->have_window || !run->have_frames)
		return -ENODATA;
	/* a MangoHud log: its summary numbers as the version that wrote it
	 * printed them (the importer's log.version; the first of several) */
	if (source && strcmp(source, "mangohud") == 0 && version)
		o.mangohud = mangohud_formula_for_version(version);
	if (run->relay && run->relay->mode == RELAY_MODE_RELAY) {
		/* the stops are the relay's: no warm-up, play or stall-record
		 * figures, which would read them as the game's */
		r = relay_window_metrics(run, &o, m);
		if (r == 0) {
			run_probe_metrics(run, m);
			run_noise_metrics(run, m);
		}
		return r;
	}
	r = metrics_compute_recreated(run->frames.t_ns, run->frames.n, run->window_start_ns,
				      run->window_end_ns, run_recreations(run, &rec, &rec_ns), &o, m);
	free(rec_ns);
	if (r == 0) {
		run_window_metrics(run, opts, m);
		stall_metrics(run, opts, m);
		run_probe_metrics(run, m);
		run_noise_metrics(run, m);
		/* samples are not frames: what needs every frame is unknown;
		 * but MangoHud's summary of a log of samples came from those
		 * very samples, so its figures stand (docs/metrics.md) */
		if (run_is_interval(run)) {
			bool mh = source && strcmp(source, "mangohud") == 0;
			bool keep[3] = { m->have[M_MANGOHUD_LOW01], m->have[M_MANGOHUD_LOW1],
					 m->have[M_MANGOHUD_P97] };

			run_interval_unset(m);
			m->have[M_MANGOHUD_LOW01] = mh && keep[0];
			m->have[M_MANGOHUD_LOW1] = mh && keep[1];
			m->have[M_MANGOHUD_P97] = mh && keep[2];
		}
	}
	return r;
}

void run_sources_of_file(const struct hb_frames *f, struct run_window_sources *ws)
{
	memset(ws, 0, sizeof(*ws));
	for (unsigned s = 0; s < HB_SRC_MAX; s++) {
		ws->per_source[s] = f->per_source[s];
		ws->n += f->per_source[s];
	}
}

/* A run of a relay or a duet says so under the table (its frames_note,
 * after any other): with whom, how, and what its numbers count. */
static void relay_note(struct run *run, struct strbuf *note)
{
	const struct relay_record *r = run->relay;
	const char *partner = kvfile_get(&run->bench, "relay.partner");

	strbuf_reset(note);
	if (run->frames_note)
		strbuf_addf(note, "%s; ", run->frames_note);
	if (r->mode == RELAY_MODE_DUET) {
		strbuf_addf(note, "made in a duet as %c with %s (relay.txt): both played at once, this game on "
			    "CPUs %s", r->role, partner ? partner : "its partner", r->cpus);
	} else {
		struct run_relay_gaps g;

		run_relay_gaps(run, &g);
		strbuf_addf(note, "made in a relay as %c with %s (relay.txt): turns of %g s, this game stopped "
			    "in the other's; its numbers count its own turns' frames from %g ms after each resume, "
			    "laid end to end (%.1f s played of a %.1f s window)", r->role,
			    partner ? partner : "its partner", r->turn_s, r->settle_ms,
			    (double)(run->window_end_ns - run->window_start_ns - g.gap_ns) / 1e9,
			    (double)(run->window_end_ns - run->window_start_ns) / 1e9);
		run_relay_gaps_release(&g);
	}
	free(run->frames_note);
	run->frames_note = strbuf_detach(note);
}

/* The presents of the run's window by source (the whole file's without
 * a window). */
static void run_sources(const struct run *run, struct run_window_sources *ws)
{
	if (run->have_window)
		run_window_sources_of(&run->frames, run->window_start_ns, run->window_end_ns, ws);
	else
		run_sources_of_file(&run->frames, ws);
}

char *run_window_api(const struct run *run)
{
	struct run_window_sources ws;

	if (!run->have_frames)
		return NULL;
	run_sources(run, &ws);
	return run_frames_api(&ws);
}

/* What the report says of where the run's frames came from: the API of
 * the window's frames, as the runner records it in bench.txt (the whole
 * file's without a window), and
 * for a Vulkan run its note and swapchain events. */
static void run_frames_row(struct run *run, struct report_row *row)
{
	const struct hb_frames *f = &run->frames;
	struct strbuf note = STRBUF_INIT;
	struct run_window_sources ws;

	run_sources(run, &ws);
	free(run->frames_api);
	free(run->frames_note);
	run->frames_api = run_frames_api(&ws);
	run->frames_note = NULL;
	if (swapchain_note_applies(&run->swapchains, f->per_source[HB_SRC_VK_QUEUE_PRESENT])) {
		strbuf_addf(&note, "%s (window: ", run->frames_api);
		run_window_sources_describe(&ws, false, &note);
		strbuf_addstr(&note, ws.n ? "), " : "no frame), ");
		swapchain_note(&run->swapchains, f->n ? f->t_ns[0] : 0,
			       run->have_window ? run->window_start_ns : 0,
			       run->have_window ? run->window_end_ns : 0, &note);
		run->frames_note = strbuf_detach(&note);
	}
	if (run->relay && run->have_window)
		relay_note(run, &note);
	row->api = run->frames_api;
	row->frames_note = run->frames_note;
	row->swapchains = &run->swapchains;
	row->first_present_ns = f->n ? f->t_ns[0] : 0;
	if (run->have_window) {
		row->window_start_ns = run->window_start_ns;
		row->window_end_ns = run->window_end_ns;
	}
	strbuf_release(&note);
}

/* A flip run's figures into f (its analysis at the report's stall
 * threshold); f->have false when the run is not one or cannot be read as
 * one (hitchbench flip says why). */
static void run_flip_row(const struct run *run, const struct metric_opts *opts, struct report_flip *f)
{
	struct strbuf err = STRBUF_INIT;
	struct run_flip rf;

	memset(f, 0, sizeof(*f));
	if (!kvfile_get(&run->bench, "flip") || !run->have_frames || !run->have_window)
		return;
	run_flip_init(&rf);
	rf.stall_ms = opts ? opts->stall_ms : FLIP_STALL_MS_DEFAULT;
	if (run_flip_analyse(run, &rf, &err) == 0) {
		f->have = true;
		f->what = kvfile_get(&run->bench, "flip");
		f->segments = rf.n_segs;
		f->counted = rf.counted;
		f->pairs = rf.n_pairs;
		f->blocks = rf.n_blocks;
		f->block_size = rf.block_size;
		f->estimate = rf.n_blocks ? rf.estimate : NAN;
		f->se = rf.n_blocks > 1 ? rf.se : NAN;
		f->stalls_a = rf.stalls_a;
		f->stalls_b = rf.stalls_b;
		f->frames_a = rf.frames_a;
		f->frames_b = rf.frames_b;
		f->p99_a = rf.p99_a;
		f->p99_b = rf.p99_b;
	}
	run_flip_release(&rf);
	strbuf_release(&err);
}

bool run_report_row(struct run *run, const struct metric_opts *opts, struct report_row *row)
{
	run_validate(run, opts);
	memset(row, 0, sizeof(*row));
	row->run = run->name;
	row->game = run->game;
	/* runs are compared by variant and switches: "software@rec10" */
	row->run_name = kvfile_get(&run->bench, "run_name");
	if (!row->run_name)
		row->run_name = run->variant;
	row->status = run->status;
	/* its data failed a check: not counted, and why */
	row->invalid = run->invalid;
	row->interval = run_is_interval(run);
	/* an observer said the run was disturbed: not counted */
	row->disturbed = run->disturbed;
	row->run_id = run->id;
	row->dir = run->dir;
	row->provenance = &run->bench;
	row->batch = kvfile_get(&run->bench, "batch_id");
	row->kernel = kvfile_get(&run->bench, "kernel_release");
	row->started_utc = kvfile_get(&run->bench, "started_utc");
	if (run->have_frames)
		run_frames_row(run, row);
	run_flip_row(run, opts, &row->flip);
	free(run->cpu_what);
	run->cpu_what = profile_stall_cpu_what(run, opts);
	row->cpu_what = run->cpu_what;
	return run_metrics(run, opts, &row->m) == 0;
}

double run_wall_seconds(const struct run *run)
{
	time_t t0, t1;

	if (utc_iso8601_parse(kvfile_get(&run->bench, "started_utc"), &t0) < 0 ||
	    utc_iso8601_parse(kvfile_get(&run->bench, "ended_utc"), &t1) < 0 || t1 < t0)
		return 0;
	return (double)(t1 - t0);
}

void run_make_id(char out[33])
{
	unsigned char b[16];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		uint64_t t = real_ns() ^ ((uint64_t)getpid() << 32);

		memcpy(b, &t, 8);
		t = mono_ns();
		memcpy(b + 8, &t, 8);
	}
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int run_write_result(const char *dir, const char *status, const struct metric_opts *opts,
		     struct strbuf *err)
{
	struct kvfile res;
	struct run run;
	struct metrics m;
	char *path = xasprintf("%s/result.txt", dir);
	int r;

	kvfile_init(&res);
	r = run_load(dir, &run, err);
	if (r < 0)
		goto out;
	/* the caller's status, checked as report and db import check it */
	run.status = status;
	run_validate(&run, opts);
	kvfile_addf(&res, "format", "%d", HB_RUNDIR_FORMAT);
	kvfile_add(&res, "status", run.status);
	if (run.invalid)
		kvfile_add(&res, "check_failed", run.invalid);
	if (run.relay && run.relay->mode == RELAY_MODE_RELAY)
		kvfile_add(&res, "window", "frames whose end is in (window_start_ns, window_end_ns] and whose "
			   "interval touches no stop of the relay (relay.txt: a stop's due time to its resume "
			   "plus settle_ms), laid end to end: window_s is the time played");
	else
		kvfile_add(&res, "window", "frames whose end is in (window_start_ns, window_end_ns]");
	if (run_is_interval(&run))
		kvfile_add(&res, "frame_time", "a logged sample's frame time (an interval log: the "
			   "metrics are over samples, not frames, and those that need every frame "
			   "are left out)");
	else
		kvfile_add(&res, "frame_time", "interval between consecutive presents");
	kvfile_addf(&res, "stall_ms", "%g", opts->stall_ms);
	kvfile_add(&res, "percentile", percentile_def_name(opts->pct));
	/* a disturbed run says so, loudly, before its numbers: they are no evidence */
	if (run.disturbed && str_startswith(run.disturbed, "interfered=1")) {
		const char *why = kvfile_get(&run.bench, "interfered_reason");

		kvfile_addf(&res, "disturbed", "!! INTERFERENCE: %s: THIS RUN IS INVALID",
			    why ? why : "someone used the machine");
	} else if (run.disturbed) {
		kvfile_addf(&res, "disturbed", "!! %s: THIS RUN IS INVALID", run.disturbed);
	}
	if (run_metrics(&run, opts, &m) == 0) {
		for (int i = 0; i < M_COUNT; i++)
			if (m.have[i])
				kvfile_addf(&res, metric_defs[i].name, "%.6f", m.v[i]);
	}
	/* the PROBE switch's lateness per CPU, beside the frames it may explain */
	for (size_t i = 0; i < run.bench.n; i++) {
		const char *k = run.bench.items[i].key;

		if (str_startswith(k, "probe.cpu") &&
		    (strstr(k, ".worst_us") || strstr(k, ".p999_us")))
			kvfile_add(&res, k, run.bench.items[i].value);
	}
	run_release(&run);
	r = kvfile_write(&res, path);
	if (r < 0)
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(-r));
out:
	kvfile_release(&res);
	free(path);
	return r;
}
