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
#include "import/import.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/frames.h"

#define IMPORT_DETECT_BYTES 65536

/* The first line of text (after a UTF-8 byte order mark), in a buffer the
 * caller frees; NULL for an empty text. Its line break and a CR before it
 * are not kept. */
static char *first_line(const char *text, size_t len)
{
	const char *end;

	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		text += 3, len -= 3;
	if (len == 0)
		return NULL;
	end = memchr(text, '\n', len);
	if (!end)
		end = text + len;
	if (end > text && end[-1] == '\r')
		end--;
	return xstrndup(text, (size_t)(end - text));
}

/* Whether the comma-separated header holds the column name (blanks
 * around a name are not part of it: FrameView pads its header). */
static bool has_column(const char *header, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = header; p;) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		while (l && isspace((unsigned char)*p))
			p++, l--;
		while (l && isspace((unsigned char)p[l - 1]))
			l--;
		if (l == n && memcmp(p, name, n) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* The first of names the header holds, or NULL. */
static const char *first_column_of(const char *header, const char *const *names)
{
	for (; *names; names++)
		if (has_column(header, *names))
			return *names;
	return NULL;
}

/* The line shown in a refusal: at most 60 characters of it. */
static void add_shown(struct strbuf *why, const char *line)
{
	size_t n = strlen(line);

	strbuf_addf(why, "'%.*s%s'", n > 60 ? 60 : (int)n, line, n > 60 ? "..." : "");
}

int import_detect_text(const char *head, size_t len, const char *base, enum import_format *f,
		       struct strbuf *why)
{
	static const char *const frame_time_columns[] = { "MsBetweenPresents", "msBetweenPresents",
							  "FrameTime", NULL };
	static const char *const ocat_columns[] = { "Motherboard", "Processor", NULL };
	const char *p = head, *end = head + len, *col;
	char *line;
	int r = 0;

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
	line = first_line(head, len);
	if (!line) {
		strbuf_addstr(why, "the file is empty");
		return -EINVAL;
	}
	if (has_column(line, "os") && has_column(line, "cpu") && has_column(line, "kernel")) {
		*f = IMPORT_MANGOHUD;
		strbuf_addstr(why, "its first line is MangoHud's system header (os,cpu,gpu,ram,kernel,...)");
	} else if (has_column(line, "fps") && has_column(line, "frametime")) {
		*f = IMPORT_MANGOHUD;
		strbuf_addstr(why, "its header has MangoHud's fps and frametime columns");
	} else if (has_column(line, "Application") && (col = first_column_of(line, frame_time_columns))) {
		const char *ocat = first_column_of(line, ocat_columns);

		if (ocat) {
			*f = IMPORT_OCAT;
			strbuf_addf(why, "PresentMon's columns (Application, %s) and OCAT's system column %s", col,
				    ocat);
		} else if (has_column(line, "GPU") && has_column(line, "CPU") && has_column(line, "Resolution")) {
			*f = IMPORT_FRAMEVIEW;
			strbuf_addf(why, "PresentMon's columns (Application, %s) and FrameView's GPU, CPU and "
					 "Resolution", col);
		} else {
			*f = IMPORT_PRESENTMON;
			strbuf_addf(why, "PresentMon's columns (Application, %s)", col);
		}
	} else {
		strbuf_addstr(why, "no tool's marks: its first line is ");
		add_shown(why, line);
		r = -EINVAL;
	}
	free(line);
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
