/*
 * tstamp: each line of stdin to stdout, after the CLOCK_REALTIME nanoseconds
 * at which it was read and a blank. The tests run their own sshd with its
 * log on stderr, which carries no time of its own; through this, a test
 * can say which logins fell inside a run's measured window (bench.txt's
 * clock pair puts the window on the same clock).
 *
 *   sshd -D -e ... 2>&1 | tstamp >sshd.log
 *
 * Each line is written and flushed as it comes, so a reader sees it at once.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(void)
{
	char line[4096];
	int at_start = 1;

	while (fgets(line, sizeof(line), stdin)) {
		if (at_start) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			printf("%lld ", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
		}
		fputs(line, stdout);
		at_start = strchr(line, '\n') != NULL;
		fflush(stdout);
	}
	return ferror(stdout) ? 1 : 0;
}
