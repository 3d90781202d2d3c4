/*
 * sleeper: what a thread that does nothing but sleep to absolute deadlines
 * pays per wakeup, in its own CPU time: the floor under any observer that
 * samples on a period (the stall recorder's wakeups included). Given a
 * file, it also reads it once per wakeup (pread, as the recorder does) and
 * says what that read cost there, cold, against the same read repeated
 * back to back, hot.
 *
 *   sleeper [PERIOD_MS [WAKEUPS [FILE]]]      (10 ms, 500 wakeups)
 *
 * Prints "us_per_wakeup=X", and with FILE "us_per_read_cold=Y" and
 * "us_per_read_hot=Z" (thread CPU time).
 */
#include "base/exitcodes.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	int period_ms = 10, wakeups = 500, fd = -1;
	uint64_t next, cpu0, read_ns = 0, t;

	if ((argc > 1 && (safe_atoi(argv[1], &period_ms) < 0 || period_ms < 1)) ||
	    (argc > 2 && (safe_atoi(argv[2], &wakeups) < 0 || wakeups < 1)) || argc > 4) {
		fprintf(stderr, "usage: sleeper [PERIOD_MS [WAKEUPS [FILE]]]\n");
		return HB_EXIT_USAGE;
	}
	if (argc > 3 && (fd = open(argv[3], O_RDONLY | O_CLOEXEC)) < 0) {
		perror(argv[3]);
		return HB_EXIT_FAILURE;
	}
	cpu0 = thread_cpu_ns();
	next = mono_ns();
	for (int i = 0; i < wakeups; i++) {
		next += (uint64_t)period_ms * NSEC_PER_MSEC;
		sleep_until(next, NULL);
		if (fd >= 0) {
			t = thread_cpu_ns();
			if (pread(fd, buf, sizeof(buf), 0) < 0)
				return HB_EXIT_FAILURE;
			read_ns += thread_cpu_ns() - t;
		}
	}
	t = thread_cpu_ns() - cpu0;
	printf("us_per_wakeup=%.1f\n", (double)(t - read_ns) / 1e3 / wakeups);
	if (fd >= 0) {
		printf("us_per_read_cold=%.1f\n", (double)read_ns / 1e3 / wakeups);
		t = thread_cpu_ns();
		for (int i = 0; i < wakeups; i++)
			if (pread(fd, buf, sizeof(buf), 0) < 0)
				return HB_EXIT_FAILURE;
		printf("us_per_read_hot=%.1f\n", (double)(thread_cpu_ns() - t) / 1e3 / wakeups);
	}
	return 0;
}
