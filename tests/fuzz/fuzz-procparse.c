/*
 * Fuzz target: the /proc and /sys parsers (common/system/procparse.c, the
 * sensors' and the idle wait's in common/system/sensors.c and bench/quiet/quiet-idle.c).
 * The first byte picks the parser, the rest is the file: one target for
 * a dozen small formats that each take a buffer.
 */
#include "system/procparse.h"
#include "prefetch/prefetch.h"
#include "quiet/quiet.h"
#include "system/sensors-parse.h"

static const char *const wanted[] = { "pgmajfault", "pswpin", "nr_free_pages", "allocstall_normal" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	union {
		struct pstat st;
		struct pschedstat ss;
		struct psyscall sc;
		struct blkstat bs;
		struct psi psi;
		struct swap_entry sw[4];
		struct cpu_ticks ticks;
		struct mem_kb mem;
		struct psi_totals pt;
		struct pf_pressure pp;
	} u;
	struct vmstat_index ix;
	uint64_t values[ARRAY_SIZE(wanted)], v;
	bool have[ARRAY_SIZE(wanted)];
	char path[256];
	int64_t i64;
	double d;

	if (size < 1)
		return 0;
	text = fuzz_text(data + 1, size - 1);
	switch (data[0] % 17) {
	case 0: pstat_parse(text, &u.st); break;
	case 1: pschedstat_parse(text, &u.ss); break;
	case 2: psyscall_parse(text, &u.sc); break;
	case 3:
		/* found in one buffer, read from the same again (the index's
		 * remembered offsets then point into a buffer of another
		 * length: the case it must survive) */
		if (vmstat_index_init(&ix, wanted, ARRAY_SIZE(wanted), text) >= 0) {
			vmstat_index_read(&ix, text, values, have);
			vmstat_index_read(&ix, text + (size > 1 ? 1 : 0), values, have);
		}
		break;
	case 4: vmstat_get(text, "pgmajfault", &v); break;
	case 5: diskstats_line_parse(text, &u.bs); break;
	case 6: blkstat_parse(text, &u.bs); break;
	case 7: psi_parse(text, &u.psi); break;
	case 8: swaps_parse(text, u.sw, ARRAY_SIZE(u.sw)); break;
	case 9: cgroup2_path_parse(text, path, sizeof(path)); break;
	case 10: drm_fdinfo_mem_kib(text, &v); break;
	case 11: sensor_parse_int(text, &i64); break;
	case 12: sensor_parse_stat(text, &u.ticks); break;
	case 13: sensor_parse_meminfo(text, &u.mem); break;
	case 14: sensor_parse_psi(text, &u.pt); break;
	case 15: pf_pressure_parse(text, &u.pp); break;
	case 16:
		quiet_psi_some_avg10(text, &d);
		quiet_loadavg_load1(text, &d);
		break;
	}
	free(text);
	return 0;
}
