/*
 * The frame-log importers' common part: format names, the series, the
 * line reader, and import_read() which finds and reads the file of a
 * format (the command and the runner call it), and how a logged frame
 * time becomes a frame or a counted drop. Parsers per format live in
 * import-mangohud.c, import-presentmon.c and import-gallium.c, over the
 * records of common/text/csv.c; the hook's
 * own frame file is read with common/formats/frames.c.
 */
#include "import/import-internal.h"

#include "formats/frames.h"
#include "base/hash.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const format_names[IMPORT_FORMAT_COUNT] = {
	[IMPORT_MANGOHUD] = "mangohud",
	[IMPORT_GALLIUM_HUD] = "gallium-hud",
	[IMPORT_PRESENTMON] = "presentmon",
	[IMPORT_HOOK] = "hook",
	[IMPORT_OCAT] = "ocat",
	[IMPORT_FRAMEVIEW] = "frameview",
	[IMPORT_CAPFRAMEX] = "capframex",
};

/* The summary file a tool writes beside its log: the file (STEM + suffix
 * for LOG.EXT, or a fixed name in the log's directory), and its row: the
 * first, or the one whose column row_key holds the log's file name. */
static const struct summary_file {
	enum import_format format;
	const char *suffix, *name, *row_key;
	bool always; /* the tool always writes one: its absence is said */
} summary_files[] = {
	{ IMPORT_MANGOHUD, "_summary.csv", NULL, NULL, false },
	{ IMPORT_PRESENTMON, "-stats.csv", NULL, NULL, false },
	{ IMPORT_FRAMEVIEW, NULL, "FrameView_Summary.csv", "Log Name", true },
};

/* The columns kept, as summary.KEY, as the tool printed them, and the
 * metric of ours that reproduces each (NULL: kept only), each tool's in
 * the order the import says them. */
static const struct import_peer_figure summary_columns[] = {
	{ IMPORT_MANGOHUD, "summary.low01_fps", "0.1% Min FPS", "mangohud_low01" },
	{ IMPORT_MANGOHUD, "summary.low1_fps", "1% Min FPS", "mangohud_low1" },
	{ IMPORT_MANGOHUD, "summary.p97_fps", "97% Percentile FPS", "mangohud_p97" },
	{ IMPORT_MANGOHUD, "summary.avg_fps", "Average FPS", "mangohud_avg" },
	/* 2.0.0-2.1.1 named the percentiles "99th" and "95th" (same figures) */
	{ IMPORT_PRESENTMON, "summary.avg_fps", "Average FPS", "fps" },
	{ IMPORT_PRESENTMON, "summary.min_fps", "Minimum FPS", "presentmon_min" },
	{ IMPORT_PRESENTMON, "summary.p1_fps", "1st Percentile FPS", "presentmon_p1" },
	{ IMPORT_PRESENTMON, "summary.p1_fps", "99th Percentile FPS", NULL },
	{ IMPORT_PRESENTMON, "summary.p5_fps", "5th Percentile FPS", "presentmon_p5" },
	{ IMPORT_PRESENTMON, "summary.p5_fps", "95th Percentile FPS", NULL },
	{ IMPORT_PRESENTMON, "summary.max_fps", "Maximum FPS", "presentmon_max" },
	{ IMPORT_PRESENTMON, "summary.frames", "Total Frames", NULL },
	{ IMPORT_FRAMEVIEW, "summary.avg_fps", "Avg FPS", "fps" },
	{ IMPORT_FRAMEVIEW, "summary.low1_fps", "1% Low FPS", "frameview_low1" },
	{ IMPORT_FRAMEVIEW, "summary.low01_fps", "0.1% Low FPS", "frameview_low01" },
	/* FrameView's percentiles are nearest-rank of frame time, its Min and
	 * Max FPS 1000 / the longest and shortest frame (40 real summaries) */
	{ IMPORT_FRAMEVIEW, "summary.p1_fps", "1% FPS", "low1" },
	{ IMPORT_FRAMEVIEW, "summary.p01_fps", "0.1% FPS", "low01" },
	{ IMPORT_FRAMEVIEW, "summary.min_fps", "Min FPS", "presentmon_min" },
	{ IMPORT_FRAMEVIEW, "summary.max_fps", "Max FPS", "presentmon_max" },
	{ IMPORT_FRAMEVIEW, "summary.timestamp", "TimeStamp", NULL },
	{ IMPORT_FRAMEVIEW, "summary.p5_fps", "5% FPS", NULL },
	{ IMPORT_FRAMEVIEW, "summary.p10_fps", "10% FPS", NULL },
	{ IMPORT_FRAMEVIEW, "summary.p90", "90th %", NULL },
	{ IMPORT_FRAMEVIEW, "summary.p95", "95th %", NULL },
	{ IMPORT_FRAMEVIEW, "summary.p99", "99th %", NULL },
	{ IMPORT_FRAMEVIEW, "summary.time_ms", "Time (ms)", NULL },
};

