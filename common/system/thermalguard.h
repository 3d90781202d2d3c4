/*
 * The optional thermal guard before a run (issue 3): a machine still hot
 * from the last run throttles sooner, so the runner may first wait until
 * the chosen temperature sensors cool under a threshold, or a timeout, and
 * record what happened in the run.
 */
#ifndef HB_THERMALGUARD_H
#define HB_THERMALGUARD_H

#include <signal.h>

#include "text/kvfile.h"
#include "system/sensors.h"

enum thermal_guard_outcome {
	THERMAL_GUARD_REACHED,    /* every chosen sensor at or under the threshold */
	THERMAL_GUARD_TIMEOUT,    /* still hotter when the time was up */
	THERMAL_GUARD_NO_SENSORS, /* no temperature channel matched (or none readable) */
};

struct thermal_guard_result {
	enum thermal_guard_outcome outcome;
	double waited_s;
	size_t sensors;                /* channels that matched the pattern */
	char hottest[SENSOR_NAME_MAX]; /* at the last look; "" without sensors */
	double hottest_c;              /* NaN without sensors */
};

/* Waits until every temperature channel whose column name matches the
 * fnmatch(3) pattern (e.g. "temp.*", "temp.coretemp*") reads at most max_c,
 * looking once a second, for at most timeout_s. Returns at once with
 * THERMAL_GUARD_NO_SENSORS on a machine without any. 0 (res written), or
 * -EINTR when *stop (a signal handler's flag; NULL: none) was set during
 * the wait; other signals are slept through. */
int thermal_guard_wait(const char *pattern, double max_c, double timeout_s,
		       const volatile sig_atomic_t *stop, struct thermal_guard_result *res);
/* The same, looking every poll_s seconds, never stopped early (the
 * runner's quieting, which takes its signals from a signalfd; tests). */
int thermal_guard_wait_every(const char *pattern, double max_c, double timeout_s, double poll_s,
			     struct thermal_guard_result *res);
/* "reached", "timeout", "no-sensors". */
const char *thermal_guard_outcome_name(enum thermal_guard_outcome outcome);
/* Appends the run's record: thermal_guard (the outcome), thermal_guard_pattern,
 * thermal_guard_max_c, thermal_guard_waited_s and, with sensors,
 * thermal_guard_hottest and thermal_guard_hottest_c. */
void thermal_guard_record(const struct thermal_guard_result *res, const char *pattern, double max_c,
			  struct kvfile *kf);

#endif
