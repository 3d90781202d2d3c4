/*
 * hitchbench-prefetch fetch and run: the command's side of reading a
 * game's list back. Its options, its place below the game (nice 10, the
 * I/O class asked), which of the list's pages are already in memory, the
 * library's plan and read (common/prefetch/prefetch-fetch.c) and the one line
 * saying what was read and why it stopped. run forks such a fetch,
 * detached, and execs the game in its own pid.
 */
#include "base/message.h"
#include "prefetch-internal.h"
#include "base/exitcodes.h"
#include "system/helperproc.h"
#include "system/sandbox.h"
#include "prefetch/prefetch.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_WHO_PROCESS 1

struct fetch_opts {
	char exe[PATH_MAX];
	pid_t pid;
	uint64_t mb, reserve_mb;
	int io_class, io_level;
	int timeout_s;
	const char *ready, *log;
};

static int parse_io(const char *s, struct fetch_opts *o)
{
	if (strcmp(s, "idle") == 0) {
		o->io_class = IOPRIO_CLASS_IDLE;
		o->io_level = 0;
		return 0;
	}
	if (strlen(s) == 3 && s[0] == 'b' && s[1] == 'e' && s[2] >= '0' && s[2] <= '7') {
		o->io_class = IOPRIO_CLASS_BE;
		o->io_level = s[2] - '0';
		return 0;
	}
	return -EINVAL;
}

/* A fetch option (shared by fetch and run): 1 taken, 0 not ours, -1 bad. */
static int fetch_option(int opt, const char *arg, struct fetch_opts *o)
{
	int v;

	switch (opt) {
	case 'e':
		if (resolve_exe(arg, o->exe, sizeof(o->exe)) < 0) {
			error_msg("cannot find '%s'", arg);
			return -1;
		}
		return 1;
	case 'p':
		if (parse_pid(arg, &o->pid) < 0)
			goto bad;
		return 1;
	case 'm': case 'r': case 't':
		if (safe_atoi(arg, &v) < 0 || v < 0 || (opt == 't' && v == 0))
			goto bad;
		if (opt == 'm')
			o->mb = (uint64_t)v;
		else if (opt == 'r')
			o->reserve_mb = (uint64_t)v;
		else
			o->timeout_s = v;
		return 1;
	case 'i':
		if (parse_io(arg, o) < 0)
			goto bad;
		return 1;
	case 'D': set_list_dir(arg); return 1;
	case 'R': o->ready = arg; return 1;
	case 'l': o->log = arg; return 1;
	}
	return 0;
bad:
	error_msg("bad value '%s'", arg);
	return -1;
}

static const struct option fetch_opts_long[] = {
	{ "exe", required_argument, NULL, 'e' }, { "pid", required_argument, NULL, 'p' },
	{ "mb", required_argument, NULL, 'm' }, { "reserve-mb", required_argument, NULL, 'r' },
	{ "io", required_argument, NULL, 'i' }, { "timeout", required_argument, NULL, 't' },
	{ "dir", required_argument, NULL, 'D' }, { "ready", required_argument, NULL, 'R' },
	{ "log", required_argument, NULL, 'l' }, { "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void fetch_defaults(struct fetch_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mb = 64;
	o->reserve_mb = 48;
	o->io_class = IOPRIO_CLASS_BE;
	o->io_level = 7;
	o->timeout_s = 60;
}

/* The switch sends the game's pid by sigqueue once it starts; a stop
 * signal ends the reading. */
static bool fetch_poll(void *arg)
{
	struct pf_fetch *f = arg;
	pid_t pid = helper_take_pid();

	if (pid > 0)
		f->game = pid;
	return helper_stop_sig != 0;
}

/* What the plan holds: which files are gone or changed, each range's
 * pages in memory, the reads chosen and the figures of the line. */
struct fetch_plan {
	uint64_t **resident;
	bool *skip;
	struct pf_read *reads;
	size_t n_reads;
	uint64_t budget, listed, chosen, in_mem;
};

/* Where the line goes: --log FILE (appended), else stdout. */
static FILE *fetch_out(const struct fetch_opts *o)
{
	FILE *out = stdout;

	if (o->log && !(out = fopen(o->log, "a")))
		out = stderr;
	return out;
}

static void fetch_out_close(FILE *out)
{
	if (out != stdout && out != stderr)
		fclose(out);
}

/* No list, or one that cannot be read: said, and only the second fails. */
static int fetch_no_list(FILE *out, const char *key, struct pf_fetch *f, int r)
{
	f->why = PF_STOP_NO_LIST;
	fprintf(out, "prefetch %s: read 0.0 MB from 0 files in 0 ms (%s), stopped: %s; "
		"cpu %.0f ms\n", key, r == -ENOENT ? "no list" : "list unreadable",
		pf_stop_name(f->why), cpu_ms());
	fetch_out_close(out);
	return r == -ENOENT ? HB_EXIT_OK : HB_EXIT_FAILURE;
}

/* Below the game: the CPU a little, the disk as asked. */
static void below_the_game(const struct fetch_opts *o)
{
	if (nice(10) < 0 && errno)
		errno = 0;
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
		(o->io_class << IOPRIO_CLASS_SHIFT) | o->io_level);
}

