/*
 * One run of a game (see runner.h). The sequence:
 *
 *   run directory (temporary name) -> staging directory in /dev/shm (the
 *   game's HOME, its frame file, the hook, owned by the game user) -> Xvfb
 *   -> prepare commands -> pass 1 of the game -> [first frame: warm-up,
 *   then the measured window] -> the end (window full, game exit, a line;
 *   a frame source's log waited for) -> the whole process tree stopped and
 *   checked -> Xvfb stopped -> frames (a source's log made frames.bin:
 *   framesource.c), bench.txt, result.txt -> rename.
 *
 * This file holds the order of it all; the game's processes are
 * runner-tree.c's, the poll loop runner-loop.c's, the run directory
 * runner-rundir.c's (runner-internal.h). The staging directory and the
 * game's environment are stage.c's, the game's output gameout.c's. Everything the runner waits on (output,
 * children, signals, the clock) is served by one poll loop that sleeps
 * until the next deadline; the presents are watched through a read-only
 * mapping of the frame file, without a system call.
 */
#include "runner/runner-internal.h"
#include "runner/inputhelper.h"
#include "text/kvfile.h"
#include "runner/provenance.h"
#include "runner/spawn.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A helper's time to finish after SIGTERM (unless it asks for more). */
#define HELPER_GRACE_S 3.0

void runner_set_status(struct runner *rn, const char *status, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (rn->status)
		return; /* the first reason is the one that counts */
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	rn->status = xstrdup(status);
	rn->detail = strbuf_detach(&sb);
}

const char *runner_label(const struct runner *rn)
{
	return rn->req->run_name ? rn->req->run_name : rn->req->variant_name;
}

/* Tells the caller how the run goes (the runner itself never prints). */
void runner_progress(const struct runner *rn, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!rn->req->progress)
		return;
	strbuf_addf(&sb, "%s %s: ", rn->req->recipe->name, runner_label(rn));
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	rn->req->progress(sb.buf);
	strbuf_release(&sb);
}

void runner_build_env(struct runner *rn, bool with_hook)
{
	struct game_env_opts o = {
		.stage = &rn->stage, .user = rn->req->user, .display = rn->display,
		.run_dir = rn->tmp_dir, .run_id = kvfile_get(&rn->bench, "run_id"),
		.relay_id = rn->req->relay ? rn->req->relay->id : NULL,
		.recipe = rn->req->recipe, .variant = rn->req->variant,
		.with_hook = with_hook, .run_s = rn->req->warmup_s + rn->req->window_s,
	};

	game_env_build(&rn->env, &o);
}

uint64_t runner_frames(struct runner *rn)
{
	return hb_frames_view_count(&rn->frames);
}

static void build_command(struct runner *rn)
{
	const struct recipe *rc = rn->req->recipe;

	argv_init(&rn->cmd);
	for (size_t i = 0; i < rc->command.n; i++)
		argv_push(&rn->cmd, rc->command.v[i]);
	for (size_t i = 0; i < rc->set.args.n; i++)
		argv_push(&rn->cmd, rc->set.args.v[i]);
	for (size_t i = 0; rn->req->variant && i < rn->req->variant->set.args.n; i++)
		argv_push(&rn->cmd, rn->req->variant->set.args.v[i]);
}

static int start_x(struct runner *rn, struct strbuf *err)
{
	char *log = xasprintf("%s/xserver.log", rn->tmp_dir);
	int fd, r;

	if (rn->req->display) {
		rn->display = rn->req->display;
		kvfile_addf(&rn->bench, "display", "%s (existing)", rn->display);
		free(log);
		return 0;
	}
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(log);
	if (fd < 0)
		return -errno;
	r = xserver_start(&rn->x, rn->req->recipe->screen, rn->stage.xauth, rn->req->user, fd, 15.0,
			  err);
	close(fd);
	if (r < 0)
		return r;
	rn->display = rn->x.name;
	kvfile_addf(&rn->bench, "display", "%s (Xvfb, started by the run, as %s)", rn->display,
		    rn->req->user->name);
	kvfile_add(&rn->bench, "screen", rn->req->recipe->screen);
	return 0;
}

/* What the game will draw with: the GL stack as the game user sees it on
 * the run's display, probed without the frame hook (it would count the
 * probe as a hooked process). A failure is recorded, not fatal. */
static void probe_gl(struct runner *rn)
{
	char *glxinfo;

	runner_build_env(rn, false);
	glxinfo = spawn_find_program("glxinfo", rn->env.v);
	if (glxinfo)
		provenance_gl(&rn->bench, glxinfo, rn->env.v, rn->req->user, 10.0);
	else
		kvfile_add(&rn->bench, "gl_probe", "failed: glxinfo not installed (mesa-utils)");
	free(glxinfo);
}

/* What the token turned on: the game's environment and CPUs, then what
 * runs beside it, started just before the game. */
