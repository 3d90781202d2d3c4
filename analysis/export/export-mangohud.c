/*
 * A run as a MangoHud 0.8 log: the two system lines, the per-frame column
 * header, one row a frame (log_interval=0), and the `_summary.csv`
 * MangoHud writes when a log ends. Columns and their units as MangoHud
 * 0.8.x's src/logging.cpp writes them (read at v0.8.1): frametime in ms,
 * elapsed in ns since the log started; a value MangoHud did not measure
 * stays as its zeroed record has it, 0. Our frametime carries every digit
 * down to the ns (MangoHud's own is a float printed with six significant
 * digits), so the importer gives back the same frames.
 */
#include "export/export.h"
#include "metrics/mangohud-summary.h"
#include "text/csv.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

void export_mangohud_log(FILE *out, const struct export_input *in)
{
	const char *facts[] = { in->os, in->cpu, in->gpu, in->ram, in->kernel, in->driver, "" };

	fputs("os,cpu,gpu,ram,kernel,driver,cpuscheduler\n", out);
	for (size_t i = 0; i < ARRAY_SIZE(facts); i++) {
		if (i)
			fputc(',', out);
		csv_write_field(out, facts[i]);
	}
	fputs("\nfps,frametime,cpu_load,cpu_power,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,"
	      "gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,elapsed\n",
	      out);
	for (size_t i = 1; i < in->n; i++) {
		uint64_t ns = in->t_ns[i] - in->t_ns[i - 1];
		char ms[32];

		export_ms(ms, sizeof(ms), ns, 0);
		/* fps as MangoHud prints a double: six significant digits */
		fprintf(out, "%g,%s,0,0,0,0,0,0,0,0,0,0,0,0,%" PRIu64 "\n", 1e9 / (double)ns, ms,
			in->t_ns[i] - in->t_ns[0]);
	}
}

void export_mangohud_summary(FILE *out, const struct export_input *in)
{
	size_t n = in->n - 1;
	uint64_t *ft = xrealloc(NULL, (n ? n : 1) * sizeof(*ft));
	struct mangohud_summary s;
	float total = 0.0f;

	for (size_t i = 0; i < n; i++)
		ft[i] = in->t_ns[i + 1] - in->t_ns[i];
	fputs("0.1% Min FPS,1% Min FPS,97% Percentile FPS,Average FPS,GPU Load,CPU Load,Average Frame Time,"
	      "Average GPU Temp,Average CPU Temp,Average VRAM Used,Average RAM Used,Average Swap Used,"
	      "Peak GPU Load,Peak CPU Load,Peak GPU Temp,Peak CPU Temp,Peak VRAM Used,Peak RAM Used,"
	      "Peak Swap Used\n",
	      out);
	if (mangohud_summary_compute(ft, n, MH_08, &s) < 0) {
		free(ft);
		return;
	}
	/* the frame time's mean in single precision, summed slowest first
	 * (MangoHud sums its records sorted by fps) */
	qsort(ft, n, sizeof(*ft), cmp_desc);
	for (size_t i = 0; i < n; i++)
		total += (float)((double)ft[i] / 1e6);
	/* the three figures in six significant digits, then fixed with one
	 * decimal; the loads, temperatures and memory we did not measure are
	 * 0 as in MangoHud's zeroed records (integers where its are ints) */
	fprintf(out, "%g,%g,%g,%.1f,0.0,0.0,%.1f,0.0,0.0,0.0,0.0,0.0,0,0.0,0,0,0.0,0.0,0.0", s.low01, s.low1, s.p97,
		s.avg, (double)(total / (float)n));
	free(ft);
}
