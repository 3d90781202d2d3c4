/*
 * A relay's turns (runner-internal.h; docs/metrics.md "Relay"). The batch
 * forks one runner for A and one for B; each prepares its run (directory,
 * staging, X server, GL probe) and then meets the other at a barrier, so
 * that neither's set-up runs beside the other's game and both games start
 * together. From the barrier's epoch, time is cut into turns: in a relay
 * each runner stops its game's process group (SIGSTOP) when a turn of the
 * other side begins and resumes it (SIGCONT) when its own begins, each
 * stop and resume appended to relay.txt at once, with the time it was due
 * on the grid and the time the signal was sent. In a duet nothing is
 * stopped: the game runs on the CPUs the plan gives it.
 *
 * The two runners never speak after the barrier: both follow the same
 * clock (CLOCK_MONOTONIC) and the same grid, each on its own wakeups, so
 * a turn's edges overlap or gap by a wakeup's lateness (late ones are
 * counted; the settle time after a resume covers them).
 */
#include "runner/runner-internal.h"
#include "base/timeutil.h"
#include "system/cpulist.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void append(struct runner *rn, const struct strbuf *line)
{
	runner_record_append(rn, rn->relay.fd, HB_RELAY_FILE, &rn->relay.write_failed, line);
}

/* The shared epoch from the batch (the barrier), the interrupt kept. */
static int barrier(struct runner *rn, const struct relay_plan *p, uint64_t *epoch, struct strbuf *err)
{
	char ready = 'R';
	size_t got = 0;

	if (write(p->ready_fd, &ready, 1) != 1) {
		strbuf_addf(err, "relay: cannot tell the batch this side is ready: %s", strerror(errno));
		return -EIO;
	}
	while (got < sizeof(*epoch)) {
		struct pollfd f[2] = { { .fd = p->go_fd, .events = POLLIN },
				       { .fd = rn->req->signal_fd, .events = POLLIN } };
		ssize_t n;

		if (poll(f, 2, 1000) < 0 && errno != EINTR)
			return -errno;
		runner_handle_signals(rn);
		if (rn->interrupted)
			return -EINTR;
		if (!(f[0].revents & (POLLIN | POLLHUP)))
			continue;
		n = read(p->go_fd, (char *)epoch + got, sizeof(*epoch) - got);
		if (n <= 0) {
			strbuf_addstr(err, "relay: the other side never got ready (the batch gave no start)");
			return -EPIPE;
		}
		got += (size_t)n;
	}
	return 0;
}

int runner_relay_begin(struct runner *rn, struct strbuf *err)
{
	const struct relay_plan *p = rn->req->relay;
	struct relay_record *r = &rn->relay.rec;
	struct strbuf text = STRBUF_INIT;
	uint64_t epoch = 0;
	int ret;

	rn->relay.fd = -1;
	if (!p)
		return 0;
	ret = barrier(rn, p, &epoch, err);
	if (ret < 0)
		return ret;
	relay_record_init(r);
	r->id = xstrdup(p->id);
	r->mode = p->mode;
	r->role = p->role;
	r->first = p->first;
	r->turn_s = p->turn_s;
	r->settle_ms = p->mode == RELAY_MODE_RELAY ? p->settle_s * 1e3 : 0;
	r->epoch_ns = epoch;
	r->cpus = xstrdup(p->cpus ? p->cpus : "-");
	if (p->mode == RELAY_MODE_DUET && p->cpus) {
		if (cpu_list_parse(p->cpus, &rn->game_cpus) < 0) {
			strbuf_addf(err, "duet: '%s' is not a CPU list", p->cpus);
			relay_record_release(r);
			return -EINVAL;
		}
		rn->pin_game = true;
	}
	relay_record_header(r, &text);
	rn->relay.fd = runner_record_create(rn, HB_RELAY_FILE, &text, err);
	strbuf_release(&text);
	if (rn->relay.fd < 0) {
		rn->relay.fd = -1;
		relay_record_release(r);
		return -EIO;
	}
	rn->relay.on = p->mode == RELAY_MODE_RELAY;
	return 0;
}

/* SIGSTOP or SIGCONT to the game's process group (its session: a pass is
 * launched in a session of its own). */
static void signal_game(struct runner *rn, int sig)
{
	if (rn->game_pid > 0)
		kill(-rn->game_pid, sig);
}

void runner_relay_tick(struct runner *rn, uint64_t now)
{
	struct relay_record *r = &rn->relay.rec;
	struct relay_event e = { 0 };
	struct strbuf line = STRBUF_INIT;
	bool mine;

	if (!rn->relay.on || !rn->pass_running || rn->game_exited)
		return;
	e.turn = relay_turn_at(r, now);
	mine = relay_turn_is(r, e.turn, r->role);
	if (mine != rn->relay.stopped)
		return; /* as it should be */
	e.resume = mine;
	e.due_ns = relay_turn_start(r, e.turn);
	signal_game(rn, mine ? SIGCONT : SIGSTOP);
	e.applied_ns = mono_ns();
	if (e.due_ns > e.applied_ns)
		e.due_ns = e.applied_ns;
	rn->relay.stopped = !mine;
	if (mine) {
		rn->relay.resumes++;
		if (rn->relay.stop_since)
			rn->relay.stopped_ns += e.applied_ns - rn->relay.stop_since;
	} else {
		rn->relay.stops++;
		rn->relay.stop_since = e.applied_ns;
	}
	/* a resume later than half the settle time eats into the turn's frames */
	if ((double)(e.applied_ns - e.due_ns) / 1e6 > (r->settle_ms > 0 ? r->settle_ms / 2 : 5))
		rn->relay.late++;
	relay_event_line(&e, &line);
	append(rn, &line);
	strbuf_release(&line);
}

uint64_t runner_relay_next(const struct runner *rn, uint64_t now)
{
	const struct relay_record *r = &rn->relay.rec;

	if (!rn->relay.on)
		return UINT64_MAX;
	return relay_turn_start(r, relay_turn_at(r, now) + 1);
}

void runner_relay_end(struct runner *rn)
{
	if (!rn->req->relay || !rn->relay.rec.id)
		return;
	if (rn->relay.stopped) {
		signal_game(rn, SIGCONT);
		rn->relay.stopped = false;
		if (rn->relay.stop_since)
			rn->relay.stopped_ns += mono_ns() - rn->relay.stop_since;
	}
	if (rn->relay.on) {
		kvfile_addf(&rn->bench, "relay.stops", "%zu", rn->relay.stops);
		kvfile_addf(&rn->bench, "relay.resumes", "%zu", rn->relay.resumes);
		kvfile_addf(&rn->bench, "relay.late", "%zu", rn->relay.late);
		kvfile_addf(&rn->bench, "relay.stopped_s", "%.3f", (double)rn->relay.stopped_ns / 1e9);
		if (rn->relay.late)
			switch_ctx_note(&rn->sw, "relay: %zu of %zu resumes and stops late: frames of those turns "
					"after the settle time still count", rn->relay.late,
					rn->relay.stops + rn->relay.resumes);
	}
	rn->relay.on = false;
	if (rn->relay.fd >= 0)
		close(rn->relay.fd);
	rn->relay.fd = -1;
	relay_record_release(&rn->relay.rec);
}
