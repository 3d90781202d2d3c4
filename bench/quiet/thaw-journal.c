/*
 * The text of thaw.state (docs/formats.md, "Thaw journal"): formatting,
 * parsing and the escapes, apart from the locking and restoring in
 * thaw.c, so that the format can be read and tested on its own and
 * changes to it stay in one place. Pure: strings in, strings out.
 */
#include "quiet/thaw.h"
#include "quiet/thaw-internal.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
	[THAW_FILE_SETTING] = "file",
	[THAW_UNIT] = "unit",
	[THAW_VT] = "vt",
};

const char *thaw_kind_name(enum thaw_kind kind)
{
	return kind_names[kind];
}

/* Backslash escapes: a key also escapes blanks (it is followed by one), a
 * value (the rest of the line) keeps them. */
static void escape(struct strbuf *sb, const char *s, bool blanks)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\': strbuf_addstr(sb, "\\\\"); break;
		case '\n': strbuf_addstr(sb, "\\n"); break;
		case '\r': strbuf_addstr(sb, "\\r"); break;
		case '\t': strbuf_addstr(sb, blanks ? "\\t" : "\t"); break;
		case ' ': strbuf_addstr(sb, blanks ? "\\s" : " "); break;
		default: strbuf_addch(sb, *s);
		}
	}
}

static int unescape(const char *s, size_t len, char **out)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "");
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\\') {
			strbuf_addch(&sb, s[i]);
			continue;
		}
		if (++i == len)
			goto bad;
		switch (s[i]) {
		case '\\': strbuf_addch(&sb, '\\'); break;
		case 'n': strbuf_addch(&sb, '\n'); break;
		case 'r': strbuf_addch(&sb, '\r'); break;
		case 't': strbuf_addch(&sb, '\t'); break;
		case 's': strbuf_addch(&sb, ' '); break;
		default: goto bad;
		}
	}
	*out = strbuf_detach(&sb);
	return 0;
bad:
	strbuf_release(&sb);
	return -EINVAL;
}

char *thaw_format(const struct thaw_owner *o, const struct thaw_entry *e, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "hitchbench-thaw %d\n", THAW_FORMAT);
	strbuf_addf(&sb, "owner %d %llu %s\n", o->pid, o->starttime,
		    o->session == THAW_MANUAL ? "manual" : "batch");
	strbuf_addstr(&sb, "boot ");
	escape(&sb, o->boot_id ? o->boot_id : "", false);
	strbuf_addstr(&sb, "\nroot ");
	escape(&sb, o->root ? o->root : "", false);
	strbuf_addstr(&sb, "\nsince ");
	escape(&sb, o->since ? o->since : "", false);
	strbuf_addch(&sb, '\n');
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(&sb, "%s ", kind_names[e[i].kind]);
		escape(&sb, e[i].key, true);
		strbuf_addch(&sb, ' ');
		escape(&sb, e[i].value, false);
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb);
}

void thaw_entries_free(struct thaw_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].key);
		free(e[i].value);
	}
	free(e);
}

void thaw_owner_release(struct thaw_owner *o)
{
	free(o->boot_id);
	free(o->root);
	free(o->since);
	memset(o, 0, sizeof(*o));
}

/* "PID STARTTIME SESSION", one blank apart, each through the strict
 * parsers: a pid past an int no longer wraps to 1 (init: always alive,
 * "another batch" for ever), a start time of -1 to a huge one. */
static int parse_owner(const char *s, struct thaw_owner *o)
{
	char *dup = xstrdup(s), *w[3];
	uint64_t st;
	int pid, r = -EINVAL;

	if (str_words(dup, w, 3) != 3 || safe_atoi(w[0], &pid) < 0 || pid < 2 || pid > THAW_PID_MAX ||
	    safe_atou64(w[1], &st) < 0)
		goto out;
	if (!strcmp(w[2], "batch"))
		o->session = THAW_BATCH;
	else if (!strcmp(w[2], "manual"))
		o->session = THAW_MANUAL;
	else
		goto out;
	o->pid = pid;
	o->starttime = st;
	r = 0;
out:
	free(dup);
	return r;
}

/* systemd's unit name characters; never an option to systemctl */
static bool unit_name_valid(const char *s)
{
	if (!*s || *s == '-' || strlen(s) > 256)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.@\\-") ==
	       strlen(s);
}

/* What an entry of each kind may hold: NULL, or what is wrong. */
static const char *entry_invalid(enum thaw_kind kind, const char *key, const char *value)
{
	int vt;

	switch (kind) {
	case THAW_FILE_SETTING:
		if (!rel_path_valid(key) ||
		    (strncmp(key, "proc/", 5) != 0 && strncmp(key, "sys/", 4) != 0))
			return "a file entry's path must lie under proc/ or sys/ (no empty, '.' or '..' "
			       "names)";
		return NULL;
	case THAW_UNIT:
		if (!unit_name_valid(key))
			return "not a systemd unit name";
		if (strcmp(value, "active") != 0)
			return "a unit entry's state must be 'active'";
		return NULL;
	case THAW_VT:
		if (strcmp(key, "tty0") != 0 || safe_atoi(value, &vt) < 0 || vt < 1 || vt > 63)
			return "a vt entry is 'vt tty0 N', N 1 to 63";
		return NULL;
	}
	return "unknown entry kind";
}

