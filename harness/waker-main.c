/*
 * hitchbench-waker: wakeups beside a game, or a probe of how late the
 * kernel delivers them (the WAKER and PROBE switches; standalone for runs
 * with no game). It exists because an idle CPU that misses its timer
 * interrupt oversleeps, and whatever waits on a timer there (a fence
 * poll, a frame's sleep) waits with it: the waker keeps CPUs from staying
 * idle long, the probe measures each CPU's lateness.
 *
 *   -m sleep   one thread, nice -10, absolute-deadline sleeps of the period
 *              (unpinned unless -c): wakeups and nothing else
 *   -m kick    one pinned sleeper per CPU of -c (default every online CPU),
 *              each blocked on an eventfd that a kicker on another CPU
 *              writes every period (common/wakeplan.h, kick_plan_make)
 *   -m probe   one SCHED_FIFO sleeper pinned per CPU, memory locked, every
 *              buffer allocated before the loop; lateness = the time it ran
 *              minus its deadline, into a histogram per CPU and, past
 *              --threshold-us, a list with the time; probe.txt at the end
 *
 * Every mode ends with its own CPU time (getrusage, all threads) in what
 * it writes: -o FILE (default '-', stdout). sleep and kick write a
 * key=value report (docs/formats.md, "Waker report"), probe writes
 * probe.txt ("Probe file"). SIGTERM or SIGINT ends a run cleanly (exit
 * 0), as does -t SECONDS.
 */
#include "cpulist.h"
#include "exitcodes.h"
#include "fsroot.h"
#include "helperproc.h"
#include "kvfile.h"
#include "probefile.h"
#include "timeutil.h"
#include "util.h"
#include "wakeplan.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PROG "hitchbench-waker"
#define THREAD_STACK (256 * 1024)
/* Late wakeups kept per CPU with their time; later ones are counted only. */
#define PROBE_LATE_CAP 20000
#define DEFAULT_FIFO_PRIO 80
#define DEFAULT_THRESHOLD_US 1000

struct opts {
	enum waker_mode mode;
	uint64_t period_ns;
	double duration_s;          /* 0: until a signal */
	cpu_set_t cpus;
	bool cpus_given;
	const char *out;
	int nice;
	uint64_t threshold_ns;
	int fifo_prio;
	bool dma_latency;
	const char *ready;
	const char *cmdline;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " -m sleep|kick|probe [-i PERIOD_MS] [-t SECONDS] [-c CPU_LIST]\n"
		"                         [-o FILE] [--nice N] [--threshold-us US] [--fifo-prio N]\n"
		"                         [--dma-latency] [--ready FILE]\n"
		"\n"
		"  -m, --mode MODE      sleep: a bare absolute-deadline sleep loop; kick: a pinned\n"
		"                       sleeper per CPU woken from another CPU each period; probe:\n"
		"                       a SCHED_FIFO sleeper per CPU timing how late it wakes\n"
		"  -i, --period MS      the period, fractional ms (default 10; probe 1.37)\n"
		"  -t, --time SECONDS   stop after this long (default 0: at SIGTERM or SIGINT)\n"
		"  -c, --cpus LIST      sleep: pin to these CPUs; kick, probe: the CPUs to wake or\n"
		"                       probe (default: every online CPU)\n"
		"  -o, --output FILE    the report (sleep, kick) or probe.txt (probe); - is stdout\n"
		"  --nice N             sleep and kick: niceness (default -10)\n"
		"  --threshold-us US    probe: list every wakeup later than this (default %d)\n"
		"  --fifo-prio N        probe: SCHED_FIFO priority 1..99 (default %d; 0: SCHED_OTHER)\n"
		"  --dma-latency        probe: hold /dev/cpu_dma_latency at 0 while probing\n"
		"                       (never opened otherwise)\n"
		"  --ready FILE         create FILE once every thread runs\n"
		"\n"
		"CPUs online are read below $HITCHBENCH_ROOT (default /). The formats:\n"
		"docs/formats.md, \"Waker report\" and \"Probe file\".\n",
		DEFAULT_THRESHOLD_US, DEFAULT_FIFO_PRIO);
}

