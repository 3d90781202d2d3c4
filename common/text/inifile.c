/*
 * The INI adapter over inih (contract in inifile.h).
 *
 * inih reads through read_line() below, one line of the text per call as
 * fgets would give it. The line it gets is never a comment, a blank line
 * nor a section header (those become an empty line: inih does nothing
 * with it), never starts with a blank, and a "key = value" line too long
 * for inih's buffer reaches it as "key =" while its value waits in
 * long_value for on_pair(). So inih splits pairs and strips their
 * comments, and everything it does not tell its handler is done here.
 */
#include "text/inifile.h"

#include <ini.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UTF8_BOM "\xef\xbb\xbf"

struct ini {
	const struct ini_format *f;
	void *user;
	const char *text;       /* what is left to read */
	const char *end;        /* the end of the text */
	int line;               /* the line inih is working on */
	char *section;          /* the last section's name, NULL before one */
	char *long_value;       /* this line's value, when inih got "key =" */
	bool failed;
	int err_line;           /* 0: the error is not on one line */
	struct strbuf msg;
};

static int vfail_at(struct ini *ini, int line, const char *fmt, va_list ap)
{
	if (ini->failed)
		return -EINVAL;
	ini->failed = true;
	ini->err_line = line;
	strbuf_vaddf(&ini->msg, fmt, ap);
	return -EINVAL;
}

int ini_fail_at(struct ini *ini, int line, const char *fmt, ...)
{
	va_list ap;
	int e;

	va_start(ap, fmt);
	e = vfail_at(ini, line, fmt, ap);
	va_end(ap);
	return e;
}

int ini_fail(struct ini *ini, const char *fmt, ...)
{
	va_list ap;
	int e;

	va_start(ap, fmt);
	e = vfail_at(ini, ini->line, fmt, ap);
	va_end(ap);
	return e;
}

int ini_line(const struct ini *ini)
{
	return ini->line;
}

/* A callback's result: a failure it did not report itself still fails. */
static void callback_done(struct ini *ini, int r)
{
	if (r < 0 && !ini->failed)
		ini_fail(ini, "%s", strerror(-r));
}

/* A "[...]" line (s starts with '['; len excludes the line end). */
static void begin_section(struct ini *ini, const char *s, size_t len)
{
	const char *close = memchr(s, ']', len), *rest, *name = s + 1, *name_end = close;

	if (!ini->f->section) {
		ini_fail(ini, "%s", ini->f->expected);
		return;
	}
	if (!close) {
		ini_fail(ini, "missing ']' in section header");
		return;
	}
	for (rest = close + 1; rest < s + len && isspace((unsigned char)*rest); rest++)
		;
	if (rest < s + len && *rest != ';' && *rest != '#') {
		ini_fail(ini, "unexpected text after section header");
		return;
	}
	/* blanks around the name are isspace() ones, as before and after the
	 * brackets (recipes took "[recipe\v]" before the adapter) */
	while (name < close && isspace((unsigned char)*name))
		name++;
	while (name_end > name && isspace((unsigned char)name_end[-1]))
		name_end--;
	free(ini->section);
	ini->section = xstrndup(name, (size_t)(name_end - name));
	callback_done(ini, ini->f->section(ini, ini->user, ini->section));
}

/* A "key = value" line longer than inih's buffer: inih gets "key =", and
 * the value, found as inih would find it (the first '=' or ':' ends the
 * key, a ';' after a blank starts a comment, blanks stripped), waits in
 * long_value for on_pair(). */
static char *pass_long_line(struct ini *ini, char *buf, int num, const char *s, size_t len)
{
	const char *v, *v_end;
	size_t n;
	bool was_blank = false;

	for (n = 0; n < len; n++) {
		if (s[n] == '=' || s[n] == ':' || (was_blank && s[n] == ';'))
			break;
		was_blank = isspace((unsigned char)s[n]);
	}
	if (n == len || s[n] == ';') {
		ini_fail(ini, "%s", ini->f->expected);
		return NULL;
	}
	if (n + 3 > (size_t)num) {
		ini_fail(ini, "line too long");
		return NULL;
	}
	memcpy(buf, s, n);
	memcpy(buf + n, "=", 2);

	was_blank = false;
	for (v = s + n + 1, v_end = v; v_end < s + len; v_end++) {
		if (was_blank && *v_end == ';')
			break;
		was_blank = isspace((unsigned char)*v_end);
	}
	while (v < v_end && isspace((unsigned char)*v))
		v++;
	while (v_end > v && isspace((unsigned char)v_end[-1]))
		v_end--;
	ini->long_value = xstrndup(v, (size_t)(v_end - v));
	return buf;
}

