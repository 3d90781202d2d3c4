/*
 * SHA256SUMS lists: parsed, formatted, written for a directory and checked
 * against one (sha256sums.h). Every file is reached from the directory's
 * own descriptor one component at a time with O_NOFOLLOW, so neither a
 * listed path nor the walk leaves the directory through a symlink.
 */
#include "formats/sha256sums.h"
#include "text/argv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void sha256sums_init(struct sha256sums *s)
{
	memset(s, 0, sizeof(*s));
}

void sha256sums_release(struct sha256sums *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	sha256sums_init(s);
}

static struct sha256sums_entry *add_entry(struct sha256sums *s, const char *hex, char *path)
{
	struct sha256sums_entry *e;

	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 16;
		s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
	}
	e = &s->v[s->n++];
	memset(e, 0, sizeof(*e));
	for (int i = 0; i < HB_SHA256_HEX_LEN; i++)
		e->hex[i] = hex[i] >= 'A' && hex[i] <= 'F' ? (char)(hex[i] - 'A' + 'a') : hex[i];
	e->path = path;
	return e;
}

static void sha256sums_add(struct sha256sums *s, const char *hex, const char *path)
{
	add_entry(s, hex, xstrdup(path));
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct sha256sums_entry *)a)->path,
		      ((const struct sha256sums_entry *)b)->path);
}

static void sha256sums_sort(struct sha256sums *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_entry);
}

static const struct sha256sums_entry *sha256sums_find(const struct sha256sums *s, const char *path)
{
	struct sha256sums_entry key = { .path = (char *)path };

	return s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_entry) : NULL;
}

void sha256sums_format(const struct sha256sums *s, struct strbuf *out)
{
	for (size_t i = 0; i < s->n; i++) {
		const char *p = s->v[i].path;

		if (strpbrk(p, "\\\n\r"))
			strbuf_addch(out, '\\');
		strbuf_addf(out, "%s  ", s->v[i].hex);
		for (; *p; p++)
			if (*p == '\\')
				strbuf_addstr(out, "\\\\");
			else if (*p == '\n')
				strbuf_addstr(out, "\\n");
			else if (*p == '\r')
				strbuf_addstr(out, "\\r");
			else
				strbuf_addch(out, *p);
		strbuf_addch(out, '\n');
	}
}

/* Why a path cannot be in a list, or NULL: it must stay inside the
 * directory and name one file one way. */
static const char *bad_path(const char *p, size_t len)
{
	const char *c = p, *end = p + len;

	if (len == 0)
		return "an empty path";
	if (len > SHA256SUMS_PATH_MAX)
		return "a path longer than 4096 bytes";
	if (*p == '/')
		return "an absolute path";
	while (c <= end) {
		const char *slash = memchr(c, '/', (size_t)(end - c));
		size_t n = (size_t)((slash ? slash : end) - c);

		if (n == 0)
			return "an empty path component";
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return "a '.' or '..' path component";
		c += n + 1;
	}
	return NULL;
}

/* The path of a line (from p, n bytes), its escapes undone when the
 * line started with a backslash. NULL with why for a bad escape. */
static char *unescape(const char *p, size_t n, bool escaped, const char **why)
{
	char *out = zalloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (!escaped || p[i] != '\\') {
			*o++ = p[i];
			continue;
		}
		if (++i == n || (p[i] != '\\' && p[i] != 'n' && p[i] != 'r')) {
			*why = "a backslash in the path that is not \\\\, \\n or \\r";
			free(out);
			return NULL;
		}
		*o++ = p[i] == '\\' ? '\\' : p[i] == 'n' ? '\n' : '\r';
	}
	*o = '\0';
	return out;
}

/* One line (without its line break) into s. NULL, or why it is refused. */
static const char *parse_line(const char *line, size_t len, int lineno, struct sha256sums *s)
{
	static const char *const format = "expected 'HEX  PATH' (64 hex digits, two spaces or "
					  "' *', a path)";
	const char *why = NULL;
	bool escaped = len > 0 && line[0] == '\\';
	char *path;

	if (escaped) {
		line++;
		len--;
	}
	if (len < HB_SHA256_HEX_LEN + 2)
		return format;
	for (int i = 0; i < HB_SHA256_HEX_LEN; i++)
		if (!line[i] || !strchr("0123456789abcdefABCDEF", line[i]))
			return format;
	if (line[HB_SHA256_HEX_LEN] != ' ' ||
	    (line[HB_SHA256_HEX_LEN + 1] != ' ' && line[HB_SHA256_HEX_LEN + 1] != '*'))
		return format;
	path = unescape(line + HB_SHA256_HEX_LEN + 2, len - HB_SHA256_HEX_LEN - 2, escaped, &why);
	if (!path)
		return why;
	why = bad_path(path, strlen(path));
	if (why) {
		free(path);
		return why;
	}
	add_entry(s, line, path)->line = lineno;
	return NULL;
}