static int switches_start(struct runner *rn, struct strbuf *err)
{
	const struct switch_set *set = rn->req->switches;
	struct switch_ctx *c = &rn->sw;
	int r = 0;

	c->run_dir = rn->tmp_dir;
	c->stage_dir = rn->stage.dir;
	c->helper_dir = rn->req->helper_dir;
	c->user = rn->req->user;
	c->recipe_name = rn->req->recipe->name;
	c->variant_name = rn->req->variant_name;
	c->display = rn->display;
	c->frames_path = rn->stage.frames;
	c->frames = &rn->frames;
	c->journal = rn->req->journal;
	c->game_argv = rn->cmd.v;
	c->game_env = &rn->env;
	c->game_cpus = &rn->game_cpus;
	c->pin_game = &rn->pin_game;
	c->bench = &rn->bench;
	for (size_t i = 0; set && i < set->n && r == 0; i++)
		if (set->on[i].def->prepare)
			r = set->on[i].def->prepare(&set->on[i], c, err);
	for (size_t i = 0; set && i < set->n && r == 0; i++)
		if (set->on[i].def->start)
			r = set->on[i].def->start(&set->on[i], c, err);
	return r;
}

static int input_start(struct runner *rn, struct strbuf *err)
{
	return input_helper_start(&rn->sw, &rn->req->recipe->input, rn->tmp_dir, rn->display,
				  rn->stage.xauth, kvfile_get(&rn->bench, "run_id"), err);
}

static void input_finish(struct runner *rn)
{
	struct strbuf what = STRBUF_INIT;
	int r = input_helper_finish(&rn->sw, &rn->req->recipe->input, rn->tmp_dir, &rn->bench, &what);

	if (what.len)
		runner_progress(rn, "input: %s", what.buf);
	if (r < 0)
		runner_set_status(rn, "failed", "the recipe's [input] steps failed: %s (see input.log)",
				  what.buf);
	strbuf_release(&what);
}

/* After the game: the helpers stopped, what they left collected, and the
 * run marked invalid if one of them says so, or if the game tampered with
 * its frame file (the view's last checks, the file's size among them). */
static void switches_finish(struct runner *rn)
{
	const struct switch_set *set = rn->req->switches;
	const char *tampered = hb_frames_view_check(&rn->frames);

	runner_handle_signals(rn);
	switch_ctx_stop_helpers(&rn->sw, rn->interrupts >= 2 ? 0 : HELPER_GRACE_S);
	input_finish(rn);
	if (tampered)
		switch_ctx_invalid(&rn->sw, "the game tampered with its frame file: %s", tampered);
	for (size_t i = 0; set && i < set->n; i++)
		if (set->on[i].def->finish)
			set->on[i].def->finish(&set->on[i], &rn->sw);
	for (char *line = rn->sw.notes.buf, *nl; line && (nl = strchr(line, '\n')); line = nl + 1)
		runner_progress(rn, "%.*s", (int)(nl - line), line);
	if (!set && !rn->sw.invalid)
		return;
	kvfile_add(&rn->bench, "invalid", rn->sw.invalid ? "1" : "0");
	if (rn->sw.invalid) {
		kvfile_add(&rn->bench, "invalid_reason", rn->sw.invalid);
		runner_progress(rn, "!! INVALID: %s", rn->sw.invalid);
	}
}

/* What each process of the run cost (footprint.h): the helpers, the
 * game, the X server, and the runner itself so far. */
static void write_footprint(struct runner *rn)
{
	for (size_t i = 0; i < rn->sw.n_helpers; i++)
		footprint_record(&rn->bench, rn->sw.helpers[i].name, &rn->sw.helpers[i].fp);
	footprint_record(&rn->bench, "game", &rn->game_fp);
	footprint_record(&rn->bench, "xserver", &rn->x.fp);
	footprint_record_self(&rn->bench, "runner");
}

static void runner_release(struct runner *rn)
{
	hb_frames_view_close(&rn->frames);
	runner_flip_end(rn);
	runner_relay_end(rn);
	if (rn->game_pid > 0) {
		kill(-rn->game_pid, SIGKILL);
		waitpid(rn->game_pid, NULL, 0);
	}
	switch_ctx_release(&rn->sw);
	run_noise_release(&rn->noise);
	free(rn->noise_brief);
	xserver_stop(&rn->x);
	stage_release(&rn->stage);
	game_output_close(&rn->out);
	kvfile_release(&rn->bench);
	argv_release(&rn->cmd);
	argv_release(&rn->env);
	free(rn->tmp_dir);
	free(rn->final_dir);
	free(rn->status);
	free(rn->detail);
	free(rn->end_reason);
}

/* Makes the run directory, the staging directory and the game's output,
 * so that from here on every failure is the run's outcome. */
