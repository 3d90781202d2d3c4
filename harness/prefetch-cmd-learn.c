/*
 * hitchbench-prefetch learn: the command's side of learning a game's
 * list. It takes the game's pids (from --pid and later by SIGUSR1),
 * samples them on the library's learner (common/prefetch/prefetch-learn.c) while
 * the game runs, then merges what it saw into the executable's list and
 * says so in one line.
 */
#include "base/message.h"
#include "prefetch-internal.h"
#include "base/exitcodes.h"
#include "system/fsroot.h"
#include "system/helperproc.h"
#include "system/sandbox.h"
#include "prefetch/prefetch.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DATA 16
/* learn looks every second while the game loads, then every 5 s */
#define LEARN_FAST_S 30
#define LEARN_FAST_MS 1000
#define LEARN_SLOW_MS 5000
#define TICK_MS 100

struct learn {
	struct pf_learner L;
	char *data[MAX_DATA];
	size_t n_data, n_given;     /* --data directories, --pid PIDs */
	char exe[PATH_MAX];
	const char *ready;
	bool seen_alive;            /* a process of the game was alive at a sample */
};

/* The parser contract (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
static int learn_args(int argc, char **argv, struct learn *l)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' }, { "exe", required_argument, NULL, 'e' },
		{ "dir", required_argument, NULL, 'D' }, { "data", required_argument, NULL, 'd' },
		{ "ready", required_argument, NULL, 'R' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	pid_t pid;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_pid(optarg, &pid) < 0) {
				error_msg("--pid wants a pid, not '%s'", optarg);
				return HB_EXIT_USAGE;
			}
			pf_learner_add_pid(&l->L, pid);
			l->n_given++;
			break;
		case 'e':
			if (resolve_exe(optarg, l->exe, sizeof(l->exe)) < 0) {
				error_msg("cannot find '%s'", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'D': set_list_dir(optarg); break;
		case 'd':
			if (l->n_data < MAX_DATA)
				l->data[l->n_data++] = optarg;
			break;
		case 'R': l->ready = optarg; break;
		case 'h': usage(stdout); return HB_ARGS_DONE;
		default: usage(stderr); return HB_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	return 0;
}

/* Without --exe: the first pid's executable, once there is a pid. */
static void exe_from_pid(struct learn *l)
{
	char *rel, link[PATH_MAX];
	ssize_t n;

	if (l->exe[0] || !l->L.n_pids)
		return;
	rel = xasprintf("%s/proc/%d/exe", fsroot(), (int)l->L.pids[0]);
	n = readlink(rel, link, sizeof(link) - 1);
	free(rel);
	if (n > 0) {
		link[n] = '\0';
		resolve_exe(link, l->exe, sizeof(l->exe));
	}
}

/* With --pid: until they and their children are gone; without: until
 * SIGTERM (the switch's passes come by SIGUSR1). */
static void learn_watch(struct learn *l)
{
	uint64_t t0 = mono_ns(), next = 0;
	pid_t pid;

	while (!helper_stop_sig) {
		uint64_t now = mono_ns();

		while ((pid = helper_take_pid()) > 0) {
			pf_learner_add_pid(&l->L, pid);
			next = 0;
		}
		exe_from_pid(l);
		if (now >= next) {
			size_t alive = pf_learner_sample(&l->L);
			bool fast = now - t0 < LEARN_FAST_S * NSEC_PER_SEC;

			next = now + (fast ? LEARN_FAST_MS : LEARN_SLOW_MS) * NSEC_PER_MSEC;
			if (alive)
				l->seen_alive = true;
			if (l->n_given && !alive)
				break;
		}
		sleep_ms(TICK_MS);
	}
}

/* Is there a list to learn into? 0, or -1 (said why). */
static int learn_check(const struct learn *l, struct stat *st)
{
	if (!l->exe[0]) {
		error_msg("learn: no executable (no --exe, and no pid to read it from)");
		return -1;
	}
	if (stat(l->exe, st) < 0) {
		error_msg("cannot stat '%s': %s", l->exe, strerror(errno));
		return -1;
	}
	if (l->L.n_pids && !l->seen_alive) {
		/* merged, it would count a miss against every file of the list */
		error_msg("learn: no process of the game was seen alive: the list is left "
			"as it was");
		return -1;
	}
	return 0;
}

