/*
 * probe.txt, the file the probe (hitchbench-waker -m probe; the PROBE
 * switch) leaves in a run: how late each CPU's absolute-deadline wakeups
 * were (a histogram, common/formats/latency.h) and the latest of them in time
 * order. Written by the program, read by the switch, the report and the
 * tests (docs/formats.md, "Probe file").
 */
#ifndef HB_PROBEFILE_H
#define HB_PROBEFILE_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/latency.h"
#include "base/util.h"

#define PROBE_FORMAT 1

struct probe_late {
	uint64_t mono_ns;       /* CLOCK_MONOTONIC when the sleeper ran */
	uint64_t late_ns;
};

struct probe_cpu {
	int cpu;
	struct lat_hist hist;
	uint64_t missed;        /* whole periods skipped after a late wakeup */
	struct probe_late *late;/* wakeups later than the threshold, in time order */
	size_t n_late, cap_late;
	uint64_t late_dropped;  /* late wakeups beyond cap_late, counted only */
};

struct probe_result {
	uint64_t period_ns;
	uint64_t threshold_ns;
	int fifo_prio;          /* 0: SCHED_OTHER */
	bool dma_latency;
	uint64_t mono0_ns, real0_ns;     /* the clock pair, read together at the start */
	uint64_t start_ns, end_ns;       /* CLOCK_MONOTONIC */
	uint64_t self_cpu_ns;            /* the probe's own CPU time, every thread */
	struct probe_cpu *cpus;
	size_t n_cpus;
};

/* cpus[] for each CPU of set, in order, with histograms and room for
 * cap_late late wakeups each: everything the loop needs, allocated here. */
void probe_result_init(struct probe_result *r, const cpu_set_t *set, size_t cap_late);
void probe_result_release(struct probe_result *r);
/* The hot path's record of one late wakeup (no allocation). */
static inline void probe_cpu_late(struct probe_cpu *c, uint64_t mono_ns, uint64_t late_ns)
{
	if (c->n_late < c->cap_late) {
		c->late[c->n_late].mono_ns = mono_ns;
		c->late[c->n_late].late_ns = late_ns;
		c->n_late++;
	} else {
		c->late_dropped++;
	}
}

/* Writes probe.txt. 0 or -errno (a write error included). */
int probe_result_write(const struct probe_result *r, FILE *out);
/* Parses probe.txt. 0, or -EINVAL with "line N: what" in err. */
int probe_result_parse(const char *text, struct probe_result *r, struct strbuf *err);
/* Reads and parses a file: 0 or -errno, the reason in err. */
int probe_result_read(const char *path, struct probe_result *r, struct strbuf *err);

#endif