static int prepare_run(struct runner *rn, time_t start, uint64_t start_mono, struct strbuf *err)
{
	const struct run_request *req = rn->req;
	const char *why = NULL;
	char *log;
	int seq = 0, r;

	r = runner_make_dir(rn, start, err);
	if (r < 0)
		return r;
	runner_write_provenance(rn, start, start_mono);
	r = runner_write_reload_rule(rn, err);
	if (r < 0)
		return r;
	log = xasprintf("%s/game.log", rn->tmp_dir);
	r = game_output_open(&rn->out, log, req->recipe->start_line,
			     req->recipe->end == END_LINE ? req->recipe->end_line : NULL);
	free(log);
	if (r < 0) {
		strbuf_addf(err, "cannot set up the game's output: %s", strerror(-r));
		return r;
	}
	r = stage_create(&rn->stage, req->hook_path, req->helper_dir, !req->display, req->user, err);
	if (r == 0)
		kvfile_addf(&rn->bench, "staging", "%.*s", (int)(strrchr(rn->stage.dir, '/') - rn->stage.dir),
			    rn->stage.dir);
	if (r == 0)
		r = stage_seed(&rn->stage, &req->recipe->set, &rn->bench, &seq, err);
	if (r == 0 && req->variant)
		r = stage_seed(&rn->stage, &req->variant->set, &rn->bench, &seq, err);
	if (r == 0)
		r = stage_vulkan_layer(&rn->stage, req->recipe, req->variant, &rn->bench, err);
	if (r == 0)
		r = stage_finish_home(&rn->stage, req->recipe, req->user, err);
	if (r == 0 && (r = hb_frames_view_open(&rn->frames, rn->stage.frames, &why)) < 0)
		strbuf_addf(err, "cannot open the frame file: %s", r == -EINVAL && why ? why : strerror(-r));
	return r;
}

int runner_run(const struct run_request *req, struct run_outcome *out, struct strbuf *err)
{
	struct runner rn;
	time_t start = time(NULL);
	uint64_t start_mono = mono_ns();
	int r;

	memset(&rn, 0, sizeof(rn));
	memset(out, 0, sizeof(*out));
	rn.req = req;
	rn.out.master = rn.out.slave = rn.out.log_fd = -1;
	footprint_init(&rn.game_fp);
	footprint_init(&rn.x.fp);
	kvfile_init_repeats(&rn.bench, kvfile_bench_repeats);
	build_command(&rn);
	argv_init(&rn.env);

	rn.flip.fd = -1;
	rn.relay.fd = -1;
	r = prepare_run(&rn, start, start_mono, err);
	if (r == 0 && req->relay) {
		kvfile_add(&rn.bench, "relay.id", req->relay->id);
		kvfile_add(&rn.bench, "relay.mode", relay_mode_name(req->relay->mode));
		kvfile_addf(&rn.bench, "relay.role", "%c", req->relay->role);
		if (req->relay->partner)
			kvfile_add(&rn.bench, "relay.partner", req->relay->partner);
	}
	if (r == 0)
		r = runner_flip_begin(&rn, err);
	if (r < 0)
		goto out;
	if (start_x(&rn, err) < 0 || runner_prepare_commands(&rn, err) < 0) {
		runner_set_status(&rn, "failed", "%s", err->buf);
		strbuf_reset(err);
	} else {
		runner_handle_signals(&rn);
		probe_gl(&rn);
		run_noise_init(&rn.noise);
		if (req->relay)
			rn.noise.root = req->relay->root;
		if (req->noise_daemons)
			run_noise_daemons(&rn.noise, req->noise_daemons, req->noise_profile);
		runner_build_env(&rn, true);
		if (!rn.interrupted) {
			runner_progress(&rn, "starting on %s as user %s", rn.display, req->user->name);
			if (runner_relay_begin(&rn, err) < 0 || switches_start(&rn, err) < 0 ||
			    input_start(&rn, err) < 0 ||
			    runner_launch_pass(&rn, err) < 0 ||
			    runner_main_loop(&rn, err) < 0) {
				runner_set_status(&rn, "failed", "%s", err->buf);
				strbuf_reset(err);
			}
		}
		runner_flip_end(&rn);
		runner_relay_end(&rn);
		switches_finish(&rn);
	}
	if (xserver_stop(&rn.x) > 0)
		kvfile_add(&rn.bench, "xserver_stop", "killed");
	runner_handle_signals(&rn);
	write_footprint(&rn);
	if (rn.interrupted) {
		r = -EINTR;
		out->interrupted = true;
		goto out;
	}
	r = runner_finish_dir(&rn, err);
	if (r < 0)
		goto out;
	out->dir = xstrdup(rn.final_dir);
	out->invalid = xstrdup(rn.sw.invalid);
	out->interfered = xstrdup(rn.sw.interfered);
	out->noise = xstrdup(rn.noise_brief);
	out->status = xasprintf("%s%s%s", rn.status, rn.detail && *rn.detail ? ": " : "",
				rn.detail ? rn.detail : "");
out:
	if (r < 0 && rn.tmp_dir)
		remove_tree(rn.tmp_dir); /* an unfinished run leaves nothing behind */
	runner_release(&rn);
	return r;
}

void run_outcome_release(struct run_outcome *o)
{
	free(o->invalid);
	free(o->interfered);
	free(o->noise);
	free(o->dir);
	free(o->status);
	memset(o, 0, sizeof(*o));
}