/* The summary file of sf beside the log at path: the columns above of its
 * row into info as summary.KEY, and summary.file; a file the tool always
 * writes, missing or without the log's row, gets a note. The summary is
 * the tool's own figures: never needed. */
static void read_summary(const struct summary_file *sf, const char *path, struct import_series *out)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	char *file, *text = NULL;
	int want[sizeof(summary_columns) / sizeof(summary_columns[0])], keycol = -1;
	struct csv_record rec;
	struct csv c;
	struct stat st;
	size_t len = 0;
	bool found = false;

	if (sf->name)
		file = xasprintf("%.*s%s", (int)(base - path), path, sf->name);
	else if (dot)
		file = xasprintf("%.*s%s", (int)(dot - path), path, sf->suffix);
	else
		return;
	/* a file beside a game's log is the game's to make: a link there is
	 * not followed, so that a run never reads what it points at as the
	 * tool's figures (docs/security.md) */
	if (lstat(file, &st) == 0 && S_ISLNK(st.st_mode)) {
		strbuf_addf(&out->notes, "%s: %s beside it is a link, not followed: the tool's own figures not "
			    "read\n", path, file + (base - path));
		free(file);
		return;
	}
	if (read_file(file, &text, &len) < 0) {
		if (sf->always)
			strbuf_addf(&out->notes, "%s: no %s beside it: the tool's own figures not read\n", path,
				    sf->name);
		free(file);
		return;
	}
	csv_init(&c, text, len, IMPORT_CSV_FLAGS);
	if (csv_next(&c, &rec) > 0) {
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			want[k] = -1;
			for (size_t i = 0; summary_columns[k].format == sf->format && i < rec.n; i++)
				if (strcmp(rec.f[i], summary_columns[k].label) == 0)
					want[k] = (int)i;
		}
		for (size_t i = 0; sf->row_key && i < rec.n; i++)
			if (strcmp(rec.f[i], sf->row_key) == 0)
				keycol = (int)i;
	}
	while (!found && (!sf->row_key || keycol >= 0) && csv_next(&c, &rec) > 0) {
		if (sf->row_key && ((size_t)keycol >= rec.n || strcmp(rec.f[keycol], base) != 0))
			continue;
		found = true;
		kvfile_add(&out->info, "summary.file", file);
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (want[k] >= 0 && (size_t)want[k] < rec.n && *rec.f[want[k]] &&
			    !kvfile_get(&out->info, summary_columns[k].key))
				kvfile_add(&out->info, summary_columns[k].key, rec.f[want[k]]);
	}
	if (!found && (sf->always || !sf->row_key))
		strbuf_addf(&out->notes, "%s: %s holds no %s: the tool's own figures not read\n", path, file,
			    sf->row_key ? "row for this log" : "figures");
	csv_release(&c);
	free(text);
	free(file);
}

/* The summary beside a log the reader found to be of the tool it names
 * (out->format: a FrameView log read with --format presentmon is still
 * FrameView's). */
static void import_summary_beside(const char *path, struct import_series *out)
{
	enum import_format f;

	if (!out->format || import_format_parse(out->format, &f) < 0)
		return;
	for (size_t k = 0; k < sizeof(summary_files) / sizeof(summary_files[0]); k++)
		if (summary_files[k].format == f)
			read_summary(&summary_files[k], path, out);
}

const struct import_peer_figure *import_peer_figures(size_t *n)
{
	*n = sizeof(summary_columns) / sizeof(summary_columns[0]);
	return summary_columns;
}

const char *import_format_name(enum import_format f)
{
	return (unsigned)f < IMPORT_FORMAT_COUNT ? format_names[f] : "unknown";
}

