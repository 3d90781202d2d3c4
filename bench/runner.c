/*
 * One run of a game (see runner.h). The sequence:
 *
 *   run directory (temporary name) -> staging directory in /dev/shm (the
 *   game's HOME, its frame file, the hook, owned by the game user) -> Xvfb
 *   -> prepare commands -> pass 1 of the game -> [first frame: warm-up,
 *   then the measured window] -> the end (window full, game exit, a line)
 *   -> the whole process tree stopped and checked -> Xvfb stopped ->
 *   frames, bench.txt, result.txt -> rename.
 *
 * The game's output goes through a pseudo-terminal, so that stdio in the
 * game is line-buffered and every line is stamped when it was written.
 * Everything the runner waits on (output, children, signals, the clock)
 * is served by one poll loop with 20 ms ticks.
 */
#include "runner.h"
#include "frames.h"
#include "hash.h"
#include "kvfile.h"
#include "proctree.h"
#include "provenance.h"
#include "run.h"
#include "spawn.h"
#include "timeutil.h"
#include "xserver.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 20
#define PREPARE_TIMEOUT_S 120.0

struct runner {
	const struct run_request *req;
	struct kvfile bench;
	char *tmp_dir, *final_dir, *stage, *home, *stage_frames, *xauth, *hook;
	int log_fd, pty_master, pty_slave;
	struct xserver x;
	const char *display;
	struct hb_frames_header *hdr;
	struct hb_frame_record *rec;
	size_t map_len;
	struct argv_list cmd, env;
	pid_t game_pid;
	int pass;
	uint64_t t_launch, count_at_launch;
	bool have_first;
	uint64_t window_start, window_end;
	struct strbuf line;
	regex_t end_re;
	bool have_re, line_matched;
	uint64_t line_t;
	bool pass_running, game_exited, x_died, interrupted;
	int game_status;
	char *status, *detail, *end_reason;
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

static void progress(const struct runner *rn, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct runner *rn, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hitchbench: %s %s: ", rn->req->recipe->name, rn->req->variant_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- staging: the game's private space, owned by the game user ---- */

static uid_t chown_uid;
static gid_t chown_gid;

static int chown_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return lchown(path, chown_uid, chown_gid) < 0 ? -1 : 0;
}

static int chown_tree(const char *path, const struct game_user *u)
{
	if (!u->switch_needed)
		return 0;
	chown_uid = u->uid;
	chown_gid = u->gid;
	return nftw(path, chown_one, 16, FTW_PHYS) == 0 ? 0 : -errno;
}

static int stage_create(struct runner *rn, struct strbuf *err)
{
	const char *bases[] = { "/dev/shm", getenv("TMPDIR"), "/tmp" };
	char *bin, *dest;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(bases) && !rn->stage; i++) {
		char *t;

		if (!bases[i] || !*bases[i])
			continue;
		t = xasprintf("%s/hitchbench-XXXXXX", bases[i]);
		if (mkdtemp(t))
			rn->stage = t;
		else
			free(t);
	}
	if (!rn->stage) {
		strbuf_addf(err, "cannot make a staging directory in /dev/shm, $TMPDIR or /tmp: %s",
			    strerror(errno));
		return -errno;
	}
	rn->home = xasprintf("%s/home", rn->stage);
	bin = xasprintf("%s/bin", rn->stage);
	dest = xasprintf("%s/tmp", rn->stage);
	r = mkdir(rn->home, 0700) < 0 || mkdir(bin, 0755) < 0 || mkdir(dest, 0700) < 0 ? -errno : 0;
	free(dest);
	if (r == 0) {
		/* The game user may not reach the checkout (a 0700 /root): copies. */
		rn->hook = xasprintf("%s/hitchbench-hook.so", rn->stage);
		r = copy_file(rn->req->hook_path, rn->hook, 0755);
		if (r < 0)
			strbuf_addf(err, "cannot copy the frame hook '%s': %s", rn->req->hook_path,
				    strerror(-r));
	}
	if (r == 0 && rn->req->helper_dir) {
		char *from = xasprintf("%s/hitchbench-wadlump", rn->req->helper_dir);

		dest = xasprintf("%s/hitchbench-wadlump", bin);
		if (access(from, X_OK) == 0)
			r = copy_file(from, dest, 0755);
		free(from);
		free(dest);
	}
	free(bin);
	if (r == 0) {
		rn->stage_frames = xasprintf("%s/frames.bin", rn->stage);
		r = hb_frames_create(rn->stage_frames, HB_FRAMES_CAPACITY, 0600);
		if (r < 0)
			strbuf_addf(err, "cannot create the frame file: %s", strerror(-r));
	}
	if (r == 0 && !rn->req->display) {
		rn->xauth = xasprintf("%s/Xauthority", rn->stage);
		r = xauth_write(rn->xauth, 0600);
		if (r < 0)
			strbuf_addf(err, "cannot write the X authority file: %s", strerror(-r));
	}
	if (r == 0 && chown_tree(rn->stage, rn->req->user) < 0) {
		r = -errno;
		strbuf_addf(err, "cannot give the staging directory to user '%s': %s",
			    rn->req->user->name, strerror(errno));
	}
	if (r == 0 && chmod(rn->stage, 0700) < 0)
		r = -errno;
	if (r < 0 && !err->len)
		strbuf_addf(err, "cannot prepare the staging directory '%s': %s", rn->stage,
			    strerror(-r));
	return r;
}

