/*
 * The frame-log importers' common part: format names, the series, the
 * line reader, and import_read() which finds and reads the file of a
 * format (the command and the runner call it). Parsers per format live in
 * import-mangohud.c, import-presentmon.c and import-gallium.c; the hook's
 * own frame file is read with common/frames.c.
 */
#include "import-internal.h"

#include "frames.h"
#include "hash.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const format_names[IMPORT_FORMAT_COUNT] = {
	[IMPORT_MANGOHUD] = "mangohud",
	[IMPORT_GALLIUM_HUD] = "gallium-hud",
	[IMPORT_PRESENTMON] = "presentmon",
	[IMPORT_HOOK] = "hook",
};

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
}

void import_series_release(struct import_series *s)
{
	if (!s)
		return;
	free(s->t_ns);
	free(s->ft_ns);
	kvfile_release(&s->info);
	import_series_init(s);
}

void lines_init(struct lines *l, const char *text, size_t len)
{
	memset(l, 0, sizeof(*l));
	l->p = text;
	l->end = text + len;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		l->p += 3;
}

void lines_release(struct lines *l)
{
	free(l->buf);
	l->buf = NULL;
}

char *lines_next(struct lines *l)
{
	const char *nl;
	size_t n;

	if (l->p >= l->end)
		return NULL;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	n = nl ? (size_t)(nl - l->p) : (size_t)(l->end - l->p);
	if (n + 1 > l->alloc) {
		l->alloc = n + 64;
		l->buf = xrealloc(l->buf, l->alloc);
	}
	memcpy(l->buf, l->p, n);
	if (n && l->buf[n - 1] == '\r')
		n--;
	l->buf[n] = '\0';
	l->p = nl ? nl + 1 : l->end;
	l->no++;
	return l->buf;
}

size_t csv_split(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (n < max)
			fields[n++] = str_strip(p);
		if (!comma)
			break;
		p = comma + 1;
	}
	return n;
}

void import_push_frame(struct import_series *s, uint64_t ns)
{
	if (s->n_ft == s->alloc_ft) {
		s->alloc_ft = s->alloc_ft ? 2 * s->alloc_ft : 1024;
		s->ft_ns = xrealloc(s->ft_ns, s->alloc_ft * sizeof(*s->ft_ns));
	}
	s->ft_ns[s->n_ft++] = ns;
}

int import_ms_to_ns(double ms, uint64_t *ns)
{
	/* a frame of more than a day is no frame time */
	if (!(ms > 0) || ms > 86400e3)
		return -ERANGE;
	*ns = (uint64_t)llround(ms * 1e6);
	if (*ns == 0)
		*ns = 1;
	return 0;
}

void import_finish(struct import_series *s)
{
	free(s->t_ns);
	s->t_ns = NULL;
	s->n_presents = 0;
	s->rows_kept = s->n_ft;
	if (s->n_ft == 0)
		return;
	s->t_ns = xrealloc(NULL, (s->n_ft + 1) * sizeof(*s->t_ns));
	s->t_ns[0] = IMPORT_T0_NS;
	for (size_t i = 0; i < s->n_ft; i++)
		s->t_ns[i + 1] = s->t_ns[i] + s->ft_ns[i];
	s->n_presents = s->n_ft + 1;
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
		r = import_mangohud_parse(text, len, file, out, err);
		break;
	case IMPORT_PRESENTMON:
		r = import_presentmon_parse(text, len, file, o, out, err);
		break;
	case IMPORT_GALLIUM_HUD:
		r = import_gallium_parse(text, len, file, o, out, err);
		break;
	default:
		r = -EINVAL;
		strbuf_addf(err, "%s: unknown format", file);
	}
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
}
