/*
 * hitchbench-waker -m probe: a SCHED_FIFO sleeper pinned to each CPU,
 * memory locked and every buffer allocated before its loop, timing how
 * late each absolute-deadline wakeup is; probe.txt at the end
 * (common/formats/probefile.h).
 */
#include "base/message.h"
#include "waker-internal.h"
#include "base/exitcodes.h"
#include "system/helperproc.h"
#include "formats/latency.h"
#include "formats/probefile.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct probe_thread {
	struct probe_cpu *c;
	uint64_t period_ns, threshold_ns, start_ns;
	atomic_bool *stop;
};

/* The signal that wakes a probe thread to stop (SIGUSR2 is helperproc.h's
 * pause). */
#define WAKE_SIG (SIGRTMIN + 1)

/* Set by the main thread when the probe stops, before it wakes the probe
 * threads with WAKE_SIG: their sleep ends for it. Not by the signal's
 * handler: a WAKE_SIG from anyone else is slept through, as any other. */
static volatile sig_atomic_t probe_stopping;

/* The measuring loop: nothing allocated, logged or written in it. */
static void *probe_main(void *arg)
{
	struct probe_thread *p = arg;
	struct probe_cpu *c = p->c;
	uint64_t next = p->start_ns;

	while (!atomic_load_explicit(p->stop, memory_order_relaxed)) {
		uint64_t now, late;

		/* a flip run's side without the probe: no wakeups until resumed
		 * (the main thread's handler wakes the futex; a stop's WAKE_SIG
		 * ends the wait), the deadlines counted again from then */
		if (helper_paused()) {
			helper_wait_resumed(0);
			next = mono_ns();
			continue;
		}
		next += p->period_ns;
		/* woken to stop: the stop flag says so above */
		if (sleep_until(next, &probe_stopping) != 0) {
			next -= p->period_ns;
			continue;
		}
		now = mono_ns();
		late = now > next ? now - next : 0;
		lat_hist_add(&c->hist, late);
		if (late > p->threshold_ns)
			probe_cpu_late(c, now, late);
		/* a wakeup a period or more late: the deadlines it slept
		 * through are skipped, not counted as late wakeups of their own */
		if (now >= next + p->period_ns) {
			uint64_t behind = (now - next) / p->period_ns;

			c->missed += behind;
			next += behind * p->period_ns;
		}
	}
	return NULL;
}

/* WAKE_SIG ends a probe thread's sleep at once when the probe stops (a
 * long period would outlast the runner's grace before SIGKILL). */
static void on_wake(int sig)
{
	(void)sig;
}

static void install_wake(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake;   /* no SA_RESTART: the sleep returns EINTR */
	sigaction(WAKE_SIG, &sa, NULL);
}

/* Joins a probe thread, waking it until it ends (WAKE_SIG again every 50
 * ms, should the thread not have taken the first). probe_stopping is set
 * by then, so a signal that lands before the thread's sleep still ends it. */
static void join_waking(pthread_t th)
{
	for (;;) {
		struct timespec ts;

		pthread_kill(th, WAKE_SIG);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_timedjoin_np(th, NULL, &ts) != ETIMEDOUT)
			return;
	}
}

static void print_summary(const struct probe_result *res)
{
	for (size_t i = 0; i < res->n_cpus; i++) {
		const struct probe_cpu *c = &res->cpus[i];
		uint64_t p999 = 0;
		int r = lat_hist_percentile(&c->hist, 999000, &p999);

		printf("cpu%d: %" PRIu64 " wakeups, worst %.1f us, p99.9 %s%" PRIu64 " us, "
		       "%zu over %" PRIu64 " us\n", c->cpu, c->hist.n, (double)c->hist.worst_ns / 1e3,
		       r == 1 ? ">=" : "", p999, c->n_late + (size_t)c->late_dropped,
		       res->threshold_ns / 1000);
	}
	printf("self: %.1f ms CPU over %.1f s\n", (double)res->self_cpu_ns / 1e6,
	       (double)(res->end_ns - res->start_ns) / 1e9);
}

/* probe.txt's record before the threads start: every buffer the loops
 * use allocated, touched and locked, so that none faults in inside them. */