/* Each listed file's ranges in memory now; a file gone or changed since
 * it was learnt is skipped, its ranges mean nothing. */
static void fetch_residency(const struct pf_list *l, struct fetch_plan *p)
{
	struct stat st;

	p->resident = zalloc((l->n ? l->n : 1) * sizeof(*p->resident));
	p->skip = zalloc((l->n ? l->n : 1) * sizeof(*p->skip));
	for (size_t i = 0; i < l->n; i++) {
		const struct pf_file *pf = &l->files[i];
		int fd = pf_open(pf->path, &st);

		if (fd < 0 || (uint64_t)st.st_size != pf->size || st.st_mtim.tv_sec != pf->mtime) {
			p->skip[i] = true;
			if (fd >= 0)
				close(fd);
			continue;
		}
		p->resident[i] = zalloc((pf->n ? pf->n : 1) * sizeof(uint64_t));
		/* not known (no cachestat, and mincore would not tell): none
		 * in memory, so the budget decides */
		if (pf_ranges_resident(fd, pf->size, pf->ranges, pf->n, p->resident[i]) < 0)
			memset(p->resident[i], 0, (pf->n ? pf->n : 1) * sizeof(uint64_t));
		for (size_t j = 0; j < pf->n; j++)
			p->in_mem += p->resident[i][j];
		close(fd);
	}
}

/* The plan, then the reading unless there is nothing to read. */
static void fetch_list(const struct fetch_opts *o, struct pf_list *l, size_t page, struct pf_fetch *f,
		       struct fetch_plan *p)
{
	below_the_game(o);
	if (pf_budget_pages(o->mb, o->reserve_mb, page, &p->budget) < 0)
		p->budget = (o->mb << 20) / page;
	fetch_residency(l, p);
	pf_plan(l, p->resident, p->skip, p->budget, page, &p->reads, &p->n_reads, &p->listed,
		&p->chosen);
	f->list = l;
	f->reads = p->reads;
	f->n_reads = p->n_reads;
	f->game = o->pid;
	f->timeout_ns = (uint64_t)o->timeout_s * NSEC_PER_SEC;
	f->stop = fetch_poll;
	f->stop_arg = f;
	if (p->budget == 0)
		f->why = PF_STOP_NO_BUDGET;
	else if (p->chosen == 0)
		f->why = PF_STOP_IN_MEMORY;
	else
		pf_fetch_run(f);
}

static void fetch_report(FILE *out, const char *key, const struct fetch_opts *o,
			 const struct pf_fetch *f, const struct fetch_plan *p, size_t page)
{
	char io[8];

	if (o->io_class == IOPRIO_CLASS_IDLE)
		snprintf(io, sizeof(io), "idle");
	else
		snprintf(io, sizeof(io), "be%d", o->io_level);
	fprintf(out, "prefetch %s: read %.1f MB from %zu files in %.0f ms (chosen: %.1f MB not in "
		"memory; %.1f MB of the list in memory already; budget %.1f MB, %.1f MB listed; "
		"%zu reads, %zu failed, %.1f MB skipped in memory, io %s), stopped: %s; cpu %.0f ms\n",
		key, f->bytes / 1048576.0, f->files, f->ns / 1e6, p->chosen * (double)page / 1048576.0,
		p->in_mem * (double)page / 1048576.0, p->budget * (double)page / 1048576.0,
		p->listed * (double)page / 1048576.0, f->preads, f->failed, f->cached / 1048576.0, io,
		pf_stop_name(f->why),
		cpu_ms());
	fflush(out);
}

