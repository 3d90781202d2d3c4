/*
 * hitchbench-prefetch: the learning game prefetch. "learn" watches a game
 * and keeps, per executable, which parts of which files it had in memory;
 * "fetch" reads them back in disk order while the game loads, at a low
 * priority, giving way on memory pressure; "run" starts a detached fetch
 * and execs the game in its own pid. The GAMEPREFETCH switch
 * (bench/switch/switch-prefetch.c) starts learn and fetch beside a run. The
 * logic is in common/prefetch/prefetch-*.c; the list format is in docs/formats.md.
 *
 * This file is the program's usage, its dispatch and what the commands
 * share on the command line; each command is in prefetch-cmd-*.c.
 */
#include "base/message.h"
#include "prefetch-internal.h"
#include "base/exitcodes.h"
#include "prefetch/prefetch.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void usage(FILE *out)
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

double cpu_ms(void)
{
	return (double)self_cpu_ns() / 1e6;
}

static const char *opt_dir;

void set_list_dir(const char *dir)
{
	opt_dir = dir;
}

const char *list_dir(void)
{
	return opt_dir ? opt_dir : pf_dir();
}

char *list_path_of_key(const char *key)
{
	return xasprintf("%s/%s.list", list_dir(), key);
}

char *list_path_of(const char *key_or_exe)
{
	char key[128], real[PATH_MAX];

	if (!strchr(key_or_exe, '/'))
		return list_path_of_key(key_or_exe);
	if (!realpath(key_or_exe, real))
		snprintf(real, sizeof(real), "%s", key_or_exe);
	pf_key(real, key, sizeof(key));
	return list_path_of_key(key);
}

int resolve_exe(const char *name, char *out, size_t size)
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

int parse_pid(const char *s, pid_t *pid)
{
	int v;

	if (safe_atoi(s, &v) < 0 || v <= 0)
		return -EINVAL;
	*pid = v;
	return 0;
}

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	bool dir_anywhere;          /* --dir DIR anywhere on its command line */
} commands[] = {
	{ "learn", cmd_learn, false }, { "fetch", cmd_fetch, false }, { "run", cmd_run_game, false },
	{ "list", cmd_list, true }, { "show", cmd_show, true }, { "forget", cmd_forget, true },
	{ "resident", cmd_resident, false },
};

/* The small commands' --dir DIR, wherever it is, taken out of argv; the
 * new argc. */
static int take_dir_option(int argc, char **argv)
{
	for (int i = 2; i + 1 < argc; i++)
		if (strcmp(argv[i], "--dir") == 0) {
			set_list_dir(argv[i + 1]);
			memmove(argv + i, argv + i + 2, (argc - i - 2 + 1) * sizeof(char *));
			argc -= 2;
			i--;
		}
	return argc;
}

int main(int argc, char **argv)
{
	const struct command *c = NULL;
	int rc;

	msg_program(PROG);

	if (argc < 2) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands) && !c; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			c = &commands[i];
	if (!c) {
		error_msg("unknown command '%s'", argv[1]);
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	if (c->dir_anywhere)
		argc = take_dir_option(argc, argv);
	rc = c->fn(argc - 1, argv + 1);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		error_msg("cannot write the output");
		return HB_EXIT_FAILURE;
	}
	return rc;
}
