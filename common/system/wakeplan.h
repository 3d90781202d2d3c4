/*
 * What hitchbench-waker (harness/waker-main.c; the WAKER and PROBE
 * switches) decides before its threads start: its mode, its period, and
 * in kick mode who wakes whom. Here, below the program, so that the
 * switches check a value as the program will and the unit tests reach it.
 *
 *   sleep   one thread sleeping to absolute deadlines every period: the
 *           bare wakeups of an observer, nothing else
 *   kick    one sleeper pinned to each CPU, woken each period by another
 *           CPU (an eventfd write: a cross-CPU wakeup the kernel delivers
 *           with an IPI to an idle CPU)
 *   probe   one SCHED_FIFO sleeper pinned to each CPU, timing how late its
 *           absolute-deadline wakeups are; what it writes is probefile.h's
 */
#ifndef HB_WAKEPLAN_H
#define HB_WAKEPLAN_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

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

#endif
