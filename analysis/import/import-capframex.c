/*
 * CapFrameX's captures (github.com/CXWorld/CapFrameX), its two layouts:
 *
 * CSV (what it wrote up to 1.5 and still reads): lines "//Key=Value" with
 * the system it ran on (GameName, Processor, GPU, ...), then PresentMon's
 * CSV of the one process it captured.
 *
 * JSON (its own format since 1.5): one object, "Info" (the same facts,
 * keys without blanks: SystemRam, BaseDriverVersion, ...) and "Runs", each
 * run with "CaptureData", PresentMon's columns as arrays
 * ("MsBetweenPresents": [...]), and maybe sensor data (not read).
 *
 * Frame times are MsBetweenPresents, every row, as CapFrameX computes its
 * own figures (CapFrameX.Statistics.NetStandard/SessionExtensions.cs reads
 * Runs[].CaptureData.MsBetweenPresents). Formats as read from CapFrameX's
 * source (Data.Session/Classes/Session*.cs, Data/FileRecordInfo.cs); layouts
 * in docs/formats.md "Imported frame logs".
 */
#include "import/import-internal.h"

#include <json-c/json.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#define JSON_MAX_DEPTH 64 /* a capture nests 4 deep; sensor data a little more */

/* CapFrameX's names of a capture's facts (CSV header key, JSON Info key)
 * and ours (bench.txt log.<key>). Keys not listed become log.<key> in
 * lower case with '_' for what is not a letter or digit. */
static const struct {
	const char *csv, *json, *ours;
} info_keys[] = {
	{ "GameName", "GameName", "game" },
	{ "ProcessName", "ProcessName", "process" },
	{ "CreationDate", "CreationDate", "capture_date" },
	{ "CreationTime", NULL, "capture_time" },
	{ "RecordTime", NULL, "record_time_s" },
	{ "Processor", "Processor", "cpu" },
	{ "GPU", "GPU", "gpu" },
	{ "OS", "OS", "os" },
	{ "Motherboard", "Motherboard", "motherboard" },
	{ "System RAM", "SystemRam", "ram" },
	{ "Base Driver Version", "BaseDriverVersion", "driver_base" },
	{ "GPU Driver Version", "GPUDriverVersion", "driver" },
	{ "Driver Package", "DriverPackage", "driver_package" },
	{ "GPU #", "GPUCount", "gpu_count" },
	{ "GPU Core Clock (MHz)", "GpuCoreClock", "gpu_core_clock_mhz" },
	{ "GPU Memory Clock (MHz)", "GpuMemoryClock", "gpu_memory_clock_mhz" },
	{ "GPU Memory (MB)", "GpuMemory", "gpu_memory_mb" },
	{ "Comment", "Comment", "comment" },
	{ "AppVersion", "AppVersion", "version" },
	{ "ApiInfo", "ApiInfo", "api" },
	{ "ResolutionInfo", "ResolutionInfo", "resolution" },
	{ "PresentationMode", "PresentationMode", "presentation_mode" },
};

/* Adds a fact under our name for CapFrameX's key (json: a JSON Info key,
 * else a CSV header key); control characters in the value become blanks so
 * bench.txt keeps one line a key. */
static void add_info(struct import_series *out, const char *key, bool json, const char *value)
{
	struct strbuf k = STRBUF_INIT;
	char *v = xstrdup(value);

	for (size_t i = 0; i < sizeof(info_keys) / sizeof(info_keys[0]); i++) {
		const char *theirs = json ? info_keys[i].json : info_keys[i].csv;

		if (theirs && strcmp(theirs, key) == 0) {
			strbuf_addstr(&k, info_keys[i].ours);
			break;
		}
	}
	if (k.len == 0) {
		for (const char *p = key; *p; p++) {
			if (isalnum((unsigned char)*p))
				strbuf_addch(&k, (char)tolower((unsigned char)*p));
			else if (k.len && k.buf[k.len - 1] != '_')
				strbuf_addch(&k, '_');
		}
		while (k.len && k.buf[k.len - 1] == '_')
			k.buf[--k.len] = '\0';
	}
	for (char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	if (k.len && *v)
		kvfile_set(&out->info, k.buf, v);
	strbuf_release(&k);
	free(v);
}

/* The "//Key=Value" lines at the top of a CSV capture: into info. *body
 * and *line are set to the first line after them. */
static int csv_header_lines(const char *text, size_t len, const char *path,
			    struct import_series *out, const char **body, int *line,
			    struct strbuf *err)
{
	const char *p = text, *end = text + len;

	*line = 1;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (end - p >= 2 && p[0] == '/' && p[1] == '/') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *eq;
		char *key, *value;

		if (eol > p && eol[-1] == '\r')
			eol--;
		eq = memchr(p + 2, '=', (size_t)(eol - p - 2));
		if (!eq || eq == p + 2 || memchr(p, '\0', (size_t)(eol - p))) {
			strbuf_addf(err, "%s:%d: expected a //Key=Value line, found '%.*s'", path, *line,
				    (int)(eol - p > 40 ? 40 : eol - p), p);
			return -EINVAL;
		}
		key = xstrndup(p + 2, (size_t)(eq - p - 2));
		value = xstrndup(eq + 1, (size_t)(eol - eq - 1));
		add_info(out, key, false, value);
		free(key);
		free(value);
		if (!nl) {
			p = end;
			break;
		}
		p = nl + 1;
		(*line)++;
	}
	*body = p;
	return 0;
}