int import_format_parse(const char *name, enum import_format *out)
{
	for (unsigned i = 0; i < IMPORT_FORMAT_COUNT; i++) {
		if (strcmp(name, format_names[i]) == 0) {
			*out = (enum import_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

void import_series_init(struct import_series *s)
{
	memset(s, 0, sizeof(*s));
	kvfile_init(&s->info);
	strbuf_init(&s->warnings);
	strbuf_init(&s->notes);
}

void import_series_release(struct import_series *s)
{
	if (!s)
		return;
	free(s->t_ns);
	free(s->ft_ns);
	free(s->first_dropped);
	kvfile_release(&s->info);
	strbuf_release(&s->warnings);
	strbuf_release(&s->notes);
	import_series_init(s);
}

void import_csv_error(const struct csv *c, const char *path, struct strbuf *err)
{
	strbuf_addf(err, "%s:%d: %s", path, c->err_line, c->why);
}

int import_parse_value(const char *s, double *out)
{
	char *end;
	double v;

	/* no log writes hex; strtod would read "0x10" as 16 */
	if (!*s || isspace((unsigned char)*s) || strpbrk(s, "xX"))
		return -EINVAL;
	v = strtod(s, &end);
	if (*end != '\0')
		return -EINVAL;
	*out = v; /* past the range: +-HUGE_VAL (infinity) or towards 0 */
	return 0;
}

void import_drop(struct import_series *s, int line, const char *fmt, ...)
{
	struct strbuf why = STRBUF_INIT;
	va_list ap;

	s->rows_dropped++;
	/* PresentMon's frames are known after every row was read: the
	 * first by line, not by when it was found */
	if (s->first_dropped && line >= s->first_dropped_line)
		return;
	free(s->first_dropped);
	s->first_dropped_line = line;
	strbuf_addf(&why, "%d: ", line);
	va_start(ap, fmt);
	strbuf_vaddf(&why, fmt, ap);
	va_end(ap);
	s->first_dropped = strbuf_detach(&why);
}

void import_drop_cut(struct import_series *s, const char *path, int line, const char *what)
{
	import_drop(s, line, "last row cut short (%s)", what);
	strbuf_addf(&s->warnings, "%s:%d: last row cut short (%s): dropped\n", path, line, what);
	s->cut_dropped = true;
}

static void push_frame(struct import_series *s, uint64_t ns)
{
	if (s->n_ft == s->alloc_ft) {
		s->alloc_ft = s->alloc_ft ? 2 * s->alloc_ft : 1024;
		s->ft_ns = xrealloc(s->ft_ns, s->alloc_ft * sizeof(*s->ft_ns));
	}
	s->ft_ns[s->n_ft++] = ns;
}

void import_frame_ms(struct import_series *s, int line, double ms, const char *text)
{
	uint64_t ns;

	if (isnan(ms)) {
		import_drop(s, line, "frame time %s is not a number", text);
		return;
	}
	if (!(ms > 0)) {
		import_drop(s, line, "frame time %s is not positive", text);
		return;
	}
	if (ms > IMPORT_MAX_FRAME_MS) {
		import_drop(s, line, "frame time %s is over %.0f s", text, IMPORT_MAX_FRAME_MS / 1e3);
		return;
	}
	ns = (uint64_t)llround(ms * 1e6);
	push_frame(s, ns ? ns : 1);
}

int import_finish(struct import_series *s, const char *path, struct strbuf *err)
{
	free(s->t_ns);
	s->t_ns = NULL;
	s->n_presents = 0;
	s->rows_kept = s->n_ft;
	if (s->rows_dropped > (s->cut_dropped ? 1u : 0u))
		strbuf_addf(&s->warnings, "%s: %zu row%s dropped, not frames (the first, line %s)\n", path,
			    s->rows_dropped, s->rows_dropped == 1 ? "" : "s", s->first_dropped);
	if (s->n_ft == 0)
		return 0;
	s->t_ns = xrealloc(NULL, (s->n_ft + 1) * sizeof(*s->t_ns));
	s->t_ns[0] = IMPORT_T0_NS;
	for (size_t i = 0; i < s->n_ft; i++) {
		if (s->ft_ns[i] > UINT64_MAX - s->t_ns[i]) {
			strbuf_addf(err, "%s: the frame times add up to more than 2^64 ns (%zu frames)", path,
				    s->n_ft);
			free(s->t_ns);
			s->t_ns = NULL;
			return -ERANGE;
		}
		s->t_ns[i + 1] = s->t_ns[i] + s->ft_ns[i];
	}
	s->n_presents = s->n_ft + 1;
	return 0;
}

/* The hook's frame file: its present times as they are. */
static int read_hook(const char *path, struct import_series *out, struct strbuf *err)
{
	struct hb_frames f;
	const char *why = NULL;
	int r = hb_frames_load(path, &f, &why);

	if (r == -EINVAL) {
		strbuf_addf(err, "%s: %s", path, why);
		return r;
	}
	if (r < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	out->t_ns = f.t_ns;
	out->n_presents = (size_t)f.n;
	out->rows = out->rows_kept = f.n ? (size_t)f.n - 1 : 0;
	f.t_ns = NULL;
	kvfile_addf(&out->info, "frames_dropped", "%llu", (unsigned long long)f.dropped);
	kvfile_addf(&out->info, "hook_processes", "%llu", (unsigned long long)f.hooked_procs);
	hb_frames_release(&f);
	return 0;
}

int import_read(enum import_format f, const char *path, const struct import_opts *o,
		struct import_series *out, char **source, struct strbuf *err)
{
	static const struct import_opts defaults = IMPORT_OPTS_DEFAULT;
	char *file = NULL, *text = NULL;
	struct stat st;
	size_t len = 0;
	int r;

	if (!o)
		o = &defaults;
	out->format = import_format_name(f);
	if (stat(path, &st) < 0) {
		r = -errno;
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
		return r;
	}
	/* Mesa names the file after the graph: "frametime (ms)" with '_' for ' ' */
	if (f == IMPORT_GALLIUM_HUD && S_ISDIR(st.st_mode))
		file = xasprintf("%s/frametime_(ms)", path);
	else
		file = xstrdup(path);
	if (f == IMPORT_HOOK) {
		r = read_hook(file, out, err);
		goto out;
	}
	r = read_file(file, &text, &len);
	if (r < 0) {
		strbuf_addf(err, "cannot read '%s': %s", file, strerror(-r));
		goto out;
	}
	switch (f) {
	case IMPORT_MANGOHUD:
		r = import_mangohud_parse(text, len, file, o, out, err);
		break;
	case IMPORT_PRESENTMON:
	case IMPORT_OCAT:
	case IMPORT_FRAMEVIEW:
		r = import_presentmon_parse(text, len, file, o, out, err);
		break;
	case IMPORT_GALLIUM_HUD:
		r = import_gallium_parse(text, len, file, o, out, err);
		break;
	case IMPORT_CAPFRAMEX:
		r = import_capframex_parse(text, len, file, o, out, err);
		break;
	default:
		r = -EINVAL;
		strbuf_addf(err, "%s: unknown format", file);
	}
	if (r == 0)
		import_summary_beside(file, out);
out:
	free(text);
	if (r == 0 && source)
		*source = file;
	else
		free(file);
	return r;
}

void import_series_describe(const struct import_series *s, const char *path,
			    const char *source_file, struct kvfile *bench)
{
	char hex[HB_SHA256_HEX_LEN + 1], rows[32];

	kvfile_set(bench, "frame_source", s->format);
	kvfile_set(bench, "frame_source_kind", s->interval ? "interval" : "frames");
	kvfile_set(bench, "source_file", source_file);
	if (sha256_file_hex(path, hex) == 0)
		kvfile_set(bench, "source_sha256", hex);
	for (size_t i = 0; i < s->info.n; i++) {
		char *key = xasprintf("log.%s", s->info.items[i].key);

		if (kvfile_valid_key(key))
			kvfile_set(bench, key, s->info.items[i].value);
		free(key);
	}
	snprintf(rows, sizeof(rows), "%zu", s->rows);
	kvfile_set(bench, "log_rows", rows);
	if (s->format && strcmp(s->format, "hook") == 0)
		return;
	snprintf(rows, sizeof(rows), "%zu", s->rows_dropped);
	kvfile_set(bench, "log.rows_dropped", rows);
	if (s->first_dropped)
		kvfile_set(bench, "log.first_dropped", s->first_dropped);
}
