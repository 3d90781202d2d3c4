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
 * The staging directory and the game's environment are stage.c's, the
 * game's output gameout.c's. Everything the runner waits on (output,
 * children, signals, the clock) is served by one poll loop that sleeps
 * until the next deadline; the presents are watched through a read-only
 * mapping of the frame file, without a system call.
 */
#include "runner.h"
#include "frames.h"
#include "framesource.h"
#include "gameout.h"
#include "hash.h"
#include "inputhelper.h"
#include "kvfile.h"
#include "proctree.h"
#include "provenance.h"
#include "run.h"
#include "runnoise.h"
#include "spawn.h"
#include "stage.h"
#include "timeutil.h"
#include "xserver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 20
#define PREPARE_TIMEOUT_S 120.0

struct runner {
	const struct run_request *req;
	struct kvfile bench;
	char *tmp_dir, *final_dir;
	struct stage stage;
	struct game_output out;
	struct hb_frames_view frames;
	struct xserver x;
	const char *display;
	struct argv_list cmd, env;
	struct switch_ctx sw;
	struct run_noise noise;     /* host noise at the window's start and end */
	cpu_set_t game_cpus;
	bool pin_game;
	pid_t game_pid;
	int pass;
	uint64_t t_launch, count_at_launch;
	bool have_first;            /* the first frame was seen */
	bool have_window;           /* the window is placed (first frame, or start_line) */
	uint64_t first_frame;
	uint64_t window_start, window_end;
	bool pass_running, game_exited, x_died, interrupted;
	int interrupts;     /* a second one means: no grace, stop everything now */
	int game_status;
	char *status, *detail, *end_reason;
	char *noise_brief;          /* noise_figures_brief() of the window, or NULL */
};

