/*
 * What a helper program beside a game (the stall recorder, the
 * interference watcher) agrees with the switch that starts it: SIGTERM or
 * SIGINT ends it cleanly; sigqueue(SIGUSR1) with a pid as its value says
 * a pass of the game started (that pid); and a file it creates says it is
 * ready for those signals (the switch waits for it before the first
 * pass, since an unhandled SIGUSR1 would kill it).
 */
#ifndef HB_HELPERPROC_H
#define HB_HELPERPROC_H

#include <signal.h>
#include <sys/types.h>

/* The signal that ended it (0 while running). */
extern volatile sig_atomic_t helper_stop_sig;

/* Installs the handlers. Call first thing. */
void helper_signals_install(void);
/* The pid the last SIGUSR1 carried since the previous call, or -1. */
pid_t helper_take_pid(void);
/* Creates path (NULL: nothing) to say the helper is ready. */
void helper_ready(const char *path);

#endif
