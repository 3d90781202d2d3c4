/*
 * The one printer of messages (message.h): every line is formatted whole
 * and written with one call, so a helper's threads (the waker's sleepers,
 * the stall recorder's BPF reader) never interleave theirs.
 */
#include "base/exitcodes.h"
#include "base/message.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *program = "hitchbench";
static bool with_levels;
static void (*copy_fn)(enum msg_level level, const char *msg, void *data);
static void *copy_data;

void msg_program(const char *name)
{
	program = name;
}

void msg_levels(bool on)
{
	with_levels = on;
}

void msg_copy(void (*fn)(enum msg_level level, const char *msg, void *data), void *data)
{
	copy_fn = fn;
	copy_data = data;
}

static const char *level_word(enum msg_level level)
{
	switch (level) {
	case MSG_WARNING: return "warning: ";
	case MSG_NOTE: return "note: ";
	default: return "";
	}
}

__attribute__((format(printf, 2, 0)))
static void msg_vsay(enum msg_level level, const char *fmt, va_list ap)
{
	char small[1024], *msg = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1)) != NULL)
		vsnprintf(msg, (size_t)n + 1, fmt, again);
	else if (!msg)
		msg = small;  /* out of memory: the message cut at 1023 bytes */
	va_end(again);
	if (n < 0)
		msg = (char *)fmt;  /* an encoding error: the format, rather than nothing */
	if (with_levels)
		fprintf(stderr, "<%d>%s: %s%s\n", (int)level, program, level_word(level), msg);
	else
		fprintf(stderr, "%s: %s%s\n", program, level_word(level), msg);
	if (copy_fn)
		copy_fn(level, msg, copy_data);
	if (msg != small && msg != fmt)
		free(msg);
}

__attribute__((format(printf, 2, 3)))
static void msg_say(enum msg_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vsay(level, fmt, ap);
	va_end(ap);
}

void msg_lines(enum msg_level level, const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		msg_say(level, "%.*s", n, p);
		p += n + (nl != NULL);
	}
}

void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vsay(MSG_ERROR, fmt, ap);
	va_end(ap);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vsay(MSG_WARNING, fmt, ap);
	va_end(ap);
}

void note_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vsay(MSG_NOTE, fmt, ap);
	va_end(ap);
}

void info_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vsay(MSG_INFO, fmt, ap);
	va_end(ap);
}

int usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vsay(MSG_ERROR, fmt, ap);
	va_end(ap);
	fputs(usage, stderr);
	return HB_EXIT_USAGE;
}

int opt_int_range(const char *opt, const char *arg, int lo, int hi, int *out)
{
	if (safe_atoi(arg, out) == 0 && *out >= lo && *out <= hi)
		return 0;
	error_msg("%s: want a whole number in %d..%d, not '%s'", opt, lo, hi, arg);
	return HB_EXIT_USAGE;
}