int sha256sums_parse(const char *text, size_t len, struct sha256sums *out, struct strbuf *err)
{
	const char *p = text, *end = text + len;
	int lineno = 0;

	sha256sums_init(out);
	if (len == 0)
		return 0;
	if (memchr(text, '\0', len)) {
		const char *nul = memchr(text, '\0', len);
		int at = 1;

		for (const char *c = text; c < nul; c++)
			at += *c == '\n';
		strbuf_addf(err, "%d: NUL byte", at);
		return -EINVAL;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *bad = parse_line(p, (size_t)(e - p), ++lineno, out);

		if (bad) {
			strbuf_addf(err, "%d: %s", lineno, bad);
			goto fail;
		}
		p = nl ? nl + 1 : end;
	}
	sha256sums_sort(out);
	for (size_t i = 1; i < out->n; i++)
		if (strcmp(out->v[i - 1].path, out->v[i].path) == 0) {
			const struct sha256sums_entry *a = &out->v[i - 1], *b = &out->v[i];

			strbuf_addf(err, "%d: '%s' listed twice (also on line %d)",
				    a->line > b->line ? a->line : b->line, a->path,
				    a->line > b->line ? b->line : a->line);
			goto fail;
		}
	return 0;
fail:
	sha256sums_release(out);
	return -EINVAL;
}

/* ---- files reached from a directory descriptor ---- */

/* Opens rel under dirfd without following a symlink anywhere on the way:
 * a directory (O_DIRECTORY) or a file to read. The fd, or -errno (-ELOOP
 * or -ENOTDIR: a symlink or a file on the way). */
static int open_under(int dirfd, const char *rel, bool dir)
{
	char *copy = xstrdup(rel), *c = copy, *slash;
	int fd = dup(dirfd), next;

	if (fd < 0) {
		free(copy);
		return -errno;
	}
	while ((slash = strchr(c, '/'))) {
		*slash = '\0';
		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0) {
			free(copy);
			return -errno;
		}
		fd = next;
		c = slash + 1;
	}
	next = openat(fd, c, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
	if (next < 0)
		next = -errno;
	close(fd);
	free(copy);
	return next;
}

/* The checksum of the regular file rel under dirfd. 0, -ENOENT, -EINVAL
 * (not a regular file: a symlink, a directory, a FIFO), or -errno. */