static int bad_value(const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, PROG ": %s: want %s, not '%s'\n", opt, want, arg);
	return -1;
}

static int int_opt(const char *opt, const char *arg, int lo, int hi, int *out)
{
	char want[64];

	snprintf(want, sizeof(want), "a whole number in %d..%d", lo, hi);
	if (safe_atoi(arg, out) < 0 || *out < lo || *out > hi)
		return bad_value(opt, arg, want);
	return 0;
}

static int online_cpus(cpu_set_t *set)
{
	char buf[256];
	int r = fsroot_read_line("sys/devices/system/cpu/online", buf, sizeof(buf));

	if (r < 0)
		return r;
	return cpu_list_parse(buf, set);
}

/* Parses argv into o. 0, 1 (--help printed), or -1 (said why). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "period", required_argument, NULL, 'i' },
		{ "time", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "nice", required_argument, NULL, 'n' },
		{ "threshold-us", required_argument, NULL, 'T' },
		{ "fifo-prio", required_argument, NULL, 'P' },
		{ "dma-latency", no_argument, NULL, 'D' },
		{ "ready", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *period = NULL;
	bool mode_given = false;
	int opt, v, r;

	memset(o, 0, sizeof(*o));
	o->out = "-";
	o->nice = -10;
	o->fifo_prio = DEFAULT_FIFO_PRIO;
	o->threshold_ns = DEFAULT_THRESHOLD_US * 1000ULL;
	while ((opt = getopt_long(argc, argv, "m:i:t:c:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (waker_mode_parse(optarg, &o->mode) < 0)
				return bad_value("-m", optarg, "sleep, kick or probe");
			mode_given = true;
			break;
		case 'i':
			period = optarg;
			break;
		case 't':
			if (safe_atod(optarg, &o->duration_s) < 0 || !(o->duration_s >= 0) ||
			    o->duration_s > 1e7)
				return bad_value("-t", optarg, "seconds, 0 or more (0: until SIGTERM)");
			break;
		case 'c':
			if (cpu_list_parse(optarg, &o->cpus) < 0)
				return bad_value("-c", optarg, "a CPU list such as 0, 1-3 or 0,2");
			o->cpus_given = true;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'n':
			if (int_opt("--nice", optarg, -20, 19, &o->nice) < 0)
				return -1;
			break;
		case 'T':
			if (int_opt("--threshold-us", optarg, 1, 1 << 30, &v) < 0)
				return -1;
			o->threshold_ns = (uint64_t)v * 1000;
			break;
		case 'P':
			if (int_opt("--fifo-prio", optarg, 0, 99, &o->fifo_prio) < 0)
				return -1;
			break;
		case 'D':
			o->dma_latency = true;
			break;
		case 'r':
			o->ready = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!mode_given) {
		fprintf(stderr, PROG ": -m sleep|kick|probe is required\n");
		return -1;
	}
	if (!period)
		period = o->mode == WAKER_PROBE ? "1.37" : "10";
	r = waker_period_parse(period, &o->period_ns);
	if (r < 0) {
		char want[80];

		snprintf(want, sizeof(want), "a period in ms, %g..%g (fractions allowed)",
			 WAKER_PERIOD_MIN_MS, WAKER_PERIOD_MAX_MS);
		return bad_value("-i", period, want);
	}
	if (o->dma_latency && o->mode != WAKER_PROBE) {
		fprintf(stderr, PROG ": --dma-latency is for -m probe only\n");
		return -1;
	}
	return 0;
}

/* The CPUs to wake or probe: -c, checked against those online, or every
 * online one. 0 or -1 (said why). */
static int target_cpus(struct opts *o, cpu_set_t *online)
{
	int bad, r = online_cpus(online);

	if (r < 0) {
		fprintf(stderr, PROG ": cannot read %s/sys/devices/system/cpu/online: %s\n", fsroot(),
			strerror(-r));
		return -1;
	}
	if (!o->cpus_given) {
		o->cpus = *online;
		return 0;
	}
	if (cpu_set_check_online(&o->cpus, online, &bad) < 0) {
		fprintf(stderr, PROG ": -c: CPU %d is not online\n", bad);
		return -1;
	}
	return 0;
}

