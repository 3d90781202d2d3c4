/*
 * key=value files (see kvfile.h).
 */
#include "text/kvfile.h"
#include "base/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const kvfile_bench_repeats[] = { "env", NULL };

void kvfile_init(struct kvfile *kf)
{
	memset(kf, 0, sizeof(*kf));
}

void kvfile_init_repeats(struct kvfile *kf, const char *const *repeats)
{
	kvfile_init(kf);
	kf->repeats = repeats;
}

/* Drops the pairs from index from on. */
static void kvfile_truncate(struct kvfile *kf, size_t from)
{
	for (size_t i = from; i < kf->n; i++) {
		free(kf->items[i].key);
		free(kf->items[i].value);
	}
	if (from < kf->n)
		kf->n = from;
}

void kvfile_release(struct kvfile *kf)
{
	const char *const *repeats = kf->repeats;

	kvfile_truncate(kf, 0);
	free(kf->items);
	kvfile_init_repeats(kf, repeats);
}

static void kvfile_push(struct kvfile *kf, char *key, char *value, int line)
{
	if (kf->n == kf->alloc) {
		kf->alloc = kf->alloc ? kf->alloc * 2 : 32;
		kf->items = xrealloc(kf->items, kf->alloc * sizeof(*kf->items));
	}
	kf->items[kf->n].key = key;
	kf->items[kf->n].value = value;
	kf->items[kf->n].line = line;
	kf->n++;
}

/* A key that would not read back is the caller's bug: one that comes from
 * outside data is checked before (kvfile_valid_key()). */
static void kvfile_check_key(const char *key)
{
	if (!kvfile_valid_key(key))
		abort(); /* a bug: the caller's key, not the file's */
}

void kvfile_add(struct kvfile *kf, const char *key, const char *value)
{
	kvfile_check_key(key);
	kvfile_push(kf, xstrdup(key), xstrdup(value ? value : ""), 0);
}

void kvfile_addf(struct kvfile *kf, const char *key, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	kvfile_check_key(key);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	kvfile_push(kf, xstrdup(key), strbuf_detach(&sb), 0);
}

void kvfile_set(struct kvfile *kf, const char *key, const char *value)
{
	for (size_t i = 0; i < kf->n; i++) {
		if (!strcmp(kf->items[i].key, key)) {
			free(kf->items[i].value);
			kf->items[i].value = xstrdup(value ? value : "");
			return;
		}
	}
	kvfile_add(kf, key, value);
}

const char *kvfile_get(const struct kvfile *kf, const char *key)
{
	for (size_t i = 0; i < kf->n; i++)
		if (!strcmp(kf->items[i].key, key))
			return kf->items[i].value;
	return NULL;
}

