/*
 * GAMECPU=LIST: the game (every process of it) runs only on these CPUs,
 * for A/B runs of pinning against the scheduler's choice, or to keep the
 * game off the CPU a helper is pinned to. In a flip run the game's CPUs
 * change while it plays: every thread of the pass's process and of its
 * descendants gets the side's CPUs (the side without GAMECPU: the CPUs
 * the game had without it); threads started later inherit them.
 */
#include "switch/switch.h"
#include "system/cpulist.h"
#include "system/fsroot.h"
#include "system/hostnoise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Processes and threads a flip reaches, at most (a game has tens). */
#define FLIP_PIDS_MAX 256

static void label(const struct switch_on *on, struct strbuf *out)
{
	strbuf_addstr(out, "cpu");
	for (const char *c = on->value; *c; c++)
		strbuf_addch(out, *c == ',' ? '.' : *c);
}

static int prepare(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	cpu_set_t set;

	if (cpu_list_parse(on->value, &set) < 0) {
		strbuf_addf(err, "GAMECPU=%s: not a CPU list", on->value);
		return -EINVAL;
	}
	{
		struct strbuf before = STRBUF_INIT;

		cpu_set_format(ctx->game_cpus, &before);
		kvfile_add(ctx->bench, "game_cpus.before", before.buf);
		strbuf_release(&before);
	}
	*ctx->game_cpus = set;
	*ctx->pin_game = true;
	kvfile_add(ctx->bench, "game_cpus", on->value);
	return 0;
}

/* Every thread of pid onto set; its children's pids appended to queue
 * (proc/PID/task/TID/children). The threads set, or -errno when pid is
 * gone. */
static int pin_process(pid_t pid, const cpu_set_t *set, pid_t *queue, size_t *n, struct strbuf *err)
{
	char rel[64];
	struct dirent *d;
	DIR *dir;
	int fd, threads = 0;

	/* /proc through the swappable root (fsroot.h), as every reader */
	snprintf(rel, sizeof(rel), "proc/%d/task", (int)pid);
	fd = fsroot_open(rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	while ((d = readdir(dir))) {
		int tid = atoi(d->d_name);
		char crel[96], buf[1024];
		ssize_t len;
		int k;

		if (tid <= 0)
			continue;
		if (sched_setaffinity(tid, sizeof(*set), set) == 0)
			threads++;
		else if (errno != ESRCH && !err->len)
			strbuf_addf(err, "thread %d: %s", tid, strerror(errno));
		snprintf(crel, sizeof(crel), "proc/%d/task/%d/children", (int)pid, tid);
		len = fsroot_read(crel, buf, sizeof(buf) - 1);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		k = noise_children_parse(buf, queue + *n, FLIP_PIDS_MAX - *n);
		if (k > 0)
			*n += (size_t)k < FLIP_PIDS_MAX - *n ? (size_t)k : FLIP_PIDS_MAX - *n;
	}
	closedir(dir);
	return threads;
}

static int flip(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	const char *before = kvfile_get(ctx->bench, "game_cpus.before");
	pid_t queue[FLIP_PIDS_MAX];
	size_t n = 0, done = 0;
	cpu_set_t set;
	int threads = 0;

	if (on ? cpu_list_parse(on->value, &set) < 0 : before ? cpu_list_parse(before, &set) < 0 : false) {
		strbuf_addf(err, "GAMECPU: not a CPU list: %s", on ? on->value : before);
		return -EINVAL;
	}
	if (!on && !before)
		set = *ctx->game_cpus;  /* the run began without GAMECPU: the CPUs it had */
	if (ctx->game_pid <= 0) {
		strbuf_addstr(err, "GAMECPU: no game running");
		return -ESRCH;
	}
	queue[n++] = ctx->game_pid;
	while (done < n) {
		int r = pin_process(queue[done++], &set, queue, &n, err);

		if (r > 0)
			threads += r;
	}
	if (err->len)
		return -EPERM;
	if (!threads) {
		strbuf_addf(err, "GAMECPU: no thread of the game (pid %d) left to move", (int)ctx->game_pid);
		return -ESRCH;
	}
	return 0;
}

const struct switch_def switch_gamecpu = {
	.name = "GAMECPU",
	.help = "LIST: run the game on these CPUs only (0, 1-3, 0,2)",
	.check = switch_check_cpus,
	.label = label,
	.prepare = prepare,
	.flip = flip,
	/* the scheduler moves a thread at its next switch or tick */
	.flip_act_ms = 5,
};
