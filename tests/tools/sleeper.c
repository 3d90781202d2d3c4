/*
 * sleeper: what a thread that does nothing but sleep to absolute deadlines
 * pays per wakeup, in its own CPU time: the floor under any observer that
 * samples on a period (the stall recorder's wakeups included).
 *
 *   sleeper [PERIOD_MS [WAKEUPS]]      (10 ms, 500 wakeups)
 *
 * Prints "us_per_wakeup=X" (its thread CPU time over the wakeups).
 */
#include "exitcodes.h"
#include "timeutil.h"
#include "util.h"

#include <stdio.h>
#include <time.h>

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int period_ms = 10, wakeups = 500;
	uint64_t next, cpu0;

	if ((argc > 1 && (safe_atoi(argv[1], &period_ms) < 0 || period_ms < 1)) ||
	    (argc > 2 && (safe_atoi(argv[2], &wakeups) < 0 || wakeups < 1)) || argc > 3) {
		fprintf(stderr, "usage: sleeper [PERIOD_MS [WAKEUPS]]\n");
		return HB_EXIT_USAGE;
	}
	cpu0 = thread_cpu_ns();
	next = mono_ns();
	for (int i = 0; i < wakeups; i++) {
		struct timespec ts;

		next += (uint64_t)period_ms * NSEC_PER_MSEC;
		ts.tv_sec = (time_t)(next / NSEC_PER_SEC);
		ts.tv_nsec = (long)(next % NSEC_PER_SEC);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	printf("us_per_wakeup=%.1f\n", (double)(thread_cpu_ns() - cpu0) / 1e3 / wakeups);
	return 0;
}
