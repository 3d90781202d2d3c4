/*
 * The interference watcher's input devices: every device under
 * /dev/input opened through libevdev, its events handed to the input
 * rules (common/input/inputrules.c decides what counts; its details name no
 * key), and devices that come and go heard of from udev or the kernel.
 * Devices named "hitchbench input..." are the harness's own: '-' lines.
 */
#include "intfwatch-internal.h"
#include "system/fsroot.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static void caps_from_libevdev(struct libevdev *ev, struct input_caps *c)
{
	input_caps_init(c);
	snprintf(c->name, sizeof(c->name), "%s", libevdev_get_name(ev) ? libevdev_get_name(ev) : "?");
	c->bustype = (unsigned)libevdev_get_id_bustype(ev);
	c->vendor = (unsigned)libevdev_get_id_vendor(ev);
	c->product = (unsigned)libevdev_get_id_product(ev);
	c->version = (unsigned)libevdev_get_id_version(ev);
	for (unsigned p = 0; p <= INPUT_PROP_MAX; p++)
		if (libevdev_has_property(ev, p))
			c->props[p / 8] |= (uint8_t)(1u << (p % 8));
	for (unsigned type = 0; type <= EV_MAX; type++) {
		int max;

		if (!libevdev_has_event_type(ev, type))
			continue;
		input_caps_set(c, type, 0);
		max = libevdev_event_type_get_max(type);
		for (int code = 0; max > 0 && code <= max; code++) {
			if (!libevdev_has_event_code(ev, type, (unsigned)code))
				continue;
			input_caps_set(c, type, (unsigned)code);
			if (type == EV_ABS) {
				const struct input_absinfo *ai = libevdev_get_abs_info(ev, (unsigned)code);

				if (ai) {
					c->abs[code].min = ai->minimum;
					c->abs[code].max = ai->maximum;
					c->abs[code].fuzz = ai->fuzz;
					c->abs[code].flat = ai->flat;
					c->abs[code].resolution = ai->resolution;
					c->abs[code].value = ai->value;
					c->abs[code].has_value = true;
				}
			}
		}
	}
}

static void dev_close(struct dev *d)
{
	if (d->ev)
		libevdev_free(d->ev);
	if (d->fd >= 0)
		close(d->fd);
	d->ev = NULL;
	d->fd = -1;
}

/* A device that cannot be watched: one that appeared mid-run still
 * counts as a device change. */
static void dev_unwatched(struct watcher *w, const char *node, bool added, const char *why)
{
	if (added)
		w->tally.devices++;
	logf_line(w, added ? '!' : '-', since(w, mono_ns()), "%s %s not watched: %s", added ? "DEVADD" :
		  "DEVICE", node, why);
}

/* Opens /dev/input/NODE and starts its rules. added: it appeared mid-run. */
static void dev_open(struct watcher *w, const char *node, bool added)
{
	char path[128];
	struct input_caps caps;
	struct dev *d = NULL;
	int clk = CLOCK_MONOTONIC;

	for (size_t i = 0; i < w->n_devs; i++)
		if (strcmp(w->devs[i].node, node) == 0 && w->devs[i].fd >= 0)
			return;
	/* a slot a device that went away left, else a new one */
	for (size_t i = 0; i < w->n_devs && !d; i++)
		if (w->devs[i].fd < 0)
			d = &w->devs[i];
	if (!d && w->n_devs < MAX_DEVS)
		d = &w->devs[w->n_devs++];
	if (!d) {
		dev_unwatched(w, node, added, "too many devices open already");
		return;
	}
	memset(d, 0, sizeof(*d));
	snprintf(d->node, sizeof(d->node), "%s", node);
	snprintf(path, sizeof(path), "dev/input/%s", node);
	d->fd = fsroot_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (d->fd < 0) {
		dev_unwatched(w, node, added, strerror(-d->fd));
		d->fd = -1;
		return;
	}
	if (libevdev_new_from_fd(d->fd, &d->ev) < 0) {
		dev_close(d);
		dev_unwatched(w, node, added, "not an evdev device libevdev can read");
		return;
	}
	/* stamps on the monotonic clock, as every other time here */
	ioctl(d->fd, EVIOCSCLOCKID, &clk);
	caps_from_libevdev(d->ev, &caps);
	input_rules_init(&d->st, &caps, mono_ns() / 1000);
	d->exempt = strncmp(caps.name, HARNESS_DEVICE_PREFIX, strlen(HARNESS_DEVICE_PREFIX)) == 0;
	w->watched_devices++;
	if (added && !d->exempt) {
		w->tally.devices++;
		logf_line(w, '!', since(w, mono_ns()), "DEVADD %s \"%s\" (an input device appeared)", node,
			  caps.name);
	} else {
		logf_line(w, '-', since(w, mono_ns()), "%s %s \"%s\"%s", added ? "DEVADD" : "DEVICE", node,
			  caps.name, d->exempt ? " (the harness's own input device)" : " watched");
	}
}

