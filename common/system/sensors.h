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
/* Index of the channel with this column name, or -1 (for the tests). */
int sensors_find(const struct sensors *s, const char *name);

#endif