static int hash_under(int dirfd, const char *rel, char hex[HB_SHA256_HEX_LEN + 1])
{
	int fd = open_under(dirfd, rel, false), r;
	struct stat st;

	if (fd == -ELOOP || fd == -ENOTDIR || fd == -EISDIR || fd == -ENXIO)
		return -EINVAL;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else
		r = sha256_fd_hex(fd, hex);
	close(fd);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether the walk goes into directory rel (relative to the top). */
typedef bool (*walk_enter_fn)(const char *rel, const void *data);

/*
 * Every regular file under dirfd into out (relative paths with prefix,
 * in path order, directories entered only when enter says so), symlinks
 * and other files left out. 0 or -errno.
 */
static int walk(int dirfd, const char *prefix, walk_enter_fn enter, const void *data,
		struct argv_list *out)
{
	struct argv_list names;
	struct dirent *de;
	int fd = dup(dirfd), r = 0;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	argv_init(&names);
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			r = -errno;
			break;
		}
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			argv_push(&names, de->d_name);
	}
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n && r == 0; i++) {
		char *rel = xasprintf("%s%s", prefix, names.v[i]);
		struct stat st;

		if (fstatat(dirfd, names.v[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = errno == ENOENT ? 0 : -errno; /* gone meanwhile */
		} else if (S_ISREG(st.st_mode)) {
			argv_push(out, rel);
		} else if (S_ISDIR(st.st_mode) && (!enter || enter(rel, data))) {
			int sub = openat(dirfd, names.v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			char *sub_prefix = xasprintf("%s/", rel);

			r = sub < 0 ? -errno : walk(sub, sub_prefix, enter, data, out);
			if (sub >= 0)
				close(sub);
			free(sub_prefix);
		}
		free(rel);
	}
	argv_release(&names);
	closedir(d);
	return r;
}

/* ---- writing ---- */

int sha256sums_write(const char *dir, const char *const *only)
{
	struct sha256sums s;
	struct argv_list files;
	struct strbuf text = STRBUF_INIT;
	char *path = NULL;
	int dirfd, r = 0;

	sha256sums_init(&s);
	argv_init(&files);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	if (only) {
		for (size_t i = 0; only[i]; i++)
			argv_push(&files, only[i]);
	} else {
		r = walk(dirfd, "", NULL, NULL, &files);
	}
	for (size_t i = 0; i < files.n && r == 0; i++) {
		char hex[HB_SHA256_HEX_LEN + 1];

		if (!only && strcmp(files.v[i], SHA256SUMS_NAME) == 0)
			continue;
		if (bad_path(files.v[i], strlen(files.v[i])))
			r = -EINVAL;
		else
			r = hash_under(dirfd, files.v[i], hex);
		if (r == 0)
			sha256sums_add(&s, hex, files.v[i]);
	}
	if (r < 0)
		goto out;
	sha256sums_sort(&s);
	sha256sums_format(&s, &text);
	path = xasprintf("%s/%s", dir, SHA256SUMS_NAME);
	r = write_file_atomic(path, text.buf ? text.buf : "", text.len, 0644);
out:
	close(dirfd);
	free(path);
	strbuf_release(&text);
	argv_release(&files);
	sha256sums_release(&s);
	return r;
}

/* ---- checking ---- */

static bool is_nested_list(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && strcmp(slash + 1, SHA256SUMS_NAME) == 0;
}

/* The walk for files not listed skips a directory whose own list is
 * listed: that list's check covers it. */
static bool enter_unless_listed(const char *rel, const void *data)
{
	char *nested = xasprintf("%s/%s", rel, SHA256SUMS_NAME);
	bool listed = sha256sums_find(data, nested) != NULL;

	free(nested);
	return !listed;
}

static int read_list(int dirfd, const char *prefix, struct sha256sums *s, struct strbuf *err)
{
	struct strbuf line_why = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;
	char buf[65536];
	ssize_t n;
	int fd = open_under(dirfd, SHA256SUMS_NAME, false), r = 0;

	if (fd == -ENOENT) {
		strbuf_addf(err, "%s%s: missing", prefix, SHA256SUMS_NAME);
		return 1;
	}
	if (fd < 0) {
		strbuf_addf(err, "%s%s: %s", prefix, SHA256SUMS_NAME, strerror(-fd));
		return fd;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			strbuf_addf(err, "%s%s: %s", prefix, SHA256SUMS_NAME, strerror(-r));
			break;
		}
		strbuf_add(&text, buf, (size_t)n);
	}
	close(fd);
	if (r == 0 && sha256sums_parse(text.buf ? text.buf : "", text.len, s, &line_why) < 0) {
		strbuf_addf(err, "%s%s:%s", prefix, SHA256SUMS_NAME, line_why.buf);
		r = -EINVAL;
	}
	strbuf_release(&text);
	strbuf_release(&line_why);
	return r;
}

static int verify_dir(int dirfd, const char *prefix, struct strbuf *err);

/* Each listed file against its checksum, and each listed SUB/SHA256SUMS's
 * directory in its turn. */
static int verify_listed(int dirfd, const char *prefix, const struct sha256sums *s,
			 struct strbuf *err)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct sha256sums_entry *e = &s->v[i];
		char hex[HB_SHA256_HEX_LEN + 1];
		int r = hash_under(dirfd, e->path, hex);

		if (r == -ENOENT) {
			strbuf_addf(err, "%s%s: missing", prefix, e->path);
			return 1;
		}
		if (r == -EINVAL) {
			strbuf_addf(err, "%s%s: not a regular file", prefix, e->path);
			return 1;
		}
		if (r < 0) {
			strbuf_addf(err, "%s%s: %s", prefix, e->path, strerror(-r));
			return r;
		}
		if (strcmp(hex, e->hex) != 0) {
			strbuf_addf(err, "%s%s: checksum mismatch", prefix, e->path);
			return 1;
		}
		if (is_nested_list(e->path)) {
			char *sub = xstrndup(e->path, strlen(e->path) - strlen(SHA256SUMS_NAME) - 1);
			char *sub_prefix = xasprintf("%s%s/", prefix, sub);
			int fd = open_under(dirfd, sub, true);

			r = fd < 0 ? fd : verify_dir(fd, sub_prefix, err);
			if (fd < 0)
				strbuf_addf(err, "%s%s: %s", prefix, sub, strerror(-fd));
			else
				close(fd);
			free(sub);
			free(sub_prefix);
			if (r != 0)
				return r;
		}
	}
	return 0;
}

static int verify_dir(int dirfd, const char *prefix, struct strbuf *err)
{
	struct sha256sums s;
	struct argv_list files;
	int r = read_list(dirfd, prefix, &s, err);

	if (r != 0)
		return r;
	argv_init(&files);
	r = verify_listed(dirfd, prefix, &s, err);
	if (r == 0) {
		r = walk(dirfd, "", enter_unless_listed, &s, &files);
		if (r < 0)
			strbuf_addf(err, "%s: %s", prefix[0] ? prefix : ".", strerror(-r));
	}
	for (size_t i = 0; i < files.n && r == 0; i++)
		if (strcmp(files.v[i], SHA256SUMS_NAME) != 0 && !sha256sums_find(&s, files.v[i])) {
			strbuf_addf(err, "%s%s: not listed", prefix, files.v[i]);
			r = 1;
		}
	argv_release(&files);
	sha256sums_release(&s);
	return r;
}

int sha256sums_verify(const char *dir, struct strbuf *err)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (dirfd < 0) {
		r = -errno;
		strbuf_addf(err, "%s: %s", dir, strerror(-r));
		return r;
	}
	r = verify_dir(dirfd, "", err);
	close(dirfd);
	return r;
}
