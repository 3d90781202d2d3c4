/*
 * The targets config (format in targets.h and docs/targets.md). Read by
 * the INI adapter, each target's section remembered as a byte range of the
 * text it came from, so that a rewrite copies every section it did not
 * change as it was and edits only the key lines of the one it did.
 */
#include "target/targets.h"
#include "text/inifile.h"
#include "base/xdgdir.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

enum target_key { K_URL, K_PREFIX, K_SSH_CONFIG, K_ARCH, N_KEYS };

static const char *const key_names[N_KEYS] = {
	[K_URL] = "url", [K_PREFIX] = "prefix", [K_SSH_CONFIG] = "ssh_config", [K_ARCH] = "arch",
};

char *targets_default_path(void)
{
	const char *env = getenv("HITCHBENCH_TARGETS");
	char *dir, *path;

	if (env && *env)
		return xstrdup(env);
	dir = xdg_user_dir("XDG_CONFIG_HOME", ".config");
	path = xasprintf("%s/targets.ini", dir);
	free(dir);
	return path;
}

bool targets_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 64 || name[0] == '.' || name[0] == '-')
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			return false;
	return true;
}

/* The values a key may take; NULL when v is one, else why not. */
static const char *value_problem(enum target_key k, const char *v)
{
	if (!*v)
		return "is empty";
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return "holds a control character";
	if (k == K_ARCH) {
		if (strlen(v) > 32)
			return "is longer than a Debian architecture (32 characters)";
		for (const char *c = v; *c; c++)
			if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c))
				return "is not a Debian architecture name (a-z, 0-9: amd64, s390x, ppc64)";
	}
	return NULL;
}

static char **entry_field(struct target_entry *e, enum target_key k)
{
	switch (k) {
	case K_URL:
		return &e->ssh.url;
	case K_PREFIX:
		return &e->ssh.prefix;
	case K_SSH_CONFIG:
		return &e->ssh.ssh_config;
	default:
		return &e->arch;
	}
}

void target_list_init(struct target_list *l)
{
	/* removed stays zeroed (argv_push takes that) until a removal */
	memset(l, 0, sizeof(*l));
}

static void entry_release(struct target_entry *e)
{
	ssh_target_release(&e->ssh);
	free(e->arch);
	memset(e, 0, sizeof(*e));
}

void target_list_release(struct target_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		entry_release(&l->v[i]);
	free(l->v);
	free(l->path);
	free(l->text);
	argv_release(&l->removed);
	memset(l, 0, sizeof(*l));
}

static struct target_entry *entry_new(struct target_list *l)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 8;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

struct parser {
	struct target_list *l;
	struct ini *ini;
	size_t len;
	size_t *line_off;    /* byte offset of each line, from line 1 */
	size_t n_lines;
	struct target_entry *cur;
	unsigned seen;       /* keys of cur, 1 << enum target_key */
	bool version_seen;
};

static size_t line_offset(const struct parser *ps, int line)
{
	if (line < 1 || (size_t)line > ps->n_lines)
		return ps->len;
	return ps->line_off[line - 1];
}

/* Ends the section being read at offset off: its range, and its url. */
static int section_close(struct parser *ps, size_t off)
{
	struct target_entry *e = ps->cur;

	if (!e) {
		ps->l->head_len = off;
		return 0;
	}
	e->len = off - e->off;
	if (!e->ssh.url)
		return ini_fail_at(ps->ini, e->line, "target '%s' has no url (url = ssh://[user@]host[:port])",
				   e->ssh.name);
	return 0;
}

static int on_section(struct ini *ini, void *user, const char *name)
{
	struct parser *ps = user;
	int line = ini_line(ini);
	size_t off = line_offset(ps, line);
	int r;

	ps->ini = ini;
	r = section_close(ps, off);
	if (r < 0)
		return r;
	if (!targets_name_valid(name))
		return ini_fail(ini, "'%s' is not a target name (letters, digits, '.', '_', '-'; at most 64)", name);
	for (size_t i = 0; i < ps->l->n; i++)
		if (!strcmp(ps->l->v[i].ssh.name, name))
			return ini_fail(ini, "target '%s' again (first at line %d)", name, ps->l->v[i].line);
	ps->cur = entry_new(ps->l);
	ps->cur->ssh.name = xstrdup(name);
	ps->cur->off = off;
	ps->cur->line = line;
	ps->seen = 0;
	return 0;
}

