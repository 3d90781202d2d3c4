/*
 * thermal_guard_wait (thermalguard.h): samples the sensors on absolute
 * deadlines until the chosen temperatures are low enough or time is up.
 */
#include "system/thermalguard.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *thermal_guard_outcome_name(enum thermal_guard_outcome outcome)
{
	switch (outcome) {
	case THERMAL_GUARD_REACHED: return "reached";
	case THERMAL_GUARD_TIMEOUT: return "timeout";
	case THERMAL_GUARD_NO_SENSORS: return "no-sensors";
	}
	return "?";
}

/* Both waits: stop NULL sleeps through every signal. */
static int guard_wait(const char *pattern, double max_c, double timeout_s, double poll_s,
		      const volatile sig_atomic_t *stop, struct thermal_guard_result *res)
{
	struct thermal_guard_result out = { .outcome = THERMAL_GUARD_NO_SENSORS, .hottest_c = NAN };
	struct sensors s;
	double *values = NULL;
	uint64_t start = mono_ns(), next = start;
	uint64_t poll_ns = (uint64_t)(poll_s * 1e9), end = start + (uint64_t)(timeout_s * 1e9);
	int r = 0;

	sensors_open(&s);
	for (size_t i = 0; i < s.n; i++)
		if (s.ch[i].kind == SENSOR_TEMP && fnmatch(pattern, s.ch[i].name, 0) == 0)
			out.sensors++;
	if (!out.sensors)
		goto done;
	values = zalloc(s.n * sizeof(*values));
	for (;;) {
		size_t hottest = s.n;

		sensors_sample(&s, values);
		for (size_t i = 0; i < s.n; i++) {
			if (s.ch[i].kind != SENSOR_TEMP || fnmatch(pattern, s.ch[i].name, 0) ||
			    !isfinite(values[i]))
				continue;
			if (hottest == s.n || values[i] > values[hottest])
				hottest = i;
		}
		out.waited_s = (double)(mono_ns() - start) / 1e9;
		if (hottest == s.n) { /* matched, but none readable */
			out.outcome = THERMAL_GUARD_NO_SENSORS;
			out.hottest[0] = '\0';
			out.hottest_c = NAN;
			break;
		}
		snprintf(out.hottest, sizeof(out.hottest), "%s", s.ch[hottest].name);
		out.hottest_c = values[hottest];
		if (values[hottest] <= max_c) {
			out.outcome = THERMAL_GUARD_REACHED;
			break;
		}
		if (mono_ns() >= end) {
			out.outcome = THERMAL_GUARD_TIMEOUT;
			break;
		}
		next += poll_ns;
		if (next > end)
			next = end;
		r = sleep_until(next, stop);
		if (r) {
			r = r > 0 ? -EINTR : r;
			goto fail;
		}
	}
done:
	*res = out;
fail:
	free(values);
	sensors_release(&s);
	return r;
}

int thermal_guard_wait_every(const char *pattern, double max_c, double timeout_s, double poll_s,
			     struct thermal_guard_result *res)
{
	return guard_wait(pattern, max_c, timeout_s, poll_s, NULL, res);
}

int thermal_guard_wait(const char *pattern, double max_c, double timeout_s,
		       const volatile sig_atomic_t *stop, struct thermal_guard_result *res)
{
	return guard_wait(pattern, max_c, timeout_s, 1.0, stop, res);
}

void thermal_guard_record(const struct thermal_guard_result *res, const char *pattern, double max_c,
			  struct kvfile *kf)
{
	kvfile_add(kf, "thermal_guard", thermal_guard_outcome_name(res->outcome));
	kvfile_add(kf, "thermal_guard_pattern", pattern);
	kvfile_addf(kf, "thermal_guard_max_c", "%g", max_c);
	kvfile_addf(kf, "thermal_guard_waited_s", "%.3f", res->waited_s);
	if (res->hottest[0]) {
		kvfile_add(kf, "thermal_guard_hottest", res->hottest);
		kvfile_addf(kf, "thermal_guard_hottest_c", "%.3f", res->hottest_c);
	}
}