/* The list learnt before, into old: true when there is one. Its files are
 * looked at too, so their misses count; one that cannot be read is said
 * and learnt anew. */
static bool learn_old_list(struct learn *l, const char *path, struct pf_list *old)
{
	int err_line = 0, r = pf_list_read(path, old, &err_line);

	if (r == 0) {
		for (size_t i = 0; i < old->n; i++)
			if (pf_list_find(&l->L.seen, old->files[i].path) < 0)
				pf_learner_add_path(&l->L, old->files[i].path);
		return true;
	}
	if (r == -EINVAL)
		error_msg("%s:%d: not a prefetch list: learnt anew", path, err_line);
	else if (r != -ENOENT)
		error_msg("cannot read '%s': %s: learnt anew", path, strerror(-r));
	return false;
}

/* What was seen merged into old (NULL: none) and written to path, and the
 * line saying so. An exit status. */
static int learn_merge_write(struct learn *l, const char *key, const char *path,
			     const struct pf_list *old, const struct stat *st)
{
	struct pf_list merged;
	size_t untold = pf_list_residency(&l->L.seen);
	int r, rc = HB_EXIT_OK;

	if (untold)
		error_msg("learn: %zu files' pages in memory could not be told (mincore "
			"answers only for files this user owns or may write, and this kernel has no "
			"cachestat): learn as root", untold);
	l->L.seen.exe = xstrdup(l->exe);
	l->L.seen.exe_size = (uint64_t)st->st_size;
	l->L.seen.exe_mtime = st->st_mtim.tv_sec;
	pf_list_merge(old, &l->L.seen, &merged);
	r = mkdir_p(list_dir(), 0755);
	if (r == 0)
		r = pf_list_write(&merged, path);
	if (r < 0) {
		error_msg("cannot write '%s': %s", path, strerror(-r));
		rc = HB_EXIT_FAILURE;
	} else {
		printf("prefetch learn %s: %zu files (%zu before), %.1f MB listed, session %d, "
		       "%zu processes watched, %s; cpu %.0f ms\n",
		       key, merged.n, old ? old->n : 0, pf_list_bytes(&merged) / 1048576.0,
		       merged.sessions, l->L.n_pids, old && merged.sessions == 1 ?
		       "stale list learnt anew" : merged.sessions == 1 ? "new list" : "merged", cpu_ms());
	}
	pf_list_release(&merged);
	return rc;
}

/* What learn keeps once ready (docs/man/hitchbench-prefetch.1,
 * PRIVILEGES): the game's maps and fds, another user's, are behind
 * ptrace's check (measured: without CAP_SYS_PTRACE it finds no executable
 * and lists nothing the game maps). The files it then reads the game named;
 * it reads them as its uid may, without CAP_DAC_READ_SEARCH: those only
 * the game user may read are in its staging directory, made anew for each
 * run, where a list's path would never be found again. */
static const int learn_keeps[] = { CAP_SYS_PTRACE };

int cmd_learn(int argc, char **argv)
{
	static struct learn l;
	struct pf_list old;
	struct stat st;
	char key[128], *path;
	bool have_old;
	int r;

	pf_learner_init(&l.L);
	r = learn_args(argc, argv, &l);
	if (r != 0)
		return hb_args_exit(r);
	helper_signals_install();
	helper_ready(l.ready);
	/* its list's directory made now: the rest of the tree turns read-only */
	r = mkdir_p(list_dir(), 0755);
	if (r < 0)
		error_msg("cannot make '%s': %s", list_dir(), strerror(-r));
	if (r < 0 || sandbox_narrow(learn_keeps, ARRAY_SIZE(learn_keeps), (const char *[]){ list_dir(), NULL },
				    msg_lines) < 0) {
		pf_learner_release(&l.L);
		return HB_EXIT_FAILURE;
	}
	learn_watch(&l);
	if (learn_check(&l, &st) < 0) {
		pf_learner_release(&l.L);
		return HB_EXIT_FAILURE;
	}
	pf_learner_walk(&l.L, l.data, l.n_data);
	pf_key(l.exe, key, sizeof(key));
	path = list_path_of_key(key);
	have_old = learn_old_list(&l, path, &old);
	r = learn_merge_write(&l, key, path, have_old ? &old : NULL, &st);
	if (have_old)
		pf_list_release(&old);
	pf_learner_release(&l.L);
	free(path);
	return r;
}