static void set_status(struct runner *rn, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_status(struct runner *rn, const char *status, const char *fmt, ...)
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

static const char *run_label(const struct runner *rn)
{
	return rn->req->run_name ? rn->req->run_name : rn->req->variant_name;
}

static void progress(const struct runner *rn, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Tells the caller how the run goes (the runner itself never prints). */
static void progress(const struct runner *rn, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!rn->req->progress)
		return;
	strbuf_addf(&sb, "%s %s: ", rn->req->recipe->name, run_label(rn));
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	rn->req->progress(sb.buf);
	strbuf_release(&sb);
}

static void build_env(struct runner *rn, bool with_hook)
{
	struct game_env_opts o = {
		.stage = &rn->stage, .user = rn->req->user, .display = rn->display,
		.run_dir = rn->tmp_dir, .run_id = kvfile_get(&rn->bench, "run_id"),
		.recipe = rn->req->recipe, .variant = rn->req->variant,
		.with_hook = with_hook, .run_s = rn->req->warmup_s + rn->req->window_s,
	};

	game_env_build(&rn->env, &o);
}

static uint64_t frames_count(const struct runner *rn)
{
	return hb_frames_view_count(&rn->frames);
}

/* ---- children, output and signals ---- */

static bool is_helper(const struct runner *rn, pid_t p)
{
	for (size_t i = 0; i < rn->sw.n_helpers; i++)
		if (rn->sw.helpers[i].pid == p)
			return true;
	return false;
}

/* What the game's reaped processes used counts in its CPU time (they
 * leave proc/ when reaped: runnoise.h). */
static void reap(struct runner *rn)
{
	struct rusage ru;
	int st;
	pid_t p;

	while ((p = wait4(-1, &st, WNOHANG, &ru)) > 0) {
		if (p == rn->game_pid) {
			rn->game_exited = true;
			rn->game_status = st;
			rn->game_pid = 0;
			run_noise_reaped(&rn->noise, &ru);
		} else if (p == rn->x.pid) {
			rn->x_died = true;
			rn->x.pid = 0;
		} else {
			if (!is_helper(rn, p))
				run_noise_reaped(&rn->noise, &ru); /* an orphan of the game's */
			switch_ctx_reaped(&rn->sw, p, st);
		}
	}
}

static void handle_signals(struct runner *rn)
{
	struct signalfd_siginfo si;

	while (read(rn->req->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap(rn);
		} else {
			rn->interrupted = true;
			rn->interrupts++;
		}
	}
	reap(rn);
}

static void drain_output(struct runner *rn, bool flush)
{
	game_output_drain(&rn->out, flush);
	if (rn->out.write_error)
		set_status(rn, "failed", "cannot write game.log: %s", strerror(rn->out.write_error));
}

/* ---- the game's process tree ---- */

static size_t scan_tree(struct runner *rn, pid_t sid, struct pid_list *out)
{
	struct pid_list exclude = { 0 };

	/* the runner's other children are not the game's: the X server and the
	 * helpers beside the game live on from one pass to the next */
	if (rn->x.pid > 0)
		pid_list_add(&exclude, rn->x.pid);
	for (size_t i = 0; i < rn->sw.n_helpers; i++)
		if (rn->sw.helpers[i].pid > 0 && !rn->sw.helpers[i].exited)
			pid_list_add(&exclude, rn->sw.helpers[i].pid);
	out->n = 0;
	proctree_scan("/", sid, getpid(), &exclude, out);
	pid_list_release(&exclude);
	return out->n;
}

static void signal_tree(struct runner *rn, pid_t sid, int sig, struct pid_list *l)
{
	kill(-sid, sig);
	for (size_t i = 0; i < l->n; i++)
		kill(l->v[i], sig);
}

/* Waits until no process of the tree is left, or the deadline. */
static size_t wait_tree_gone(struct runner *rn, pid_t sid, uint64_t deadline, struct pid_list *l)
{
	while (mono_ns() < deadline) {
		usleep(TICK_MS * 1000);
		drain_output(rn, false);
		handle_signals(rn);
		if (scan_tree(rn, sid, l) == 0)
			return 0;
		if (rn->interrupts >= 2)
			break; /* the user will not wait for the grace */
	}
	return l->n;
}

/* Stops every process of the game's session and every orphan the runner
 * inherited: TERM, the recipe's grace, KILL. Returns how many are left
 * (0 unless something is stuck in the kernel) and says how it went. */
static size_t stop_tree(struct runner *rn, pid_t sid, const char **how)
{
	struct pid_list l = { 0 };
	size_t left;

	*how = "exited";
	reap(rn);
	left = scan_tree(rn, sid, &l);
	if (left > 0) {
		*how = "terminated";
		signal_tree(rn, sid, SIGTERM, &l);
		left = wait_tree_gone(rn, sid, mono_ns() + (uint64_t)(rn->req->recipe->stop_grace_s * 1e9), &l);
	}
	if (left > 0) {
		*how = "killed";
		signal_tree(rn, sid, SIGKILL, &l);
		left = wait_tree_gone(rn, sid, mono_ns() + 5 * NSEC_PER_SEC, &l);
	}
	if (left > 0) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < l.n; i++)
			strbuf_addf(&sb, "%s%d", i ? " " : "", l.v[i]);
		kvfile_add(&rn->bench, "leftover_pids", sb.buf);
		strbuf_release(&sb);
	}
	pid_list_release(&l);
	return left;
}

/* ---- prepare and launch ---- */

