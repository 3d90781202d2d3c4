/*
 * hitchbench-prefetch: the learning game prefetch. "learn" watches a game
 * and keeps, per executable, which parts of which files it had in memory;
 * "fetch" reads them back in disk order while the game loads, at a low
 * priority, giving way on memory pressure; "run" starts a detached fetch
 * and execs the game in its own pid. The GAMEPREFETCH switch
 * (bench/switch-prefetch.c) starts learn and fetch beside a run. The
 * logic is in common/prefetch-*.c; the list format is in docs/formats.md.
 */
#include "exitcodes.h"
#include "fsroot.h"
#include "helperproc.h"
#include "prefetch.h"
#include "timeutil.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "hitchbench-prefetch"
#define MAX_DATA 16
/* learn looks every second while the game loads, then every 5 s */
#define LEARN_FAST_S 30
#define LEARN_FAST_MS 1000
#define LEARN_SLOW_MS 5000
#define TICK_MS 100

#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_WHO_PROCESS 1

static void usage(FILE *out)
{
	fprintf(out,
"usage: " PROG " learn [--pid PID]... [--exe PATH] [--dir DIR] [--data DIR]... [--ready FILE]\n"
"       " PROG " fetch --exe PATH [--pid PID] [--mb N] [--reserve-mb N] [--io be0-7|idle]\n"
"                      [--timeout S] [--dir DIR] [--ready FILE]\n"
"       " PROG " run [fetch options] -- GAME [ARGS...]\n"
"       " PROG " list [--dir DIR]\n"
"       " PROG " show|forget KEY|EXE [--dir DIR]\n"
"       " PROG " resident [--drop] FILE...\n"
"\n"
"learn   watches the game (PIDs, their children, pids sent later by sigqueue(SIGUSR1)):\n"
"        the files it maps or opens, every second for 30 s then every 5 s; at the end\n"
"        (all PIDs gone, or SIGTERM) also every file under the --data directories.\n"
"        Each file's pages in memory become ranges with their disk addresses, merged\n"
"        into the executable's list (a file not in memory for 3 sessions leaves it).\n"
"        The executable: --exe, else /proc/PID/exe of the first PID.\n"
"fetch   reads the list of --exe back: min(--mb, MemAvailable - --reserve-mb) MB of\n"
"        pages not in memory yet (64, 48), chosen in first-use order, read in disk\n"
"        order, one %d KiB pread at a time, readahead off, I/O class --io (be7), nice 10.\n"
"        Stops on direct reclaim or swapping, after --timeout (60 s), when --pid exits.\n"
"        One line on stdout: what it read and why it stopped.\n"
"run     forks a detached fetch for GAME's executable (wrappers such as env, nice or\n"
"        taskset skipped; --exe names it otherwise), then execs GAME (same pid).\n"
"        The fetch keeps none of the game's output open: its line goes to --log FILE\n"
"        (or nowhere). Never as root: games do not run as root.\n"
"list, show, forget  the lists in --dir (default $" PREFETCH_DIR_ENV " or\n"
"        " PREFETCH_DIR_DEFAULT "); KEY as list prints it, or an executable's path.\n"
"resident  each FILE's pages in memory: \"RESIDENT TOTAL PATH\" (cachestat, else\n"
"        mincore); --drop first writes back and drops them (POSIX_FADV_DONTNEED).\n"
"Each of learn and fetch ends its line with its own CPU time (cpu N ms).\n"
"Exit: 0 ok, 1 failure, 2 usage.\n", PREFETCH_READ_BYTES / 1024);
}

static double cpu_ms(void)
{
	return (double)self_cpu_ns() / 1e6;
}

static const char *opt_dir;

static const char *list_dir(void)
{
	return opt_dir ? opt_dir : pf_dir();
}

static char *list_path_of_key(const char *key)
{
	return xasprintf("%s/%s.list", list_dir(), key);
}

/* KEY or an executable's path (anything with a '/') into the list's path. */
static char *list_path_of(const char *key_or_exe)
{
	char key[128], real[PATH_MAX];

	if (!strchr(key_or_exe, '/'))
		return list_path_of_key(key_or_exe);
	if (!realpath(key_or_exe, real))
		snprintf(real, sizeof(real), "%s", key_or_exe);
	pf_key(real, key, sizeof(key));
	return list_path_of_key(key);
}

