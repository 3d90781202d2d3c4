/*
 * fakegame's ways to stall (stallways.h). Each keeps at it until its time
 * is up, so the stall lasts about as asked whatever the machine's speed.
 */
#include "stallways.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNQ_HOGS 4

static const char *const names[] = {
	[STALL_SLEEP] = "sleep", [STALL_BUSY] = "busy", [STALL_FUTEX] = "futex",
	[STALL_FAULT] = "fault", [STALL_RUNQ] = "runq", [STALL_RECLAIM] = "reclaim",
	[STALL_SWAPIN] = "swapin",
};

int stall_way_parse(const char *s, enum stall_way *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum stall_way)i;
			return 0;
		}
	return -EINVAL;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* where busy work and touched bytes go, so that none of it is optimised away */
static volatile uint64_t sink;

static void spin_until(uint64_t end)
{
	while (mono_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
}

/* futex: the main thread waits on a word another thread sets and wakes. */
struct waker {
	_Atomic int word;
	uint64_t ms;
};

static void *wake_later(void *arg)
{
	struct waker *w = arg;

	sleep_ns(w->ms * NSEC_PER_MSEC);
	w->word = 1;
	syscall(SYS_futex, &w->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

static int stall_futex(uint64_t ms)
{
	struct waker w = { 0, ms };
	pthread_t t;

	if (pthread_create(&t, NULL, wake_later, &w) != 0)
		return -EAGAIN;
	while (w.word == 0)
		syscall(SYS_futex, &w.word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	pthread_join(t, NULL);
	return 0;
}

/* fault: the file's pages dropped from the cache, then touched one by one
 * in a random-access mapping: every touch a major fault read from disk. */
static int stall_fault(uint64_t ms, const char *path)
{
	uint64_t end = mono_ns() + ms * NSEC_PER_MSEC;
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;
	unsigned char *p;
	int fd;

	if (!path) {
		fprintf(stderr, "fakegame: the fault stall needs --fault-file\n");
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "fakegame: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	madvise(p, (size_t)st.st_size, MADV_RANDOM);
	for (off_t off = 0; off < st.st_size && mono_ns() < end; off += page)
		sink += p[off];
	munmap(p, (size_t)st.st_size);
	/* the time the file ran out early is spent asleep: the test sizes it */
	if (mono_ns() < end)
		sleep_ns(end - mono_ns());
	return 0;
}

/* runq: hogs pinned to the game's CPU, the game spinning there too: it is
 * runnable most of the time and running a fifth of it. */
static int stall_runq(uint64_t ms)
{
	uint64_t end = mono_ns() + ms * NSEC_PER_MSEC;
	cpu_set_t old, one;
	pid_t hogs[RUNQ_HOGS];
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(old), &old) < 0)
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (int i = 0; i < RUNQ_HOGS; i++) {
		hogs[i] = fork();
		if (hogs[i] == 0) {
			spin_until(end + NSEC_PER_SEC);
			_exit(0);
		}
	}
	spin_until(end);
	for (int i = 0; i < RUNQ_HOGS; i++)
		if (hogs[i] > 0) {
			kill(hogs[i], SIGKILL);
			waitpid(hogs[i], NULL, 0);
		}
	sched_setaffinity(0, sizeof(old), &old);
	return 0;
}

/* reclaim: the game, in a memory cgroup at its limit, touches fresh
 * anonymous memory; each page it gets is one reclaim took from it (or
 * from the page cache). swapin touches the same memory again. */
static unsigned char *reclaim_mem;
static size_t reclaim_len;

static int join_cgroup(const char *dir)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0) {
		fprintf(stderr, "fakegame: cannot join the cgroup %s: %s\n", dir, strerror(errno));
		return -EPERM;
	}
	return 0;
}

static int stall_reclaim(uint64_t ms, const struct stall_env *env, bool again)
{
	uint64_t end = mono_ns() + ms * NSEC_PER_MSEC;
	long page = sysconf(_SC_PAGESIZE);

	if (!again) {
		/* without --cgroup, whoever started the game put it in one */
		if (env->cgroup && join_cgroup(env->cgroup) < 0)
			return -EPERM;
		reclaim_len = (size_t)(env->reclaim_mb ? env->reclaim_mb : 1024) << 20;
		reclaim_mem = mmap(NULL, reclaim_len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (reclaim_mem == MAP_FAILED) {
			reclaim_mem = NULL;
			return -ENOMEM;
		}
	}
	if (!reclaim_mem) {
		fprintf(stderr, "fakegame: swapin comes after a reclaim stall\n");
		return -EINVAL;
	}
	for (;;) {
		for (size_t off = 0; off < reclaim_len; off += (size_t)page) {
			reclaim_mem[off] = (unsigned char)(off >> 12 | 1);
			if ((off & ((1 << 20) - 1)) == 0 && mono_ns() >= end)
				return 0;
		}
		if (!again)
			break;  /* all of it touched once: the time left is spent asleep */
	}
	if (mono_ns() < end)
		sleep_ns(end - mono_ns());
	return 0;
}

int stall_now(enum stall_way way, uint64_t ms, const struct stall_env *env)
{
	switch (way) {
	case STALL_SLEEP:
		sleep_ns(ms * NSEC_PER_MSEC);
		return 0;
	case STALL_BUSY:
		spin_until(mono_ns() + ms * NSEC_PER_MSEC);
		return 0;
	case STALL_FUTEX:
		return stall_futex(ms);
	case STALL_FAULT:
		return stall_fault(ms, env->fault_file);
	case STALL_RUNQ:
		return stall_runq(ms);
	case STALL_RECLAIM:
		return stall_reclaim(ms, env, false);
	case STALL_SWAPIN:
		return stall_reclaim(ms, env, true);
	}
	return -EINVAL;
}
