/*
 * The "BENCHMARK RUNNING" screen: when the desktop is stopped, a TV or
 * monitor would keep showing its last frame and people take the machine
 * for hung (the lab's notes). So quiet can write a plain screen saying
 * what runs and since when to a spare VT and switch to it. The console is
 * reached through the swappable root (dev/tty0, dev/ttyN): a fixture tree
 * has none, so tests never switch the real screen.
 */
#ifndef HB_BANNER_H
#define HB_BANNER_H

#include <time.h>

/* The VT shown now, through dev/tty0. 0 with *vt set, or -errno
 * (-ENOENT, -ENOTTY: no console to use). */
int vt_active(int *vt);
/* Switches to VT n. 0 or -errno. */
int vt_activate(int n);
/* The screen's text (a new string). */
char *banner_text(const char *what, time_t since);
/* Writes the screen to dev/ttyN. 0 or -errno. */
int banner_write(int vt, const char *what, time_t since);

#endif
