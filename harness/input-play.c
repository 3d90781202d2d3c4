/*
 * A recipe's [input] play: a recorded device (an evemu recording) made
 * through uinput and its events written to it in real time, so that a
 * game is driven by a real player's input. libevemu does the evemu parts:
 * it reads the recording (evemu_read, evemu_read_event), makes the device
 * (evemu_create_managed) and writes each event (evemu_play_one, to the
 * device's node as evemu-play does). The timing is ours: evemu_play
 * sleeps each gap with usleep from the event before, so its delays add up
 * over a long recording, it cannot be stopped before its last event (the
 * runner's SIGTERM), and it warns on stderr with the names of the codes a
 * device lacks, which would put keys in the run's logs. Here each event
 * has an absolute deadline from the first (CLOCK_MONOTONIC), waited for
 * through the caller, which watches for the runner's signal.
 *
 * The recording was checked before (input_step_check: common/input/evemurec.c,
 * which says which line is wrong and refuses what libevemu would misread),
 * so libevemu's reader has nothing to complain about. The device keeps the
 * recorded ids (bus, vendor, product, version), so a game maps it as it
 * would the real one, and takes the caller's name, which starts with
 * "hitchbench input": the interference watcher's mark of the harness's
 * own devices. Nothing logged here names a key: counts and times only.
 */
#include "input-internal.h"
#include "base/timeutil.h"

#include <errno.h>
#include <evemu.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODE_MS 5000    /* the device's node appears (devtmpfs, udev's permissions) */
#define NODE_POLL_MS 20

static uint64_t event_us(const struct input_event *ev)
{
	return (uint64_t)ev->input_event_sec * 1000000 + (uint64_t)ev->input_event_usec;
}

int play_read(struct input_play *p, const struct input_step *s, struct strbuf *err)
{
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->dev = evemu_new(NULL);
	p->desc = fopen(s->paths[0], "re");
	if (!p->dev || !p->desc) {
		strbuf_addf(err, "cannot read '%s': %s", s->paths[0], strerror(errno));
		return -errno;
	}
	if (evemu_read(p->dev, p->desc) <= 0) {
		strbuf_addf(err, "libevemu cannot read the description in '%s'", s->paths[0]);
		return -EINVAL;
	}
	p->recorded = xstrdup(evemu_get_name(p->dev) ? evemu_get_name(p->dev) : "?");
	if (s->n_paths == 1) {
		p->events = p->desc;   /* evemu_read left it at the first event */
		return 0;
	}
	p->events = fopen(s->paths[1], "re");
	if (!p->events) {
		strbuf_addf(err, "cannot read '%s': %s", s->paths[1], strerror(errno));
		return -errno;
	}
	return 0;
}

void play_describe(const struct input_play *p, struct strbuf *out)
{
	strbuf_addf(out, "recorded \"%s\" (bus %04x vendor %04x product %04x version %04x)",
		    p->recorded, evemu_get_id_bustype(p->dev), evemu_get_id_vendor(p->dev),
		    evemu_get_id_product(p->dev), evemu_get_id_version(p->dev));
}

int play_plan(struct input_play *p, struct strbuf *out)
{
	struct input_event ev;
	uint64_t first = 0, last = 0;
	size_t n = 0;

	while (evemu_read_event(p->events, &ev) > 0) {
		last = event_us(&ev);
		if (n++ == 0)
			first = last;
	}
	strbuf_addf(out, "%zu events over %.6f s (read by libevemu)", n, (double)(last - first) / 1e6);
	return n ? 0 : -EINVAL;
}

/* /sys/devices/virtual/input/inputN of /dev/input/eventN. */
static char *node_syspath(const char *node)
{
	const char *base = strrchr(node, '/');
	char *link = xasprintf("/sys/class/input/%s/device", base ? base + 1 : node);
	char *path = realpath(link, NULL);

	free(link);
	return path ? path : xstrdup("unknown");
}

int play_create(struct input_play *p, const char *name, struct strbuf *err)
{
	const char *node;
	int r;

	evemu_set_name(p->dev, name);
	r = evemu_create_managed(p->dev);
	if (r < 0) {
		strbuf_addf(err, "cannot create the recorded device \"%s\" through uinput: %s",
			    p->recorded, strerror(-r));
		return r;
	}
	node = evemu_get_devnode(p->dev);
	for (unsigned waited = 0; node && waited < NODE_MS; waited += NODE_POLL_MS) {
		p->fd = open(node, O_WRONLY | O_CLOEXEC);
		if (p->fd >= 0)
			break;
		sleep_ms(NODE_POLL_MS);
	}
	if (p->fd < 0) {
		strbuf_addf(err, "cannot open the recorded device's node %s: %s", node ? node : "(none)",
			    node ? strerror(errno) : "libevemu knows none");
		return -ENODEV;
	}
	p->syspath = node_syspath(node);
	return 0;
}

int play_events(struct input_play *p, bool (*wait)(void *ctx, uint64_t deadline_ns), void *ctx,
		struct strbuf *out)
{
	struct input_event ev;
	uint64_t first = 0, start = 0, late_max = 0;
	size_t n = 0;

	while (evemu_read_event(p->events, &ev) > 0) {
		uint64_t deadline, now;

		if (n == 0) {
			first = event_us(&ev);
			start = mono_ns();
		}
		deadline = start + (event_us(&ev) - first) * 1000;
		if (!wait(ctx, deadline)) {
			strbuf_addf(out, "%zu events written", n);
			return 1;
		}
		now = mono_ns();
		if (now > deadline && now - deadline > late_max)
			late_max = now - deadline;
		if (evemu_play_one(p->fd, &ev) < 0) {
			strbuf_addf(out, "cannot write event %zu to the recorded device: %s", n + 1,
				    strerror(errno));
			return -EIO;
		}
		n++;
	}
	strbuf_addf(out, "ok: %zu events over %.3f s, each at most %.3f ms after its time", n,
		    (double)(mono_ns() - start) / 1e9, (double)late_max / 1e6);
	return 0;
}

void play_close(struct input_play *p)
{
	if (p->fd >= 0)
		close(p->fd);
	if (p->events && p->events != p->desc)
		fclose(p->events);
	if (p->desc)
		fclose(p->desc);
	if (p->dev) {
		evemu_destroy(p->dev);
		evemu_delete(p->dev);
	}
	free(p->recorded);
	free(p->syspath);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}
