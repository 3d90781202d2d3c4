/*
 * Drives common/procwatch/procwatch.c on the live machine, for t1100 and for its
 * cost.
 *
 *   procwatch live connector|scan
 *     Starts a stand-in for the run (a child in a session of its own),
 *     watches, and meanwhile starts: an outside process (sleep, from this
 *     program: the harness's children are not exempt), one forked without
 *     exec (outside too), one carrying HITCHBENCH_RUN=<id> (the run's),
 *     one from inside the run (the run's), and a shell carrying
 *     HITCHBENCH_HARNESS whose subshell exits at once and whose
 *     commands (true, cat) are done at once (all the harness's: the
 *     connector judges the gone ones by their parent), and the same
 *     commands from a marked shell started before the watch (its
 *     environment is read when its first child is judged), and a marked
 *     shell started before the watch that forks a subshell and exits,
 *     both gone before the watcher reads a single event (as a sanitizer
 *     build of a helper's leak check at its exit: the harness's, read at
 *     the start as a child of the harness). Prints "role PID" lines,
 *     then the verdicts as "! PID COMM what: why (t=T s, parent PPID...)"
 *     or "- ...".
 *     Exit 77 when the connector cannot be used (it needs root).
 *
 *   procwatch cost SECONDS EXTRA [connector|scan|both]
 *     Starts EXTRA sleeping children, then watches for SECONDS with each
 *     source and prints the watcher's CPU per second: getrusage(SELF)
 *     user+system over the watch, divided by its wall time (the start's
 *     one-time scan and the end's busy-session pass reported apart).
 */
#include "procwatch/procwatch.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_ms(void)
{
	return (double)self_cpu_ns() / 1e6;
}

static void print_verdict(void *ctx, const struct procwatch_verdict *v)
{
	unsigned long *counted = ctx;

	if (counted) {
		*counted += v->counted;
		return;
	}
	printf("%c %d %s %s: %s (t=%.3f s, parent %d", v->counted ? '!' : '-', v->pid, v->comm,
	       procwatch_what_name(v->what), v->why, v->t, v->ppid);
	if (v->sessionid != PROCWATCH_NO_SESSION)
		printf(", session %u", v->sessionid);
	if (v->scope[0])
		printf(", %s", v->scope);
	printf(")\n");
	fflush(stdout);
}

static enum procwatch_source parse_source(const char *s)
{
	if (!strcmp(s, "connector"))
		return PROCWATCH_CONNECTOR;
	if (!strcmp(s, "scan"))
		return PROCWATCH_SCAN;
	fprintf(stderr, "procwatch: unknown source '%s'\n", s);
	exit(2);
}

/* Watches until deadline, dispatching as the library asks. */
static int watch_until(struct procwatch *w, double deadline)
{
	while (mono() < deadline) {
		struct pollfd pfd = { .fd = procwatch_fd(w), .events = POLLIN };
		int left = (int)((deadline - mono()) * 1000) + 1;
		int t = procwatch_timeout_ms(w);
		int r;

		if (t < 0 || t > left)
			t = left;
		poll(&pfd, pfd.fd >= 0, t);
		r = procwatch_dispatch(w);
		if (r < 0)
			return r;
	}
	return 0;
}