/* The main thread's wait: until -t is up or a stop signal. */
static void wait_end(uint64_t end_ns)
{
	while (!helper_stop_sig) {
		uint64_t now = mono_ns(), until = end_ns ? end_ns : now + NSEC_PER_SEC;

		if (end_ns && now >= end_ns)
			break;
		if (until > now + NSEC_PER_SEC)
			until = now + NSEC_PER_SEC;
		sleep_until(until, &helper_stop_sig);
	}
}

static uint64_t end_of(const struct opts *o, uint64_t start)
{
	return o->duration_s > 0 ? start + (uint64_t)(o->duration_s * 1e9) : 0;
}

/* The sleep and kick loops' wait: *next moves on by a period and the
 * thread sleeps to it (again after a signal that was not a stop). False,
 * without waking for it, when told to stop or when that deadline would
 * pass end (0: none). */
static bool sleep_to_next(uint64_t *next, uint64_t period_ns, uint64_t end)
{
	if (helper_stop_sig || (end && *next + period_ns > end))
		return false;
	*next += period_ns;
	return sleep_until(*next, &helper_stop_sig) == 0;
}

/* Threads never take the stop signals: the main thread does. */
static void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static FILE *open_out(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (!f)
		fprintf(stderr, PROG ": cannot open '%s': %s\n", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	int bad = fflush(f) == EOF || ferror(f);

	if (f != stdout)
		bad |= fclose(f) == EOF;
	if (bad) {
		fprintf(stderr, PROG ": cannot write '%s': %s\n", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static void report_head(struct kvfile *kv, const struct opts *o, uint64_t start, uint64_t end,
			uint64_t cpu_ns)
{
	double wall = (double)(end - start) / 1e9;

	kvfile_addf(kv, "format", "%d", WAKER_REPORT_FORMAT);
	kvfile_add(kv, "mode", waker_mode_name(o->mode));
	kvfile_addf(kv, "period_ns", "%" PRIu64, o->period_ns);
	/* the niceness it has, not the one asked for: setting it may fail */
	errno = 0;
	{
		int nice = getpriority(PRIO_PROCESS, 0);

		if (errno == 0)
			kvfile_addf(kv, "nice", "%d", nice);
	}
	kvfile_add(kv, "command", o->cmdline);
	kvfile_addf(kv, "wall_s", "%.3f", wall);
	kvfile_addf(kv, "self.cpu_ms", "%.3f", (double)cpu_ns / 1e6);
	kvfile_addf(kv, "self.cpu_ms_per_s", "%.4f", wall > 0 ? (double)cpu_ns / 1e6 / wall : 0);
}

static int write_report(const struct kvfile *kv, const char *path)
{
	char *text = kvfile_format(kv);
	FILE *f = open_out(path);
	int r = -1;

	if (f) {
		fputs(text, f);
		r = close_out(f, path);
	}
	free(text);
	return r;
}

/* ---- sleep ---- */

static int run_sleep(struct opts *o)
{
	uint64_t start, next, end, wakeups = 0, cpu0;
	struct kvfile kv;
	struct strbuf cpus = STRBUF_INIT;
	int r;

	if (o->cpus_given) {
		cpu_set_t online;

		if (target_cpus(o, &online) < 0)
			return HB_EXIT_USAGE;
		if (sched_setaffinity(0, sizeof(o->cpus), &o->cpus) < 0) {
			fprintf(stderr, PROG ": cannot pin to -c: %s\n", strerror(errno));
			return HB_EXIT_FAILURE;
		}
	}
	helper_ready(o->ready);
	cpu0 = self_cpu_ns();
	start = mono_ns();
	end = end_of(o, start);
	next = start;
	while (sleep_to_next(&next, o->period_ns, end))
		wakeups++;
	kvfile_init(&kv);
	report_head(&kv, o, start, mono_ns(), self_cpu_ns() - cpu0);
	if (o->cpus_given)
		cpu_set_format(&o->cpus, &cpus);
	kvfile_add(&kv, "cpus", o->cpus_given ? cpus.buf : "any");
	kvfile_addf(&kv, "wakeups", "%" PRIu64, wakeups);
	r = write_report(&kv, o->out);
	kvfile_release(&kv);
	strbuf_release(&cpus);
	return r < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

/* ---- kick ---- */

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

static int start_thread(pthread_t *t, int cpu, int fifo_prio, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t one;
	int r;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	if (fifo_prio > 0) {
		struct sched_param sp = { .sched_priority = fifo_prio };

		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
	}
	r = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return -r;
}

static int run_kick(struct opts *o)
{
	struct kick_sleeper *sl, *home = NULL;
	struct kick_plan plan;
	pthread_t *th;
	atomic_bool stop = false;
	cpu_set_t online, me;
	uint64_t start, end, next, cpu0, sent = 0, one = 1, *sent_to;
	size_t n, i = 0, started = 0;
	struct kvfile kv;
	struct strbuf list = STRBUF_INIT;
	sigset_t old;
	int ret = HB_EXIT_FAILURE;

	if (target_cpus(o, &online) < 0)
		return HB_EXIT_USAGE;
	kick_plan_make(&o->cpus, &online, &plan);
	n = (size_t)CPU_COUNT(&o->cpus);
	sl = zalloc(n * sizeof(*sl));
	th = zalloc(n * sizeof(*th));
	sent_to = zalloc(n * sizeof(*sent_to));
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &o->cpus))
			continue;
		sl[i].cpu = c;
		sl[i].stop = &stop;
		sl[i].efd = eventfd(0, EFD_CLOEXEC);
		if (sl[i].efd < 0) {
			fprintf(stderr, PROG ": eventfd: %s\n", strerror(errno));
			goto out;
		}
		if (c == plan.kicker_cpu)
			home = &sl[i];
		i++;
	}
	for (i = 0; i < n && plan.relay_cpu >= 0; i++)
		if (sl[i].cpu == plan.relay_cpu)
			sl[i].relay_to = home;
	CPU_ZERO(&me);
	CPU_SET(plan.kicker_cpu, &me);
	if (sched_setaffinity(0, sizeof(me), &me) < 0) {
		fprintf(stderr, PROG ": cannot pin the kicker to CPU %d: %s\n", plan.kicker_cpu,
			strerror(errno));
		goto out;
	}
	block_signals(&old);
	for (started = 0; started < n; started++) {
		int r = start_thread(&th[started], sl[started].cpu, 0, kick_sleeper_main, &sl[started]);

		if (r < 0) {
			fprintf(stderr, PROG ": cannot start the sleeper on CPU %d: %s\n", sl[started].cpu,
				strerror(-r));
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started == n) {
		helper_ready(o->ready);
		cpu0 = self_cpu_ns();
		start = mono_ns();
		end = end_of(o, start);
		next = start;
		while (sleep_to_next(&next, o->period_ns, end)) {
			for (i = 0; i < n; i++) {
				/* the home sleeper is the relay's to wake, unless there is none */
				if (&sl[i] == home && !plan.same_cpu)
					continue;
				if (write(sl[i].efd, &one, sizeof(one)) == (ssize_t)sizeof(one)) {
					sent_to[i]++;
					sent++;
				}
			}
		}
		end = mono_ns();
		atomic_store(&stop, true);
		for (i = 0; i < n; i++)
			if (write(sl[i].efd, &one, sizeof(one)) < 0)
				fprintf(stderr, PROG ": cannot stop the sleeper on CPU %d: %s\n", sl[i].cpu,
					strerror(errno));
		for (i = 0; i < started; i++)
			pthread_join(th[i], NULL);
		started = 0;
		kvfile_init(&kv);
		report_head(&kv, o, start, end, self_cpu_ns() - cpu0);
		cpu_set_format(&o->cpus, &list);
		kvfile_add(&kv, "cpus", list.buf);
		kvfile_addf(&kv, "kicker_cpu", "%d", plan.kicker_cpu);
		kvfile_addf(&kv, "relay_cpu", "%d", plan.relay_cpu);
		kvfile_add(&kv, "cross_cpu", plan.same_cpu ? "no (a single CPU: the kicker wakes its own)"
			   : "yes");
		/* the home CPU's wakeups were the relay's to send */
		for (i = 0; i < n; i++)
			if (home && &sl[i] == home && plan.relay_cpu >= 0)
				for (size_t k = 0; k < n; k++)
					if (sl[k].relay_to == home) {
						sent_to[i] = sl[k].sent;
						sent += sl[k].sent;
					}
		kvfile_addf(&kv, "wakeups", "%" PRIu64, sent);
		for (i = 0; i < n; i++) {
			char key[64];

			snprintf(key, sizeof(key), "cpu%d.sent", sl[i].cpu);
			kvfile_addf(&kv, key, "%" PRIu64, sent_to[i]);
			snprintf(key, sizeof(key), "cpu%d.received", sl[i].cpu);
			kvfile_addf(&kv, key, "%" PRIu64, sl[i].received);
			snprintf(key, sizeof(key), "cpu%d.kicks", sl[i].cpu);
			kvfile_addf(&kv, key, "%" PRIu64, sl[i].kicks);
			if (sl[i].err) {
				snprintf(key, sizeof(key), "cpu%d.error", sl[i].cpu);
				kvfile_add(&kv, key, strerror(sl[i].err));
			}
		}
		ret = write_report(&kv, o->out) < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
		kvfile_release(&kv);
	}
out:
	if (started) {
		atomic_store(&stop, true);
		for (i = 0; i < started; i++) {
			if (write(sl[i].efd, &one, sizeof(one)) < 0)
				continue;
			pthread_join(th[i], NULL);
		}
	}
	for (i = 0; i < n; i++)
		if (sl[i].efd > 0)
			close(sl[i].efd);
	strbuf_release(&list);
	free(sl);
	free(th);
	free(sent_to);
	return ret;
}

/* ---- probe ---- */

struct probe_thread {
	struct probe_cpu *c;
	uint64_t period_ns, threshold_ns, start_ns;
	atomic_bool *stop;
};

/* Set by the SIGUSR2 that wakes the probe threads when the probe stops. */
static volatile sig_atomic_t probe_woken;

/* The measuring loop: nothing allocated, logged or written in it. */
static void *probe_main(void *arg)
{
	struct probe_thread *p = arg;
	struct probe_cpu *c = p->c;
	uint64_t next = p->start_ns;

	while (!atomic_load_explicit(p->stop, memory_order_relaxed)) {
		uint64_t now, late;

		next += p->period_ns;
		/* woken to stop: the stop flag says so above */
		if (sleep_until(next, &probe_woken) != 0) {
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

/* SIGUSR2 ends a probe thread's sleep at once when the probe stops (a
 * long period would outlast the runner's grace before SIGKILL). */
static void on_wake(int sig)
{
	(void)sig;
	probe_woken = 1;
}

static void install_wake(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake;   /* no SA_RESTART: the sleep returns EINTR */
	sigaction(SIGUSR2, &sa, NULL);
}

/* Joins a probe thread, waking it until it ends (SIGUSR2 again every 50
 * ms, should the thread not have taken the first). */
static void join_waking(pthread_t th)
{
	for (;;) {
		struct timespec ts;

		pthread_kill(th, SIGUSR2);
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

static int run_probe(struct opts *o)
{
	struct probe_result res;
	struct probe_thread *pt;
	pthread_t *th;
	atomic_bool stop = false;
	cpu_set_t online;
	size_t n, started;
	uint64_t cpu0;
	int dma_fd = -1, ret = HB_EXIT_FAILURE;
	FILE *out;
	sigset_t old;

	if (target_cpus(o, &online) < 0)
		return HB_EXIT_USAGE;
	/* opened first: a bad path fails now, not after the run */
	out = open_out(o->out);
	if (!out)
		return HB_EXIT_FAILURE;
	if (o->dma_latency) {
		int32_t zero = 0;

		dma_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
		if (dma_fd < 0 || write(dma_fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
			fprintf(stderr, PROG ": --dma-latency: /dev/cpu_dma_latency: %s\n", strerror(errno));
			goto out_file;
		}
	}
	probe_result_init(&res, &o->cpus, PROBE_LATE_CAP);
	res.period_ns = o->period_ns;
	res.threshold_ns = o->threshold_ns;
	res.fifo_prio = o->fifo_prio;
	res.dma_latency = o->dma_latency;
	n = res.n_cpus;
	pt = zalloc(n * sizeof(*pt));
	th = zalloc(n * sizeof(*th));
	/* the histograms and lists are touched once so that locking them
	 * leaves no page to fault in inside the loop */
	for (size_t i = 0; i < n; i++) {
		memset(res.cpus[i].hist.bins, 0, LAT_BINS * sizeof(*res.cpus[i].hist.bins));
		memset(res.cpus[i].late, 0, res.cpus[i].cap_late * sizeof(*res.cpus[i].late));
	}
#ifdef __SANITIZE_ADDRESS__
	/* AddressSanitizer's shadow is terabytes of address space: never locked */
	fprintf(stderr, PROG ": warning: an AddressSanitizer build: memory not locked\n");
#else
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		fprintf(stderr, PROG ": warning: mlockall: %s (page faults may add to the lateness)\n",
			strerror(errno));
#endif
	res.mono0_ns = mono_ns();
	res.real0_ns = real_ns();
	/* a common start a little ahead, so every thread's deadlines line up */
	res.start_ns = res.mono0_ns + 20 * NSEC_PER_MSEC;
	install_wake();
	block_signals(&old);
	for (started = 0; started < n; started++) {
		int r;

		pt[started].c = &res.cpus[started];
		pt[started].period_ns = o->period_ns;
		pt[started].threshold_ns = o->threshold_ns;
		pt[started].start_ns = res.start_ns;
		pt[started].stop = &stop;
		r = start_thread(&th[started], res.cpus[started].cpu, o->fifo_prio, probe_main, &pt[started]);
		if (r < 0) {
			fprintf(stderr, PROG ": cannot start the probe on CPU %d%s: %s\n", res.cpus[started].cpu,
				o->fifo_prio ? " at SCHED_FIFO" : "", strerror(-r));
			if (r == -EPERM && o->fifo_prio)
				fprintf(stderr, PROG ": SCHED_FIFO needs root (or --fifo-prio 0)\n");
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	cpu0 = self_cpu_ns();
	if (started == n) {
		helper_ready(o->ready);
		wait_end(end_of(o, res.start_ns));
	}
	atomic_store(&stop, true);
	for (size_t i = 0; i < started; i++)
		join_waking(th[i]);
	res.end_ns = mono_ns();
	res.self_cpu_ns = self_cpu_ns() - cpu0;
	if (started == n) {
		int r = probe_result_write(&res, out);

		ret = HB_EXIT_OK;
		if (r < 0) {
			fprintf(stderr, PROG ": cannot write '%s': %s\n", o->out, strerror(-r));
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

int main(int argc, char **argv)
{
	struct opts o;
	struct strbuf cmd = STRBUF_INIT;
	int r;

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return r > 0 ? HB_EXIT_OK : HB_EXIT_USAGE;
	for (int i = 0; i < argc; i++)
		strbuf_addf(&cmd, "%s%s", i ? " " : "", argv[i]);
	o.cmdline = cmd.buf;
	helper_signals_install();
	if (o.mode != WAKER_PROBE && setpriority(PRIO_PROCESS, 0, o.nice) < 0)
		fprintf(stderr, PROG ": warning: cannot set nice %d: %s\n", o.nice, strerror(errno));
	switch (o.mode) {
	case WAKER_SLEEP: r = run_sleep(&o); break;
	case WAKER_KICK: r = run_kick(&o); break;
	default: r = run_probe(&o); break;
	}
	strbuf_release(&cmd);
	return r;
}
