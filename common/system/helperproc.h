/*
 * What a helper program beside a game (the stall recorder, the
 * interference watcher) agrees with the switch that starts it: SIGTERM or
 * SIGINT ends it cleanly; sigqueue(SIGUSR1) with a pid as its value says
 * a pass of the game started (that pid); and a file it creates says it is
 * ready for those signals (the switch waits for it before the first
 * pass, since an unhandled SIGUSR1 would kill it).
 *
 * A helper that can be paused (a flip run turns it off and on while the
 * game plays, docs/metrics.md "Flip") also takes sigqueue(SIGUSR2) with
 * HELPER_PAUSE or HELPER_RESUME as its value, checks helper_paused() in
 * its loop and sleeps in helper_wait_resumed() meanwhile: a futex wait
 * that the signal handler wakes, so a paused helper wakes for nothing.
 */
#ifndef HB_HELPERPROC_H
#define HB_HELPERPROC_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The signal that ended it (0 while running). */
extern volatile sig_atomic_t helper_stop_sig;

/* Installs the handlers. Call first thing. */
void helper_signals_install(void);
/* The pid the last SIGUSR1 carried since the previous call, or -1. */
pid_t helper_take_pid(void);
/* SIGUSR2's values. */
#define HELPER_RESUME 0
#define HELPER_PAUSE 1

/* Whether the last SIGUSR2 said pause. */
bool helper_paused(void);
/* Sleeps while paused, until resumed, a stop signal or any other signal
 * (a pid: the caller takes it and calls again), or timeout_ms (0: none).
 * Returns at once when not paused. */
void helper_wait_resumed(int timeout_ms);
/* How many pauses it had, and how long it was paused in all (to now, when
 * paused now). */
void helper_pause_stats(uint64_t *pauses, uint64_t *paused_ns);
/* Creates path (NULL: nothing) to say the helper is ready. */
void helper_ready(const char *path);

#endif