void thaw_entry_push(struct thaw_entry **e, size_t *n, size_t *alloc, enum thaw_kind kind,
		     char *key, char *value)
{
	if (*n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 8;
		*e = xrealloc(*e, *alloc * sizeof(**e));
	}
	(*e)[*n].kind = kind;
	(*e)[*n].key = key;
	(*e)[*n].value = value;
	(*n)++;
}

/* "KIND KEY VALUE" from after the kind word to end, appended to *ents:
 * NULL, or what is wrong with it. */
static const char *parse_entry(const char *word, const char *sp, const char *end,
			       struct thaw_entry **ents, size_t *n, size_t *alloc)
{
	const char *sp2, *why;
	char *key, *value;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(kind_names); k++)
		if (!strcmp(word, kind_names[k]))
			break;
	if (k == ARRAY_SIZE(kind_names))
		return "unknown entry kind";
	sp2 = memchr(sp, ' ', (size_t)(end - sp));
	if (!sp2)
		return "expected 'KIND KEY VALUE'";
	if (unescape(sp, (size_t)(sp2 - sp), &key) < 0)
		return "bad escape";
	if (unescape(sp2 + 1, (size_t)(end - sp2 - 1), &value) < 0) {
		free(key);
		return "bad escape";
	}
	if ((why = entry_invalid((enum thaw_kind)k, key, value))) {
		free(key);
		free(value);
		return why;
	}
	thaw_entry_push(ents, n, alloc, (enum thaw_kind)k, key, value);
	return NULL;
}

int thaw_parse(const char *text, struct thaw_owner *o, struct thaw_entry **e, size_t *n,
	       int *err_line, struct strbuf *err)
{
	struct thaw_owner own = { 0 };
	struct thaw_entry *ents = NULL;
	size_t nents = 0, alloc = 0;
	int owner_line = 0, header_line[3] = { 0 };
	const char *s = text, *why;
	int line = 0, r = 0, version;
	char **field;

#define BAD(...) do { strbuf_addf(err, __VA_ARGS__); r = -EINVAL; goto out; } while (0)
	while (*s) {
		const char *end = strchrnul(s, '\n'), *sp;
		size_t len = (size_t)(end - s);
		char *word = NULL;

		line++;
		if (!*end)
			BAD("the last line has no newline (a write was cut short)");
		sp = memchr(s, ' ', len);
		if (!sp)
			BAD("expected 'NAME VALUE'");
		word = xasprintf("%.*s", (int)(sp - s), s);
		sp++;
		if (line == 1) {
			bool good = !strcmp(word, "hitchbench-thaw");
			char *v = xasprintf("%.*s", (int)(end - sp), sp);

			free(word);
			if (!good || safe_atoi(v, &version) < 0 || version < 1) {
				free(v);
				BAD("not a hitchbench thaw journal");
			}
			free(v);
			if (version > THAW_FORMAT)
				BAD("journal format %d is newer than this hitchbench (%d)", version,
				    THAW_FORMAT);
		} else if (!strcmp(word, "owner")) {
			char *v;
			int pr;

			free(word);
			if (owner_line)
				BAD("'owner' repeats line %d", owner_line);
			v = xasprintf("%.*s", (int)(end - sp), sp);
			pr = parse_owner(v, &own);
			free(v);
			if (pr < 0)
				BAD("bad owner (expected 'owner PID STARTTIME batch|manual', PID 2 to %d, "
				    "STARTTIME a whole number)", THAW_PID_MAX);
			owner_line = line;
		} else if (!strcmp(word, "boot") || !strcmp(word, "root") || !strcmp(word, "since")) {
			int h = word[0] == 'b' ? 0 : word[0] == 'r' ? 1 : 2;

			field = h == 0 ? &own.boot_id : h == 1 ? &own.root : &own.since;
			if (*field) {
				strbuf_addf(err, "'%s' repeats line %d", word, header_line[h]);
				free(word);
				r = -EINVAL;
				goto out;
			}
			free(word);
			header_line[h] = line;
			if (unescape(sp, (size_t)(end - sp), field) < 0)
				BAD("bad escape");
		} else {
			why = parse_entry(word, sp, end, &ents, &nents, &alloc);
			free(word);
			if (why)
				BAD("%s", why);
		}
		s = end + 1;
	}
	line++;
	if (!owner_line || !own.boot_id || !own.root || !own.since) {
		line = 0;
		BAD("header incomplete (owner, boot, root and since are needed)");
	}
#undef BAD
	*o = own;
	memset(&own, 0, sizeof(own));
	*e = ents;
	*n = nents;
	ents = NULL;
	nents = 0;
out:
	if (r < 0)
		*err_line = line;
	thaw_owner_release(&own);
	thaw_entries_free(ents, nents);
	return r;
}