/* inih's reader: one line of the text per call, like fgets. */
static char *read_line(char *buf, int num, void *stream)
{
	struct ini *ini = stream;
	const char *s = ini->text, *nl;
	size_t len;

	free(ini->long_value);
	ini->long_value = NULL;
	if (ini->failed || s == ini->end)
		return NULL;
	if (num < 4) {
		ini_fail(ini, "inih's line buffer is too small (%d bytes)", num);
		return NULL;
	}
	nl = memchr(s, '\n', (size_t)(ini->end - s));
	if (!nl)
		nl = ini->end;
	ini->text = nl < ini->end ? nl + 1 : nl;
	ini->line++;
	if (ini->line == 1 && nl - s >= 3 && !memcmp(s, UTF8_BOM, 3))
		s += 3;
	while (s < nl && isspace((unsigned char)*s))
		s++;
	len = (size_t)(nl - s);

	if (len > 0 && *s == '[')
		begin_section(ini, s, len);
	if (len == 0 || *s == '#' || *s == ';' || *s == '[') {
		memcpy(buf, "\n", 2);
		return buf;
	}
	/* a CRLF line's '\r' is its line end, not one of its characters */
	if (ini->f->max_line && len - (s[len - 1] == '\r') > ini->f->max_line) {
		ini_fail(ini, "line too long (at most %zu characters%s)", ini->f->max_line,
			 ini->f->too_long_hint ? ini->f->too_long_hint : "");
		return NULL;
	}
	if (len + 2 < (size_t)num) {
		memcpy(buf, s, len);
		memcpy(buf + len, "\n", 2);
		return buf;
	}
	return pass_long_line(ini, buf, num, s, len);
}

/* inih's handler, once per "key = value" line. The section inih passes is
 * always empty: it never sees a section header. */
static int on_pair(void *user, const char *section, const char *name, const char *value)
{
	struct ini *ini = user;

	if (ini->failed)
		return 1;
	if (ini->long_value)
		value = ini->long_value;
	if (!value) {
		ini_fail(ini, "%s", ini->f->expected);
		return 1;
	}
	callback_done(ini, ini->f->key(ini, ini->user, ini->section, name, value));
	/* nonzero: inih would take a zero as an error of its own on this line */
	return 1;
}

/* A NUL byte in text: -EINVAL with "PATH:LINE: NUL byte in WHAT" in err
 * (a parser handed the text would stop there and miss the rest), else 0. */
static int refuse_nul(const char *text, size_t len, const char *path, const char *what,
		      struct strbuf *err)
{
	const char *nul = memchr(text, '\0', len);
	int line = 1;

	if (!nul)
		return 0;
	for (const char *c = text; c < nul; c++)
		line += *c == '\n';
	if (err)
		strbuf_addf(err, "%s:%d: NUL byte in %s", path, line, what);
	return -EINVAL;
}

int ini_parse_text(const struct ini_format *f, const char *text, size_t len, const char *path,
		   void *user, struct strbuf *err)
{
	struct ini ini = { .f = f, .user = user, .text = text, .end = text + len };
	int bad_line, e = refuse_nul(text, len, path, f->what, err);

	if (e < 0)
		return e;
	strbuf_init(&ini.msg);
	bad_line = ini_parse_stream(read_line, &ini, on_pair, &ini);
	if (bad_line == -2) {
		if (err)
			strbuf_addf(err, "%s: %s", path, strerror(ENOMEM));
		e = -ENOMEM;
		goto out;
	}
	/* inih reports a line without '=' itself, without calling on_pair;
	 * an earlier such line wins over our own error */
	if (bad_line > 0 && (!ini.failed || bad_line < ini.err_line)) {
		strbuf_reset(&ini.msg);
		ini.failed = false;
		ini_fail_at(&ini, bad_line, "%s", f->expected);
	}
	if (!ini.failed && f->end)
		callback_done(&ini, f->end(&ini, user));
	if (ini.failed) {
		e = -EINVAL;
		if (err && ini.err_line > 0)
			strbuf_addf(err, "%s:%d: %s", path, ini.err_line, ini.msg.buf);
		else if (err)
			strbuf_addf(err, "%s: %s", path, ini.msg.buf);
	}
out:
	free(ini.section);
	free(ini.long_value);
	strbuf_release(&ini.msg);
	return e;
}

int ini_file_read(const char *path, const char *what, char **text, size_t *len,
		  struct strbuf *err)
{
	char *t = NULL;
	size_t n;
	int e = read_file(path, &t, &n);

	if (e < 0) {
		if (err)
			strbuf_addf(err, "cannot read '%s': %s", path, strerror(-e));
		return e;
	}
	e = refuse_nul(t, n, path, what, err);
	if (e < 0) {
		free(t);
		return e;
	}
	*text = t;
	if (len)
		*len = n;
	return 0;
}

int ini_load(const struct ini_format *f, const char *path, void *user, struct strbuf *err)
{
	char *text;
	size_t len;
	int e = ini_file_read(path, f->what, &text, &len, err);

	if (e < 0)
		return e;
	e = ini_parse_text(f, text, len, path, user, err);
	free(text);
	return e;
}
