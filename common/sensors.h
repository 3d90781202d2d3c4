/*
 * The machine's sensors, read beside a run (issue 3): temperatures (thermal
 * zones and hwmon chips), fans, CPU frequency per core, throttle counters,
 * CPU busy/iowait, memory, swap and pressure stall (PSI). Everything is read
 * under the swappable root (fsroot.h).
 *
 * Discovery (sensors_open) finds the channels and opens every file once; a
 * sample (sensors_sample) re-reads each with pread into one preallocated
 * buffer and allocates nothing, like cyclictest's hot path. A value that
 * cannot be read or parsed is NaN. A machine without any sensor has zero
 * channels, which is not an error.
 *
 * Column names (docs/formats.md, "Sensor samples") are stable across boots
 * and safe in file names and gnuplot: lowercase [a-z0-9_-] parts joined by
 * dots, e.g. temp.coretemp0.core_0, temp.zone0.cpu-thermal, freq.cpu0_mhz.
 */
#ifndef HB_SENSORS_H
#define HB_SENSORS_H

#include <stddef.h>
#include <stdint.h>

enum sensor_kind {
	SENSOR_TEMP,     /* °C */
	SENSOR_FAN,      /* rpm */
	SENSOR_FREQ,     /* MHz */
	SENSOR_THROTTLE, /* events counted by the kernel since boot */
	SENSOR_CPU,      /* % of the interval */
	SENSOR_MEM,      /* MiB */
	SENSOR_PSI,      /* % of the interval some task stalled */
};

#define SENSOR_NAME_MAX 96
#define SENSOR_PATH_MAX 224

struct sensor_channel {
	char name[SENSOR_NAME_MAX];   /* the column name */
	const char *unit;             /* "C", "rpm", "MHz", "count", "%", "MiB" */
	enum sensor_kind kind;
	char source[SENSOR_PATH_MAX]; /* the file it is read from, relative to the root */
	int src;                      /* private: its open file in struct sensors */
	int field;                    /* private: which value of that file */
};

struct sensor_source; /* private: one open file and what the last sample read */

struct sensors {
	struct sensor_channel *ch;
	size_t n, alloc;
	struct sensor_source *src;
	size_t nsrc, src_alloc;
	uint64_t t_ns;      /* CLOCK_MONOTONIC of the last sample, 0 before the first */
	uint64_t prev_t_ns; /* of the one before */
	char buf[16384];    /* what pread reads into */
};

/* Finds every channel under the root and opens its file. 0 (also with no
 * channel at all) or -errno; unreadable or odd files are left out, never an
 * error. Release with sensors_release whatever it returned. */
int sensors_open(struct sensors *s);
/* Reads every channel into values[0 .. s->n - 1] (NaN where unreadable;
 * rates over the interval are NaN on the first sample). Allocates nothing.
 * 0, or -errno only if the clock failed. */
int sensors_sample(struct sensors *s, double *values);
void sensors_release(struct sensors *s);
/* Index of the channel with this column name, or -1. */
int sensors_find(const struct sensors *s, const char *name);
/* "temp", "fan", ... for a kind. */
const char *sensor_kind_name(enum sensor_kind kind);

/* The pure parse layer: from a buffer to numbers, 0 or -EINVAL (-ENOENT
 * where a wanted line is missing). Outputs are written only on success. */

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
