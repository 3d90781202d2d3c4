/*
 * CPU lists as the kernel writes them ("0", "1-3", "0,2-3", the format of
 * sys/devices/system/cpu/online and of cpuset files). The runner checks a
 * switch's CPU list with it and the helper programs pin their threads by
 * it, so it lives here, below both.
 */
#ifndef HB_CPULIST_H
#define HB_CPULIST_H

#include <sched.h>

#include "base/util.h"

/* Parses s (blanks around it allowed) into *set: 0, or -EINVAL for an
 * empty list, an empty item, a bad number, a range backwards or a CPU at
 * or over CPU_SETSIZE. *set is cleared first either way. */
int cpu_list_parse(const char *s, cpu_set_t *set);
/* "0-3,5": a CPU set as a list (empty set: ""). */
void cpu_set_format(const cpu_set_t *set, struct strbuf *out);
/* Checks that every CPU of want is online: 0, or -EINVAL with the first
 * that is not in *bad. */
int cpu_set_check_online(const cpu_set_t *want, const cpu_set_t *online, int *bad);

#endif
