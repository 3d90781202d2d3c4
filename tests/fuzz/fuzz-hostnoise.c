/*
 * Fuzz target: the host noise parsers (common/system/hostnoise.c) and the
 * daemons' (common/system/daemoncost.c), which read /proc under the
 * swappable root. The first byte picks one of 7, the rest is the file:
 * proc/stat's cpu lines, proc/cpuinfo, proc/PID/stat's times,
 * proc/PID/task/TID/children, a task's status and sched, and a quiet
 * profile's daemon list, whose every name must come out of
 * daemon_key_name() as a valid key of its own (abort otherwise: issue 38).
 */
#include "system/daemoncost.h"
#include "system/hostnoise.h"
#include "text/kvfile.h"

static void names_as_keys(const char *text)
{
	struct strbuf err = STRBUF_INIT;
	struct daemon_names names;
	char key[DAEMON_NAMES_MAX][DAEMON_KEY_NAME_MAX];

	if (daemon_names_parse(text, &names, &err) == 0) {
		for (size_t i = 0; i < names.n; i++) {
			daemon_key_name(names.name[i], key[i], sizeof(key[i]));
			if (!kvfile_valid_key(key[i]))
				abort();
			for (size_t j = 0; j < i; j++)
				if (!strcmp(key[i], key[j]))
					abort();
		}
	}
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct noise_ticks all, cpu[4];
	int id[4];
	size_t ncpu;
	uint64_t v;
	pid_t pids[8];
	char *text;

	if (size < 1)
		return 0;
	text = fuzz_text(data + 1, size - 1);
	switch (data[0] % 7) {
	case 0: noise_stat_parse(text, &all, cpu, id, ARRAY_SIZE(cpu), &ncpu); break;
	case 1: noise_cpuinfo_hypervisor(text); break;
	case 2: noise_pid_ticks(text, &v); break;
	case 3: noise_children_parse(text, pids, ARRAY_SIZE(pids)); break;
	case 4: daemon_status_switches(text, &v); break;
	case 5: daemon_sched_wakeups(text, &v); break;
	case 6: names_as_keys(text); break;
	}
	free(text);
	return 0;
}