static int find_column(const struct csv_record *rec, const char *name)
{
	for (size_t i = 0; i < rec->n; i++)
		if (strcasecmp(rec->f[i], name) == 0)
			return (int)i;
	return -1;
}

static int parse_csv(const char *text, size_t len, const char *path, struct import_series *out,
		     struct strbuf *err)
{
	struct csv_record rec;
	struct csv c;
	const char *body;
	int r, line, ft = -1, app = -1;
	size_t nh = 0;

	r = csv_header_lines(text, len, path, out, &body, &line, err);
	if (r < 0)
		return r;
	csv_init(&c, body, len - (size_t)(body - text), IMPORT_CSV_FLAGS);
	c.line = line; /* the reader counts from where it starts */
	while ((r = csv_next(&c, &rec)) > 0) {
		double ms;

		if (ft < 0) {
			ft = find_column(&rec, "MsBetweenPresents");
			if (ft < 0) {
				strbuf_addf(err, "%s:%d: expected a header with a MsBetweenPresents column, found '%.40s'",
					    path, rec.line, rec.f[0]);
				r = -EINVAL;
				goto out;
			}
			app = find_column(&rec, "Application");
			nh = rec.n;
			continue;
		}
		out->rows++;
		if ((size_t)ft >= rec.n) {
			if (rec.cut) {
				import_drop_cut(out, path, rec.line, "fewer fields than the header");
				continue;
			}
			strbuf_addf(err, "%s:%d: expected %zu fields as the header says, found %zu", path,
				    rec.line, nh, rec.n);
			r = -EINVAL;
			goto out;
		}
		if (import_parse_value(rec.f[ft], &ms) < 0) {
			if (rec.cut) {
				import_drop_cut(out, path, rec.line, "a number cut in two");
				continue;
			}
			strbuf_addf(err, "%s:%d: expected a number in MsBetweenPresents, found '%.40s'", path,
				    rec.line, rec.f[ft]);
			r = -EINVAL;
			goto out;
		}
		if (out->rows == 1 && app >= 0 && (size_t)app < rec.n && *rec.f[app])
			kvfile_set(&out->info, "application", rec.f[app]);
		import_frame_ms(out, rec.line, ms, rec.f[ft]);
	}
	if (r < 0) {
		import_csv_error(&c, path, err);
		goto out;
	}
	if (ft < 0) {
		strbuf_addf(err, "%s:%d: expected a header with a MsBetweenPresents column, found the end of the file",
			    path, c.line);
		r = -EINVAL;
		goto out;
	}
	kvfile_set(&out->info, "layout", "csv");
	r = 0;
out:
	csv_release(&c);
	return r;
}

/* The line of byte offset off in text, from 1. */
static int line_of(const char *text, size_t off)
{
	int line = 1;

	for (size_t i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

/* Info's AppVersion: a string, or (Json.NET's form of System.Version) an
 * object of Major, Minor, Build, Revision. */
static void add_version(struct import_series *out, struct json_object *v)
{
	static const char *const parts[] = { "Major", "Minor", "Build", "Revision" };
	struct strbuf sb = STRBUF_INIT;

	if (json_object_is_type(v, json_type_object)) {
		for (size_t i = 0; i < 4; i++) {
			struct json_object *n;

			if (!json_object_object_get_ex(v, parts[i], &n) || json_object_get_int(n) < 0)
				break;
			strbuf_addf(&sb, "%s%d", i ? "." : "", json_object_get_int(n));
		}
		if (sb.len)
			kvfile_set(&out->info, "version", sb.buf);
	} else if (json_object_is_type(v, json_type_string)) {
		add_info(out, "AppVersion", true, json_object_get_string(v));
	}
	strbuf_release(&sb);
}

static void json_info(struct import_series *out, struct json_object *info)
{
	json_object_object_foreach(info, key, v) {
		if (strcmp(key, "AppVersion") == 0)
			add_version(out, v);
		else if (json_object_is_type(v, json_type_string) || json_object_is_type(v, json_type_int) ||
			 json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_boolean))
			add_info(out, key, true, json_object_get_string(v));
	}
}

/* Run which (from 1) of the capture: its frame times pushed; a dropped
 * one is named by its place among the frames read so far (a JSON value has
 * no line). */
static int json_run(struct json_object *run, const char *path, unsigned which,
		    struct import_series *out, struct strbuf *err)
{
	struct json_object *cd, *ft, *rt;
	size_t n;

	if (!json_object_is_type(run, json_type_object) ||
	    !json_object_object_get_ex(run, "CaptureData", &cd) || !json_object_is_type(cd, json_type_object) ||
	    !json_object_object_get_ex(cd, "MsBetweenPresents", &ft) || !json_object_is_type(ft, json_type_array)) {
		strbuf_addf(err, "%s: expected run %u to hold CaptureData.MsBetweenPresents (an array)", path, which);
		return -EINVAL;
	}
	if (json_object_object_get_ex(run, "PresentMonRuntime", &rt) && json_object_is_type(rt, json_type_string))
		add_info(out, "PresentMonRuntime", true, json_object_get_string(rt));
	n = json_object_array_length(ft);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(ft, i);
		/* no line to name: the frame's place stands for it */
		int at = out->rows < INT_MAX ? (int)out->rows + 1 : INT_MAX;

		out->rows++;
		if (json_object_is_type(e, json_type_double) || json_object_is_type(e, json_type_int))
			import_frame_ms(out, at, json_object_get_double(e), json_object_to_json_string(e));
		else
			import_drop(out, at, "frame time %s is not a number", json_object_to_json_string(e));
	}
	return 0;
}

