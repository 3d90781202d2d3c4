/*
 * The sensor sampler's file, sensors.tsv.zst (docs/formats.md, "Sensor
 * samples, format 1"): tab-separated text inside a zstd stream, written as
 * the samples come so that a run of hours never holds them in memory. Rows
 * are formatted into a buffer allocated at open; libzstd compresses it when
 * it fills up or when the caller flushes, so a row costs no allocation.
 */
#ifndef HB_SENSORLOG_H
#define HB_SENSORLOG_H

#include "system/sensors.h"

#include <stddef.h>
#include <stdint.h>

#define SENSOR_LOG_VERSION 1

struct sensor_log {
	int fd;
	void *cctx;     /* ZSTD_CCtx */
	char *in;       /* text not yet compressed */
	size_t in_len, in_cap, row_max;
	void *out;      /* compressed bytes on their way to fd */
	size_t out_cap;
	size_t ncol;
};

/* The sampler's cost, measured by the sampler (thread CPU time). */
struct sensor_self {
	uint64_t samples;
	uint64_t cpu_ns_total;
	uint64_t cpu_ns_max;
};

/* Creates path (truncating it) and writes the header: the columns ch[0..n-1]
 * sampled every period_ns under root. 0 or -errno; nothing to release on
 * failure. */
int sensor_log_open(struct sensor_log *l, const char *path, const struct sensor_channel *ch,
		    size_t n, uint64_t period_ns, const char *root);
/* One row: t_ns (CLOCK_MONOTONIC) and values[0..n-1], NaN written as '-'.
 * 0 or -errno (a write or compression error). */
int sensor_log_row(struct sensor_log *l, uint64_t t_ns, const double *values);
/* Compresses and writes everything so far, so a reader sees it. 0 or -errno. */
int sensor_log_flush(struct sensor_log *l);
/* Writes the "# self" trailer, ends the zstd frame, syncs and closes; l is
 * released whatever happens. 0 or -errno. */
int sensor_log_close(struct sensor_log *l, const struct sensor_self *self);
/* The trailer line, "# self samples=N cpu_us_total=X us_per_sample=Y
 * max_us=Z" (no newline), as the file and the sampler's stderr carry it. */
void sensor_self_format(const struct sensor_self *self, char *buf, size_t size);
/* Closes without a trailer (error paths); safe on a released log. */
void sensor_log_release(struct sensor_log *l);

#endif