static int on_key(struct ini *ini, void *user, const char *section, const char *key, const char *value)
{
	struct parser *ps = user;
	const char *why;
	int k;

	ps->ini = ini;
	if (!ps->cur) {
		if (strcmp(key, "version") != 0)
			return ini_fail(ini, "'%s' before the first target (only 'version' is there)", key);
		if (ps->version_seen)
			return ini_fail(ini, "'version' again");
		if (strcmp(value, "1") != 0)
			return ini_fail(ini, "version '%s' is not one this hitchbench reads (%d)", value,
					TARGETS_VERSION);
		ps->version_seen = true;
		return 0;
	}
	for (k = 0; k < N_KEYS; k++)
		if (!strcmp(key, key_names[k]))
			break;
	if (k == N_KEYS)
		return ini_fail(ini, "unknown key '%s' in target '%s' (url, prefix, ssh_config, arch)", key,
				section);
	if (ps->seen & (1u << k))
		return ini_fail(ini, "'%s' again in target '%s'", key, section);
	ps->seen |= 1u << k;
	why = value_problem(k, value);
	if (why)
		return ini_fail(ini, "'%s' %s", key, why);
	if (k == K_URL && ssh_url_parse(value, &ps->cur->ssh, &why) < 0)
		return ini_fail(ini, "url '%s': %s", value, why);
	*entry_field(ps->cur, k) = xstrdup(value);
	return 0;
}

static int on_end(struct ini *ini, void *user)
{
	struct parser *ps = user;

	ps->ini = ini;
	return section_close(ps, ps->len);
}

static const struct ini_format targets_format_def = {
	.what = "targets file",
	.expected = "expected 'key = value' or '[target]'",
	.section = on_section,
	.key = on_key,
	.end = on_end,
};

int targets_load(const char *path, struct target_list *out, struct strbuf *err)
{
	struct target_list l;
	struct parser ps = { 0 };
	char *text = NULL;
	size_t len = 0, err_len = err ? err->len : 0;
	int r;

	target_list_init(&l);
	l.path = xstrdup(path);
	r = ini_file_read(path, "targets file", &text, &len, err);
	if (r == -ENOENT) {
		/* no file yet: no targets (the message ini_file_read added is taken back) */
		if (err && err->len > err_len) {
			err->len = err_len;
			err->buf[err_len] = '\0';
		}
		text = xstrdup("");
		len = 0;
		r = 0;
		goto done;
	}
	if (r < 0)
		goto fail;
	ps.l = &l;
	ps.len = len;
	ps.line_off = xrealloc(NULL, (len + 2) * sizeof(size_t));
	ps.line_off[ps.n_lines++] = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n' && i + 1 < len)
			ps.line_off[ps.n_lines++] = i + 1;
	r = ini_parse_text(&targets_format_def, text, len, path, &ps, err);
	free(ps.line_off);
	if (r < 0)
		goto fail;
done:
	l.text = text;
	if (!l.n)
		l.head_len = len;
	target_list_release(out);
	*out = l;
	return 0;
fail:
	free(text);
	target_list_release(&l);
	return r;
}

struct target_entry *targets_entry(struct target_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].ssh.name, name))
			return &l->v[i];
	return NULL;
}

const struct ssh_target *targets_find(const struct target_list *l, const char *name)
{
	struct target_entry *e = targets_entry((struct target_list *)l, name);

	return e ? &e->ssh : NULL;
}

/* e's key k becomes v (NULL: none), noted when it is a change. */
static void set_field(struct target_entry *e, enum target_key k, const char *v)
{
	char **f = entry_field(e, k);

	if (!*f && !v)
		return;
	if (*f && v && !strcmp(*f, v))
		return;
	free(*f);
	*f = xstrdup(v);
	e->changed = true;
	e->changed_keys |= 1u << k;
}

/* Sets e's fields from the given values (url parsed); e unchanged on
 * failure. */
