/*
 * A round of a relay or a duet (batch-run-internal.h; docs/metrics.md
 * "Relay"): the round's two runs at once. The machine is quieted once;
 * then one child process per side runs the runner as a batch runs it one
 * at a time, with a relay plan: each prepares its run, writes a byte to
 * its ready pipe and waits for the epoch on its go pipe. When both are
 * ready the batch sends the one epoch to both, and the two games start
 * together and follow the same grid of turns. A side that fails before the
 * barrier closes its ready pipe by exiting: the other's go pipe is closed
 * unwritten, and that run fails too (a relay of one is no relay). Each
 * child sends its outcome back as key=value lines and exits; the batch
 * takes both runs in the cell order (A, then B).
 *
 * A signal sent to the batch alone (SIGTERM to its pid) is passed to both
 * children; a Ctrl-C from the terminal reaches all three at once and is
 * not passed again. An invalid run of a relay
 * is not run once more (--rerun-invalid): its partner would be alone.
 */
#include "batch/batch-run-internal.h"
#include "run/run.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* The games start this long after the last side is ready: both children
 * are woken and read the epoch before it. */
#define RELAY_START_LEAD_MS 20

struct side {
	size_t slot;
	char role;
	char *name, *prefix;
	struct kvfile extra;
	struct relay_plan plan;
	char cpus[48];
	int ready[2], go[2], result[2];
	pid_t pid;
	bool ready_seen, gone;
	int r;                      /* the child's runner_run() result */
	struct run_outcome o;
	struct strbuf err, text;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* One line of the outcome: newlines of a value become spaces. */
static void put(struct strbuf *sb, const char *key, const char *v)
{
	if (!v)
		return;
	strbuf_addf(sb, "%s=", key);
	for (; *v; v++)
		strbuf_addch(sb, *v == '\n' ? ' ' : *v);
	strbuf_addch(sb, '\n');
}

static void __attribute__((noreturn)) child(struct batch_run *br, struct side *s)
{
	struct run_request req = br->req;
	const struct batch_slot *sl = &br->batch->slots[s->slot];
	struct run_outcome o;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int r;

	req.variant_name = br->batch->variants.v[sl->variant];
	req.variant = recipe_find_variant(br->recipe, req.variant_name);
	req.switches = &br->sets[sl->token];
	req.run_name = s->name;
	req.extra = &s->extra;
	req.relay = &s->plan;
	r = runner_run(&req, &o, &err);
	strbuf_addf(&out, "r=%d\n", r);
	if (r == 0) {
		put(&out, "dir", o.dir);
		put(&out, "status", o.status);
		put(&out, "invalid", o.invalid);
		put(&out, "interfered", o.interfered);
		put(&out, "noise", o.noise);
	}
	put(&out, "err", err.buf);
	if (write_all(s->result[1], out.buf, out.len) < 0)
		_exit(1);
	_exit(0);
}

/* The child's lines into s->o and s->r. */
static void parse_result(struct side *s)
{
	char *save = NULL, *line;

	s->r = -EIO;
	strbuf_addstr(&s->err, "the relay's runner ended without a word");
	for (line = strtok_r(s->text.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		char **to = NULL;

		if (!eq)
			continue;
		*eq++ = '\0';
		if (strcmp(line, "r") == 0) {
			s->r = atoi(eq);
			strbuf_reset(&s->err);
		} else if (strcmp(line, "err") == 0) {
			strbuf_reset(&s->err);
			strbuf_addstr(&s->err, eq);
		} else if (strcmp(line, "dir") == 0) {
			to = &s->o.dir;
		} else if (strcmp(line, "status") == 0) {
			to = &s->o.status;
		} else if (strcmp(line, "invalid") == 0) {
			to = &s->o.invalid;
		} else if (strcmp(line, "interfered") == 0) {
			to = &s->o.interfered;
		} else if (strcmp(line, "noise") == 0) {
			to = &s->o.noise;
		}
		if (to) {
			free(*to);
			*to = xstrdup(eq);
		}
	}
	if (s->r == 0 && (!s->o.dir || !s->o.status)) {
		s->r = -EIO;
		strbuf_addstr(&s->err, "the relay's runner sent no run directory");
	}
	if (s->r == -EINTR)
		s->o.interrupted = true;
}

/* Passes a stopping signal sent to the batch alone (kill PID) to the
 * children; a terminal's Ctrl-C (from the kernel) reached them already,
 * and a second one would tell their runners to give no grace. */
static void forward_signals(struct batch_run *br, struct side *sd)
{
	struct signalfd_siginfo si;

	while (read(br->req.signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		if (si.ssi_signo != SIGCHLD && si.ssi_code != SI_KERNEL)
			for (int k = 0; k < 2; k++)
				if (sd[k].pid > 0 && !sd[k].gone)
					kill(sd[k].pid, (int)si.ssi_signo);
}

/* The barrier, then both outcomes read to their ends. */
static void conduct(struct batch_run *br, struct side *sd)
{
	bool started = false;

	for (;;) {
		struct pollfd p[5];
		int n = 0, idx[4];
		char buf[4096];

		for (int k = 0; k < 2; k++) {
			if (!sd[k].ready_seen && sd[k].ready[0] >= 0) {
				p[n] = (struct pollfd){ .fd = sd[k].ready[0], .events = POLLIN };
				idx[n++] = k;
			}
			if (sd[k].result[0] >= 0) {
				p[n] = (struct pollfd){ .fd = sd[k].result[0], .events = POLLIN };
				idx[n++] = 2 + k;
			}
		}
		if (n == 0)
			break;
		p[n] = (struct pollfd){ .fd = br->req.signal_fd, .events = POLLIN };
		if (poll(p, (nfds_t)n + 1, 1000) < 0 && errno != EINTR)
			break;
		if (p[n].revents & POLLIN)
			forward_signals(br, sd);
		for (int i = 0; i < n; i++) {
			struct side *s = &sd[idx[i] % 2];
			ssize_t got;

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (idx[i] < 2) {
				char c;

				if (read(s->ready[0], &c, 1) == 1)
					s->ready_seen = true;
				else /* it ended before the barrier */
					close_fd(&s->ready[0]);
				continue;
			}
			got = read(s->result[0], buf, sizeof(buf));
			if (got > 0)
				strbuf_add(&s->text, buf, (size_t)got);
			else if (got == 0 || errno != EINTR)
				close_fd(&s->result[0]);
		}
		if (!started && sd[0].ready_seen && sd[1].ready_seen) {
			uint64_t epoch = mono_ns() + RELAY_START_LEAD_MS * NSEC_PER_MSEC;

			for (int k = 0; k < 2; k++) {
				if (write_all(sd[k].go[1], &epoch, sizeof(epoch)) < 0)
					break;
				close_fd(&sd[k].go[1]);
			}
			started = true;
		} else if (!started && (sd[0].ready[0] < 0 || sd[1].ready[0] < 0)) {
			/* one side will never be ready: the other is told by an EOF */
			for (int k = 0; k < 2; k++)
				close_fd(&sd[k].go[1]);
			started = true;
		}
	}
	for (int k = 0; k < 2; k++) {
		int st;

		if (sd[k].pid > 0 && waitpid(sd[k].pid, &st, 0) == sd[k].pid)
			sd[k].gone = true;
		parse_result(&sd[k]);
	}
}

/* "0-3" of the lower half of the online CPUs, or of the upper. */
static void half_cpus(int upper, char *buf, size_t size)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	long h = n > 1 ? n / 2 : 1;
	long lo = upper ? h : 0, hi = upper ? n - 1 : h - 1;

	if (n < 2)
		lo = hi = 0;
	if (lo == hi)
		snprintf(buf, size, "%ld", lo);
	else
		snprintf(buf, size, "%ld-%ld", lo, hi);
}

static int open_pipes(struct side *s)
{
	s->ready[0] = s->ready[1] = s->go[0] = s->go[1] = s->result[0] = s->result[1] = -1;
	if (pipe2(s->ready, O_CLOEXEC) < 0 || pipe2(s->go, O_CLOEXEC) < 0 || pipe2(s->result, O_CLOEXEC) < 0)
		return -errno;
	return 0;
}

static void release_side(struct side *s)
{
	close_fd(&s->ready[0]);
	close_fd(&s->ready[1]);
	close_fd(&s->go[0]);
	close_fd(&s->go[1]);
	close_fd(&s->result[0]);
	close_fd(&s->result[1]);
	kvfile_release(&s->extra);
	run_outcome_release(&s->o);
	strbuf_release(&s->err);
	strbuf_release(&s->text);
	free(s->name);
	free(s->prefix);
}

/* The quieting's keys of one side's extra into the other's. */
static void copy_quiet(const struct kvfile *from, struct kvfile *to)
{
	for (size_t i = 0; i < from->n; i++)
		if (strncmp(from->items[i].key, "quiet.", 6) == 0)
			kvfile_add(to, from->items[i].key, from->items[i].value);
}

/* The round's two sides, A (the first cell) first, their names, extras,
 * pipes and plans. 0, or -errno with err. */
static int sides_prepare(struct batch_run *br, size_t i, struct side *sd, char id[33], struct strbuf *err)
{
	struct batch *b = br->batch;
	const struct batch_slot *si = &b->slots[i];
	int r = 0;

	sd[0].slot = sd[1].slot = SIZE_MAX;
	for (size_t j = 0; j < b->n_slots; j++) {
		const struct batch_slot *s = &b->slots[j];
		size_t cell = (size_t)s->token * b->variants.n + (size_t)s->variant;

		if (s->round == si->round && cell < 2)
			sd[cell].slot = j;
	}
	for (int k = 0; k < 2; k++) {
		strbuf_init(&sd[k].err);
		strbuf_init(&sd[k].text);
		sd[k].ready[0] = sd[k].ready[1] = sd[k].go[0] = sd[k].go[1] = -1;
		sd[k].result[0] = sd[k].result[1] = -1;
		kvfile_init(&sd[k].extra);
	}
	if (sd[0].slot == SIZE_MAX || sd[1].slot == SIZE_MAX) {
		strbuf_addf(err, "round %d of the relay does not have its two cells", si->round);
		return -EINVAL;
	}
	run_make_id(id);
	for (int k = 0; k < 2; k++) {
		struct side *s = &sd[k];
		const struct batch_slot *sl = &b->slots[s->slot];

		s->role = k ? 'B' : 'A';
		s->name = batch_run_name(b->variants.v[sl->variant], br->sets[sl->token].label);
		s->prefix = xasprintf("[round %d/%d, %s %c] %s %s", sl->round, b->rounds,
				      relay_mode_name(br->relay->mode), s->role, br->recipe->name, s->name);
		kvfile_release(&s->extra);
		slot_extra(br, s->slot, &s->extra);
		if (r == 0)
			r = open_pipes(s);
	}
	if (r < 0) {
		strbuf_addf(err, "cannot make the relay's pipes: %s", strerror(-r));
		return r;
	}
	for (int k = 0; k < 2; k++) {
		struct side *s = &sd[k];

		/* odd rounds: A first (or A on the lower CPUs); even rounds: B */
		s->plan = (struct relay_plan){
			.mode = br->relay->mode, .id = id, .role = s->role,
			.first = si->round % 2 ? 'A' : 'B', .turn_s = br->relay->turn_s,
			.settle_s = br->relay->settle_s, .partner = sd[!k].name,
			.ready_fd = s->ready[1], .go_fd = s->go[0], .root = getpid(),
		};
		if (br->relay->mode == RELAY_MODE_DUET) {
			half_cpus((s->role == 'A') == (si->round % 2 == 0), s->cpus, sizeof(s->cpus));
			s->plan.cpus = s->cpus;
		}
	}
	return 0;
}

/* A child for each side; the batch's ends of the pipes kept. 0, or -errno
 * with err (a side forked is told to stop). */
static int sides_fork(struct batch_run *br, struct side *sd, struct strbuf *err)
{
	int r = 0;

	fflush(NULL);
	for (int k = 0; k < 2 && r == 0; k++) {
		sd[k].pid = fork();
		if (sd[k].pid < 0) {
			r = -errno;
			strbuf_addf(err, "cannot fork the relay's runner: %s", strerror(errno));
		} else if (sd[k].pid == 0) {
			/* the other side's pipes are not this child's */
			close_fd(&sd[!k].ready[1]);
			close_fd(&sd[!k].go[0]);
			close_fd(&sd[!k].result[1]);
			child(br, &sd[k]);
		}
	}
	for (int k = 0; k < 2; k++) {
		close_fd(&sd[k].ready[1]);
		close_fd(&sd[k].go[0]);
		close_fd(&sd[k].result[1]);
		if (r < 0 && sd[k].pid > 0)
			kill(sd[k].pid, SIGTERM);
	}
	return r;
}

/* Both outcomes into the batch, A's first; the first failure returned. */
static int sides_take(struct batch_run *br, struct side *sd, struct strbuf *err)
{
	int r = 0;

	for (int k = 0; k < 2; k++) {
		struct side *s = &sd[k];
		bool again = false;
		int rk;

		if (s->r < 0) {
			batch_note(br->batch, s->slot, "aborted", NULL, s->r == -EINTR ? "interrupted" : s->err.buf);
			if (r == 0) {
				r = s->r;
				if (s->r != -EINTR)
					strbuf_addf(err, "%s: %s", s->name, s->err.buf);
			}
			continue;
		}
		rk = slot_outcome(br, s->slot, &s->o, s->prefix, &again, err);
		if (r == 0)
			r = rk;
	}
	return r;
}

int slot_relay(struct batch_run *br, size_t i, struct batch_pace *pace, struct strbuf *err)
{
	struct batch *b = br->batch;
	const struct batch_slot *si = &b->slots[i];
	struct side sd[2];
	char id[33], left[32];
	uint64_t t0 = mono_ns();
	int r;

	memset(sd, 0, sizeof(sd));
	r = sides_prepare(br, i, sd, id, err);
	if (r < 0)
		goto out;
	time_left(pace->per_run_s * (double)batch_pending(b) / 2, left, sizeof(left));
	say(br, MSG_INFO, "[round %d/%d] %s: %s of %s (A) and %s (B): starting (about %s left in the batch)",
	    si->round, b->rounds, br->recipe->name, relay_mode_name(br->relay->mode), sd[0].name, sd[1].name,
	    left);
	for (int k = 0; k < 2; k++)
		batch_note(b, sd[k].slot, "started", NULL, NULL);
	if (br->quiet) {
		r = slot_quiet(br, sd[0].slot, sd[0].name, sd[0].prefix, &sd[0].extra, err);
		if (r < 0)
			goto out;
		copy_quiet(&sd[0].extra, &sd[1].extra);
	}
	r = sides_fork(br, sd, err);
	conduct(br, sd);
	if (r < 0)
		goto out;
	pace->spent_s += (double)(mono_ns() - t0) / 1e9;
	pace->timed += 2;
	pace->per_run_s = pace->spent_s / (double)pace->timed;
	r = sides_take(br, sd, err);
out:
	for (int k = 0; k < 2; k++)
		release_side(&sd[k]);
	return r;
}
