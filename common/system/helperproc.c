/*
 * The helper programs' side of their protocol with the switches
 * (helperproc.h).
 */
#include "system/helperproc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t helper_stop_sig;
static volatile sig_atomic_t queued_pid = -1;

/* HELPER_PAUSE or HELPER_RESUME: a futex word, so the handler can wake
 * the threads that sleep on it (FUTEX_WAKE is async-signal-safe: one
 * system call, no lock) */
static int paused_word;

static void wake_paused(void)
{
	syscall(SYS_futex, &paused_word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void on_stop(int sig)
{
	helper_stop_sig = sig;
	wake_paused();
}

/* how often and how long it was paused, kept by the handler (clock_gettime
 * is async-signal-safe); read when the helper ends */
static volatile uint64_t pauses, paused_ns, paused_since;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_pause(int sig, siginfo_t *si, void *uc)
{
	bool pause;

	(void)sig;
	(void)uc;
	if (si->si_code != SI_QUEUE)
		return;
	pause = si->si_value.sival_int == HELPER_PAUSE;
	if (pause && !paused_word) {
		pauses++;
		paused_since = now_ns();
	} else if (!pause && paused_word) {
		paused_ns += now_ns() - paused_since;
	}
	__atomic_store_n(&paused_word, pause, __ATOMIC_RELEASE);
	wake_paused();
}

void helper_pause_stats(uint64_t *n, uint64_t *ns)
{
	*n = pauses;
	*ns = paused_ns + (paused_word ? now_ns() - paused_since : 0);
}

static void on_pid(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_QUEUE)
		queued_pid = si->si_value.sival_int;
}

void helper_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_pid;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_sigaction = on_pause;
	sigaction(SIGUSR2, &sa, NULL);
}

bool helper_paused(void)
{
	return __atomic_load_n(&paused_word, __ATOMIC_ACQUIRE) != 0;
}

void helper_wait_resumed(int timeout_ms)
{
	struct timespec ts = { .tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000 };

	if (!helper_paused() || helper_stop_sig)
		return;
	/* returns when the word is no longer 1 (resumed), on a wake (a pause
	 * signal or a stop) and on any signal's EINTR (a pid) */
	syscall(SYS_futex, &paused_word, FUTEX_WAIT_PRIVATE, 1, timeout_ms ? &ts : NULL, NULL, 0);
}

pid_t helper_take_pid(void)
{
	pid_t p = queued_pid;

	if (p >= 0)
		queued_pid = -1;
	return p;
}

void helper_ready(const char *path)
{
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}
