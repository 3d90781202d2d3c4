/*
 * What every mode of hitchbench-waker shares (waker-internal.h): the CPUs
 * it may use, its waits on absolute deadlines, its threads, its report;
 * and the sleep mode, which is nothing more than those.
 */
#include "base/message.h"
#include "waker-internal.h"
#include "system/cpulist.h"
#include "base/exitcodes.h"
#include "system/fsroot.h"
#include "system/helperproc.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int online_cpus(cpu_set_t *set)
{
	char buf[256];
	int r = fsroot_read_line("sys/devices/system/cpu/online", buf, sizeof(buf));

	if (r < 0)
		return r;
	return cpu_list_parse(buf, set);
}

/* The CPUs to wake or probe: -c, checked against those online, or every
 * online one. 0 or -1 (said why). */
int target_cpus(struct opts *o, cpu_set_t *online)
{
	int bad, r = online_cpus(online);

	if (r < 0) {
		error_msg("cannot read %s/sys/devices/system/cpu/online: %s", fsroot(),
			strerror(-r));
		return -1;
	}
	if (!o->cpus_given) {
		o->cpus = *online;
		return 0;
	}
	if (cpu_set_check_online(&o->cpus, online, &bad) < 0) {
		error_msg("-c: CPU %d is not online", bad);
		return -1;
	}
	return 0;
}

/* The main thread's wait: until -t is up or a stop signal. */
void wait_end(uint64_t end_ns)
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

uint64_t end_of(const struct opts *o, uint64_t start)
{
	return o->duration_s > 0 ? start + (uint64_t)(o->duration_s * 1e9) : 0;
}

/* The sleep and kick loops' wait: *next moves on by a period and the
 * thread sleeps to it (again after a signal that was not a stop). False,
 * without waking for it, when told to stop or when that deadline would
 * pass end (0: none). */
bool sleep_to_next(uint64_t *next, uint64_t period_ns, uint64_t end)
{
	/* a flip run's side without the waker: no wakeups until resumed */
	if (helper_paused()) {
		while (helper_paused() && !helper_stop_sig)
			helper_wait_resumed(0);
		*next = mono_ns();
	}
	if (helper_stop_sig || (end && *next + period_ns > end))
		return false;
	*next += period_ns;
	return sleep_until(*next, &helper_stop_sig) == 0;
}

/* Threads never take the stop or pause signals: the main thread does. */
void block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

FILE *open_out(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (!f)
		error_msg("cannot open '%s': %s", path, strerror(errno));
	return f;
}

int close_out(FILE *f, const char *path)
{
	int bad = fflush(f) == EOF || ferror(f);

	if (f != stdout)
		bad |= fclose(f) == EOF;
	if (bad) {
		error_msg("cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

void report_head(struct kvfile *kv, const struct opts *o, uint64_t start, uint64_t end,
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
	{
		uint64_t pauses, paused_ns;

		helper_pause_stats(&pauses, &paused_ns);
		kvfile_addf(kv, "pauses", "%" PRIu64, pauses);
		kvfile_addf(kv, "paused_ms", "%.3f", (double)paused_ns / 1e6);
	}
}

int write_report(const struct kvfile *kv, const char *path)
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

int start_thread(pthread_t *t, int cpu, int fifo_prio, void *(*fn)(void *), void *arg)
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

/* ---- sleep ---- */

int run_sleep(struct opts *o)
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
			error_msg("cannot pin to -c: %s", strerror(errno));
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