static void dev_gone(struct watcher *w, const char *node)
{
	for (size_t i = 0; i < w->n_devs; i++) {
		struct dev *d = &w->devs[i];

		if (strcmp(d->node, node) != 0 || d->fd < 0)
			continue;
		if (!d->exempt)
			w->tally.devices++;
		logf_line(w, d->exempt ? '-' : '!', since(w, mono_ns()), "DEVREMOVE %s \"%s\"%s", node,
			  libevdev_get_name(d->ev), d->exempt ? " (the harness's own input device)" :
			  " (an input device went away)");
		dev_close(d);
	}
}

static void verdicts(struct watcher *w, const struct dev *d, const struct input_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool counted = v[i].counted && !d->exempt;

		if (counted)
			w->tally.input[v[i].kind] += v[i].n ? v[i].n : 1;
		logf_line(w, counted ? '!' : '-', since(w, v[i].t_us * 1000), "%s dev=\"%s\" %s%s",
			  input_kind_name(v[i].kind), libevdev_get_name(d->ev), v[i].detail,
			  v[i].counted && d->exempt ? " (the harness's own input device)" : "");
	}
}

void dev_read(struct watcher *w, struct dev *d)
{
	struct input_verdict v[INPUT_VERDICTS_MAX];
	struct input_event ev;
	unsigned flag = LIBEVDEV_READ_FLAG_NORMAL;
	int r;
	size_t n;

	for (;;) {
		r = libevdev_next_event(d->ev, flag, &ev);
		if (r == -EAGAIN) {
			if (flag == LIBEVDEV_READ_FLAG_SYNC) {
				flag = LIBEVDEV_READ_FLAG_NORMAL;
				continue;
			}
			return;
		}
		if (r < 0) {
			dev_gone(w, d->node);
			return;
		}
		/* the kernel dropped events: libevdev hands over what changed */
		if (r == LIBEVDEV_READ_STATUS_SYNC)
			flag = LIBEVDEV_READ_FLAG_SYNC;
		input_rules_event(&d->st, (uint64_t)ev.input_event_sec * 1000000 + ev.input_event_usec,
				  ev.type, ev.code, ev.value, v, &n);
		verdicts(w, d, v, n);
	}
}

static void devs_scan(struct watcher *w)
{
	char *dir = xasprintf("%s/dev/input", fsroot());
	DIR *dd = opendir(dir);
	struct dirent *e;

	free(dir);
	if (!dd)
		return;
	while ((e = readdir(dd)) != NULL)
		if (strncmp(e->d_name, "event", 5) == 0)
			dev_open(w, e->d_name, false);
	closedir(dd);
}

/* Where devices that come and go are heard of: udev's events once its
 * daemon has handled them (the node then has its permissions), or,
 * where no udev daemon runs (a container, a minimal system), the
 * kernel's own uevents, which nobody would otherwise relay. */
static const char *udev_source(void)
{
	char *control = xasprintf("%s/run/udev/control", fsroot());
	bool daemon = access(control, F_OK) == 0;

	free(control);
	return daemon ? "udev" : "kernel";
}

void udev_read(struct watcher *w)
{
	struct udev_device *u;

	while ((u = udev_monitor_receive_device(w->mon)) != NULL) {
		const char *action = udev_device_get_action(u);
		const char *node = udev_device_get_sysname(u);

		if (action && node && strncmp(node, "event", 5) == 0) {
			if (strcmp(action, "add") == 0)
				dev_open(w, node, true);
			else if (strcmp(action, "remove") == 0)
				dev_gone(w, node);
		}
		udev_device_unref(u);
	}
}

/* Listening first, then the scan: a device plugged in between the two is
 * seen twice, and dev_open() opens it once. */
void input_start(struct watcher *w)
{
	w->udev = udev_new();
	w->mon_source = udev_source();
	if (w->udev && (w->mon = udev_monitor_new_from_netlink(w->udev, w->mon_source)) != NULL) {
		udev_monitor_filter_add_match_subsystem_devtype(w->mon, "input", NULL);
		if (udev_monitor_enable_receiving(w->mon) < 0) {
			udev_monitor_unref(w->mon);
			w->mon = NULL;
		}
	}
	devs_scan(w);
}

bool devs_burst_open(const struct watcher *w)
{
	for (size_t i = 0; i < w->n_devs; i++)
		if (w->devs[i].fd >= 0 && w->devs[i].st.burst_open)
			return true;
	return false;
}

/* Time passing: a motion burst ends by it, not by an event; at the end
 * what is still open ends and the device is closed. */
static void devs_time_passes(struct watcher *w, bool end)
{
	for (size_t i = 0; i < w->n_devs; i++) {
		struct input_verdict iv[INPUT_VERDICTS_MAX];
		size_t n;

		if (w->devs[i].fd < 0)
			continue;
		if (end)
			input_rules_end(&w->devs[i].st, mono_ns() / 1000, iv, &n);
		else
			input_rules_tick(&w->devs[i].st, mono_ns() / 1000, iv, &n);
		verdicts(w, &w->devs[i], iv, n);
		if (end)
			dev_close(&w->devs[i]);
	}
}

void devs_tick(struct watcher *w)
{
	devs_time_passes(w, false);
}

void devs_end(struct watcher *w)
{
	devs_time_passes(w, true);
}

void input_stop(struct watcher *w)
{
	if (w->mon)
		udev_monitor_unref(w->mon);
	if (w->udev)
		udev_unref(w->udev);
}
