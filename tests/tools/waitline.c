/*
 * waitline: waits until FILE holds COUNT lines matching REGEX (POSIX
 * extended), or TIMEOUT seconds pass. A test that must not disturb a run
 * it watches (the interference watcher counts every short-lived process it
 * cannot tell is the harness's) waits in this one process instead of a
 * loop of grep and sleep: it reads the file as it grows, every 20 ms,
 * without starting anything.
 *
 *   waitline FILE REGEX [COUNT [TIMEOUT_S]]     (1 match, 30 s)
 *
 * Exit 0 when found, 1 on timeout, 2 on a usage error. A missing file is
 * waited for like a missing line.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char line[65536];
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	long count = 1, seen = 0, off = 0;
	double timeout = 30, end;
	regex_t re;

	if (argc < 3 || argc > 5 || regcomp(&re, argv[2], REG_EXTENDED | REG_NOSUB) != 0 ||
	    (argc > 3 && (count = strtol(argv[3], NULL, 10)) < 1) ||
	    (argc > 4 && (timeout = strtod(argv[4], NULL)) <= 0)) {
		fprintf(stderr, "usage: waitline FILE REGEX [COUNT [TIMEOUT_S]]\n");
		return 2;
	}
	end = now_s() + timeout;
	for (;;) {
		FILE *f = fopen(argv[1], "r");

		if (f && fseek(f, off, SEEK_SET) == 0) {
			/* only whole lines count: a line being written is read again */
			while (fgets(line, sizeof(line), f) && strchr(line, '\n')) {
				off = ftell(f);
				if (regexec(&re, line, 0, NULL, 0) == 0 && ++seen >= count) {
					fclose(f);
					return 0;
				}
			}
		}
		if (f)
			fclose(f);
		if (now_s() > end)
			return 1;
		nanosleep(&tick, NULL);
	}
}