static int map_frames(struct runner *rn)
{
	int fd = open(rn->stage_frames, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return -errno;
	rn->map_len = sizeof(struct hb_frames_header) +
		      (size_t)HB_FRAMES_CAPACITY * sizeof(struct hb_frame_record);
	p = mmap(NULL, rn->map_len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	rn->hdr = p;
	rn->rec = (struct hb_frame_record *)((char *)p + sizeof(struct hb_frames_header));
	return 0;
}

static uint64_t frames_count(const struct runner *rn)
{
	uint64_t n = __atomic_load_n(&rn->hdr->count, __ATOMIC_ACQUIRE);

	return n < HB_FRAMES_CAPACITY ? n : HB_FRAMES_CAPACITY;
}

static uint64_t frame_time(const struct runner *rn, uint64_t i)
{
	return __atomic_load_n(&rn->rec[i].t_ns, __ATOMIC_ACQUIRE);
}

/* ---- seeding HOME and the environment ---- */

static int seed_files(struct runner *rn, const struct recipe_settings *set, int *seq,
		      struct strbuf *err)
{
	for (size_t i = 0; i < set->n_files; i++) {
		const struct recipe_file *f = &set->files[i];
		char *dest = xasprintf("%s/%s", rn->home, f->dest);
		char *dir = xstrdup(dest);
		char hex[HB_SHA256_HEX_LEN + 1];
		char key[32];
		int r;

		*strrchr(dir, '/') = '\0';
		r = mkdir_p(dir, 0755);
		if (r == 0)
			r = copy_file(f->src, dest, 0644);
		if (r == 0)
			r = sha256_file_hex(dest, hex);
		free(dir);
		free(dest);
		if (r < 0) {
			strbuf_addf(err, "cannot seed '%s' from '%s': %s", f->dest, f->src,
				    strerror(-r));
			return r;
		}
		snprintf(key, sizeof(key), "file.%d", ++*seq);
		kvfile_addf(&rn->bench, key, "%s %s", f->dest, hex);
	}
	return 0;
}

/* Sets NAME=VALUE in the game's environment, replacing an earlier NAME:
 * the variant's env wins over the recipe's, which wins over the runner's
 * defaults (PATH, LANG, ...). */
static void env_put(struct argv_list *env, const char *entry)
{
	size_t n = strcspn(entry, "=");

	for (size_t i = 0; i < env->n; i++) {
		if (!strncmp(env->v[i], entry, n) && env->v[i][n] == '=') {
			free(env->v[i]);
			env->v[i] = xstrdup(entry);
			return;
		}
	}
	argv_push(env, entry);
}

static void build_env(struct runner *rn, bool with_hook)
{
	const struct recipe *rc = rn->req->recipe;
	char *s;

	argv_release(&rn->env);
	argv_init(&rn->env);
	s = xasprintf("HOME=%s", rn->home);
	argv_push(&rn->env, s);
	free(s);
	s = xasprintf("USER=%s", rn->req->user->name);
	argv_push(&rn->env, s);
	free(s);
	s = xasprintf("LOGNAME=%s", rn->req->user->name);
	argv_push(&rn->env, s);
	free(s);
	s = xasprintf("PATH=%s/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games",
		      rn->stage);
	argv_push(&rn->env, s);
	free(s);
	s = xasprintf("TMPDIR=%s/tmp", rn->stage);
	argv_push(&rn->env, s);
	free(s);
	argv_push(&rn->env, "LANG=C.UTF-8");
	s = xasprintf("DISPLAY=%s", rn->display);
	argv_push(&rn->env, s);
	free(s);
	if (rn->xauth) {
		s = xasprintf("XAUTHORITY=%s", rn->xauth);
		argv_push(&rn->env, s);
		free(s);
	}
	/* marks every process of this run (for observers to come) */
	s = xasprintf("HITCHBENCH_RUN_DIR=%s", rn->tmp_dir);
	argv_push(&rn->env, s);
	free(s);
	if (with_hook) {
		s = xasprintf("LD_PRELOAD=%s", rn->hook);
		argv_push(&rn->env, s);
		free(s);
		s = xasprintf("%s=%s", HB_FRAMES_ENV, rn->stage_frames);
		argv_push(&rn->env, s);
		free(s);
	}
	for (size_t i = 0; i < rc->set.env.n; i++)
		env_put(&rn->env, rc->set.env.v[i]);
	for (size_t i = 0; rn->req->variant && i < rn->req->variant->set.env.n; i++)
		env_put(&rn->env, rn->req->variant->set.env.v[i]);
}

static char *workdir(const struct runner *rn)
{
	const char *w = rn->req->recipe->workdir;

	if (!w || !*w)
		return xstrdup(rn->home);
	if (w[0] == '/')
		return xstrdup(w);
	return xasprintf("%s/%s", rn->home, w);
}

/* ---- children, output and signals ---- */

static void reap(struct runner *rn)
{
	int st;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (p == rn->game_pid) {
			rn->game_exited = true;
			rn->game_status = st;
			rn->game_pid = 0;
		} else if (p == rn->x.pid) {
			rn->x_died = true;
			rn->x.pid = 0;
		}
	}
}

static void handle_signals(struct runner *rn)
{
	struct signalfd_siginfo si;

	while (read(rn->req->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			reap(rn);
		else
			rn->interrupted = true;
	}
	reap(rn);
}

static void output_line(struct runner *rn, const char *text, size_t len, uint64_t t)
{
	char stamp[32];
	int n = snprintf(stamp, sizeof(stamp), "%llu.%06llu\t", (unsigned long long)(t / NSEC_PER_SEC),
			 (unsigned long long)(t % NSEC_PER_SEC / 1000));
	char *copy;

	if (write(rn->log_fd, stamp, (size_t)n) < 0 || write(rn->log_fd, text, len) < 0 ||
	    write(rn->log_fd, "\n", 1) < 0)
		set_status(rn, "failed", "cannot write game.log: %s", strerror(errno));
	if (!rn->have_re || rn->line_matched)
		return;
	copy = strndup(text, len);
	if (copy && regexec(&rn->end_re, copy, 0, NULL, 0) == 0) {
		rn->line_matched = true;
		rn->line_t = t;
	}
	free(copy);
}

/* Reads what the game wrote; flush: also the last line without a newline. */
static void drain_output(struct runner *rn, bool flush)
{
	char buf[4096];
	uint64_t t = mono_ns();
	ssize_t n;

	while ((n = read(rn->pty_master, buf, sizeof(buf))) > 0) {
		strbuf_add(&rn->line, buf, (size_t)n);
		for (;;) {
			char *nl = memchr(rn->line.buf, '\n', rn->line.len);
			size_t len, used;

			if (!nl)
				break;
			used = (size_t)(nl - rn->line.buf) + 1;
			len = used - 1;
			if (len > 0 && rn->line.buf[len - 1] == '\r')
				len--;
			output_line(rn, rn->line.buf, len, t);
			memmove(rn->line.buf, rn->line.buf + used, rn->line.len - used);
			rn->line.len -= used;
			rn->line.buf[rn->line.len] = '\0';
		}
	}
	if (flush && rn->line.len > 0) {
		output_line(rn, rn->line.buf, rn->line.len, t);
		strbuf_reset(&rn->line);
	}
}

static int open_pty(struct runner *rn)
{
	struct termios tio;
	char name[128];

	rn->pty_master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (rn->pty_master < 0)
		return -errno;
	if (grantpt(rn->pty_master) < 0 || unlockpt(rn->pty_master) < 0 ||
	    ptsname_r(rn->pty_master, name, sizeof(name)) != 0)
		return -errno;
	rn->pty_slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (rn->pty_slave < 0)
		return -errno;
	if (tcgetattr(rn->pty_slave, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(rn->pty_slave, TCSANOW, &tio);
	}
	fcntl(rn->pty_master, F_SETFL, O_NONBLOCK);
	return 0;
}

/* ---- the game's process tree ---- */

static size_t scan_tree(struct runner *rn, pid_t sid, struct pid_list *out)
{
	struct pid_list exclude = { 0 };

	if (rn->x.pid > 0)
		pid_list_add(&exclude, rn->x.pid);
	out->n = 0;
	proctree_scan(sid, getpid(), &exclude, out);
	pid_list_release(&exclude);
	return out->n;
}

static void signal_tree(struct runner *rn, pid_t sid, int sig, struct pid_list *l)
{
	kill(-sid, sig);
	for (size_t i = 0; i < l->n; i++)
		kill(l->v[i], sig);
}

/* Stops every process of the game's session and every orphan the runner
 * inherited: TERM, the recipe's grace, KILL. Returns how many are left
 * (0 unless something is stuck in the kernel) and says how it went. */
static size_t stop_tree(struct runner *rn, pid_t sid, const char **how)
{
	struct pid_list l = { 0 };
	double grace = rn->req->recipe->stop_grace_s;
	uint64_t deadline;
	size_t left;

	*how = "exited";
	reap(rn);
	if (scan_tree(rn, sid, &l) == 0)
		goto out;
	*how = "terminated";
	signal_tree(rn, sid, SIGTERM, &l);
	deadline = mono_ns() + (uint64_t)(grace * 1e9);
	while (mono_ns() < deadline) {
		usleep(TICK_MS * 1000);
		drain_output(rn, false);
		reap(rn);
		if (scan_tree(rn, sid, &l) == 0)
			goto out;
	}
	*how = "killed";
	signal_tree(rn, sid, SIGKILL, &l);
	deadline = mono_ns() + 5 * NSEC_PER_SEC;
	while (mono_ns() < deadline) {
		usleep(TICK_MS * 1000);
		drain_output(rn, false);
		reap(rn);
		if (scan_tree(rn, sid, &l) == 0)
			goto out;
	}
out:
	left = l.n;
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
			.envp = rn->env.v, .cwd = rn->home, .in_fd = -1, .out_fd = log_fd,
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
	char *cwd = workdir(rn);
	struct spawn_opts o = {
		.argv = rn->cmd.v, .envp = rn->env.v, .cwd = cwd, .in_fd = -1,
		.out_fd = rn->pty_slave, .err_fd = rn->pty_slave, .user = rn->req->user,
		.new_session = true, .parent_death_signal = SIGKILL,
	};
	char key[64];
	int r;

	mkdir_p(cwd, 0755);
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
	uint64_t t;

	if (rn->have_first || frames_count(rn) == 0)
		return;
	t = frame_time(rn, 0);
	if (t == 0)
		return;
	rn->have_first = true;
	rn->window_start = t + (uint64_t)(rn->req->warmup_s * 1e9);
	rn->window_end = rn->window_start + (uint64_t)(rn->req->window_s * 1e9);
	kvfile_addf(&rn->bench, "first_frame_ns", "%llu", (unsigned long long)t);
	progress(rn, "first frame %.1f s after launch; warm-up %g s, window %g s",
		 (double)(t - rn->t_launch) / 1e9, rn->req->warmup_s, rn->req->window_s);
}

static uint64_t last_frame_time(const struct runner *rn)
{
	uint64_t n = frames_count(rn);

	while (n > 0 && frame_time(rn, n - 1) == 0)
		n--;
	return n ? frame_time(rn, n - 1) : 0;
}

/* Cuts the window short at t (the game ended it early). */
static void cut_window(struct runner *rn, uint64_t t)
{
	if (t < rn->window_end)
		rn->window_end = t;
}

static int main_loop(struct runner *rn, struct strbuf *err)
{
	const struct recipe *rc = rn->req->recipe;
	pid_t sid = rn->game_pid;
	int r = 0;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = rn->pty_master, .events = POLLIN },
			{ .fd = rn->req->signal_fd, .events = POLLIN },
		};
		uint64_t now;

		poll(p, 2, TICK_MS);
		drain_output(rn, false);
		handle_signals(rn);
		now = mono_ns();
		note_first_frame(rn);
		if (rn->interrupted)
			break;
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
		if (rn->have_first && now >= rn->window_end) {
			rn->end_reason = xstrdup("window");
			break;
		}
		if (rn->line_matched) {
			rn->end_reason = xstrdup("line");
			if (rn->have_first)
				cut_window(rn, rn->line_t);
			break;
		}
		if (!rn->game_exited)
			continue;
		/* the game's main process is gone */
		drain_output(rn, true);
		if (rn->line_matched) {
			rn->end_reason = xstrdup("line");
			if (rn->have_first)
				cut_window(rn, rn->line_t);
			break;
		}
		if (rc->end == END_EXIT || !rc->relaunch || !rn->have_first) {
			rn->end_reason = xstrdup("exit");
			if (!rn->have_first)
				set_status(rn, "failed", "the game exited before its first frame "
					   "(see game.log)");
			else if (rc->end != END_EXIT)
				set_status(rn, "short", "the game exited %.1f s before the window was full "
					   "and the recipe does not relaunch it",
					   (double)(rn->window_end - now) / 1e9);
			cut_window(rn, last_frame_time(rn));
			break;
		}
		/* a looping demo: a new pass */
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
	if (rn->pass_running)
		end_pass(rn, sid);
	drain_output(rn, true);
	if (rn->have_first && rn->window_end <= rn->window_start && !rn->status)
		set_status(rn, "failed", "the run ended before the warm-up was over: no measured window");
	return r;
}

/* ---- the run directory ---- */

static void make_run_id(char out[33])
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
		char *name = i == 1 ? xasprintf("%s-%s-%s", stamp, rn->req->recipe->name,
						rn->req->variant_name)
				    : xasprintf("%s-%s-%s-%d", stamp, rn->req->recipe->name,
						rn->req->variant_name, i);

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

static void write_provenance(struct runner *rn, time_t start, uint64_t start_mono)
{
	const struct recipe *rc = rn->req->recipe;
	char id[33], iso[32], hex[HB_SHA256_HEX_LEN + 1];
	char *s;

	make_run_id(id);
	utc_iso8601(start, iso, sizeof(iso));
	kvfile_addf(&rn->bench, "format", "%d", HB_RUNDIR_FORMAT);
	kvfile_add(&rn->bench, "run_id", id);
	kvfile_add(&rn->bench, "game", rc->name);
	kvfile_add(&rn->bench, "variant", rn->req->variant_name);
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
}

static void write_frame_facts(struct runner *rn)
{
	const struct hb_frames_header *h = rn->hdr;
	uint64_t samples = __atomic_load_n(&h->cost_samples, __ATOMIC_RELAXED);

	kvfile_addf(&rn->bench, "frames_recorded", "%llu", (unsigned long long)frames_count(rn));
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

static int write_result(struct runner *rn, struct strbuf *err)
{
	struct kvfile res;
	struct run run;
	struct metrics m;
	char *path = xasprintf("%s/result.txt", rn->tmp_dir);
	int r;

	kvfile_init(&res);
	kvfile_addf(&res, "format", "%d", HB_RUNDIR_FORMAT);
	kvfile_add(&res, "status", rn->status);
	kvfile_add(&res, "window", "frames whose end is in (window_start_ns, window_end_ns]");
	kvfile_add(&res, "frame_time", "interval between consecutive presents");
	kvfile_addf(&res, "stall_ms", "%g", rn->req->metric.stall_ms);
	kvfile_add(&res, "percentile", percentile_def_name(rn->req->metric.pct));
	r = run_load(rn->tmp_dir, &run, err);
	if (r == 0) {
		if (run_metrics(&run, &rn->req->metric, &m) == 0) {
			for (int i = 0; i < M_COUNT; i++)
				if (m.have[i])
					kvfile_addf(&res, metric_defs[i].name, "%.6f", m.v[i]);
		}
		run_release(&run);
		r = kvfile_write(&res, path);
		if (r < 0)
			strbuf_addf(err, "cannot write '%s': %s", path, strerror(-r));
	}
	kvfile_release(&res);
	free(path);
	return r;
}

static int finish_run_dir(struct runner *rn, struct strbuf *err)
{
	char *frames = xasprintf("%s/frames.bin", rn->tmp_dir);
	char *bench = xasprintf("%s/bench.txt", rn->tmp_dir);
	char iso[32];
	int r = 0;

	if (rn->hdr) {
		write_frame_facts(rn);
		munmap(rn->hdr, rn->map_len);
		rn->hdr = NULL;
		r = hb_frames_trim(rn->stage_frames);
		if (r == 0)
			r = copy_file(rn->stage_frames, frames, 0644);
		if (r < 0) {
			strbuf_addf(err, "cannot keep the frame file: %s", strerror(-r));
			goto out;
		}
	}
	if (rn->have_first) {
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
	r = write_result(rn, err);
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
	r = xserver_start(&rn->x, rn->req->recipe->screen, rn->xauth, fd, 15.0, err);
	close(fd);
	if (r < 0)
		return r;
	rn->display = rn->x.name;
	kvfile_addf(&rn->bench, "display", "%s (Xvfb, started by the run)", rn->display);
	kvfile_add(&rn->bench, "screen", rn->req->recipe->screen);
	return 0;
}

static void runner_release(struct runner *rn)
{
	if (rn->hdr)
		munmap(rn->hdr, rn->map_len);
	if (rn->game_pid > 0) {
		kill(-rn->game_pid, SIGKILL);
		waitpid(rn->game_pid, NULL, 0);
	}
	xserver_stop(&rn->x);
	if (rn->stage)
		remove_tree(rn->stage);
	if (rn->log_fd >= 0)
		close(rn->log_fd);
	if (rn->pty_master >= 0)
		close(rn->pty_master);
	if (rn->pty_slave >= 0)
		close(rn->pty_slave);
	if (rn->have_re)
		regfree(&rn->end_re);
	kvfile_release(&rn->bench);
	argv_release(&rn->cmd);
	argv_release(&rn->env);
	strbuf_release(&rn->line);
	free(rn->tmp_dir);
	free(rn->final_dir);
	free(rn->stage);
	free(rn->home);
	free(rn->stage_frames);
	free(rn->xauth);
	free(rn->hook);
	free(rn->status);
	free(rn->detail);
	free(rn->end_reason);
}

int runner_run(const struct run_request *req, struct run_outcome *out, struct strbuf *err)
{
	struct runner rn;
	time_t start = time(NULL);
	uint64_t start_mono = mono_ns();
	char *log;
	int seq = 0, r;

	memset(&rn, 0, sizeof(rn));
	memset(out, 0, sizeof(*out));
	rn.req = req;
	rn.log_fd = rn.pty_master = rn.pty_slave = -1;
	kvfile_init(&rn.bench);
	build_command(&rn);
	argv_init(&rn.env);
	if (req->recipe->end == END_LINE && req->recipe->end_line) {
		if (regcomp(&rn.end_re, req->recipe->end_line, REG_EXTENDED | REG_NOSUB) == 0)
			rn.have_re = true;
	}

	r = make_run_dir(&rn, start, err);
	if (r < 0)
		goto out;
	write_provenance(&rn, start, start_mono);
	log = xasprintf("%s/game.log", rn.tmp_dir);
	rn.log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(log);
	if (rn.log_fd < 0 || open_pty(&rn) < 0) {
		r = -errno;
		strbuf_addf(err, "cannot set up the game's output: %s", strerror(errno));
		goto out;
	}
	r = stage_create(&rn, err);
	if (r == 0)
		r = seed_files(&rn, &req->recipe->set, &seq, err);
	if (r == 0 && req->variant)
		r = seed_files(&rn, &req->variant->set, &seq, err);
	if (r == 0 && chown_tree(rn.home, req->user) < 0)
		r = -errno;
	if (r == 0)
		r = map_frames(&rn);
	if (r < 0) {
		if (!err->len)
			strbuf_addf(err, "cannot prepare the run: %s", strerror(-r));
		goto out;
	}
	/* From here on a failure is the run's outcome: keep the directory. */
	if (start_x(&rn, err) < 0 || run_prepare(&rn, err) < 0) {
		set_status(&rn, "failed", "%s", err->buf);
		strbuf_reset(err);
	} else {
		handle_signals(&rn);
		build_env(&rn, true);
		progress(&rn, "starting on %s as user %s", rn.display, req->user->name);
		if (launch_pass(&rn, err) < 0) {
			set_status(&rn, "failed", "%s", err->buf);
			strbuf_reset(err);
		} else if (main_loop(&rn, err) < 0) {
			set_status(&rn, "failed", "%s", err->buf);
			strbuf_reset(err);
		}
	}
	if (xserver_stop(&rn.x) > 0)
		kvfile_add(&rn.bench, "xserver_stop", "killed");
	if (rn.interrupted) {
		r = -EINTR;
		out->interrupted = true;
		goto out;
	}
	r = finish_run_dir(&rn, err);
	if (r < 0)
		goto out;
	out->dir = xstrdup(rn.final_dir);
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
	free(o->dir);
	free(o->status);
	memset(o, 0, sizeof(*o));
}
