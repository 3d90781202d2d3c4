/*
 * Writing sensors.tsv.zst (sensorlog.h) with libzstd's streaming API.
 */
#include "formats/sensorlog.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

/* Feeds the pending text to zstd and writes what comes out; mode says
 * whether zstd may keep some back (continue), or must emit it all (flush,
 * end). */
static int compress_pending(struct sensor_log *l, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { l->in, l->in_len, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { l->out, l->out_cap, 0 };
		int r;

		left = ZSTD_compressStream2(l->cctx, &out, &in, mode);
		if (ZSTD_isError(left))
			return -EIO;
		r = write_all(l->fd, l->out, out.pos);
		if (r < 0)
			return r;
	} while (mode == ZSTD_e_continue ? in.pos < in.size : left != 0);
	l->in_len = 0;
	return 0;
}

static void add_text(struct sensor_log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_text(struct sensor_log *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->in + l->in_len, l->in_cap - l->in_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->in_len += (size_t)n < l->in_cap - l->in_len ? (size_t)n : l->in_cap - l->in_len - 1;
}

void sensor_log_release(struct sensor_log *l)
{
	if (l->fd >= 0)
		close(l->fd);
	ZSTD_freeCCtx(l->cctx);
	free(l->in);
	free(l->out);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}

int sensor_log_open(struct sensor_log *l, const char *path, const struct sensor_channel *ch,
		    size_t n, uint64_t period_ns, const char *root)
{
	int r;

	memset(l, 0, sizeof(*l));
	l->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (l->fd < 0) {
		r = -errno;
		l->fd = -1;
		return r;
	}
	l->ncol = n;
	/* a row: t_ns and a value per column, each at most 24 characters */
	l->row_max = 32 + 32 * n;
	/* the header fits at once too: each column is declared on a line */
	l->in_cap = 4 * l->row_max + n * (SENSOR_NAME_MAX + SENSOR_PATH_MAX + 32) + 4096;
	if (l->in_cap < 65536)
		l->in_cap = 65536;
	l->in = zalloc(l->in_cap);
	l->out_cap = ZSTD_CStreamOutSize();
	l->out = zalloc(l->out_cap);
	l->cctx = ZSTD_createCCtx();
	if (!l->cctx)
		abort();

	add_text(l, "# hitchbench sensors %d\n", SENSOR_LOG_VERSION);
	add_text(l, "# clock_pair %llu %llu\n", (unsigned long long)mono_ns(),
		 (unsigned long long)real_ns());
	add_text(l, "# period_ms %.3f\n", (double)period_ns / NSEC_PER_MSEC);
	add_text(l, "# root %s\n", root);
	for (size_t i = 0; i < n; i++)
		add_text(l, "# column %s %s %s\n", ch[i].name, ch[i].unit, ch[i].source);
	add_text(l, "t_ns");
	for (size_t i = 0; i < n; i++)
		add_text(l, "\t%s", ch[i].name);
	add_text(l, "\n");
	r = sensor_log_flush(l);
	if (r < 0)
		sensor_log_release(l);
	return r;
}

int sensor_log_row(struct sensor_log *l, uint64_t t_ns, const double *values)
{
	if (l->in_len + l->row_max >= l->in_cap) {
		int r = compress_pending(l, ZSTD_e_continue);

		if (r < 0)
			return r;
	}
	add_text(l, "%llu", (unsigned long long)t_ns);
	for (size_t i = 0; i < l->ncol; i++) {
		if (isfinite(values[i]))
			add_text(l, "\t%.7g", values[i]);
		else
			add_text(l, "\t-");
	}
	add_text(l, "\n");
	return 0;
}

int sensor_log_flush(struct sensor_log *l)
{
	return compress_pending(l, ZSTD_e_flush);
}

void sensor_self_format(const struct sensor_self *self, char *buf, size_t size)
{
	double total_us = (double)self->cpu_ns_total / 1000.0;

	snprintf(buf, size, "# self samples=%llu cpu_us_total=%.1f us_per_sample=%.2f max_us=%.1f",
		 (unsigned long long)self->samples, total_us,
		 self->samples ? total_us / (double)self->samples : 0.0,
		 (double)self->cpu_ns_max / 1000.0);
}

int sensor_log_close(struct sensor_log *l, const struct sensor_self *self)
{
	char line[160];
	int r;

	sensor_self_format(self, line, sizeof(line));
	add_text(l, "%s\n", line);
	r = compress_pending(l, ZSTD_e_end);
	if (r == 0 && fsync(l->fd) < 0 && errno != EINVAL)
		r = -errno;
	if (close(l->fd) < 0 && r == 0)
		r = -errno;
	l->fd = -1;
	sensor_log_release(l);
	return r;
}
