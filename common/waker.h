/*
 * The waker and the probe (hitchbench-waker; the WAKER and PROBE
 * switches): what their program decides before its threads start, and
 * the probe's output file, probe.txt, written by the program and read by
 * the switch and the tests (docs/formats.md, "Probe file").
 *
 *   sleep   one thread sleeping to absolute deadlines every period: the
 *           bare wakeups of an observer, nothing else
 *   kick    one sleeper pinned to each CPU, woken each period by another
 *           CPU (an eventfd write: a cross-CPU wakeup the kernel delivers
 *           with an IPI to an idle CPU)
 *   probe   one SCHED_FIFO sleeper pinned to each CPU, timing how late its
 *           absolute-deadline wakeups are (common/latency.h)
 */
#ifndef HB_WAKER_H
#define HB_WAKER_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "latency.h"
#include "util.h"

#define PROBE_FORMAT 1
#define WAKER_REPORT_FORMAT 1
/* The shortest and longest period the program takes, ms. */
#define WAKER_PERIOD_MIN_MS 0.05
#define WAKER_PERIOD_MAX_MS 60000.0

enum waker_mode {
	WAKER_SLEEP,
	WAKER_KICK,
	WAKER_PROBE,
};

/* "sleep", "kick", "probe". 0 or -EINVAL. */
int waker_mode_parse(const char *s, enum waker_mode *out);
const char *waker_mode_name(enum waker_mode m);
/* A period in ms, fractional ("10", "1.37"), into ns. 0, or -EINVAL (not
 * a number) / -ERANGE (outside WAKER_PERIOD_MIN_MS..MAX). */
int waker_period_parse(const char *s, uint64_t *ns);

/* "0-3,5": a CPU set as a list (empty set: ""). */
void cpu_set_format(const cpu_set_t *set, struct strbuf *out);
/* Checks that every CPU of want is online: 0, or -EINVAL with the first
 * that is not in *bad. */
int cpu_set_check_online(const cpu_set_t *want, const cpu_set_t *online, int *bad);

/* Who wakes whom in kick mode. The kicker runs on kicker_cpu and writes
 * to every target but its own CPU's; when kicker_cpu is a target too
 * (every CPU listed), that target is woken by the sleeper on relay_cpu
 * right after its own wakeup, so that every wakeup still crosses CPUs.
 * relay_cpu is -1 when no relay is needed, or none is possible (a single
 * CPU: the kicker wakes its own CPU's sleeper, said in same_cpu). */
struct kick_plan {
	int kicker_cpu;
	int relay_cpu;
	bool same_cpu;
};
/* targets: the CPUs to wake (non-empty); online: the CPUs there are.
 * 0 or -EINVAL. */
int kick_plan_make(const cpu_set_t *targets, const cpu_set_t *online, struct kick_plan *p);

/* ---- probe.txt ---- */

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