static int entry_set(struct target_entry *e, const char *url, const char *prefix, const char *ssh_config,
		     const char *arch, const char **why)
{
	const char *vals[N_KEYS] = { url, prefix, ssh_config, arch };
	struct ssh_target parsed = { 0 };

	for (int k = 0; k < N_KEYS; k++) {
		if (!vals[k])
			continue;
		*why = value_problem(k, vals[k]);
		if (*why)
			return -EINVAL;
	}
	if (!url || ssh_url_parse(url, &parsed, why) < 0) {
		if (!url)
			*why = "no url";
		ssh_target_release(&parsed);
		return -EINVAL;
	}
	free(e->ssh.user);
	free(e->ssh.host);
	e->ssh.user = parsed.user;
	e->ssh.host = parsed.host;
	e->ssh.port = parsed.port;
	for (int k = 0; k < N_KEYS; k++)
		set_field(e, k, vals[k]);
	return 0;
}

int targets_add(struct target_list *l, const char *name, const char *url, const char *prefix,
		const char *ssh_config, const char *arch, const char **why)
{
	struct target_entry tmp = { 0 }, *e;
	int r;

	if (!targets_name_valid(name)) {
		*why = "not a target name (letters, digits, '.', '_', '-'; at most 64)";
		return -EINVAL;
	}
	if (targets_entry(l, name)) {
		*why = "a target of that name exists";
		return -EEXIST;
	}
	r = entry_set(&tmp, url, prefix, ssh_config, arch, why);
	if (r < 0) {
		entry_release(&tmp);
		return r;
	}
	tmp.ssh.name = xstrdup(name);
	e = entry_new(l);
	*e = tmp;
	/* added again after a removal in this same list: not removed */
	for (size_t i = 0; i < l->removed.n; i++)
		if (!strcmp(l->removed.v[i], name))
			l->removed.v[i][0] = '\0';
	return 0;
}

int targets_set_arch(struct target_list *l, const char *name, const char *arch)
{
	struct target_entry *e = targets_entry(l, name);

	if (!e)
		return -ENOENT;
	set_field(e, K_ARCH, arch);
	return 0;
}

int targets_remove(struct target_list *l, const char *name)
{
	struct target_entry *e = targets_entry(l, name);
	size_t i;

	if (!e)
		return -ENOENT;
	argv_push(&l->removed, name);
	i = (size_t)(e - l->v);
	entry_release(e);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(l->v[0]));
	l->n--;
	return 0;
}

/* The key a line sets ("url = ..." -> K_URL), N_KEYS for any other line
 * (a comment, a blank line, the section's own line). */
static int line_key(const char *s, size_t n)
{
	size_t i = 0, end;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == n || strchr(";#[\r\n", s[i]))
		return N_KEYS;
	end = i;
	while (end < n && s[end] != '=' && s[end] != ':')
		end++;
	while (end > i && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	for (int k = 0; k < N_KEYS; k++)
		if (strlen(key_names[k]) == end - i && !strncmp(s + i, key_names[k], end - i))
			return k;
	return N_KEYS;
}

static void add_key_line(struct strbuf *sb, struct target_entry *e, int k, unsigned *done)
{
	const char *v = *entry_field(e, k);

	if (v && !(*done & (1u << k)))
		strbuf_addf(sb, "%s = %s\n", key_names[k], v);
	*done |= 1u << k;
}

static void add_missing_keys(struct strbuf *sb, struct target_entry *e, unsigned *done)
{
	for (int k = 0; k < N_KEYS; k++)
		add_key_line(sb, e, k, done);
}

/* A changed target's section of the old text, its key lines rewritten:
 * the line of each key whose value changed becomes the new value (or goes,
 * when it has none), keys it did not have follow its last key line; other
 * lines (keys that kept their value, comments, blank lines) stay as they
 * are. */
static void format_edited(struct strbuf *sb, const char *text, struct target_entry *e)
{
	const char *s = text + e->off, *end = s + e->len, *last = s;
	unsigned done = 0;

	for (const char *p = s; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;

		if (p == s || line_key(p, (size_t)(next - p)) != N_KEYS)
			last = p;
		p = next;
	}
	for (const char *p = s; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		int k = line_key(p, (size_t)(next - p));

		if (p == s || k == N_KEYS || !(e->changed_keys & (1u << k))) {
			if (k != N_KEYS)
				done |= 1u << k;
			strbuf_add(sb, p, (size_t)(next - p));
			if (!nl)
				strbuf_addch(sb, '\n');
		} else {
			add_key_line(sb, e, k, &done);
		}
		if (p == last)
			add_missing_keys(sb, e, &done);
		p = next;
	}
}

