/*
 * Which tool wrote a frame log, told from the file itself, so that
 * `hitchbench import FILE` needs no --format for a log a user posted. Each
 * tool's file has marks no other tool's has (docs/formats.md "Imported
 * frame logs", "Telling the formats apart"):
 *
 *   hook        the frame file's magic, "HBFRAMES"
 *   gallium-hud a directory holding `frametime_(ms)`, or a file of that
 *               name (Mesa's dump has no header: one number a line)
 *   capframex   JSON whose object has "Runs" (or "CaptureData"), or a CSV
 *               opening with CapFrameX's "//Key=Value" lines
 *   mangohud    the system line pair ("os,cpu,gpu,ram,kernel,driver"), or
 *               a header with both `fps` and `frametime` (before 0.6)
 *   presentmon  a header with `Application` and a frame time column
 *               (`MsBetweenPresents`, `msBetweenPresents`, `FrameTime`):
 *     ocat      ... with OCAT's system columns (`Motherboard`, `Processor`)
 *     frameview ... with FrameView's (`GPU`, `CPU` and `Resolution`)
 *
 * Only the file's first IMPORT_DETECT_BYTES are read: every mark is in the
 * first lines. The reason is one line, said by the command.
 */
#include "import/import-internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/frames.h"

#define IMPORT_DETECT_BYTES 65536

/* Whether the header record holds the column name (read by the CSV reader
 * as the importers read it: blanks around a name, as FrameView pads its
 * header, are not part of it). */
static bool has_column(const struct csv_record *header, const char *name)
{
	for (size_t i = 0; i < header->n; i++)
		if (strcmp(header->f[i], name) == 0)
			return true;
	return false;
}

/* The first of names the header holds, or NULL. */
static const char *first_column_of(const struct csv_record *header, const char *const *names)
{
	for (; *names; names++)
		if (has_column(header, *names))
			return *names;
	return NULL;
}

/* The first record shown in a refusal, its fields joined by commas: at
 * most 60 characters of it. */
static void add_shown(struct strbuf *why, const struct csv_record *rec)
{
	struct strbuf line = STRBUF_INIT;

	for (size_t i = 0; i < rec->n; i++)
		strbuf_addf(&line, "%s%s", i ? "," : "", rec->f[i]);
	strbuf_addf(why, "'%.*s%s'", line.len > 60 ? 60 : (int)line.len, line.buf, line.len > 60 ? "..." : "");
	strbuf_release(&line);
}

int import_detect_text(const char *head, size_t len, const char *base, enum import_format *f,
		       struct strbuf *why)
{
	static const char *const frame_time_columns[] = { "MsBetweenPresents", "msBetweenPresents",
							  "FrameTime", NULL };
	static const char *const ocat_columns[] = { "Motherboard", "Processor", NULL };
	const char *p = head, *end = head + len, *col;
	struct csv_record rec;
	struct csv c;
	int r;

	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p < end && *p == '{') {
		if (memmem(p, (size_t)(end - p), "\"Runs\"", 6) || memmem(p, (size_t)(end - p), "\"CaptureData\"", 13)) {
			*f = IMPORT_CAPFRAMEX;
			strbuf_addstr(why, "a JSON object with CapFrameX's \"Runs\"");
			return 0;
		}
		strbuf_addstr(why, "a JSON file, but not a CapFrameX capture (no \"Runs\")");
		return -EINVAL;
	}
	if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
		*f = IMPORT_CAPFRAMEX;
		strbuf_addstr(why, "it opens with CapFrameX's '//Key=Value' lines");
		return 0;
	}
	if (strcmp(base, "frametime_(ms)") == 0) {
		*f = IMPORT_GALLIUM_HUD;
		strbuf_addstr(why, "the file is named as Mesa's GALLIUM_HUD_DUMP_DIR names its frame-time graph");
		return 0;
	}
	/* the first record as the readers take it (a BOM, CRLF, quotes) */
	csv_init(&c, head, len, IMPORT_CSV_FLAGS);
	r = csv_next(&c, &rec);
	if (r <= 0) {
		if (r == 0)
			strbuf_addstr(why, "the file is empty");
		else
			strbuf_addf(why, "its first line is no CSV record (line %d: %s)", c.err_line, c.why);
		csv_release(&c);
		return -EINVAL;
	}
	r = 0;
	if (has_column(&rec, "os") && has_column(&rec, "cpu") && has_column(&rec, "kernel")) {
		*f = IMPORT_MANGOHUD;
		strbuf_addstr(why, "its first line is MangoHud's system header (os,cpu,gpu,ram,kernel,...)");
	} else if (has_column(&rec, "fps") && has_column(&rec, "frametime")) {
		*f = IMPORT_MANGOHUD;
		strbuf_addstr(why, "its header has MangoHud's fps and frametime columns");
	} else if (has_column(&rec, "Application") && (col = first_column_of(&rec, frame_time_columns))) {
		const char *ocat = first_column_of(&rec, ocat_columns);

		if (ocat) {
			*f = IMPORT_OCAT;
			strbuf_addf(why, "PresentMon's columns (Application, %s) and OCAT's system column %s", col,
				    ocat);
		} else if (has_column(&rec, "GPU") && has_column(&rec, "CPU") && has_column(&rec, "Resolution")) {
			*f = IMPORT_FRAMEVIEW;
			strbuf_addf(why, "PresentMon's columns (Application, %s) and FrameView's GPU, CPU and "
					 "Resolution", col);
		} else {
			*f = IMPORT_PRESENTMON;
			strbuf_addf(why, "PresentMon's columns (Application, %s)", col);
		}
	} else {
		strbuf_addstr(why, "no tool's marks: its first line is ");
		add_shown(why, &rec);
		r = -EINVAL;
	}
	csv_release(&c);
	return r;
}

int import_detect(const char *path, enum import_format *f, struct strbuf *why)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char head[IMPORT_DETECT_BYTES];
	struct stat st;
	ssize_t n;
	int fd, r;

	if (stat(path, &st) < 0) {
		r = -errno;
		strbuf_addf(why, "cannot read '%s': %s", path, strerror(errno));
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		char *file = xasprintf("%s/frametime_(ms)", path);
		bool dump = access(file, F_OK) == 0;

		free(file);
		if (!dump) {
			strbuf_addf(why, "%s: a directory without a Gallium HUD frametime_(ms) file", path);
			return -EINVAL;
		}
		*f = IMPORT_GALLIUM_HUD;
		strbuf_addstr(why, "a GALLIUM_HUD_DUMP_DIR directory (it holds frametime_(ms))");
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		strbuf_addf(why, "cannot read '%s': %s", path, strerror(errno));
		return r;
	}
	n = read(fd, head, sizeof(head));
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0) {
		strbuf_addf(why, "cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	if ((size_t)n >= strlen(HB_FRAMES_MAGIC) && memcmp(head, HB_FRAMES_MAGIC, strlen(HB_FRAMES_MAGIC)) == 0) {
		*f = IMPORT_HOOK;
		strbuf_addstr(why, "a hitchbench frame file (its magic, " HB_FRAMES_MAGIC ")");
		return 0;
	}
	if (import_detect_text(head, (size_t)n, base, f, why) < 0) {
		struct strbuf msg = STRBUF_INIT;

		strbuf_addf(&msg, "%s: not a log of a format this version reads (%s); --format names one",
			    path, why->buf);
		strbuf_reset(why);
		strbuf_add(why, msg.buf, msg.len);
		strbuf_release(&msg);
		return -EINVAL;
	}
	return 0;
}
