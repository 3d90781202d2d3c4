/*
 * What every exporter shares: the formats' names, a run's frames and
 * facts gathered once (export_input_from_run()), the file names each tool
 * gives its logs, and frame times written exactly to the ns.
 */
#include "export/export.h"
#include "run/run.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[EXPORT_FORMAT_COUNT] = {
	[EXPORT_MANGOHUD] = "mangohud",
	[EXPORT_PRESENTMON] = "presentmon",
	[EXPORT_CAPFRAMEX] = "capframex",
};

const char *export_format_name(enum export_format f)
{
	return (unsigned)f < EXPORT_FORMAT_COUNT ? format_names[f] : "unknown";
}

int export_format_parse(const char *name, enum export_format *out)
{
	for (unsigned i = 0; i < EXPORT_FORMAT_COUNT; i++) {
		if (name && strcmp(name, format_names[i]) == 0) {
			*out = (enum export_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The first of keys bench.txt has with a value, else "". */
static const char *fact(const struct run *run, const char *const *keys)
{
	for (; *keys; keys++) {
		const char *v = kvfile_get(&run->bench, *keys);

		if (v && *v)
			return v;
	}
	return "";
}

int export_input_from_run(const struct run *run, enum export_span span, struct export_input *out)
{
	static const char *const k_date[] = { "started_utc", "imported_utc", NULL };
	static const char *const k_os[] = { "log.os", "os", NULL };
	static const char *const k_cpu[] = { "cpu_model", "log.cpu", NULL };
	static const char *const k_gpu[] = { "gpu", "gl_renderer", "log.gpu", NULL };
	static const char *const k_ram[] = { "log.ram", NULL };
	static const char *const k_kernel[] = { "kernel_release", "log.kernel", NULL };
	static const char *const k_driver[] = { "mesa_version", "log.driver", NULL };
	const uint64_t *t = run->frames.t_ns;
	size_t first = 0, last = run->frames.n; /* presents [first, last) */
	const char *mem;

	if (!run->have_frames || run->frames.n < 2)
		return -ENODATA;
	if (span == EXPORT_SPAN_WINDOW) {
		if (!run->have_window)
			return -ENODATA;
		/* the window's frames end in (start, end]; the first of them
		 * began at the present before (metrics_compute() counts so) */
		while (first < last && t[first] <= run->window_start_ns)
			first++;
		while (last > first && t[last - 1] > run->window_end_ns)
			last--;
		if (first == last || first == 0)
			return -ENODATA;
		first--;
	}
	if (last - first < 2)
		return -ENODATA;
	*out = (struct export_input){ .t_ns = t + first, .n = last - first };
	out->game = run->game && *run->game ? run->game : "hitchbench";
	out->run_id = run->id ? run->id : "";
	out->started_utc = fact(run, k_date);
	out->os = fact(run, k_os);
	out->cpu = fact(run, k_cpu);
	out->gpu = fact(run, k_gpu);
	out->ram = fact(run, k_ram);
	out->kernel = fact(run, k_kernel);
	out->driver = fact(run, k_driver);
	mem = kvfile_get(&run->bench, "mem_total_kb");
	if (!*out->ram && mem && *mem) {
		/* MangoHud says the memory in GiB, one decimal */
		out->own[0] = xasprintf("%.1f GiB", strtod(mem, NULL) / (1024.0 * 1024.0));
		out->ram = out->own[0];
	}
	return 0;
}

void export_input_release(struct export_input *in)
{
	for (size_t i = 0; i < ARRAY_SIZE(in->own); i++) {
		free(in->own[i]);
		in->own[i] = NULL;
	}
}

/* The run's start as numbers: "2026-11-30T12:07:07Z" -> its six fields;
 * a date that does not read so is 1970-01-01 00:00:00. */
static void start_fields(const struct export_input *in, int f[6])
{
	if (!in->started_utc ||
	    sscanf(in->started_utc, "%4d-%2d-%2dT%2d:%2d:%2d", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5]) != 6) {
		f[0] = 1970;
		f[1] = f[2] = 1;
		f[3] = f[4] = f[5] = 0;
	}
}

/* The game's name as part of a file name: no '/'. */
static char *name_part(const char *game)
{
	char *s = xstrdup(game), *p;

	for (p = s; *p; p++)
		if (*p == '/' || *p == '\\')
			*p = '-';
	return s;
}

char *export_file_name(enum export_format f, const struct export_input *in)
{
	char *game = name_part(in->game), *name;
	int d[6];

	start_fields(in, d);
	switch (f) {
	case EXPORT_MANGOHUD:
		name = xasprintf("%s_%04d-%02d-%02d_%02d-%02d-%02d.csv", game, d[0], d[1], d[2], d[3], d[4], d[5]);
		break;
	case EXPORT_PRESENTMON:
		name = xasprintf("PresentMon-%04d-%02d-%02dT%02d%02d%02d.csv", d[0], d[1], d[2], d[3], d[4], d[5]);
		break;
	default:
		/* CapFrameX writes the time's fields unpadded */
		name = xasprintf("CapFrameX-%s.exe-%04d-%02d-%02dT%d%d%d.json", game, d[0], d[1], d[2], d[3], d[4],
				 d[5]);
		break;
	}
	free(game);
	return name;
}

char *export_summary_name(const char *log_name)
{
	size_t len = strlen(log_name);

	if (len > 4 && strcmp(log_name + len - 4, ".csv") == 0)
		len -= 4;
	return xasprintf("%.*s_summary.csv", (int)len, log_name);
}

void export_ms(char *buf, size_t size, uint64_t ns, int decimals)
{
	int n = snprintf(buf, size, "%" PRIu64 ".%06" PRIu64, ns / 1000000, ns % 1000000);

	if (n < 0 || (size_t)n >= size)
		return;
	if (decimals == 0) {
		char *p = buf + n - 1;

		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
		return;
	}
	for (int d = 6; d < decimals && (size_t)n + 1 < size; d++)
		buf[n++] = '0';
	buf[n] = '\0';
}
