/*
 * fifohog: a known delay for the probe's test (t1300). It pins itself to
 * one CPU, takes SCHED_FIFO at a priority above the probe's, and spins
 * for a given time, so that nothing of lower priority runs on that CPU
 * meanwhile: a probe sleeper there wakes that much late.
 *
 *   fifohog CPU PRIO MS
 *
 * Prints "start_ns=N" and "end_ns=N" (CLOCK_MONOTONIC) of the spin. Exits
 * 77 when it may not take SCHED_FIFO (not root), 2 on bad arguments.
 */
#include "base/exitcodes.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct sched_param sp;
	cpu_set_t one;
	int cpu, prio, ms;
	uint64_t start, end;

	if (argc != 4 || safe_atoi(argv[1], &cpu) < 0 || safe_atoi(argv[2], &prio) < 0 ||
	    safe_atoi(argv[3], &ms) < 0 || cpu < 0 || cpu >= CPU_SETSIZE || prio < 1 || prio > 99 ||
	    ms < 1 || ms > 900) {
		fprintf(stderr, "usage: fifohog CPU PRIO(1..99) MS(1..900)\n");
		return HB_EXIT_USAGE;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0) {
		fprintf(stderr, "fifohog: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return HB_EXIT_USAGE;
	}
	sp.sched_priority = prio;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		fprintf(stderr, "fifohog: cannot take SCHED_FIFO %d: %s\n", prio, strerror(errno));
		return HB_EXIT_SKIP;
	}
	start = mono_ns();
	end = start + (uint64_t)ms * NSEC_PER_MSEC;
	while (mono_ns() < end)
		;
	end = mono_ns();
	printf("start_ns=%" PRIu64 "\nend_ns=%" PRIu64 "\n", start, end);
	return HB_EXIT_OK;
}