char *targets_format(const struct target_list *l)
{
	struct strbuf sb = STRBUF_INIT;

	if (!*l->text)
		strbuf_addf(&sb, "; hitchbench targets (docs/targets.md)\nversion = %d\n", TARGETS_VERSION);
	else
		strbuf_add(&sb, l->text, l->head_len);
	for (size_t i = 0; i < l->n; i++) {
		struct target_entry *e = &l->v[i];

		if (sb.len && sb.buf[sb.len - 1] != '\n')
			strbuf_addch(&sb, '\n');
		if (e->len && !e->changed) {
			strbuf_add(&sb, l->text + e->off, e->len);
		} else if (e->len) {
			format_edited(&sb, l->text, e);
		} else {
			unsigned done = 0;

			if (sb.len && (sb.len < 2 || sb.buf[sb.len - 2] != '\n'))
				strbuf_addch(&sb, '\n');
			strbuf_addf(&sb, "[%s]\n", e->ssh.name);
			add_missing_keys(&sb, e, &done);
		}
	}
	if (sb.len && sb.buf[sb.len - 1] != '\n')
		strbuf_addch(&sb, '\n');
	return strbuf_detach(&sb);
}

/* The directory path is in, made when missing and locked (flock, until
 * the fd is closed): the lock of every writer of the file. */
static int lock_dir(const char *path, struct strbuf *err)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int fd, r;

	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	r = mkdir_p(dir, 0755);
	if (r < 0) {
		strbuf_addf(err, "cannot make '%s': %s", dir, strerror(-r));
		goto out;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		r = -errno;
		strbuf_addf(err, "cannot lock '%s': %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	r = fd;
out:
	free(dir);
	return r;
}

/* l's changes onto now, the file as it is: removals, then each changed or
 * added target (replacing now's, or appended). */
static int merge_changes(struct target_list *now, struct target_list *l)
{
	for (size_t i = 0; i < l->removed.n; i++)
		if (*l->removed.v[i])
			targets_remove(now, l->removed.v[i]);
	argv_release(&now->removed);
	for (size_t i = 0; i < l->n; i++) {
		struct target_entry *e = &l->v[i], *o;
		const char *why;
		int r;

		if (!e->changed)
			continue;
		o = targets_entry(now, e->ssh.name);
		if (o)
			r = entry_set(o, e->ssh.url, e->ssh.prefix, e->ssh.ssh_config, e->arch, &why);
		else
			r = targets_add(now, e->ssh.name, e->ssh.url, e->ssh.prefix, e->ssh.ssh_config, e->arch,
					&why);
		if (r < 0)
			return r;
	}
	return 0;
}

int targets_save(struct target_list *l, struct strbuf *err)
{
	struct target_list now;
	struct stat st;
	char *text = NULL;
	int lock, r, mode = 0644;

	target_list_init(&now);
	lock = lock_dir(l->path, err);
	if (lock < 0)
		return lock;
	r = targets_load(l->path, &now, err);
	if (r < 0)
		goto out;
	r = merge_changes(&now, l);
	if (r < 0) {
		strbuf_addf(err, "%s: cannot merge the change", l->path);
		goto out;
	}
	if (stat(l->path, &st) == 0)
		mode = (int)(st.st_mode & 07777);
	text = targets_format(&now);
	r = write_file_atomic(l->path, text, strlen(text), mode);
	if (r < 0) {
		strbuf_addf(err, "cannot write '%s': %s", l->path, strerror(-r));
		goto out;
	}
	/* l becomes what the file now holds */
	target_list_release(&now);
	target_list_init(&now);
	r = targets_load(l->path, &now, err);
	if (r == 0) {
		target_list_release(l);
		*l = now;
		target_list_init(&now);
	}
out:
	free(text);
	target_list_release(&now);
	close(lock);
	return r;
}
