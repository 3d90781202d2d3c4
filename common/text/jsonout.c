/*
 * The one JSON writer (jsonout.h): escaping that keeps any bytes valid
 * JSON, exact numbers, and a member-by-member writer for the documents
 * the commands print.
 */
#include "text/jsonout.h"
#include "base/util.h"

#include <inttypes.h>
#include <math.h>

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when s does not
 * start one (overlong forms, surrogates and code points past U+10FFFF are
 * invalid). Never reads past a NUL. */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void json_write_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*s) {
		size_t len = utf8_seq_len(s);

		if (*s == '"' || *s == '\\') {
			fputc('\\', out);
			fputc(*s, out);
		} else if (*s < 0x20) {
			fprintf(out, "\\u%04x", *s);
		} else if (len == 0) {
			fputs("\\ufffd", out);
			len = 1;
		} else {
			fwrite(s, 1, len, out);
		}
		s += len;
	}
	fputc('"', out);
}

void json_write_number(FILE *out, bool have, double v)
{
	char buf[32];

	if (!have || !isfinite(v)) {
		fputs("null", out);
		return;
	}
	format_double_exact(buf, sizeof(buf), v);
	fputs(buf, out);
}

void json_out_init(struct json_out *j, FILE *f)
{
	*j = (struct json_out){ .f = f };
}

static bool is_inline(const struct json_out *j)
{
	for (int d = 0; d <= j->depth && d < JSON_MAX_DEPTH; d++)
		if (j->inline_from[d])
			return true;
	return false;
}

/* The separator and key before a member of the open object or array. */
static void member(struct json_out *j, const char *key)
{
	if (j->depth > 0) {
		bool had = j->has_member[j->depth];

		j->has_member[j->depth] = true;
		if (is_inline(j))
			fputs(had ? ", " : "", j->f);
		else
			fprintf(j->f, "%s\n%*s", had ? "," : "", 2 * j->depth, "");
	}
	if (key) {
		json_write_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void begin(struct json_out *j, const char *key, char c, bool one_line)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH) {
		j->depth++;
		j->has_member[j->depth] = false;
		j->inline_from[j->depth] = one_line;
	}
}

static void end(struct json_out *j, char c)
{
	bool had = j->has_member[j->depth];

	if (!is_inline(j) && had)
		fprintf(j->f, "\n%*s", 2 * (j->depth - 1), "");
	j->inline_from[j->depth] = false;
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0)
		fputc('\n', j->f);
}

void json_object_begin(struct json_out *j, const char *key)
{
	begin(j, key, '{', false);
}

void json_object_begin_inline(struct json_out *j, const char *key)
{
	begin(j, key, '{', true);
}

void json_object_end(struct json_out *j)
{
	end(j, '}');
}

void json_array_begin(struct json_out *j, const char *key)
{
	begin(j, key, '[', false);
}

void json_array_begin_inline(struct json_out *j, const char *key)
{
	begin(j, key, '[', true);
}

void json_array_end(struct json_out *j)
{
	end(j, ']');
}

void json_string(struct json_out *j, const char *key, const char *s)
{
	member(j, key);
	json_write_string(j->f, s);
}

void json_number(struct json_out *j, const char *key, bool have, double v)
{
	member(j, key);
	json_write_number(j->f, have, v);
}

void json_int(struct json_out *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_uint(struct json_out *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_bool(struct json_out *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}
