/*
 * GRUB's menu in grub.cfg (see grubcfg.h).
 */
#include "system/grubcfg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GRUB_DEPTH_MAX 16

/* One command of the script: its words, whether each was bare (no
 * quote nor escape in it: only a bare '{' opens a block), its line. */
struct grub_cmd {
	char **w;
	bool *bare;
	size_t n, alloc;
	int line;
};

/* One open block: the submenu's title, or NULL for another block; the
 * menuentry being read, or -1. */
struct grub_block {
	char *submenu;
	long entry;
};

struct grub_parse {
	const char *p;
	int line;
	struct grub_cmd cmd;
	struct grub_block stack[GRUB_DEPTH_MAX];
	int depth;
};

void grub_menu_init(struct grub_menu *m)
{
	memset(m, 0, sizeof(*m));
}

void grub_menu_release(struct grub_menu *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct grub_entry *e = &m->v[i];

		free(e->title);
		free(e->path);
		free(e->id);
		free(e->image);
		free(e->release);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static void cmd_clear(struct grub_cmd *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->w[i]);
	c->n = 0;
}

static void cmd_push(struct grub_cmd *c, struct strbuf *word, bool bare)
{
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 8;
		c->w = xrealloc(c->w, c->alloc * sizeof(*c->w));
		c->bare = xrealloc(c->bare, c->alloc * sizeof(*c->bare));
	}
	c->w[c->n] = xstrdup(word->buf ? word->buf : "");
	c->bare[c->n++] = bare;
	strbuf_reset(word);
}

/* Reads a quoted part starting at *p (its quote char), appending what it
 * means to word. 0, or -EINVAL when the text ends inside it. */
static int read_quoted(struct grub_parse *ps, struct strbuf *word)
{
	char q = *ps->p++;

	for (;;) {
		char c = *ps->p;

		if (!c)
			return -EINVAL;
		ps->p++;
		if (c == q)
			return 0;
		if (c == '\n')
			ps->line++;
		if (q == '"' && c == '\\' && *ps->p && strchr("\"\\$\n", *ps->p)) {
			c = *ps->p++;
			if (c == '\n') {
				ps->line++;
				continue;
			}
		}
		strbuf_addch(word, c);
	}
}

/* Reads the next command into ps->cmd. 1 when there is one, 0 at the
 * end of the text, -EINVAL (an unterminated quote). */
static int next_cmd(struct grub_parse *ps)
{
	struct strbuf word = STRBUF_INIT;
	bool in_word = false, bare = true;
	int r = 0;

	cmd_clear(&ps->cmd);
	ps->cmd.line = ps->line;
	for (;;) {
		char c = *ps->p;

		if (c == '#' && !in_word) {
			while (*ps->p && *ps->p != '\n')
				ps->p++;
			continue;
		}
		if (!c || c == '\n' || c == ';' || c == ' ' || c == '\t') {
			bool opens = false;

			if (in_word) {
				/* a bare '{' ends the command that opens a block,
				 * also in a one-line "menuentry 'x' { linux ...; }" */
				opens = bare && word.len == 1 && word.buf[0] == '{';
				cmd_push(&ps->cmd, &word, bare);
			}
			in_word = false;
			bare = true;
			if (!c)
				break;
			ps->p++;
			if (c == '\n')
				ps->line++;
			if ((c == '\n' || c == ';' || opens) && ps->cmd.n > 0)
				break;
			if (ps->cmd.n == 0)
				ps->cmd.line = ps->line;
			continue;
		}
		in_word = true;
		if (c == '\'' || c == '"') {
			bare = false;
			if (read_quoted(ps, &word) < 0) {
				r = -EINVAL;
				goto out;
			}
		} else if (c == '\\' && ps->p[1]) {
			bare = false;
			if (ps->p[1] == '\n') {
				ps->line++;
			} else {
				strbuf_addch(&word, ps->p[1]);
			}
			ps->p += 2;
		} else {
			strbuf_addch(&word, c);
			ps->p++;
		}
	}
	r = ps->cmd.n > 0;
out:
	strbuf_release(&word);
	return r;
}

static bool has_word(const struct grub_cmd *c, size_t from, const char *w)
{
	for (size_t i = from; i < c->n; i++)
		if (!strcmp(c->w[i], w))
			return true;
	return false;
}

/* The release an image's file name gives: what follows "vmlinuz-" (or
 * "vmlinux-") in its last component, or NULL. */
static char *image_release(const char *image)
{
	const char *base = strrchr(image, '/');
	const char *pre[] = { "vmlinuz-", "vmlinux-" };

	base = base ? base + 1 : image;
	for (size_t i = 0; i < ARRAY_SIZE(pre); i++)
		if (str_startswith(base, pre[i]) && base[strlen(pre[i])])
			return xstrdup(base + strlen(pre[i]));
	return NULL;
}

static bool is_id_option(const char *w)
{
	return !strcmp(w, "$menuentry_id_option") || !strcmp(w, "--id");
}

/* A menuentry command opens its entry. 0, or -EINVAL with why: an entry
 * with two ids (GRUB would keep the last; which one a kernel wish means
 * is not for us to guess). */
