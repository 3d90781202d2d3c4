/*
 * The run directory (runner-internal.h, docs/formats.md): made under a
 * temporary name, bench.txt's provenance and the reload rule written
 * before the game starts, and at the end the frame file, the game's HOME,
 * the end keys, bench.txt and result.txt, SHA256SUMS of it all, then the
 * rename that makes the run whole.
 */
#include "runner/runner-internal.h"
#include "runner/framesource.h"
#include "base/hash.h"
#include "runner/provenance.h"
#include "run/run.h"
#include "formats/sha256sums.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEEP_HOME_MAX_FILE (16LL << 20)

int runner_record_create(struct runner *rn, const char *name, const struct strbuf *header, struct strbuf *err)
{
	char *path = xasprintf("%s/%s", rn->tmp_dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, header->buf, header->len) != (ssize_t)header->len) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -EIO;
	}
	free(path);
	return fd;
}

void runner_record_append(struct runner *rn, int fd, const char *name, bool *failed, const struct strbuf *line)
{
	if (fd >= 0 && write(fd, line->buf, line->len) != (ssize_t)line->len && !*failed) {
		*failed = true;
		switch_ctx_invalid(&rn->sw, "cannot append to %s: %s", name, strerror(errno));
	}
}

int runner_make_dir(struct runner *rn, time_t start, struct strbuf *err)
{
	char stamp[32];
	int r;

	utc_compact(start, stamp, sizeof(stamp));
	r = mkdir_p(rn->req->out_dir, 0755);
	if (r < 0) {
		strbuf_addf(err, "cannot create '%s': %s", rn->req->out_dir, strerror(-r));
		return r;
	}
	for (int i = 1; i < 100; i++) {
		char *name = i == 1 ? xasprintf("%s-%s-%s", stamp, rn->req->recipe->name, runner_label(rn))
				    : xasprintf("%s-%s-%s-%d", stamp, rn->req->recipe->name,
						runner_label(rn), i);

		free(rn->final_dir);
		free(rn->tmp_dir);
		rn->final_dir = xasprintf("%s/%s", rn->req->out_dir, name);
		rn->tmp_dir = xasprintf("%s/.%s.tmp", rn->req->out_dir, name);
		free(name);
		if (access(rn->final_dir, F_OK) == 0)
			continue;
		if (mkdir(rn->tmp_dir, 0755) == 0)
			return 0;
		if (errno != EEXIST) {
			strbuf_addf(err, "cannot create '%s': %s", rn->tmp_dir, strerror(errno));
			return -errno;
		}
	}
	strbuf_addf(err, "too many runs named like '%s'", rn->final_dir);
	return -EEXIST;
}

/* The switches as the token set them, and every value in effect. */
static void write_switches(struct runner *rn)
{
	const struct switch_set *set = rn->req->switches;

	if (!set)
		return;
	kvfile_add(&rn->bench, "switches", set->token);
	kvfile_add(&rn->bench, "switch_label", set->label);
	for (size_t i = 0; i < set->n; i++) {
		const struct switch_on *on = &set->on[i];
		char key[96];

		snprintf(key, sizeof(key), "switch.%s", on->def->name);
		kvfile_addf(&rn->bench, key, "%s%s", on->value, on->explicit ? "" : " (default)");
		for (int k = 0; k < SWITCH_MAX_PARAMS && on->def->params[k].name; k++) {
			if (!on->params[k])
				continue;
			snprintf(key, sizeof(key), "switch.%s", on->def->params[k].name);
			kvfile_add(&rn->bench, key, on->params[k]);
		}
	}
}