bool kvfile_valid_key(const char *key)
{
	if (!key || !*key)
		return false;
	for (const char *p = key; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

/* Whether kf->repeats lets this key appear more than once. */
static bool kvfile_key_repeats(const struct kvfile *kf, const char *key)
{
	for (const char *const *r = kf->repeats; r && *r; r++)
		if (!strcmp(*r, key))
			return true;
	return false;
}

struct key_at {
	const char *key;
	size_t i;
};

static int key_at_cmp(const void *a, const void *b)
{
	const struct key_at *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The first pair (by position) that repeats a key kf->repeats does not
 * name, from index from on: its index, and in *first the index of the pair
 * it repeats; or -1 when there is none. Sorted by key, then position, so a
 * file of many lines costs n log n. */
static long kvfile_find_repeat(const struct kvfile *kf, size_t from, size_t *first)
{
	struct key_at *at;
	long found = -1;
	size_t g = 0;

	if (kf->n < 2 || from >= kf->n)
		return -1;
	at = xrealloc(NULL, kf->n * sizeof(*at));
	for (size_t i = 0; i < kf->n; i++)
		at[i] = (struct key_at){ kf->items[i].key, i };
	qsort(at, kf->n, sizeof(*at), key_at_cmp);
	for (size_t j = 1; j <= kf->n; j++) {
		if (j < kf->n && !strcmp(at[j].key, at[g].key))
			continue;
		/* at[g .. j) hold one key, in file order */
		if (j - g > 1 && !kvfile_key_repeats(kf, at[g].key)) {
			for (size_t k = g + 1; k < j; k++) {
				if (at[k].i < from)
					continue;
				if (found < 0 || at[k].i < (size_t)found) {
					found = (long)at[k].i;
					*first = at[g].i;
				}
				break;
			}
		}
		g = j;
	}
	free(at);
	return found;
}

static char *unescape(const char *s, size_t len, bool *ok)
{
	struct strbuf sb = STRBUF_INIT;

	*ok = true;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\\') {
			strbuf_addch(&sb, s[i]);
			continue;
		}
		if (++i == len) {
			*ok = false;
			break;
		}
		if (s[i] == 'n')
			strbuf_addch(&sb, '\n');
		else if (s[i] == 'r')
			strbuf_addch(&sb, '\r');
		else if (s[i] == '\\')
			strbuf_addch(&sb, '\\');
		else
			*ok = false;
	}
	return strbuf_detach(&sb);
}

int kvfile_parse_len(struct kvfile *kf, const char *text, size_t size, int *err_line,
		     const char **why)
{
	const char *p = text, *end = text + size;
	const char *what = "not a key=value line";
	size_t from = kf->n, first;
	long rep;
	int line = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
		const char *eq;
		char *key, *value;
		bool ok;

		line++;
		/* a NUL would end the line for every string function after
		 * this: what follows it (an appended invalid=1) would be lost */
		if (memchr(p, '\0', len)) {
			what = "NUL byte";
			goto bad;
		}
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (len == 0 || p[0] == '#')
			goto next;
		eq = memchr(p, '=', len);
		if (!eq)
			goto bad;
		key = xstrndup(p, (size_t)(eq - p));
		if (!kvfile_valid_key(key)) {
			free(key);
			goto bad;
		}
		value = unescape(eq + 1, len - (size_t)(eq + 1 - p), &ok);
		if (!ok) {
			free(key);
			free(value);
			goto bad;
		}
		kvfile_push(kf, key, value, line);
next:
		/* past the newline, or to the end: never by len, which a
		 * carriage return made one short */
		p = eol ? eol + 1 : end;
	}
	rep = kvfile_find_repeat(kf, from, &first);
	if (rep >= 0) {
		line = kf->items[rep].line;
		if (kf->items[first].line > 0)
			snprintf(kf->why, sizeof(kf->why), "key '%.64s' repeats line %d",
				 kf->items[rep].key, kf->items[first].line);
		else
			snprintf(kf->why, sizeof(kf->why), "key '%.64s' repeats",
				 kf->items[rep].key);
		what = kf->why;
		kvfile_truncate(kf, (size_t)rep);
		goto bad;
	}
	return 0;
bad:
	if (err_line)
		*err_line = line;
	if (why)
		*why = what;
	return -EINVAL;
}

int kvfile_parse(struct kvfile *kf, const char *text, int *err_line)
{
	return kvfile_parse_len(kf, text, strlen(text), err_line, NULL);
}

int kvfile_read(struct kvfile *kf, const char *path, int *err_line)
{
	char *text;
	size_t len;
	int r = read_file(path, &text, &len);

	if (r < 0)
		return r;
	r = kvfile_parse_len(kf, text, len, err_line, NULL);
	free(text);
	return r;
}

int kvfile_load(struct kvfile *kf, const char *path, struct strbuf *err)
{
	const char *why = NULL;
	char *text;
	size_t len;
	int line = 0, r = read_file(path, &text, &len);

	if (r < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	r = kvfile_parse_len(kf, text, len, &line, &why);
	if (r < 0)
		strbuf_addf(err, "%s:%d: %s", path, line, why);
	free(text);
	return r;
}

char *kvfile_format(const struct kvfile *kf)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < kf->n; i++) {
		strbuf_addstr(&sb, kf->items[i].key);
		strbuf_addch(&sb, '=');
		for (const char *v = kf->items[i].value; *v; v++) {
			if (*v == '\n')
				strbuf_addstr(&sb, "\\n");
			else if (*v == '\r')
				strbuf_addstr(&sb, "\\r");
			else if (*v == '\\')
				strbuf_addstr(&sb, "\\\\");
			else
				strbuf_addch(&sb, *v);
		}
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb);
}

int kvfile_write(const struct kvfile *kf, const char *path)
{
	size_t first;
	char *text;
	int r;

	if (kvfile_find_repeat(kf, 0, &first) >= 0)
		return -EINVAL;
	text = kvfile_format(kf);
	r = write_file_atomic(path, text, strlen(text), 0644);

	free(text);
	return r;
}