static void fetch_plan_release(struct fetch_plan *p, size_t n_files)
{
	for (size_t i = 0; p->resident && i < n_files; i++)
		free(p->resident[i]);
	free(p->resident);
	free(p->skip);
	free(p->reads);
}

static int do_fetch(struct fetch_opts *o)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char key[128], *path;
	struct pf_list l;
	struct pf_fetch f;
	struct fetch_plan p;
	struct stat st;
	FILE *out;
	int r, err_line = 0;

	helper_signals_install();
	helper_ready(o->ready);
	out = fetch_out(o);
	/* the list's files the game named: read as its uid may, with no
	 * capability (docs/man/hitchbench-prefetch.1, PRIVILEGES; as learn) */
	if (sandbox_narrow(NULL, 0, NULL, msg_lines) < 0) {
		fetch_out_close(out);
		return HB_EXIT_FAILURE;
	}
	pf_key(o->exe, key, sizeof(key));
	memset(&f, 0, sizeof(f));
	memset(&p, 0, sizeof(p));
	f.t0 = mono_ns();   /* the 60 s count the planning too */
	path = list_path_of_key(key);
	r = pf_list_read(path, &l, &err_line);
	free(path);
	if (r < 0)
		return fetch_no_list(out, key, &f, r);
	if (stat(o->exe, &st) < 0 || !pf_list_current(&l, (uint64_t)st.st_size, st.st_mtim.tv_sec))
		f.why = PF_STOP_STALE;
	else
		fetch_list(o, &l, page, &f, &p);
	fetch_report(out, key, o, &f, &p, page);
	fetch_out_close(out);
	fetch_plan_release(&p, l.n);
	pf_list_release(&l);
	return HB_EXIT_OK;
}

/* fetch's options, or run's up to the game (run takes no --pid nor
 * --ready: those are a fetch's beside a game). The parser contract
 * (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
static int fetch_args(int argc, char **argv, struct fetch_opts *o, bool run)
{
	int opt, t;

	fetch_defaults(o);
	while ((opt = getopt_long(argc, argv, run ? "+h" : "h", fetch_opts_long, NULL)) != -1) {
		bool fetch_only = run && (opt == 'p' || opt == 'R');

		if (opt == 'h') {
			usage(stdout);
			return HB_ARGS_DONE;
		}
		t = fetch_option(opt, optarg, o);
		if (t <= 0 || fetch_only) {
			if (t == 0 || fetch_only)
				usage(stderr);
			return HB_EXIT_USAGE;
		}
	}
	return 0;
}

int cmd_fetch(int argc, char **argv)
{
	struct fetch_opts o;
	int r = fetch_args(argc, argv, &o, false);

	if (r != 0)
		return hb_args_exit(r);
	if (!o.exe[0] || optind != argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	return do_fetch(&o);
}

/* The fetch in a grandchild of its own session: nothing of it is the
 * game's child, and the game keeps this pid. */
static void fork_detached_fetch(struct fetch_opts *o)
{
	int st;
	pid_t child = fork();

	if (child == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		setsid();
		/* nothing of the game's terminal or pipes: whoever reads the
		 * game's output to its end must not wait for the fetch */
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		if (fork() == 0)
			_exit(do_fetch(o));
		_exit(0);
	}
	if (child > 0)
		waitpid(child, &st, 0);
}

int cmd_run_game(int argc, char **argv)
{
	struct fetch_opts o;
	int r = fetch_args(argc, argv, &o, true), game;

	if (r != 0)
		return hb_args_exit(r);
	if (optind >= argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	if (geteuid() == 0) {
		error_msg("run: refuses to start a game as root (a game never runs as root): "
			"run it as the player, or use fetch beside the game");
		return HB_EXIT_USAGE;
	}
	/* the list is the game's, not a wrapper's (env, nice, taskset ...) */
	game = optind + pf_command_start(argv + optind);
	if (!o.exe[0] && (!argv[game] || resolve_exe(argv[game], o.exe, sizeof(o.exe)) < 0)) {
		error_msg("cannot find '%s'", argv[game] ? argv[game] : argv[optind]);
		return HB_EXIT_FAILURE;
	}
	o.pid = getpid();
	fflush(NULL);
	fork_detached_fetch(&o);
	execvp(argv[optind], argv + optind);
	error_msg("cannot run '%s': %s", argv[optind], strerror(errno));
	return 127;
}