static int run_prepare(struct runner *rn, struct strbuf *err)
{
	const struct recipe *rc = rn->req->recipe;
	char *log_path = xasprintf("%s/prepare.log", rn->tmp_dir);
	int log_fd = -1, r = 0;

	if (rc->prepare.n == 0)
		goto out;
	log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		r = -errno;
		strbuf_addf(err, "cannot create '%s': %s", log_path, strerror(errno));
		goto out;
	}
	build_env(rn, false);
	for (size_t i = 0; i < rc->prepare.n && r == 0; i++) {
		struct argv_list a;
		const char *why = NULL;
		struct spawn_opts o = {
			.envp = rn->env.v, .cwd = rn->stage.home, .in_fd = -1, .out_fd = log_fd,
			.err_fd = log_fd, .user = rn->req->user, .new_session = true,
			.parent_death_signal = SIGKILL,
		};
		uint64_t deadline = mono_ns() + (uint64_t)(PREPARE_TIMEOUT_S * 1e9);
		char desc[64];
		pid_t pid;
		int st = 0;

		argv_init(&a);
		if (argv_split(&a, rc->prepare.v[i], &why) < 0 || a.n == 0) {
			strbuf_addf(err, "%s: prepare '%s': %s", rc->path, rc->prepare.v[i],
				    why ? why : "empty command");
			r = -EINVAL;
			argv_release(&a);
			break;
		}
		o.argv = a.v;
		dprintf(log_fd, "$ %s\n", rc->prepare.v[i]);
		r = spawn_process(&o, &pid);
		if (r < 0) {
			strbuf_addf(err, "prepare '%s': cannot run '%s': %s", rc->prepare.v[i],
				    a.v[0], strerror(-r));
			argv_release(&a);
			break;
		}
		while (waitpid(pid, &st, WNOHANG) == 0) {
			if (mono_ns() > deadline) {
				kill(-pid, SIGKILL);
				waitpid(pid, &st, 0);
				break;
			}
			usleep(10 * 1000);
		}
		describe_wait_status(st, desc, sizeof(desc));
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			strbuf_addf(err, "prepare '%s' failed (%s): see prepare.log", rc->prepare.v[i],
				    desc);
			r = -ECHILD;
		}
		argv_release(&a);
	}
out:
	if (log_fd >= 0)
		close(log_fd);
	free(log_path);
	return r;
}

static int launch_pass(struct runner *rn, struct strbuf *err)
{
	char *cwd = stage_workdir(&rn->stage, rn->req->recipe);
	struct spawn_opts o = {
		.argv = rn->cmd.v, .envp = rn->env.v, .cwd = cwd, .in_fd = -1,
		.out_fd = rn->out.slave, .err_fd = rn->out.slave, .user = rn->req->user,
		.new_session = true, .parent_death_signal = SIGKILL,
		.cpus = rn->pin_game ? &rn->game_cpus : NULL,
	};
	const struct switch_set *set = rn->req->switches;
	char key[64];
	int r;

	rn->pass++;
	rn->game_exited = false;
	rn->count_at_launch = frames_count(rn);
	rn->t_launch = mono_ns();
	r = spawn_process(&o, &rn->game_pid);
	free(cwd);
	if (r < 0) {
		strbuf_addf(err, "cannot start '%s' as user '%s': %s", rn->cmd.v[0],
			    rn->req->user->name, strerror(-r));
		return r;
	}
	rn->pass_running = true;
	snprintf(key, sizeof(key), "pass.%d.start_ns", rn->pass);
	kvfile_addf(&rn->bench, key, "%llu", (unsigned long long)rn->t_launch);
	for (size_t i = 0; set && i < set->n; i++)
		if (set->on[i].def->pass)
			set->on[i].def->pass(&set->on[i], &rn->sw, rn->game_pid);
	return 0;
}

static void end_pass(struct runner *rn, pid_t sid)
{
	const char *how;
	char key[64], desc[64];
	size_t left;

	rn->pass_running = false;
	left = stop_tree(rn, sid, &how);
	snprintf(key, sizeof(key), "pass.%d.end", rn->pass);
	if (rn->game_exited)
		describe_wait_status(rn->game_status, desc, sizeof(desc));
	else
		snprintf(desc, sizeof(desc), "stopped");
	kvfile_addf(&rn->bench, key, "%s (tree %s)", desc, how);
	snprintf(key, sizeof(key), "pass.%d.frames", rn->pass);
	kvfile_addf(&rn->bench, key, "%llu",
		    (unsigned long long)(frames_count(rn) - rn->count_at_launch));
	kvfile_set(&rn->bench, "exit_status", desc); /* the last pass's */
	if (left > 0)
		set_status(rn, "failed", "%zu process(es) of the game could not be stopped", left);
}

/* ---- the run's main loop ---- */

