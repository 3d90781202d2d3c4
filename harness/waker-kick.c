/*
 * hitchbench-waker -m kick: a sleeper pinned to each CPU, blocked on an
 * eventfd that a kicker on another CPU writes every period, so that every
 * wakeup crosses CPUs (common/system/wakeplan.h, kick_plan_make, says who wakes
 * whom).
 */
#include "base/message.h"
#include "waker-internal.h"
#include "system/cpulist.h"
#include "base/exitcodes.h"
#include "system/helperproc.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct kick_sleeper {
	int cpu;
	int efd;
	struct kick_sleeper *relay_to;  /* the sleeper it wakes in turn, or NULL */
	atomic_bool *stop;
	uint64_t received;              /* wakeups (reads that returned) */
	uint64_t kicks;                 /* the eventfd counts they carried */
	uint64_t sent;                  /* relays it sent */
	int err;
};

static void *kick_sleeper_main(void *arg)
{
	struct kick_sleeper *s = arg;
	uint64_t one = 1;

	for (;;) {
		uint64_t v;

		if (read(s->efd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
			if (errno == EINTR)
				continue;
			s->err = errno;
			break;
		}
		if (atomic_load(s->stop))
			break;
		s->received++;
		s->kicks += v;
		if (s->relay_to && write(s->relay_to->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
			s->sent++;
	}
	return NULL;
}

/* One kick run: the plan, a sleeper per target CPU, the kicker's counts. */
struct kick {
	struct kick_plan plan;
	struct kick_sleeper *sl, *home;  /* home: the sleeper on the kicker's CPU */
	pthread_t *th;
	uint64_t *sent_to, sent;
	size_t n, started;
	atomic_bool stop;
};

/* The plan and a sleeper (an eventfd) per target CPU, the kicker pinned
 * to its CPU. 0, or -1 (said why). */
static int kick_prepare(struct kick *k, struct opts *o, const cpu_set_t *online)
{
	cpu_set_t me;
	size_t i = 0;

	kick_plan_make(&o->cpus, online, &k->plan);
	k->n = (size_t)CPU_COUNT(&o->cpus);
	k->sl = zalloc(k->n * sizeof(*k->sl));
	k->th = zalloc(k->n * sizeof(*k->th));
	k->sent_to = zalloc(k->n * sizeof(*k->sent_to));
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &o->cpus))
			continue;
		k->sl[i].cpu = c;
		k->sl[i].stop = &k->stop;
		k->sl[i].efd = eventfd(0, EFD_CLOEXEC);
		if (k->sl[i].efd < 0) {
			error_msg("eventfd: %s", strerror(errno));
			return -1;
		}
		if (c == k->plan.kicker_cpu)
			k->home = &k->sl[i];
		i++;
	}
	for (i = 0; i < k->n && k->plan.relay_cpu >= 0; i++)
		if (k->sl[i].cpu == k->plan.relay_cpu)
			k->sl[i].relay_to = k->home;
	CPU_ZERO(&me);
	CPU_SET(k->plan.kicker_cpu, &me);
	if (sched_setaffinity(0, sizeof(me), &me) < 0) {
		error_msg("cannot pin the kicker to CPU %d: %s", k->plan.kicker_cpu,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Starts the sleepers; k->started says how many run. */
static void kick_start(struct kick *k)
{
	sigset_t old;

	block_signals(&old);
	for (k->started = 0; k->started < k->n; k->started++) {
		struct kick_sleeper *s = &k->sl[k->started];
		int r = start_thread(&k->th[k->started], s->cpu, 0, kick_sleeper_main, s);

		if (r < 0) {
			error_msg("cannot start the sleeper on CPU %d: %s", s->cpu,
				strerror(-r));
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The kicker's loop: every sleeper written each period until -t or a stop. */
static void kick_loop(struct kick *k, const struct opts *o, uint64_t start)
{
	uint64_t next = start, end = end_of(o, start), one = 1;

	while (sleep_to_next(&next, o->period_ns, end)) {
		for (size_t i = 0; i < k->n; i++) {
			/* the home sleeper is the relay's to wake, unless there is none */
			if (&k->sl[i] == k->home && !k->plan.same_cpu)
				continue;
			if (write(k->sl[i].efd, &one, sizeof(one)) == (ssize_t)sizeof(one)) {
				k->sent_to[i]++;
				k->sent++;
			}
		}
	}
}

/* Tells the sleepers to stop and joins them; say: a sleeper that cannot
 * be told is said and waited for (the run's end), else left (a failed
 * start). */
static void kick_stop(struct kick *k, bool say)
{
	uint64_t one = 1;

	atomic_store(&k->stop, true);
	for (size_t i = 0; i < k->started; i++) {
		if (write(k->sl[i].efd, &one, sizeof(one)) < 0) {
			if (!say)
				continue;
			error_msg("cannot stop the sleeper on CPU %d: %s", k->sl[i].cpu,
				strerror(errno));
		}
		pthread_join(k->th[i], NULL);
	}
	k->started = 0;
}

/* The report's kick keys (docs/formats.md, "Waker report"). */
static void kick_report(struct kick *k, const struct opts *o, struct kvfile *kv)
{
	struct strbuf list = STRBUF_INIT;

	cpu_set_format(&o->cpus, &list);
	kvfile_add(kv, "cpus", list.buf);
	strbuf_release(&list);
	kvfile_addf(kv, "kicker_cpu", "%d", k->plan.kicker_cpu);
	kvfile_addf(kv, "relay_cpu", "%d", k->plan.relay_cpu);
	kvfile_add(kv, "cross_cpu", k->plan.same_cpu ? "no (a single CPU: the kicker wakes its own)"
		   : "yes");
	/* the home CPU's wakeups were the relay's to send */
	for (size_t i = 0; i < k->n; i++)
		if (k->home && &k->sl[i] == k->home && k->plan.relay_cpu >= 0)
			for (size_t j = 0; j < k->n; j++)
				if (k->sl[j].relay_to == k->home) {
					k->sent_to[i] = k->sl[j].sent;
					k->sent += k->sl[j].sent;
				}
	kvfile_addf(kv, "wakeups", "%" PRIu64, k->sent);
	for (size_t i = 0; i < k->n; i++) {
		const struct kick_sleeper *s = &k->sl[i];
		char key[64];

		snprintf(key, sizeof(key), "cpu%d.sent", s->cpu);
		kvfile_addf(kv, key, "%" PRIu64, k->sent_to[i]);
		snprintf(key, sizeof(key), "cpu%d.received", s->cpu);
		kvfile_addf(kv, key, "%" PRIu64, s->received);
		snprintf(key, sizeof(key), "cpu%d.kicks", s->cpu);
		kvfile_addf(kv, key, "%" PRIu64, s->kicks);
		if (s->err) {
			snprintf(key, sizeof(key), "cpu%d.error", s->cpu);
			kvfile_add(kv, key, strerror(s->err));
		}
	}
}

int run_kick(struct opts *o)
{
	struct kick k = { .stop = false };
	cpu_set_t online;
	int ret = HB_EXIT_FAILURE;

	if (target_cpus(o, &online) < 0)
		return HB_EXIT_USAGE;
	if (kick_prepare(&k, o, &online) == 0)
		kick_start(&k);
	if (k.started == k.n && k.n > 0) {
		uint64_t cpu0, start, end;
		struct kvfile kv;

		helper_ready(o->ready);
		cpu0 = self_cpu_ns();
		start = mono_ns();
		kick_loop(&k, o, start);
		end = mono_ns();
		kick_stop(&k, true);
		kvfile_init(&kv);
		report_head(&kv, o, start, end, self_cpu_ns() - cpu0);
		kick_report(&k, o, &kv);
		ret = write_report(&kv, o->out) < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
		kvfile_release(&kv);
	}
	kick_stop(&k, false);
	for (size_t i = 0; i < k.n; i++)
		if (k.sl[i].efd > 0)
			close(k.sl[i].efd);
	free(k.sl);
	free(k.th);
	free(k.sent_to);
	return ret;
}