static void probe_prepare(struct probe_result *res, const struct opts *o)
{
	probe_result_init(res, &o->cpus, PROBE_LATE_CAP);
	res->period_ns = o->period_ns;
	res->threshold_ns = o->threshold_ns;
	res->fifo_prio = o->fifo_prio;
	res->dma_latency = o->dma_latency;
	/* the histograms and lists are touched once so that locking them
	 * leaves no page to fault in inside the loop */
	for (size_t i = 0; i < res->n_cpus; i++) {
		memset(res->cpus[i].hist.bins, 0, LAT_BINS * sizeof(*res->cpus[i].hist.bins));
		memset(res->cpus[i].late, 0, res->cpus[i].cap_late * sizeof(*res->cpus[i].late));
	}
#ifdef __SANITIZE_ADDRESS__
	/* AddressSanitizer's shadow is terabytes of address space: never locked */
	warn_msg("an AddressSanitizer build: memory not locked");
#else
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		warn_msg("mlockall: %s (page faults may add to the lateness)",
			strerror(errno));
#endif
}

/* A probe thread per CPU from a common start a little ahead, so every
 * thread's deadlines line up. How many started. */
static size_t probe_start(struct probe_result *res, const struct opts *o, struct probe_thread *pt,
			  pthread_t *th, atomic_bool *stop)
{
	size_t started;
	sigset_t old;

	res->mono0_ns = mono_ns();
	res->real0_ns = real_ns();
	res->start_ns = res->mono0_ns + 20 * NSEC_PER_MSEC;
	install_wake();
	block_signals(&old);
	for (started = 0; started < res->n_cpus; started++) {
		int cpu = res->cpus[started].cpu, r;

		pt[started].c = &res->cpus[started];
		pt[started].period_ns = o->period_ns;
		pt[started].threshold_ns = o->threshold_ns;
		pt[started].start_ns = res->start_ns;
		pt[started].stop = stop;
		r = start_thread(&th[started], cpu, o->fifo_prio, probe_main, &pt[started]);
		if (r < 0) {
			error_msg("cannot start the probe on CPU %d%s: %s", cpu,
				o->fifo_prio ? " at SCHED_FIFO" : "", strerror(-r));
			if (r == -EPERM && o->fifo_prio)
				error_msg("SCHED_FIFO needs root (or --fifo-prio 0)");
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

/* Holds /dev/cpu_dma_latency at 0 for --dma-latency: its fd, -2 when not
 * asked for, or -1 (said why). */
static int dma_latency_hold(const struct opts *o)
{
	int32_t zero = 0;
	int fd;

	if (!o->dma_latency)
		return -2;
	fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
		error_msg("--dma-latency: /dev/cpu_dma_latency: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int run_probe(struct opts *o)
{
	struct probe_result res;
	struct probe_thread *pt;
	pthread_t *th;
	atomic_bool stop = false;
	cpu_set_t online;
	size_t n, started;
	uint64_t cpu0;
	int dma_fd, ret = HB_EXIT_FAILURE;
	FILE *out;

	if (target_cpus(o, &online) < 0)
		return HB_EXIT_USAGE;
	/* opened first: a bad path fails now, not after the run */
	out = open_out(o->out);
	if (!out)
		return HB_EXIT_FAILURE;
	dma_fd = dma_latency_hold(o);
	if (dma_fd == -1)
		goto out_file;
	probe_prepare(&res, o);
	n = res.n_cpus;
	pt = zalloc(n * sizeof(*pt));
	th = zalloc(n * sizeof(*th));
	started = probe_start(&res, o, pt, th, &stop);
	cpu0 = self_cpu_ns();
	if (started == n) {
		helper_ready(o->ready);
		wait_end(end_of(o, res.start_ns));
	}
	atomic_store(&stop, true);
	probe_stopping = 1;
	for (size_t i = 0; i < started; i++)
		join_waking(th[i]);
	res.end_ns = mono_ns();
	res.self_cpu_ns = self_cpu_ns() - cpu0;
	if (started == n) {
		int r = probe_result_write(&res, out);

		ret = HB_EXIT_OK;
		if (r < 0) {
			error_msg("cannot write '%s': %s", o->out, strerror(-r));
			ret = HB_EXIT_FAILURE;
		}
		if (ret == HB_EXIT_OK && out != stdout)
			print_summary(&res);
	}
	probe_result_release(&res);
	free(pt);
	free(th);
	if (dma_fd >= 0)
		close(dma_fd);
out_file:
	if (close_out(out, o->out) < 0)
		ret = HB_EXIT_FAILURE;
	return ret;
}