static void note_first_frame(struct runner *rn)
{
	const char *start_line = rn->req->recipe->start_line;
	uint64_t t;

	if (!rn->have_first && frames_count(rn) > 0) {
		t = hb_frames_view_time(&rn->frames, 0);
		if (t == 0)
			return;
		rn->have_first = true;
		rn->first_frame = t;
		kvfile_addf(&rn->bench, "first_frame_ns", "%llu", (unsigned long long)t);
		progress(rn, "first frame %.1f s after launch; warm-up %g s%s, window %g s",
			 (double)(t - rn->t_launch) / 1e9, rn->req->warmup_s,
			 start_line ? " from the start line" : "", rn->req->window_s);
	}
	if (!rn->have_first || rn->have_window)
		return;
	/* the warm-up counts from the first frame, or from the start line
	 * (a menu or a load that takes as long as the machine makes it) */
	t = rn->first_frame;
	if (start_line) {
		if (!rn->out.start.matched)
			return;
		if (rn->out.start.matched_ns > t)
			t = rn->out.start.matched_ns;
		kvfile_addf(&rn->bench, "start_line_ns", "%llu", (unsigned long long)t);
		progress(rn, "start line %.1f s after the first frame", (double)(t - rn->first_frame) / 1e9);
	}
	rn->have_window = true;
	rn->window_start = t + (uint64_t)(rn->req->warmup_s * 1e9);
	rn->window_end = rn->window_start + (uint64_t)(rn->req->window_s * 1e9);
}