void runner_write_provenance(struct runner *rn, time_t start, uint64_t start_mono)
{
	const struct recipe *rc = rn->req->recipe;
	char id[33], iso[32], hex[HB_SHA256_HEX_LEN + 1];
	char *s;

	run_make_id(id);
	utc_iso8601(start, iso, sizeof(iso));
	kvfile_addf(&rn->bench, "format", "%d", HB_RUNDIR_FORMAT);
	kvfile_add(&rn->bench, "run_id", id);
	kvfile_add(&rn->bench, "game", rc->name);
	kvfile_add(&rn->bench, "variant", rn->req->variant_name);
	kvfile_add(&rn->bench, "run_name", runner_label(rn));
	write_switches(rn);
	kvfile_add(&rn->bench, "recipe", rc->path);
	if (sha256_file_hex(rc->path, hex) == 0)
		kvfile_add(&rn->bench, "recipe_sha256", hex);
	kvfile_add(&rn->bench, "harness_command", rn->req->harness_command);
	kvfile_add(&rn->bench, "started_utc", iso);
	kvfile_addf(&rn->bench, "clock_pair", "%llu %llu", (unsigned long long)start_mono,
		    (unsigned long long)real_ns());
	provenance_system(&rn->bench);
	provenance_packages(&rn->bench, &rc->packages);
	kvfile_add(&rn->bench, "user", rn->req->user->name);
	kvfile_add(&rn->bench, "frame_source", frame_source_name(rc->frames));
	kvfile_addf(&rn->bench, "warmup_s", "%g", rn->req->warmup_s);
	if (rc->start_line)
		kvfile_add(&rn->bench, "start_line", rc->start_line);
	kvfile_addf(&rn->bench, "window_s", "%g", rn->req->window_s);
	kvfile_add(&rn->bench, "end", rc->end == END_WINDOW ? "window" :
				     rc->end == END_EXIT ? "exit" : "line");
	kvfile_add(&rn->bench, "relaunch", rc->relaunch ? "yes" : "no");
	s = argv_join(rn->cmd.v);
	kvfile_add(&rn->bench, "command", s);
	free(s);
	for (size_t i = 0; i < rc->set.env.n; i++)
		kvfile_add(&rn->bench, "env", rc->set.env.v[i]);
	for (size_t i = 0; rn->req->variant && i < rn->req->variant->set.env.n; i++)
		kvfile_add(&rn->bench, "env", rn->req->variant->set.env.v[i]);
	for (size_t i = 0; rn->req->extra && i < rn->req->extra->n; i++)
		kvfile_add(&rn->bench, rn->req->extra->items[i].key, rn->req->extra->items[i].value);
}

/* The reload rule the analysis will split the run's passes by, resolved
 * now and kept in bench.txt (reload.*), so that the run is analysed from
 * its own files, whatever becomes of its recipe. A bad analysis.ini stops
 * the run before the game starts. */
int runner_write_reload_rule(struct runner *rn, struct strbuf *err)
{
	const struct recipe *rc = rn->req->recipe;
	struct strbuf origin = STRBUF_INIT;
	struct reload_rule rule;
	int r;

	r = run_reload_resolve(&rc->reload, rc->path, rc->name, rn->req->metric.gamedb_dirs, &rule,
			       &origin, err);
	if (r == 0)
		run_reload_record(&rn->bench, &rule, origin.buf);
	reload_rule_release(&rule);
	strbuf_release(&origin);
	return r;
}

static void write_frame_facts(struct runner *rn)
{
	struct hb_frames_header hdr, *h = &hdr;
	uint64_t samples;

	/* the game's own figures, copied once (a tampered file: those at open) */
	hb_frames_view_header(&rn->frames, h);
	samples = h->cost_samples;

	kvfile_addf(&rn->bench, "frames_recorded", "%llu", (unsigned long long)runner_frames(rn));
	kvfile_addf(&rn->bench, "last_present_ns", "%llu",
		    (unsigned long long)hb_frames_view_last(&rn->frames));
	kvfile_addf(&rn->bench, "frames_dropped", "%llu", (unsigned long long)h->dropped);
	kvfile_addf(&rn->bench, "hook_processes", "%llu", (unsigned long long)h->hooked_procs);
	if (samples)
		kvfile_addf(&rn->bench, "hook_cost_ns_per_frame", "%.0f",
			    (double)h->cost_ns / (double)samples);
	kvfile_addf(&rn->bench, "hook_cost_samples", "%llu", (unsigned long long)samples);
	runner_progress(rn,
			"%llu frames recorded; the hook's own time %.0f ns a frame (mean of %llu timed)",
			(unsigned long long)runner_frames(rn),
			samples ? (double)h->cost_ns / (double)samples : 0.0, (unsigned long long)samples);
}

/* What the game presented through in the window (the hook's frames,
 * before a frame source's log replaces them): frames_api and
 * window_sources. */
