/*
 * The interference watcher's parts (harness/intfwatch*.c): the state every
 * source writes into and the log line they all write. intfwatch-main.c
 * has the options, the sources' start in order, the loop and the end;
 * intfwatch-input.c the input devices and their coming and going;
 * intfwatch-system.c the rest of the machine (the VT in front, logins,
 * the kernel log's USB lines, processes). Private to the watcher.
 */
#ifndef HB_INTFWATCH_INTERNAL_H
#define HB_INTFWATCH_INTERNAL_H

#include "input/inputrules.h"
#include "procwatch/procwatch.h"
#include "system/sessions.h"

#include <libevdev/libevdev.h>
#include <libudev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define MAX_DEVS 64
#define MAX_ROOTS 64
#define HARNESS_DEVICE_PREFIX "hitchbench input"

struct dev {
	char node[64];              /* event3 */
	int fd;
	struct libevdev *ev;
	struct input_dev_state st;
	bool exempt;
};

/* What was counted, for the summary. */
struct tally {
	unsigned input[INPUT_N_KINDS];
	unsigned devices, vt, logins, processes, busy, usb;
	char first_vt[64], first_login[240];
};

struct watcher {
	FILE *log;
	uint64_t t0;
	struct dev devs[MAX_DEVS];
	size_t n_devs;
	struct udev *udev;
	struct udev_monitor *mon;
	const char *mon_source;     /* "udev" or "kernel" */
	int vt_fd, x_vt;
	struct vt_watch vt;
	int sess_fd;                /* inotify on run/systemd/sessions */
	struct login_session *sessions;
	size_t n_sessions;
	int kmsg_fd;
	struct procwatch *pw;
	struct tally tally;
	unsigned watched_devices;
	/* the watch's own cost: its CPU time and clock once it watches */
	double start_cpu;
	uint64_t watch_t0;
};

/* Seconds since the watcher started, for a log line. */
double since(const struct watcher *w, uint64_t t_ns);
/* One log line: MARK ('!' counted, '-' let pass), its time, what. */
void logf_line(struct watcher *w, char mark, double t, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* intfwatch-input.c: the input devices */
/* Listening for devices that come and go, then every device there now. */
void input_start(struct watcher *w);
void udev_read(struct watcher *w);
void dev_read(struct watcher *w, struct dev *d);
/* Is a mouse motion burst open on a device (it ends by time passing)? */
bool devs_burst_open(const struct watcher *w);
/* Ends the bursts whose time has passed. */
void devs_tick(struct watcher *w);
/* What is still open at the end, and every device closed. */
void devs_end(struct watcher *w);
void input_stop(struct watcher *w);

/* intfwatch-system.c: the rest of the machine */
void vt_start(struct watcher *w);
void vt_read(struct watcher *w);
void logins_start(struct watcher *w);
void sessions_read(struct watcher *w);
void kmsg_start(struct watcher *w);
void kmsg_read(struct watcher *w);
/* Starts the process watch; 0 or -errno (then w->pw is NULL). */
int processes_start(struct watcher *w, const pid_t *roots, size_t n_roots, const char *run_id, const char *relay_id,
		    const pid_t *harness, size_t n_harness, bool scan);
void processes_end(struct watcher *w);

#endif
