/*
 * Shell-like word splitting without a shell (see argv.h).
 */
#include "text/argv.h"
#include "base/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void argv_init(struct argv_list *a)
{
	a->v = zalloc(sizeof(char *));
	a->n = 0;
	a->alloc = 1;
}

void argv_release(struct argv_list *a)
{
	if (!a->v)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->alloc = 0;
}

void argv_push(struct argv_list *a, const char *word)
{
	if (a->n + 1 >= a->alloc) {
		a->alloc = a->alloc < 8 ? 8 : a->alloc * 2;
		a->v = xrealloc(a->v, a->alloc * sizeof(char *));
	}
	a->v[a->n++] = xstrdup(word);
	a->v[a->n] = NULL;
}

void argv_pushf(struct argv_list *a, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	argv_push(a, sb.buf ? sb.buf : "");
	strbuf_release(&sb);
}

int argv_split(struct argv_list *a, const char *s, const char **why)
{
	struct strbuf w = STRBUF_INIT;
	bool in_word = false;
	int r = 0;

	for (const char *p = s; ; p++) {
		char c = *p;

		if (c == '\0' || c == ' ' || c == '\t' || c == '\n') {
			if (in_word)
				argv_push(a, w.buf ? w.buf : "");
			strbuf_reset(&w);
			in_word = false;
			if (c == '\0')
				break;
			continue;
		}
		in_word = true;
		if (c == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end) {
				*why = "unclosed single quote";
				r = -EINVAL;
				break;
			}
			strbuf_add(&w, p + 1, (size_t)(end - p - 1));
			p = end;
		} else if (c == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$'))
					p++;
				strbuf_addch(&w, *p);
			}
			if (!*p) {
				*why = "unclosed double quote";
				r = -EINVAL;
				break;
			}
		} else if (c == '\\') {
			if (!p[1]) {
				*why = "backslash at the end of the line";
				r = -EINVAL;
				break;
			}
			strbuf_addch(&w, *++p);
		} else {
			strbuf_addch(&w, c);
		}
	}
	strbuf_release(&w);
	return r;
}

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-./=:,+@%", *s))
			return true;
	return false;
}

char *argv_join(char *const *v)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; v[i]; i++) {
		if (i)
			strbuf_addch(&sb, ' ');
		if (!needs_quotes(v[i])) {
			strbuf_addstr(&sb, v[i]);
			continue;
		}
		strbuf_addch(&sb, '\'');
		for (const char *p = v[i]; *p; p++) {
			if (*p == '\'')
				strbuf_addstr(&sb, "'\\''");
			else
				strbuf_addch(&sb, *p);
		}
		strbuf_addch(&sb, '\'');
	}
	return strbuf_detach(&sb);
}