static void write_frames_api(struct runner *rn, const char *frames)
{
	struct run_window_sources ws;
	struct strbuf sb = STRBUF_INIT;
	const char *why = NULL;
	char *api;

	if (!rn->have_window)
		return;
	if (run_window_sources(frames, rn->window_start, rn->window_end, &ws, &why) < 0) {
		kvfile_addf(&rn->bench, "frames_api", "unknown: %s", why);
		return;
	}
	api = run_frames_api(&ws);
	kvfile_add(&rn->bench, "frames_api", api);
	run_window_sources_describe(&ws, false, &sb);
	kvfile_add(&rn->bench, "window_sources", sb.len ? sb.buf : "none");
	runner_progress(rn, "the window's frames came from %s", sb.len ? sb.buf : "no present");
	strbuf_release(&sb);
	free(api);
}

/* The game's HOME as it left it, into the run directory's home/. */
static int keep_home(struct runner *rn, struct strbuf *err)
{
	struct strbuf skipped = STRBUF_INIT;
	char *dest = xasprintf("%s/home", rn->tmp_dir);
	int r = stage_keep_home(&rn->stage, dest, KEEP_HOME_MAX_FILE, &skipped);

	if (r < 0)
		strbuf_addf(err, "cannot keep the game's HOME in '%s': %s", dest, strerror(-r));
	else if (skipped.len)
		kvfile_add(&rn->bench, "home_skipped", skipped.buf);
	strbuf_release(&skipped);
	free(dest);
	return r;
}

int runner_finish_dir(struct runner *rn, struct strbuf *err)
{
	char *frames = xasprintf("%s/frames.bin", rn->tmp_dir);
	char *bench = xasprintf("%s/bench.txt", rn->tmp_dir);
	char iso[32];
	int r = 0;

	r = keep_home(rn, err);
	if (r < 0)
		goto out;
	if (rn->frames.is_open) {
		write_frame_facts(rn);
		/* copied through the view (never by the game's path), its records
		 * only, little-endian (what travels to another machine) */
		r = hb_frames_view_keep(&rn->frames, frames, 0644);
		hb_frames_view_close(&rn->frames);
		if (r == 0)
			r = hb_frames_to_le(frames);
		if (r < 0) {
			strbuf_addf(err, "cannot keep the frame file: %s", strerror(-r));
			goto out;
		}
		write_frames_api(rn, frames);
	}
	if (rn->have_window && framesource_has_log(rn->req->recipe->frames)) {
		struct strbuf why = STRBUF_INIT;

		if (framesource_collect(rn->req->recipe->frames, rn->stage.home, rn->tmp_dir,
					rn->window_start, rn->window_end, &rn->bench, &why) < 0)
			runner_set_status(rn, "failed", "%s", why.buf);
		strbuf_release(&why);
	}
	if (rn->have_window) {
		kvfile_addf(&rn->bench, "window_start_ns", "%llu", (unsigned long long)rn->window_start);
		kvfile_addf(&rn->bench, "window_end_ns", "%llu", (unsigned long long)rn->window_end);
	}
	kvfile_addf(&rn->bench, "passes", "%d", rn->pass);
	kvfile_add(&rn->bench, "end_reason", rn->end_reason ? rn->end_reason : "none");
	utc_iso8601(time(NULL), iso, sizeof(iso));
	kvfile_add(&rn->bench, "ended_utc", iso);
	if (!rn->status)
		runner_set_status(rn, "ok", "%s", "");
	kvfile_add(&rn->bench, "status", rn->status);
	if (rn->detail && *rn->detail)
		kvfile_add(&rn->bench, "status_detail", rn->detail);
	r = kvfile_write(&rn->bench, bench);
	if (r < 0) {
		strbuf_addf(err, "cannot write '%s': %s", bench, strerror(-r));
		goto out;
	}
	r = run_write_result(rn->tmp_dir, rn->status, &rn->req->metric, err);
	if (r < 0)
		goto out;
	/* last: every file of the run as it is now (docs/formats.md "Checksums") */
	r = sha256sums_write(rn->tmp_dir, NULL);
	if (r < 0) {
		strbuf_addf(err, "cannot write '%s/%s': %s", rn->tmp_dir, SHA256SUMS_NAME, strerror(-r));
		goto out;
	}
	if (rename(rn->tmp_dir, rn->final_dir) < 0) {
		r = -errno;
		strbuf_addf(err, "cannot rename '%s' to '%s': %s", rn->tmp_dir, rn->final_dir,
			    strerror(errno));
	}
out:
	free(frames);
	free(bench);
	return r;
}