/* Cuts the window short at t (the game ended it early). */
static void cut_window(struct runner *rn, uint64_t t)
{
	if (t < rn->window_end)
		rn->window_end = t;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The runner watches the game too: it says what that cost. */
static void note_own_cost(struct runner *rn, double cpu0, uint64_t t0)
{
	double cpu = cpu_seconds() - cpu0, wall = (double)(mono_ns() - t0) / 1e9;

	kvfile_addf(&rn->bench, "runner_cpu_s", "%.3f", cpu);
	kvfile_addf(&rn->bench, "runner_cpu_ms_per_s", "%.3f", wall > 0 ? cpu * 1000 / wall : 0);
}

/*
 * How long the loop may sleep: until the next deadline (the window's start
 * and end, the current pass's load timeout), at most a second. Output and children
 * wake it anyway. The runner is an observer too, and its wakeups are kept
 * rare in the measured window; nothing it measures depends on when it
 * wakes (window and frames come from the presents' own stamps).
 */
static int poll_timeout_ms(const struct runner *rn)
{
	uint64_t now = mono_ns(), until = now + NSEC_PER_SEC;
	uint64_t load_end = rn->t_launch + (uint64_t)(rn->req->recipe->load_timeout_s * 1e9);

	if (frames_count(rn) == rn->count_at_launch && load_end < until)
		until = load_end;
	if (rn->have_window && !rn->noise.asked[0] && rn->window_start < until)
		until = rn->window_start > now ? rn->window_start : now; /* the noise snapshot */
	if (rn->have_window && rn->window_end < until)
		until = rn->window_end > now ? rn->window_end : now + 100 * NSEC_PER_MSEC; /* waiting for a log */
	return until > now ? (int)((until - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC) : 0;
}

/* A host noise snapshot (0: the window's start, 1: its end), once each. */
static void take_noise(struct runner *rn, pid_t sid, int which)
{
	struct pid_list game = { 0 };

	if (rn->noise.asked[which] || (which == 1 && !rn->noise.asked[0]))
		return;
	if (sid > 0)
		scan_tree(rn, sid, &game);
	run_noise_take(&rn->noise, which, &game);
	pid_list_release(&game);
}

/* The noise.* keys, and the run marked invalid when over the profile's
 * [noise] limits. */
static void finish_noise(struct runner *rn)
{
	struct strbuf why = STRBUF_INIT, brief = STRBUF_INIT;

	if (run_noise_finish(&rn->noise, rn->req->noise_limits, rn->req->noise_profile, &rn->bench,
			     &why))
		switch_ctx_invalid(&rn->sw, "%s", why.buf);
	if (rn->noise.have_fig) {
		noise_figures_brief(&rn->noise.fig, &brief);
		progress(rn, "noise over the window: %s", brief.buf);
		free(rn->noise_brief);
		rn->noise_brief = strbuf_detach(&brief);
	}
	strbuf_release(&why);
	strbuf_release(&brief);
}

static int main_loop(struct runner *rn, struct strbuf *err)
{
	const struct recipe *rc = rn->req->recipe;
	pid_t sid = rn->game_pid;
	double cpu0 = cpu_seconds();
	uint64_t t0 = mono_ns();
	int r = 0;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = rn->out.master, .events = POLLIN },
			{ .fd = rn->req->signal_fd, .events = POLLIN },
		};
		uint64_t now;

		poll(p, 2, poll_timeout_ms(rn));
		drain_output(rn, false);
		handle_signals(rn);
		now = mono_ns();
		note_first_frame(rn);
		if (rn->interrupted)
			break;
		if (rn->have_window && now >= rn->window_start)
			take_noise(rn, sid, 0);
		if (rn->have_window && now >= rn->window_end)
			take_noise(rn, sid, 1);
		if (rn->x_died) {
			set_status(rn, "failed", "the X server died during the run");
			break;
		}
		if (frames_count(rn) == rn->count_at_launch && !rn->game_exited &&
		    now - rn->t_launch > (uint64_t)(rc->load_timeout_s * 1e9)) {
			set_status(rn, "failed",
				   "no frame within %g s of launching pass %d (is the frame source right? "
				   "see game.log)", rc->load_timeout_s, rn->pass);
			break;
		}
		if (rn->have_first && !rn->have_window && !rn->game_exited &&
		    now - rn->first_frame > (uint64_t)(rc->load_timeout_s * 1e9)) {
			set_status(rn, "failed", "no line matching start_line '%s' within %g s of the "
				   "first frame (see game.log)", rc->start_line, rc->load_timeout_s);
			break;
		}
		if (rn->have_window && now >= rn->window_end) {
			/* a frame source that writes its log late (MangoHud, the
			 * Gallium HUD) is waited for, the game still running */
			if (!rn->game_exited &&
			    !framesource_log_ready(rc->frames, rn->stage.home, now - rn->window_end) &&
			    now - rn->window_end < (uint64_t)(FRAMESOURCE_LINGER_S * 1e9))
				continue;
			rn->end_reason = xstrdup("window");
			break;
		}
		if (rn->out.end.matched) {
			rn->end_reason = xstrdup("line");
			if (rn->have_window)
				cut_window(rn, rn->out.end.matched_ns);
			break;
		}
		if (!rn->game_exited)
			continue;
		/* the game's main process is gone */
		drain_output(rn, true);
		if (rn->out.end.matched) {
			rn->end_reason = xstrdup("line");
			if (rn->have_window)
				cut_window(rn, rn->out.end.matched_ns);
			break;
		}
		if (rc->end == END_EXIT || !rc->relaunch || !rn->have_window) {
			rn->end_reason = xstrdup("exit");
			if (!rn->have_first)
				set_status(rn, "failed", "the game exited before its first frame "
					   "(see game.log)");
			else if (!rn->have_window)
				set_status(rn, "failed", "the game exited before a line matching "
					   "start_line '%s' (see game.log)", rc->start_line);
			else if (rc->end != END_EXIT)
				set_status(rn, "short", "the game exited %.1f s before the window was full "
					   "and the recipe does not relaunch it",
					   (double)(rn->window_end - now) / 1e9);
			cut_window(rn, hb_frames_view_last(&rn->frames));
			break;
		}
		/* a looping demo: a new pass, unless this one showed nothing (a
		 * game that fails at once would otherwise be started over and
		 * over until the window ends) */
		if (frames_count(rn) == rn->count_at_launch) {
			rn->end_reason = xstrdup("exit");
			set_status(rn, "failed", "pass %d exited without a frame (see game.log)", rn->pass);
			cut_window(rn, hb_frames_view_last(&rn->frames));
			break;
		}
		end_pass(rn, sid);
		if (rn->status)
			break;
		r = launch_pass(rn, err);
		if (r < 0)
			break;
		sid = rn->game_pid;
		if (rn->req->verbose)
			progress(rn, "pass %d", rn->pass);
	}
	/* a window cut short (the game's exit, its end line): when noticed */
	take_noise(rn, sid, 1);
	finish_noise(rn);
	note_own_cost(rn, cpu0, t0);
	if (rn->pass_running)
		end_pass(rn, sid);
	drain_output(rn, true);
	if (rn->have_window && rn->window_end <= rn->window_start && !rn->status)
		set_status(rn, "failed", "the run ended before the warm-up was over: no measured window");
	return r;
}

