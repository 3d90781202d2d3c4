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
 *              writes every period (common/system/wakeplan.h, kick_plan_make)
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
 *
 * This file holds the options and main; the modes are waker-run.c (sleep),
 * waker-kick.c and waker-probe.c.
 */
#include "base/message.h"
#include "waker-internal.h"
#include "system/cpulist.h"
#include "base/exitcodes.h"
#include "system/helperproc.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

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
	error_msg("%s: want %s, not '%s'", opt, want, arg);
	return HB_EXIT_USAGE;
}

/* One option into o (period and mode_given: what the checks after the
 * loop need). The parser contract (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
static int parse_one(int opt, struct opts *o, const char **period, bool *mode_given)
{
	int v;

	switch (opt) {
	case 'm':
		if (waker_mode_parse(optarg, &o->mode) < 0)
			return bad_value("-m", optarg, "sleep, kick or probe");
		*mode_given = true;
		return 0;
	case 'i': *period = optarg; return 0;
	case 't':
		if (safe_atod(optarg, &o->duration_s) < 0 || !(o->duration_s >= 0) || o->duration_s > 1e7)
			return bad_value("-t", optarg, "seconds, 0 or more (0: until SIGTERM)");
		return 0;
	case 'c':
		if (cpu_list_parse(optarg, &o->cpus) < 0)
			return bad_value("-c", optarg, "a CPU list such as 0, 1-3 or 0,2");
		o->cpus_given = true;
		return 0;
	case 'o': o->out = optarg; return 0;
	case 'n': return opt_int_range("--nice", optarg, -20, 19, &o->nice);
	case 'T':
		if (opt_int_range("--threshold-us", optarg, 1, 1 << 30, &v) != HB_EXIT_OK)
			return HB_EXIT_USAGE;
		o->threshold_ns = (uint64_t)v * 1000;
		return 0;
	case 'P': return opt_int_range("--fifo-prio", optarg, 0, 99, &o->fifo_prio);
	case 'D': o->dma_latency = true; return 0;
	case 'r': o->ready = optarg; return 0;
	case 'h': usage(stdout); return HB_ARGS_DONE;
	default: usage(stderr); return HB_EXIT_USAGE;
	}
}

/* Parses argv into o. The parser contract (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
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
	int opt, r;

	memset(o, 0, sizeof(*o));
	o->out = "-";
	o->nice = -10;
	o->fifo_prio = DEFAULT_FIFO_PRIO;
	o->threshold_ns = DEFAULT_THRESHOLD_US * 1000ULL;
	while ((opt = getopt_long(argc, argv, "m:i:t:c:o:h", longopts, NULL)) != -1)
		if ((r = parse_one(opt, o, &period, &mode_given)) != 0)
			return r;
	if (optind != argc) {
		error_msg("unexpected argument '%s'", argv[optind]);
		return HB_EXIT_USAGE;
	}
	if (!mode_given) {
		error_msg("-m sleep|kick|probe is required");
		return HB_EXIT_USAGE;
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
		error_msg("--dma-latency is for -m probe only");
		return HB_EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct strbuf cmd = STRBUF_INIT;
	int r;

	msg_program(PROG);

	r = parse_opts(argc, argv, &o);
	if (r != 0)
		return hb_args_exit(r);
	for (int i = 0; i < argc; i++)
		strbuf_addf(&cmd, "%s%s", i ? " " : "", argv[i]);
	o.cmdline = cmd.buf;
	helper_signals_install();
	if (o.mode != WAKER_PROBE && setpriority(PRIO_PROCESS, 0, o.nice) < 0)
		warn_msg("cannot set nice %d: %s", o.nice, strerror(errno));
	switch (o.mode) {
	case WAKER_SLEEP: r = run_sleep(&o); break;
	case WAKER_KICK: r = run_kick(&o); break;
	default: r = run_probe(&o); break;
	}
	strbuf_release(&cmd);
	return r;
}
