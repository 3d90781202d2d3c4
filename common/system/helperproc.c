/*
 * The helper programs' side of their protocol with the switches
 * (helperproc.h).
 */
#include "system/helperproc.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t helper_stop_sig;
static volatile sig_atomic_t queued_pid = -1;

static void on_stop(int sig)
{
	helper_stop_sig = sig;
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
