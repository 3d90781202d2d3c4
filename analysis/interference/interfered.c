/*
 * Reading results/interfered.txt (see interfered.h), for report and matrix.
 * The file is read by the INI adapter's reading half (common/text/inifile.h: a NUL
 * byte refused with its line); its lines are not INI and are split here.
 */
#include "interference/interfered.h"
#include "text/inifile.h"
#include "report/report.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void interfered_init(struct interfered_list *list)
{
	list->v = NULL;
	list->n = 0;
}

static void entries_free(struct interfered_entry *v, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		free(v[i].run);
		free(v[i].reason);
		free(v[i].why);
	}
}

void interfered_release(struct interfered_list *list)
{
	if (!list)
		return;
	entries_free(list->v, 0, list->n);
	free(list->v);
	interfered_init(list);
}

/* A run id or directory name: what run_id= and the runner's directory
 * names are made of, nothing that could be a path. */
static int valid_run(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.@+:", s[i]))
			return 0;
	return len > 0 && !(len <= 2 && s[0] == '.');
}

int interfered_parse(struct interfered_list *list, const char *text, const char *path,
		     struct strbuf *err)
{
	size_t n0 = list->n;
	int line = 0;

	while (*text) {
		const char *end = strchrnul(text, '\n');
		char *buf = xasprintf("%.*s", (int)(end - text), text);
		char *s = str_strip(buf), *reason;
		size_t len;

		line++;
		text = *end ? end + 1 : end;
		if (!*s || *s == '#') {
			free(buf);
			continue;
		}
		len = strcspn(s, " \t");
		reason = str_strip(s + len);
		if (!valid_run(s, len)) {
			strbuf_addf(err, "%s:%d: '%.*s' is not a run id nor a run directory's name",
				    path, line, (int)len, s);
			goto bad;
		}
		if (!*reason) {
			strbuf_addf(err, "%s:%d: no reason given for '%.*s'", path, line, (int)len, s);
			goto bad;
		}
		list->v = xrealloc(list->v, (list->n + 1) * sizeof(*list->v));
		list->v[list->n] = (struct interfered_entry){
			.run = xasprintf("%.*s", (int)len, s),
			.reason = xstrdup(reason),
			.why = xasprintf("%s:%d: %s", path, line, reason),
			.line = line,
		};
		list->n++;
		free(buf);
		continue;
bad:
		free(buf);
		entries_free(list->v, n0, list->n);
		list->n = n0;
		return -EINVAL;
	}
	return 0;
}

int interfered_read(struct interfered_list *list, const char *path, int missing_ok,
		    struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	char *text = NULL;
	int r = ini_file_read(path, "an interfered file", &text, NULL, &why);

	if (r == 0)
		r = interfered_parse(list, text, path, err);
	else if (r != -ENOENT || !missing_ok)
		strbuf_addstr(err, why.buf);
	else
		r = 0;
	strbuf_release(&why);
	free(text);
	return r;
}

const struct interfered_entry *interfered_find(const struct interfered_list *list,
					       const char *run_id, const char *name)
{
	for (size_t i = 0; i < list->n; i++) {
		if ((run_id && strcmp(list->v[i].run, run_id) == 0) ||
		    (name && strcmp(list->v[i].run, name) == 0))
			return &list->v[i];
	}
	return NULL;
}

void interfered_mark(const struct interfered_list *list, struct report_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct interfered_entry *e = interfered_find(list, rows[i].run_id, rows[i].run);

		if (e && !rows[i].disturbed)
			rows[i].disturbed = e->why;
	}
}