/* A program's real path: as given when it has a '/', else found in PATH. */
static int resolve_exe(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char real[PATH_MAX];

	if (strchr(name, '/')) {
		if (!realpath(name, real))
			return -errno;
		snprintf(out, size, "%s", real);
		return 0;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *cand = xasprintf("%.*s/%s", (int)len, p, name);
		int ok = access(cand, X_OK) == 0 && realpath(cand, real);

		free(cand);
		if (ok) {
			snprintf(out, size, "%s", real);
			return 0;
		}
		p += len + (end ? 1 : 0);
	}
	return -ENOENT;
}

static int parse_pid(const char *s, pid_t *pid)
{
	int v;

	if (safe_atoi(s, &v) < 0 || v <= 0)
		return -EINVAL;
	*pid = v;
	return 0;
}

/* ---- learn ---- */

static int cmd_learn(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' }, { "exe", required_argument, NULL, 'e' },
		{ "dir", required_argument, NULL, 'D' }, { "data", required_argument, NULL, 'd' },
		{ "ready", required_argument, NULL, 'R' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct pf_learner L;
	char *data[MAX_DATA], exe[PATH_MAX] = "", key[128];
	size_t n_data = 0, n_given = 0, old_files = 0, untold;
	const char *ready = NULL;
	struct pf_list old, merged;
	bool have_old = false;
	uint64_t t0 = mono_ns(), next = 0;
	bool seen_alive = false;
	char *path = NULL;
	struct stat st;
	int opt, r, rc = HB_EXIT_OK, err_line = 0;
	pid_t pid;

	pf_learner_init(&L);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_pid(optarg, &pid) < 0) {
				fprintf(stderr, PROG ": --pid wants a pid, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			pf_learner_add_pid(&L, pid);
			n_given++;
			break;
		case 'e':
			if (resolve_exe(optarg, exe, sizeof(exe)) < 0) {
				fprintf(stderr, PROG ": cannot find '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'D': opt_dir = optarg; break;
		case 'd':
			if (n_data < MAX_DATA)
				data[n_data++] = optarg;
			break;
		case 'R': ready = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return HB_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	helper_signals_install();
	helper_ready(ready);
	/* with --pid: until they and their children are gone; without: until
	 * SIGTERM (the switch's passes come by SIGUSR1) */
	while (!helper_stop_sig) {
		uint64_t now = mono_ns();

		while ((pid = helper_take_pid()) > 0) {
			pf_learner_add_pid(&L, pid);
			next = 0;
		}
		if (!exe[0] && L.n_pids) {
			char *rel = xasprintf("%s/proc/%d/exe", fsroot(), (int)L.pids[0]), link[PATH_MAX];
			ssize_t n = readlink(rel, link, sizeof(link) - 1);

			free(rel);
			if (n > 0) {
				link[n] = '\0';
				resolve_exe(link, exe, sizeof(exe));
			}
		}
		if (now >= next) {
			size_t alive = pf_learner_sample(&L);
			bool fast = now - t0 < LEARN_FAST_S * NSEC_PER_SEC;

			next = now + (fast ? LEARN_FAST_MS : LEARN_SLOW_MS) * NSEC_PER_MSEC;
			if (alive)
				seen_alive = true;
			if (n_given && !alive)
				break;
		}
		sleep_ms(TICK_MS);
	}
	if (!exe[0]) {
		fprintf(stderr, PROG ": learn: no executable (no --exe, and no pid to read it from)\n");
		return HB_EXIT_FAILURE;
	}
	if (stat(exe, &st) < 0) {
		fprintf(stderr, PROG ": cannot stat '%s': %s\n", exe, strerror(errno));
		return HB_EXIT_FAILURE;
	}
	if (L.n_pids && !seen_alive) {
		/* merged, it would count a miss against every file of the list */
		fprintf(stderr, PROG ": learn: no process of the game was seen alive: the list is left "
			"as it was\n");
		pf_learner_release(&L);
		return HB_EXIT_FAILURE;
	}
	pf_learner_walk(&L, data, n_data);
	pf_key(exe, key, sizeof(key));
	path = list_path_of_key(key);
	r = pf_list_read(path, &old, &err_line);
	if (r == 0) {
		have_old = true;
		old_files = old.n;
		/* the old list's files are looked at too: their misses count */
		for (size_t i = 0; i < old.n; i++)
			if (pf_list_find(&L.seen, old.files[i].path) < 0)
				pf_learner_add_path(&L, old.files[i].path);
	} else if (r != -ENOENT) {
		if (r == -EINVAL)
			fprintf(stderr, PROG ": %s:%d: not a prefetch list: learnt anew\n", path, err_line);
		else
			fprintf(stderr, PROG ": cannot read '%s': %s: learnt anew\n", path, strerror(-r));
	}
	untold = pf_list_residency(&L.seen);
	if (untold)
		fprintf(stderr, PROG ": learn: %zu files' pages in memory could not be told (mincore "
			"answers only for files this user owns or may write, and this kernel has no "
			"cachestat): learn as root\n", untold);
	L.seen.exe = xstrdup(exe);
	L.seen.exe_size = (uint64_t)st.st_size;
	L.seen.exe_mtime = st.st_mtim.tv_sec;
	pf_list_merge(have_old ? &old : NULL, &L.seen, &merged);
	r = mkdir_p(list_dir(), 0755);
	if (r == 0)
		r = pf_list_write(&merged, path);
	if (r < 0) {
		fprintf(stderr, PROG ": cannot write '%s': %s\n", path, strerror(-r));
		rc = HB_EXIT_FAILURE;
	} else {
		printf("prefetch learn %s: %zu files (%zu before), %.1f MB listed, session %d, "
		       "%zu processes watched, %s; cpu %.0f ms\n",
		       key, merged.n, old_files, pf_list_bytes(&merged) / 1048576.0, merged.sessions,
		       L.n_pids, have_old && merged.sessions == 1 ? "stale list learnt anew" :
		       merged.sessions == 1 ? "new list" : "merged", cpu_ms());
	}
	if (have_old)
		pf_list_release(&old);
	pf_list_release(&merged);
	pf_learner_release(&L);
	free(path);
	return rc;
}

/* ---- fetch ---- */

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
			fprintf(stderr, PROG ": cannot find '%s'\n", arg);
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
	case 'D': opt_dir = arg; return 1;
	case 'R': o->ready = arg; return 1;
	case 'l': o->log = arg; return 1;
	}
	return 0;
bad:
	fprintf(stderr, PROG ": bad value '%s'\n", arg);
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

static int do_fetch(struct fetch_opts *o)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char key[128], io[8];
	struct pf_list l;
	struct pf_fetch f;
	struct pf_read *reads = NULL;
	size_t n_reads = 0;
	uint64_t **resident = NULL, budget = 0, listed = 0, chosen = 0, in_mem = 0;
	bool *skip = NULL;
	struct stat st;
	char *path;
	FILE *out = stdout;
	int r, err_line = 0;

	helper_signals_install();
	helper_ready(o->ready);
	if (o->log && !(out = fopen(o->log, "a")))
		out = stderr;
	if (o->io_class == IOPRIO_CLASS_IDLE)
		snprintf(io, sizeof(io), "idle");
	else
		snprintf(io, sizeof(io), "be%d", o->io_level);
	pf_key(o->exe, key, sizeof(key));
	memset(&f, 0, sizeof(f));
	f.t0 = mono_ns();   /* the 60 s count the planning too */
	path = list_path_of_key(key);
	r = pf_list_read(path, &l, &err_line);
	if (r < 0) {
		f.why = PF_STOP_NO_LIST;
		fprintf(out, "prefetch %s: read 0.0 MB from 0 files in 0 ms (%s), stopped: %s; "
			"cpu %.0f ms\n", key, r == -ENOENT ? "no list" : "list unreadable",
			pf_stop_name(f.why), cpu_ms());
		free(path);
		if (out != stdout && out != stderr)
			fclose(out);
		return r == -ENOENT ? HB_EXIT_OK : HB_EXIT_FAILURE;
	}
	free(path);
	if (stat(o->exe, &st) < 0 || !pf_list_current(&l, (uint64_t)st.st_size, st.st_mtim.tv_sec)) {
		f.why = PF_STOP_STALE;
		goto report;
	}
	/* below the game: the CPU a little, the disk as asked */
	if (nice(10) < 0 && errno)
		errno = 0;
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
		(o->io_class << IOPRIO_CLASS_SHIFT) | o->io_level);
	if (pf_budget_pages(o->mb, o->reserve_mb, page, &budget) < 0)
		budget = (o->mb << 20) / page;
	resident = zalloc((l.n ? l.n : 1) * sizeof(*resident));
	skip = zalloc((l.n ? l.n : 1) * sizeof(*skip));
	for (size_t i = 0; i < l.n; i++) {
		struct pf_file *pf = &l.files[i];
		int fd = pf_open(pf->path, &st);

		if (fd < 0 || (uint64_t)st.st_size != pf->size || st.st_mtim.tv_sec != pf->mtime) {
			skip[i] = true;   /* gone or changed: its ranges mean nothing */
			if (fd >= 0)
				close(fd);
			continue;
		}
		resident[i] = zalloc((pf->n ? pf->n : 1) * sizeof(uint64_t));
		/* not known (no cachestat, and mincore would not tell): none
		 * in memory, so the budget decides */
		if (pf_ranges_resident(fd, pf->size, pf->ranges, pf->n, resident[i]) < 0)
			memset(resident[i], 0, (pf->n ? pf->n : 1) * sizeof(uint64_t));
		for (size_t j = 0; j < pf->n; j++)
			in_mem += resident[i][j];
		close(fd);
	}
	pf_plan(&l, resident, skip, budget, page, &reads, &n_reads, &listed, &chosen);
	f.list = &l;
	f.reads = reads;
	f.n_reads = n_reads;
	f.game = o->pid;
	f.timeout_ns = (uint64_t)o->timeout_s * NSEC_PER_SEC;
	f.stop = fetch_poll;
	f.stop_arg = &f;
	if (budget == 0)
		f.why = PF_STOP_NO_BUDGET;
	else if (chosen == 0)
		f.why = PF_STOP_IN_MEMORY;
	else
		pf_fetch_run(&f);
report:
	fprintf(out, "prefetch %s: read %.1f MB from %zu files in %.0f ms (chosen: %.1f MB not in "
		"memory; %.1f MB of the list in memory already; budget %.1f MB, %.1f MB listed; "
		"%zu reads, %zu failed, %.1f MB skipped in memory, io %s), stopped: %s; cpu %.0f ms\n",
		key, f.bytes / 1048576.0, f.files, f.ns / 1e6, chosen * (double)page / 1048576.0,
		in_mem * (double)page / 1048576.0, budget * (double)page / 1048576.0,
		listed * (double)page / 1048576.0, f.preads, f.failed, f.cached / 1048576.0, io,
		pf_stop_name(f.why),
		cpu_ms());
	fflush(out);
	if (out != stdout && out != stderr)
		fclose(out);
	for (size_t i = 0; resident && i < l.n; i++)
		free(resident[i]);
	free(resident);
	free(skip);
	free(reads);
	pf_list_release(&l);
	return HB_EXIT_OK;
}

static int cmd_fetch(int argc, char **argv)
{
	struct fetch_opts o;
	int opt, t;

	fetch_defaults(&o);
	while ((opt = getopt_long(argc, argv, "h", fetch_opts_long, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		t = fetch_option(opt, optarg, &o);
		if (t <= 0) {
			if (t == 0)
				usage(stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (!o.exe[0] || optind != argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	return do_fetch(&o);
}

static int cmd_run(int argc, char **argv)
{
	struct fetch_opts o;
	int opt, t, st, game;
	pid_t child;

	fetch_defaults(&o);
	while ((opt = getopt_long(argc, argv, "+h", fetch_opts_long, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		t = fetch_option(opt, optarg, &o);
		if (t <= 0 || opt == 'p' || opt == 'R') {
			if (t == 0 || opt == 'p' || opt == 'R')
				usage(stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	if (geteuid() == 0) {
		fprintf(stderr, PROG ": run: refuses to start a game as root (a game never runs as root): "
			"run it as the player, or use fetch beside the game\n");
		return HB_EXIT_USAGE;
	}
	/* the list is the game's, not a wrapper's (env, nice, taskset ...) */
	game = optind + pf_command_start(argv + optind);
	if (!o.exe[0] && (!argv[game] || resolve_exe(argv[game], o.exe, sizeof(o.exe)) < 0)) {
		fprintf(stderr, PROG ": cannot find '%s'\n", argv[game] ? argv[game] : argv[optind]);
		return HB_EXIT_FAILURE;
	}
	o.pid = getpid();
	fflush(NULL);
	/* the fetch in a grandchild of its own session: nothing of it is the
	 * game's child, and the game keeps this pid */
	child = fork();
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
			_exit(do_fetch(&o));
		_exit(0);
	}
	if (child > 0)
		waitpid(child, &st, 0);
	execvp(argv[optind], argv + optind);
	fprintf(stderr, PROG ": cannot run '%s': %s\n", argv[optind], strerror(errno));
	return 127;
}

/* ---- list, show, forget ---- */

static int cmd_list(int argc, char **argv)
{
	DIR *d;
	struct dirent *e;

	if (argc > 1 && argv[1][0] != '-') {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	d = opendir(list_dir());
	if (!d) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, PROG ": cannot open '%s': %s\n", list_dir(), strerror(errno));
		return HB_EXIT_FAILURE;
	}
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		char *path;
		struct pf_list l;
		struct stat st;
		int err_line = 0;

		if (len < 6 || strcmp(e->d_name + len - 5, ".list") != 0)
			continue;
		path = xasprintf("%s/%s", list_dir(), e->d_name);
		if (pf_list_read(path, &l, &err_line) == 0) {
			bool cur = stat(l.exe, &st) == 0 &&
				   pf_list_current(&l, (uint64_t)st.st_size, st.st_mtim.tv_sec);

			printf("%.*s\t%s\t%zu files\t%.1f MB\t%d sessions%s\n", (int)len - 5, e->d_name,
			       l.exe, l.n, pf_list_bytes(&l) / 1048576.0, l.sessions,
			       cur ? "" : "\tstale");
			pf_list_release(&l);
		} else {
			printf("%.*s\t?\tunreadable (line %d)\n", (int)len - 5, e->d_name, err_line);
		}
		free(path);
	}
	closedir(d);
	return 0;
}

static uint64_t file_bytes(const struct pf_file *f)
{
	uint64_t b = 0;

	for (size_t j = 0; j < f->n; j++)
		b += f->ranges[j].len;
	return b;
}

static int cmd_show_forget(int argc, char **argv, bool forget)
{
	char *path;
	int r, err_line = 0;

	if (argc != 2) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	path = list_path_of(argv[1]);
	if (forget) {
		r = unlink(path) < 0 ? -errno : 0;
	} else {
		struct pf_list l;

		r = pf_list_read(path, &l, &err_line);
		if (r == 0) {
			printf("exe %s\nsessions %d\n", l.exe, l.sessions);
			for (size_t i = 0; i < l.n; i++)
				printf("%8.1f KiB %3zu ranges  first %d misses %d  %s\n",
				       file_bytes(&l.files[i]) / 1024.0,
				       l.files[i].n, l.files[i].first, l.files[i].misses,
				       l.files[i].path);
			pf_list_release(&l);
		}
	}
	if (r < 0) {
		fprintf(stderr, PROG ": '%s': %s\n", path,
			r == -EINVAL ? "not a prefetch list" : strerror(-r));
		free(path);
		return HB_EXIT_FAILURE;
	}
	free(path);
	return 0;
}

/* What the tests and a curious person check a fetch by. */
static int cmd_resident(int argc, char **argv)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	bool drop = false;
	int rc = 0, i = 1;

	if (i < argc && strcmp(argv[i], "--drop") == 0) {
		drop = true;
		i++;
	}
	if (i >= argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	for (; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		uint64_t pages = 0;
		int r;

		if (fd < 0 || fstat(fd, &st) < 0) {
			fprintf(stderr, PROG ": cannot open '%s': %s\n", argv[i], strerror(errno));
			if (fd >= 0)
				close(fd);
			rc = HB_EXIT_FAILURE;
			continue;
		}
		if (drop) {
			/* dirty pages stay: written back first */
			fdatasync(fd);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		}
		r = pf_resident_pages(fd, (uint64_t)st.st_size, 0, (uint64_t)st.st_size, &pages);
		if (r < 0) {
			fprintf(stderr, PROG ": '%s': %s\n", argv[i], strerror(-r));
			rc = HB_EXIT_FAILURE;
		} else {
			printf("%llu %llu %s\n", (unsigned long long)pages,
			       (unsigned long long)((st.st_size + page - 1) / page), argv[i]);
		}
		close(fd);
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int rc;

	if (argc < 2) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	/* --dir anywhere for the small commands */
	for (int i = 2; i + 1 < argc; i++)
		if (strcmp(argv[i], "--dir") == 0 && (strcmp(cmd, "list") == 0 ||
			strcmp(cmd, "show") == 0 || strcmp(cmd, "forget") == 0)) {
			opt_dir = argv[i + 1];
			memmove(argv + i, argv + i + 2, (argc - i - 2 + 1) * sizeof(char *));
			argc -= 2;
			i--;
		}
	argc--;
	argv++;
	if (strcmp(cmd, "learn") == 0)
		rc = cmd_learn(argc, argv);
	else if (strcmp(cmd, "fetch") == 0)
		rc = cmd_fetch(argc, argv);
	else if (strcmp(cmd, "run") == 0)
		rc = cmd_run(argc, argv);
	else if (strcmp(cmd, "list") == 0)
		rc = cmd_list(argc, argv);
	else if (strcmp(cmd, "show") == 0)
		rc = cmd_show_forget(argc, argv, false);
	else if (strcmp(cmd, "forget") == 0)
		rc = cmd_show_forget(argc, argv, true);
	else if (strcmp(cmd, "resident") == 0)
		rc = cmd_resident(argc, argv);
	else {
		fprintf(stderr, PROG ": unknown command '%s'\n", cmd);
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write the output\n");
		return HB_EXIT_FAILURE;
	}
	return rc;
}
