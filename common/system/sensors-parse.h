/*
 * The pure parse layer under the sensor sampler (sensors.h) and the quiet
 * checks' idle wait (bench/quiet/quiet-idle.c): from a buffer read out of /proc or
 * /sys to numbers, so tests and the fuzzer go from a string to a struct.
 */
#ifndef HB_SENSORS_PARSE_H
#define HB_SENSORS_PARSE_H

#include <stdint.h>

/* Each returns 0 or -EINVAL (-ENOENT where a wanted line is missing) and
 * writes its output only on success. */

/* A sysfs integer attribute ("55000\n", "-44000"). */
int sensor_parse_int(const char *buf, int64_t *out);

/* The aggregate "cpu" line of /proc/stat, in clock ticks. */
struct cpu_ticks {
	uint64_t total;  /* user+nice+system+idle+iowait+irq+softirq+steal */
	uint64_t idle;   /* idle + iowait */
	uint64_t iowait;
};
int sensor_parse_stat(const char *buf, struct cpu_ticks *out);

/* /proc/meminfo, kB; -1 where the line is absent (MemAvailable needs 3.14). */
struct mem_kb {
	int64_t available, swap_total, swap_free;
};
int sensor_parse_meminfo(const char *buf, struct mem_kb *out);

/* /proc/pressure/{cpu,io,memory}: total= of the "some" and "full" lines,
 * microseconds; -1 where the line is absent (cpu has no "full" before 5.13). */
struct psi_totals {
	int64_t some_us, full_us;
};
int sensor_parse_psi(const char *buf, struct psi_totals *out);

/* Makes s a column-name part in place: lowercase, runs of anything outside
 * [a-z0-9_-] become one '_', no '_' at either end. Returns s (maybe ""). */
char *sensor_name_part(char *s);

#endif
