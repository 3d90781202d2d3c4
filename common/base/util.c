/*
 * Allocation, strict parsing, strings and file helpers shared by every
 * hitchbench program (see util.h for the contracts).
 */
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

void *zalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		abort();
	return p;
}

char *xstrdup(const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		abort();
	return d;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (!d)
		abort();
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb);
}

static bool has_blank_edge(const char *s)
{
	size_t n = strlen(s);

	return n == 0 || isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1]);
}

int safe_atoi64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || has_blank_edge(s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

int safe_atoi(const char *s, int *out)
{
	int64_t v;
	int r = safe_atoi64(s, &v);

	if (r < 0)
		return r;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

int str_words(char *s, char **words, int max)
{
	int n = 0;

	while (n < max) {
		char *sp = n == max - 1 ? NULL : strchr(s, ' ');

		if (sp == s || (!*s && n > 0))
			return -EINVAL;
		words[n++] = s;
		if (!sp)
			break;
		*sp = '\0';
		s = sp + 1;
	}
	return n;
}

int safe_atou64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || has_blank_edge(s) || s[0] == '-' || s[0] == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

void format_double_exact(char *buf, size_t size, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

int safe_atod(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || has_blank_edge(s))
		return -EINVAL;
	/* what strtod takes beyond decimal notation (hex floats, "inf",
	 * "nan", "infinity") has letters other than the exponent's */
	if (s[strspn(s, "0123456789+-.eE")] != '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end != '\0' || isnan(v) || isinf(v))
		return -EINVAL;
	*out = v;
	return 0;
}

int safe_atosec_ns(const char *s, uint64_t max_ns, uint64_t *ns)
{
	const uint64_t billion = 1000000000;
	uint64_t whole = 0, frac = 0, scale = billion, v;
	const char *p = s;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
			return -ERANGE;
	}
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			scale /= 10;
			if (scale)
				frac += (uint64_t)(*p - '0') * scale;
			else if (*p != '0')
				return -EINVAL; /* finer than a nanosecond */
		}
	}
	if (*p)
		return -EINVAL;
	if (__builtin_mul_overflow(whole, billion, &v) || __builtin_add_overflow(v, frac, &v) ||
	    v > max_ns)
		return -ERANGE;
	*ns = v;
	return 0;
}

int safe_atosec(const char *s, double *out)
{
	uint64_t ns;
	int r = safe_atosec_ns(s, (uint64_t)HB_MAX_DURATION_S * 1000000000u, &ns);

	if (r < 0)
		return r;
	*out = (double)ns / 1e9;
	return 0;
}

bool str_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

char *str_strip(char *s)
{
	char *start = s;
	size_t n;

	while (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r')
		start++;
	n = strlen(start);
	while (n > 0 && (start[n - 1] == ' ' || start[n - 1] == '\t' ||
			 start[n - 1] == '\n' || start[n - 1] == '\r'))
		n--;
	memmove(s, start, n);
	s[n] = '\0';
	return s;
}

void strbuf_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = 0;
	sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	strbuf_init(sb);
}

static void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;

	if (want <= sb->alloc)
		return;
	sb->alloc = sb->alloc ? sb->alloc : 64;
	while (sb->alloc < want)
		sb->alloc *= 2;
	sb->buf = xrealloc(sb->buf, sb->alloc);
	sb->buf[sb->len] = '\0';
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		abort();
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *b;

	strbuf_grow(sb, 0);
	b = sb->buf;
	strbuf_init(sb);
	return b;
}

int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	/* /dev/null too: the empty file a user names for "none"
	 * (--interfered /dev/null), which cannot block either */
	if (!S_ISREG(st.st_mode) && !(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	return fd;
}

int read_file(const char *path, char **out, size_t *len)
{
	int fd = open_regular(path), r;

	if (fd < 0)
		return fd;
	r = read_fd(fd, out, len);
	close(fd);
	return r;
}

int read_fd(int fd, char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int r = 0;

	/* a regular file's size up front: one allocation and large reads
	 * (a long run's frame file is tens of MB); /proc files say 0 */
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		if ((uint64_t)st.st_size > HB_READ_FILE_MAX)
			return -EFBIG;
		strbuf_grow(&sb, (size_t)st.st_size);
	}
	for (;;) {
		ssize_t n;

		if (sb.len + 1 >= sb.alloc)
			strbuf_grow(&sb, 8192);
		n = read(fd, sb.buf + sb.len, sb.alloc - sb.len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		sb.len += (size_t)n;
		sb.buf[sb.len] = '\0';
		if (sb.len > HB_READ_FILE_MAX) { /* a file growing while read */
			r = -EFBIG;
			break;
		}
	}
	if (r < 0) {
		strbuf_release(&sb);
		return r;
	}
	if (len)
		*len = sb.len;
	*out = strbuf_detach(&sb);
	return 0;
}

int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len, int mode)
{
	/* a name of this process's own, made new (O_EXCL follows no symlink):
	 * a root writer in a directory others can write must not be led to
	 * overwrite another file, and two writers must not share one */
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	int fd, r;

	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0 && errno == EEXIST) {
		/* left by an earlier process of this pid, or planted: removed
		 * (a symlink itself, never what it points to) and made anew */
		unlink(tmp);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	}
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = write_all(fd, data, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
out:
	free(tmp);
	return r;
}

int mkdir_p(const char *path, int mode)
{
	struct stat st;
	char *p;
	int r = 0;

	if (!*path)
		return -ENOENT;
	p = xstrdup(path);
	for (char *s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	if (r == 0 && stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
		r = -EEXIST; /* as mkdir -p: a file in the way is an error */
	return r;
}

static int remove_at(int dirfd, const char *name)
{
	struct stat st;
	int r = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d;
		struct dirent *de;

		if (fd < 0)
			return -errno;
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			return -errno;
		}
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			int e = remove_at(fd, de->d_name);

			if (e < 0 && r == 0)
				r = e;
		}
		closedir(d);
		if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && r == 0)
			r = -errno;
	} else if (unlinkat(dirfd, name, 0) < 0) {
		r = -errno;
	}
	return r;
}

int remove_tree(const char *path)
{
	return remove_at(AT_FDCWD, path);
}

int copy_fd(int in, int out, uint64_t max)
{
	char buf[65536];
	uint64_t done = 0;
	int r = 0;

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		if ((uint64_t)n > max - done)
			return -EFBIG;
		done += (uint64_t)n;
		r = write_all(out, buf, (size_t)n);
		if (r < 0)
			break;
	}
	return r;
}

int copy_file(const char *from, const char *to, int mode)
{
	int in, out, r;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	r = copy_fd(in, out, UINT64_MAX);
	if (close(out) < 0 && r == 0)
		r = -errno;
	close(in);
	return r;
}

bool rel_path_valid(const char *rel)
{
	const char *p = rel;

	if (!rel || !*rel)
		return false;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

int open_regular_beneath(const char *dir, const char *rel, struct stat *st)
{
	char *copy, *comp, *next;
	int fd, r;

	if (!rel_path_valid(rel))
		return -EINVAL;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	copy = xstrdup(rel);
	for (comp = copy;; comp = next + 1) {
		int sub;

		next = strchr(comp, '/');
		if (next)
			*next = '\0';
		if (!next) {
			r = open_regular_at(fd, comp, st);
			break;
		}
		sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			r = -errno;
			break;
		}
		close(fd);
		fd = sub;
	}
	close(fd);
	free(copy);
	return r;
}

int open_regular_at(int dirfd, const char *name, struct stat *st)
{
	struct stat own;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), r;

	if (!st)
		st = &own;
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	}
	return fd;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}