static int entry_open(struct grub_parse *ps, struct grub_menu *m, struct strbuf *err)
{
	const struct grub_cmd *c = &ps->cmd;
	struct strbuf path = STRBUF_INIT;
	struct grub_entry *e;
	size_t id = 0;

	for (size_t i = 2; i + 2 < c->n; i++) {
		if (!is_id_option(c->w[i]))
			continue;
		if (id) {
			strbuf_addf(err, "%d: menuentry '%s' has two ids ('%s' and '%s')", c->line, c->w[1],
				    c->w[id + 1], c->w[i + 1]);
			return -EINVAL;
		}
		id = i++;
	}
	if (m->n == m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 16;
		m->v = xrealloc(m->v, m->alloc * sizeof(*m->v));
	}
	e = &m->v[m->n];
	memset(e, 0, sizeof(*e));
	e->title = xstrdup(c->n > 2 ? c->w[1] : "");
	e->line = c->line;
	if (id)
		e->id = xstrdup(c->w[id + 1]);
	for (int d = 0; d < ps->depth; d++) {
		if (ps->stack[d].submenu) {
			strbuf_addstr(&path, ps->stack[d].submenu);
			strbuf_addch(&path, '>');
		}
	}
	strbuf_addstr(&path, e->title);
	e->path = strbuf_detach(&path);
	e->recovery = strstr(e->title, "recovery mode") != NULL;
	ps->stack[ps->depth].entry = (long)m->n++;
	return 0;
}

/* A command inside an entry: the linux command says its kernel. */
static void entry_command(const struct grub_cmd *c, struct grub_entry *e)
{
	const char *w0 = c->w[0];

	if (c->n < 2 || e->image)
		return;
	if (strcmp(w0, "linux") && strcmp(w0, "linux16") && strcmp(w0, "linuxefi"))
		return;
	e->image = xstrdup(c->w[1]);
	e->release = image_release(c->w[1]);
	if (has_word(c, 2, "single") || has_word(c, 2, "recovery"))
		e->recovery = true;
}

/* One command: opens or closes a block, or feeds the entry being read.
 * 0 or -EINVAL with why. */
static int grub_command(struct grub_parse *ps, struct grub_menu *m, struct strbuf *err)
{
	struct grub_cmd *c = &ps->cmd;
	struct grub_block *b;

	if (!strcmp(c->w[0], "}") && c->bare[0]) {
		if (ps->depth == 0) {
			strbuf_addf(err, "%d: '}' closes no block", c->line);
			return -EINVAL;
		}
		free(ps->stack[--ps->depth].submenu);
		ps->stack[ps->depth].submenu = NULL;
		return 0;
	}
	if (ps->depth > 0 && ps->stack[ps->depth - 1].entry >= 0)
		entry_command(c, &m->v[ps->stack[ps->depth - 1].entry]);
	if (strcmp(c->w[c->n - 1], "{") || !c->bare[c->n - 1])
		return 0;
	if (ps->depth == GRUB_DEPTH_MAX) {
		strbuf_addf(err, "%d: blocks nested deeper than %d", c->line, GRUB_DEPTH_MAX);
		return -EINVAL;
	}
	b = &ps->stack[ps->depth];
	b->submenu = NULL;
	b->entry = -1;
	if (!strcmp(c->w[0], "menuentry")) {
		if (entry_open(ps, m, err) < 0)
			return -EINVAL;
	} else if (!strcmp(c->w[0], "submenu")) {
		b->submenu = xstrdup(c->n > 2 ? c->w[1] : "");
	}
	ps->depth++;
	return 0;
}

int grub_menu_parse(const char *text, struct grub_menu *m, struct strbuf *err)
{
	struct grub_parse ps;
	int r;

	memset(&ps, 0, sizeof(ps));
	ps.p = text;
	ps.line = 1;
	while ((r = next_cmd(&ps)) > 0) {
		r = grub_command(&ps, m, err);
		if (r < 0)
			goto out;
	}
	if (r < 0) {
		strbuf_addf(err, "%d: a quote is never closed", ps.cmd.line);
		goto out;
	}
	if (ps.depth > 0) {
		strbuf_addf(err, "%d: the file ends inside a block", ps.line);
		r = -EINVAL;
	}
out:
	while (ps.depth > 0)
		free(ps.stack[--ps.depth].submenu);
	cmd_clear(&ps.cmd);
	free(ps.cmd.w);
	free(ps.cmd.bare);
	return r;
}

const struct grub_entry *grub_menu_find(const struct grub_menu *m, const char *release)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct grub_entry *e = &m->v[i];

		if (!e->recovery && e->release && !strcmp(e->release, release))
			return e;
	}
	return NULL;
}

int grub_default_is_saved(const char *text)
{
	const char *p = text;
	int saved = 0;

	/* The last assignment wins, as in the shell that sources it. */
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);

		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		if (n >= 13 && !strncmp(p, "GRUB_DEFAULT=", 13)) {
			const char *v = p + 13;
			size_t vn = n - 13;

			while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t' || v[vn - 1] == '\r'))
				vn--;
			if (vn >= 2 && (v[0] == '"' || v[0] == '\'') && v[vn - 1] == v[0])
				v++, vn -= 2;
			saved = vn == 5 && !strncmp(v, "saved", 5);
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	return saved;
}
