/*
 * The waker's decisions before its threads start (see wakeplan.h).
 */
#include "system/wakeplan.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const mode_names[] = {
	[WAKER_SLEEP] = "sleep",
	[WAKER_KICK] = "kick",
	[WAKER_PROBE] = "probe",
};

int waker_mode_parse(const char *s, enum waker_mode *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(mode_names); i++)
		if (strcmp(s, mode_names[i]) == 0) {
			*out = (enum waker_mode)i;
			return 0;
		}
	return -EINVAL;
}

const char *waker_mode_name(enum waker_mode m)
{
	return (size_t)m < ARRAY_SIZE(mode_names) ? mode_names[m] : "?";
}

int waker_period_parse(const char *s, uint64_t *ns)
{
	double ms;

	if (safe_atod(s, &ms) < 0 || !isfinite(ms))
		return -EINVAL;
	if (ms < WAKER_PERIOD_MIN_MS || ms > WAKER_PERIOD_MAX_MS)
		return -ERANGE;
	*ns = (uint64_t)llround(ms * 1e6);
	return 0;
}

static int lowest(const cpu_set_t *set, int except)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && c != except)
			return c;
	return -1;
}

int kick_plan_make(const cpu_set_t *targets, const cpu_set_t *online, struct kick_plan *p)
{
	struct kick_plan k = { -1, -1, false };

	if (CPU_COUNT(targets) == 0)
		return -EINVAL;
	/* a CPU nobody is woken on, when there is one: every kick crosses */
	for (int c = 0; c < CPU_SETSIZE && k.kicker_cpu < 0; c++)
		if (CPU_ISSET(c, online) && !CPU_ISSET(c, targets))
			k.kicker_cpu = c;
	if (k.kicker_cpu < 0) {
		k.kicker_cpu = lowest(targets, -1);
		k.relay_cpu = lowest(targets, k.kicker_cpu);
		k.same_cpu = k.relay_cpu < 0;
	}
	*p = k;
	return 0;
}