static pid_t spawn_sleep(const char *marker)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (marker)
			setenv(PROCWATCH_MARKER_ENV, marker, 1);
		execl("/bin/sleep", "sleep", "1", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int cmd_live(enum procwatch_source source)
{
	struct procwatch_config cfg = { .source = source, .fn = print_verdict };
	struct procwatch *w;
	char run_id[32];
	int to_run[2], from_run[2];
	pid_t run, outside, bare, marked, harness, early, gone, inside = 0;
	int r, go[2], go_gone[2], ready[2];

	snprintf(run_id, sizeof(run_id), "live-%d", (int)getpid());
	if (pipe(to_run) < 0 || pipe(from_run) < 0)
		return 1;
	run = fork();
	if (run == 0) {
		/* the run: a session of its own, starts a sleep when told */
		char c;

		setsid();
		close(to_run[1]);
		close(from_run[0]);
		if (write(from_run[1], "s", 1) != 1)
			_exit(1);
		if (read(to_run[0], &c, 1) == 1) {
			pid_t child = spawn_sleep(NULL);

			if (write(from_run[1], &child, sizeof(child)) != sizeof(child))
				_exit(1);
			waitpid(child, NULL, 0);
		}
		_exit(0);
	}
	close(to_run[0]);
	close(from_run[1]);
	{
		char c;

		if (read(from_run[0], &c, 1) != 1)   /* in its session now */
			return 1;
	}
	/* the harness's, there before the watch: a marked shell that waits,
	 * then runs commands done at once, directly and in a subshell (CI's
	 * fuzzing script beside the package test, whose `cat` was counted) */
	if (pipe(go) < 0)
		return 1;
	early = fork();
	if (early == 0) {
		setenv(PROCWATCH_HARNESS_ENV, "procwatch-early", 1);
		dup2(go[0], 0);
		close(go[0]);
		close(go[1]);
		execl("/bin/sh", "sh", "-c",
		      "read x; for i in 1 2 3 4 5 6 7 8; do /bin/cat </dev/null; x=$(/bin/true | /bin/cat); done",
		      (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	/* the harness's, there before the watch: a marked shell that forks
	 * a subshell and exits, reaped before the watcher reads an event */
	if (pipe(go_gone) < 0 || pipe(ready) < 0)
		return 1;
	gone = fork();
	if (gone == 0) {
		setenv(PROCWATCH_HARNESS_ENV, "procwatch-gone", 1);
		dup2(go_gone[0], 0);
		close(go_gone[0]);
		close(go_gone[1]);
		close(ready[0]);
		if (ready[1] != 3) {
			dup2(ready[1], 3);
			close(ready[1]);
		}
		execl("/bin/sh", "sh", "-c", "echo >&3; exec 3>&-; read x; (exit 0); exit 0", (char *)NULL);
		_exit(127);
	}
	close(go_gone[0]);
	close(ready[1]);
	{
		char c;

		/* exec'd: its environment is the marked one when the watch starts */
		if (read(ready[0], &c, 1) != 1)
			return 1;
		close(ready[0]);
	}
	cfg.run_roots = &run;
	cfg.n_run_roots = 1;
	cfg.run_id = run_id;
	r = procwatch_start(&w, &cfg);
	if (r < 0) {
		kill(run, SIGKILL);
		waitpid(run, NULL, 0);
		close(go[1]);
		waitpid(early, NULL, 0);
		close(go_gone[1]);
		waitpid(gone, NULL, 0);
		if (source == PROCWATCH_CONNECTOR && (r == -EPERM || r == -EACCES)) {
			printf("the proc connector needs root (%s)\n", strerror(-r));
			return 77;
		}
		fprintf(stderr, "procwatch: cannot start: %s\n", strerror(-r));
		return 1;
	}
	printf("# source %s: %s\n", procwatch_source_name(procwatch_source(w)), procwatch_why(w));
	/* before any event is read: it and its subshell are gone */
	if (write(go_gone[1], "\n", 1) != 1)
		fprintf(stderr, "procwatch: the shell that forks and exits did not take its go\n");
	close(go_gone[1]);
	waitpid(gone, NULL, 0);
	outside = spawn_sleep(NULL);
	marked = spawn_sleep(run_id);
	bare = fork();
	if (bare == 0) {
		sleep(1);
		_exit(0);
	}
	/* the harness's: a marked shell whose subshell (a fork without exec)
	 * is gone before anyone could read its environment */
	harness = fork();
	if (harness == 0) {
		setenv(PROCWATCH_HARNESS_ENV, "procwatch", 1);
		/* and commands it execs that are done at once, as a script's
		 * `$(... | tail -n 1)`: gone, most of them, before their
		 * environment can be read */
		execl("/bin/sh", "sh", "-c",
		      "(exit 0); for i in 1 2 3 4 5 6 7 8; do x=$(/bin/true | /bin/cat); done; sleep 0.5",
		      (char *)NULL);
		_exit(127);
	}
	if (write(to_run[1], "x", 1) != 1 || read(from_run[0], &inside, sizeof(inside)) != sizeof(inside))
		fprintf(stderr, "procwatch: the run did not start its child\n");
	if (write(go[1], "\n", 1) != 1)
		fprintf(stderr, "procwatch: the early shell did not take its go\n");
	close(go[1]);
	printf("outside %d\nbare %d\nmarked %d\ninside %d\nharness %d\nearly %d\ngone %d\n", (int)outside,
	       (int)bare, (int)marked, (int)inside, (int)harness, (int)early, (int)gone);
	fflush(stdout);
	r = watch_until(w, mono() + 1.5);
	if (r == 0)
		r = procwatch_finish(w);
	procwatch_free(w);
	close(to_run[1]);
	waitpid(outside, NULL, 0);
	waitpid(marked, NULL, 0);
	waitpid(bare, NULL, 0);
	waitpid(harness, NULL, 0);
	waitpid(early, NULL, 0);
	waitpid(run, NULL, 0);
	if (r < 0) {
		fprintf(stderr, "procwatch: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}

static int cost_one(enum procwatch_source source, double seconds)
{
	struct procwatch_config cfg = { .source = source, .fn = print_verdict };
	struct procwatch_stats st;
	unsigned long counted = 0;
	struct procwatch *w;
	double c0, c1, c2, c3, t1, t2;
	int r;

	cfg.ctx = &counted;
	c0 = cpu_ms();
	r = procwatch_start(&w, &cfg);
	if (r < 0) {
		printf("%s: not available (%s)\n", procwatch_source_name(source), strerror(-r));
		return 0;
	}
	c1 = cpu_ms();
	t1 = mono();
	r = watch_until(w, t1 + seconds);
	c2 = cpu_ms();
	t2 = mono();
	if (r == 0)
		r = procwatch_finish(w);
	c3 = cpu_ms();
	procwatch_stats(w, &st);
	printf("%s: %.3f ms CPU/s (getrusage user+system %.1f ms over %.1f s); start %.1f ms, finish %.1f ms; "
	       "%zu processes, %lu scans, %lu listings, %lu connector reads, %lu stat reads, %lu counted\n",
	       procwatch_source_name(source), (c2 - c1) / (t2 - t1), c2 - c1, t2 - t1, c1 - c0, c3 - c2,
	       st.procs, st.scans, st.listings, st.events, st.stat_reads, counted);
	procwatch_free(w);
	return r < 0 ? 1 : 0;
}

static int cmd_cost(double seconds, int extra, const char *which)
{
	pid_t *kids = zalloc((size_t)(extra ? extra : 1) * sizeof(pid_t));
	int rc = 0;

	for (int i = 0; i < extra; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			pause();
			_exit(0);
		}
	}
	if (!strcmp(which, "both") || !strcmp(which, "connector"))
		rc |= cost_one(PROCWATCH_CONNECTOR, seconds);
	if (!strcmp(which, "both") || !strcmp(which, "scan"))
		rc |= cost_one(PROCWATCH_SCAN, seconds);
	for (int i = 0; i < extra; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	for (int i = 0; i < extra; i++)
		if (kids[i] > 0)
			waitpid(kids[i], NULL, 0);
	free(kids);
	return rc;
}

int main(int argc, char **argv)
{
	int extra;
	double secs;

	/* it plays the strangers itself: what it starts must not carry the
	 * harness's marker that the test scripts export, and a child forked
	 * without exec shows the environment this program was started with,
	 * so it starts again without it */
	if (getenv(PROCWATCH_HARNESS_ENV)) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0) {
			perror("procwatch: /proc/self/exe");
			return 1;
		}
		self[n] = '\0';
		unsetenv(PROCWATCH_HARNESS_ENV);
		execv(self, argv);
		perror("procwatch: exec");
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "live"))
		return cmd_live(parse_source(argv[2]));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "cost") && safe_atod(argv[2], &secs) == 0 &&
	    secs > 0 && safe_atoi(argv[3], &extra) == 0 && extra >= 0)
		return cmd_cost(secs, extra, argc == 5 ? argv[4] : "both");
	fprintf(stderr, "usage: procwatch live connector|scan\n"
			"       procwatch cost SECONDS EXTRA [connector|scan|both]\n");
	return 2;
}