/* ---- the run directory ---- */

static int make_run_dir(struct runner *rn, time_t start, struct strbuf *err)
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
		char *name = i == 1 ? xasprintf("%s-%s-%s", stamp, rn->req->recipe->name, run_label(rn))
				    : xasprintf("%s-%s-%s-%d", stamp, rn->req->recipe->name,
						run_label(rn), i);

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

static void write_provenance(struct runner *rn, time_t start, uint64_t start_mono)
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
	kvfile_add(&rn->bench, "run_name", run_label(rn));
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
	kvfile_add(&rn->bench, "frame_source", "hook");
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
static int write_reload_rule(struct runner *rn, struct strbuf *err)
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
	const struct hb_frames_header *h = rn->frames.hdr;
	uint64_t samples = __atomic_load_n(&h->cost_samples, __ATOMIC_RELAXED);

	kvfile_addf(&rn->bench, "frames_recorded", "%llu", (unsigned long long)frames_count(rn));
	kvfile_addf(&rn->bench, "last_present_ns", "%llu",
		    (unsigned long long)hb_frames_view_last(&rn->frames));
	kvfile_addf(&rn->bench, "frames_dropped", "%llu", (unsigned long long)h->dropped);
	kvfile_addf(&rn->bench, "hook_processes", "%llu", (unsigned long long)h->hooked_procs);
	if (samples)
		kvfile_addf(&rn->bench, "hook_cost_ns_per_frame", "%.0f",
			    (double)h->cost_ns / (double)samples);
	kvfile_addf(&rn->bench, "hook_cost_samples", "%llu", (unsigned long long)samples);
	progress(rn, "%llu frames recorded; the hook's own time %.0f ns a frame (mean of %llu timed)",
		 (unsigned long long)frames_count(rn),
		 samples ? (double)h->cost_ns / (double)samples : 0.0, (unsigned long long)samples);
}

#define KEEP_HOME_MAX_FILE (16LL << 20)

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

static int finish_run_dir(struct runner *rn, struct strbuf *err)
{
	char *frames = xasprintf("%s/frames.bin", rn->tmp_dir);
	char *bench = xasprintf("%s/bench.txt", rn->tmp_dir);
	char iso[32];
	int r = 0;

	r = keep_home(rn, err);
	if (r < 0)
		goto out;
	if (rn->frames.hdr) {
		write_frame_facts(rn);
		hb_frames_view_close(&rn->frames);
		r = hb_frames_trim(rn->stage.frames);
		if (r == 0)
			r = copy_file(rn->stage.frames, frames, 0644);
		if (r < 0) {
			strbuf_addf(err, "cannot keep the frame file: %s", strerror(-r));
			goto out;
		}
	}
	if (rn->have_window && rn->req->recipe->frames != FRAMES_HOOK) {
		struct strbuf why = STRBUF_INIT;

		if (framesource_collect(rn->req->recipe->frames, rn->stage.home, rn->tmp_dir,
					rn->window_start, rn->window_end, &rn->bench, &why) < 0)
			set_status(rn, "failed", "%s", why.buf);
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
		set_status(rn, "ok", "%s", "");
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
	r = xserver_start(&rn->x, rn->req->recipe->screen, rn->stage.xauth, fd, 15.0, err);
	close(fd);
	if (r < 0)
		return r;
	rn->display = rn->x.name;
	kvfile_addf(&rn->bench, "display", "%s (Xvfb, started by the run)", rn->display);
	kvfile_add(&rn->bench, "screen", rn->req->recipe->screen);
	return 0;
}

/* What the game will draw with: the GL stack as the game user sees it on
 * the run's display, probed without the frame hook (it would count the
 * probe as a hooked process). A failure is recorded, not fatal. */
static void probe_gl(struct runner *rn)
{
	char *glxinfo;

	build_env(rn, false);
	glxinfo = spawn_find_program("glxinfo", rn->env.v);
	if (glxinfo)
		provenance_gl(&rn->bench, glxinfo, rn->env.v, rn->req->user, 10.0);
	else
		kvfile_add(&rn->bench, "gl_probe", "failed: glxinfo not installed (mesa-utils)");
	free(glxinfo);
}

/* ---- switches ---- */

#define HELPER_GRACE_S 3.0

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
	c->display = rn->display;
	c->frames_path = rn->stage.frames;
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

/* ---- the recipe's [input] steps (inputhelper.c) ---- */

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
		progress(rn, "input: %s", what.buf);
	if (r < 0)
		set_status(rn, "failed", "the recipe's [input] steps failed: %s (see input.log)", what.buf);
	strbuf_release(&what);
}

