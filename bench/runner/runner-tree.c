/*
 * The game's processes (runner-internal.h): the recipe's prepare commands,
 * each pass launched and stopped with its whole process tree (a game
 * forks, daemonizes or leaves orphans: the session and the orphans the
 * runner inherited as subreaper are all of it), and the children and
 * signals the runner reaps meanwhile.
 */
#include "runner/runner-internal.h"
#include "runner/spawn.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define TICK_MS 20
#define PREPARE_TIMEOUT_S 120.0

static bool is_helper(const struct runner *rn, pid_t p)
{
	for (size_t i = 0; i < rn->sw.n_helpers; i++)
		if (rn->sw.helpers[i].pid == p)
			return true;
	return false;
}

/* What the game's reaped processes used counts in its CPU time (they
 * leave proc/ when reaped: runnoise.h) and its footprint, as X's and each
 * helper's rusage goes to theirs (footprint.h). */
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
			footprint_add(&rn->game_fp, &ru);
		} else if (p == rn->x.pid) {
			rn->x_died = true;
			rn->x.pid = 0;
			footprint_add(&rn->x.fp, &ru);
		} else {
			if (!is_helper(rn, p)) {
				run_noise_reaped(&rn->noise, &ru); /* an orphan of the game's */
				footprint_add(&rn->game_fp, &ru);
			}
			switch_ctx_reaped(&rn->sw, p, st, &ru);
		}
	}
}

void runner_handle_signals(struct runner *rn)
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

void runner_drain_output(struct runner *rn, bool flush)
{
	game_output_drain(&rn->out, flush);
	if (rn->out.write_error)
		runner_set_status(rn, "failed", "cannot write game.log: %s", strerror(rn->out.write_error));
}

size_t runner_scan_tree(struct runner *rn, pid_t sid, struct pid_list *out)
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
		sleep_ms(TICK_MS);
		runner_drain_output(rn, false);
		runner_handle_signals(rn);
		if (runner_scan_tree(rn, sid, l) == 0)
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
	left = runner_scan_tree(rn, sid, &l);
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

int runner_prepare_commands(struct runner *rn, struct strbuf *err)
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
	runner_build_env(rn, false);
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
		int st;

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
		r = spawn_wait_until(pid, deadline, true, &st, NULL);
		if (r < 0 && r != -ETIMEDOUT) {
			strbuf_addf(err, "prepare '%s': cannot wait for it: %s", rc->prepare.v[i], strerror(-r));
			argv_release(&a);
			break;
		}
		r = 0;
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

int runner_launch_pass(struct runner *rn, struct strbuf *err)
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
	rn->count_at_launch = runner_frames(rn);
	runner_flip_pass(rn);
	rn->t_launch = mono_ns();
	r = spawn_process(&o, &rn->game_pid);
	free(cwd);
	if (r < 0) {
		strbuf_addf(err, "cannot start '%s' as user '%s': %s", rn->cmd.v[0],
			    rn->req->user->name, strerror(-r));
		return r;
	}
	rn->pass_running = true;
	rn->relay.stopped = false;
	runner_relay_tick(rn, mono_ns()); /* launched in the other side's turn: stopped at once */
	snprintf(key, sizeof(key), "pass.%d.start_ns", rn->pass);
	kvfile_addf(&rn->bench, key, "%llu", (unsigned long long)rn->t_launch);
	rn->sw.game_pid = rn->game_pid;
	for (size_t i = 0; set && i < set->n; i++)
		if (set->on[i].def->pass)
			set->on[i].def->pass(&set->on[i], &rn->sw, rn->game_pid);
	return 0;
}

void runner_end_pass(struct runner *rn, pid_t sid)
{
	const char *how;
	char key[64], desc[64];
	size_t left;

	rn->pass_running = false;
	if (rn->game_pid > 0) /* its own peak, before it is stopped */
		footprint_read_hwm(&rn->game_fp, rn->game_pid);
	left = stop_tree(rn, sid, &how);
	snprintf(key, sizeof(key), "pass.%d.end", rn->pass);
	if (rn->game_exited)
		describe_wait_status(rn->game_status, desc, sizeof(desc));
	else
		snprintf(desc, sizeof(desc), "stopped");
	kvfile_addf(&rn->bench, key, "%s (tree %s)", desc, how);
	snprintf(key, sizeof(key), "pass.%d.frames", rn->pass);
	kvfile_addf(&rn->bench, key, "%llu",
		    (unsigned long long)(runner_frames(rn) - rn->count_at_launch));
	kvfile_set(&rn->bench, "exit_status", desc); /* the last pass's */
	if (left > 0)
		runner_set_status(rn, "failed", "%zu process(es) of the game could not be stopped", left);
}