static int parse_json(const char *text, size_t len, const char *path, const struct import_opts *o,
		      struct import_series *out, struct strbuf *err)
{
	struct json_tokener *tok;
	struct json_object *top = NULL, *runs, *info;
	enum json_tokener_error e;
	unsigned which = o->run;
	size_t nruns, end;
	int r = -EINVAL;

	if (len > INT_MAX) {
		strbuf_addf(err, "%s: a JSON capture of %zu bytes is past what is read (2 GiB)", path, len);
		return -E2BIG;
	}
	/* json-c takes no byte order mark; it holds no line break */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		len -= 3;
	}
	tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	if (!tok)
		return -ENOMEM;
	top = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (e == json_tokener_continue) {
		strbuf_addf(err, "%s:%d: the JSON ends before its object does (cut short?)", path,
			    line_of(text, len));
		goto out;
	}
	if (e != json_tokener_success) {
		strbuf_addf(err, "%s:%d: bad JSON: %s", path, line_of(text, end), json_tokener_error_desc(e));
		goto out;
	}
	while (end < len && isspace((unsigned char)text[end]))
		end++;
	if (end < len) {
		strbuf_addf(err, "%s:%d: bad JSON: text after the capture's object", path, line_of(text, end));
		goto out;
	}
	if (!json_object_is_type(top, json_type_object) || !json_object_object_get_ex(top, "Runs", &runs) ||
	    !json_object_is_type(runs, json_type_array)) {
		strbuf_addf(err, "%s: expected a CapFrameX capture, an object with \"Runs\" (an array)", path);
		goto out;
	}
	nruns = json_object_array_length(runs);
	if (nruns == 0) {
		strbuf_addf(err, "%s: the capture has no runs", path);
		goto out;
	}
	if (which > nruns) {
		strbuf_addf(err, "%s: run %u asked for, the capture has %zu", path, which, nruns);
		goto out;
	}
	if (json_object_object_get_ex(top, "Info", &info) && json_object_is_type(info, json_type_object))
		json_info(out, info);
	/* every run, one after the other, as CapFrameX's own figures take
	 * them (they join the runs' frame times), unless one is asked for */
	for (size_t k = which ? which - 1 : 0; k < (which ? which : nruns); k++)
		if ((r = json_run(json_object_array_get_idx(runs, k), path, (unsigned)k + 1, out, err)) < 0)
			goto out;
	kvfile_set(&out->info, "layout", "json");
	/* set, not added: an Info key of the file may have taken the name */
	{
		char num[32];

		snprintf(num, sizeof(num), "%zu", nruns);
		kvfile_set(&out->info, "runs", num);
		snprintf(num, sizeof(num), "%u", which);
		kvfile_set(&out->info, "run", which ? num : "all");
	}
	if (nruns > 1 && which)
		strbuf_addf(&out->notes, "%s: run %u of the capture's %zu read (CapFrameX's own figures join "
			    "all its runs)\n", path, which, nruns);
	else if (nruns > 1)
		strbuf_addf(&out->notes, "%s: the capture's %zu runs read one after the other, as CapFrameX joins "
			    "them for its own figures; --run N reads one\n", path, nruns);
out:
	json_object_put(top);
	json_tokener_free(tok);
	return r;
}

int import_capframex_parse(const char *text, size_t len, const char *path,
			   const struct import_opts *o, struct import_series *out,
			   struct strbuf *err)
{
	static const struct import_opts defaults = IMPORT_OPTS_DEFAULT;
	size_t i = 0;
	int r;

	if (!o)
		o = &defaults;
	out->format = import_format_name(IMPORT_CAPFRAMEX);
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i < len && text[i] == '{')
		r = parse_json(text, len, path, o, out, err);
	else
		r = parse_csv(text, len, path, out, err);
	if (r < 0)
		return r;
	return import_finish(out, path, err);
}