/* After the game: the helpers stopped, what they left collected, and the
 * run marked invalid if one of them says so. */
static void switches_finish(struct runner *rn)
{
	const struct switch_set *set = rn->req->switches;

	handle_signals(rn);
	switch_ctx_stop_helpers(&rn->sw, rn->interrupts >= 2 ? 0 : HELPER_GRACE_S);
	input_finish(rn);
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		if (set->on[i].def->finish)
			set->on[i].def->finish(&set->on[i], &rn->sw);
	for (char *line = rn->sw.notes.buf, *nl; line && (nl = strchr(line, '\n')); line = nl + 1)
		progress(rn, "%.*s", (int)(nl - line), line);
	kvfile_add(&rn->bench, "invalid", rn->sw.invalid ? "1" : "0");
	if (rn->sw.invalid) {
		kvfile_add(&rn->bench, "invalid_reason", rn->sw.invalid);
		progress(rn, "!! INVALID: %s", rn->sw.invalid);
	}
}

static void runner_release(struct runner *rn)
{
	hb_frames_view_close(&rn->frames);
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
	char *log;
	int seq = 0, r;

	r = make_run_dir(rn, start, err);
	if (r < 0)
		return r;
	write_provenance(rn, start, start_mono);
	r = write_reload_rule(rn, err);
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
		r = stage_finish_home(&rn->stage, req->recipe, req->user, err);
	if (r == 0 && (r = hb_frames_view_open(&rn->frames, rn->stage.frames)) < 0)
		strbuf_addf(err, "cannot map the frame file: %s", strerror(-r));
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
	kvfile_init(&rn.bench);
	build_command(&rn);
	argv_init(&rn.env);

	r = prepare_run(&rn, start, start_mono, err);
	if (r < 0)
		goto out;
	if (start_x(&rn, err) < 0 || run_prepare(&rn, err) < 0) {
		set_status(&rn, "failed", "%s", err->buf);
		strbuf_reset(err);
	} else {
		handle_signals(&rn);
		probe_gl(&rn);
		run_noise_init(&rn.noise);
		build_env(&rn, true);
		if (!rn.interrupted) {
			progress(&rn, "starting on %s as user %s", rn.display, req->user->name);
			if (switches_start(&rn, err) < 0 || input_start(&rn, err) < 0 ||
			    launch_pass(&rn, err) < 0 ||
			    main_loop(&rn, err) < 0) {
				set_status(&rn, "failed", "%s", err->buf);
				strbuf_reset(err);
			}
		}
		switches_finish(&rn);
	}
	if (xserver_stop(&rn.x) > 0)
		kvfile_add(&rn.bench, "xserver_stop", "killed");
	handle_signals(&rn);
	if (rn.interrupted) {
		r = -EINTR;
		out->interrupted = true;
		goto out;
	}
	r = finish_run_dir(&rn, err);
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
