/*
 * Small helpers every part of hitchbench uses: allocation that aborts on
 * out-of-memory (as libinput's zalloc), strict number parsing (no atoi on
 * unterminated or junk-trailed input), and a growable string buffer.
 */
#ifndef HB_UTIL_H
#define HB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *zalloc(size_t size);                 /* calloc or abort */
void *xrealloc(void *p, size_t size);      /* realloc or abort */
char *xstrdup(const char *s);              /* strdup or abort; xstrdup(NULL) == NULL */
char *xstrndup(const char *s, size_t n);   /* strndup or abort */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* qsort's comparison of two doubles, ascending (NaN not ordered: keep it out). */
int cmp_double(const void *a, const void *b);

/* Strict parsers, the one way every number from outside is read: the
 * whole string must be the number (surrounding blanks are not accepted),
 * in range. Return 0, or -EINVAL / -ERANGE; *out is written only on
 * success. Integers are decimal. safe_atod takes decimal notation with an
 * optional exponent ("2.5", "-1e-3"): no hex floats, no inf or nan. */
int safe_atoi(const char *s, int *out);
/* Splits s in place into at most max words at single blanks, the last of
 * max keeping the rest of the line (blanks and all): the count, or -EINVAL
 * for an empty word among the first max - 1 (a blank at the start, two in
 * a row, one at the end). The words are then read with the safe_* parsers,
 * never with sscanf. */
int str_words(char *s, char **words, int max);
int safe_atou64(const char *s, uint64_t *out);
int safe_atoi64(const char *s, int64_t *out);
int safe_atod(const char *s, double *out);
/* The writing half: v as the shortest "%.*g" (15 to 17 significant digits,
 * trailing zeros dropped: "0.1", "2.5") that reads back as v, for numbers
 * written to be read again. */
void format_double_exact(char *buf, size_t size, double v);

/* The longest duration a recipe or an option may give: a week. */
#define HB_MAX_DURATION_S (7 * 24 * 3600)
/* Seconds as a plain decimal ("10", "2.5": no sign, exponent or hex) into
 * nanoseconds, exactly (integer arithmetic, no rounding); digits past the
 * nanosecond must be 0. -EINVAL for anything else, -ERANGE past max_ns. */
int safe_atosec_ns(const char *s, uint64_t max_ns, uint64_t *ns);
/* The same as seconds, at most HB_MAX_DURATION_S: a duration an option
 * gives (--warmup, --window), so "1e308" or "0x10" is refused, never
 * converted. */
int safe_atosec(const char *s, double *out);

/* a + b and a * b, UINT64_MAX where they would wrap: times taken from
 * files (a stamp near 2^64 in a game.log) never wrap round to small ones */
static inline uint64_t u64_add_sat(uint64_t a, uint64_t b)
{
	uint64_t s;

	return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

static inline uint64_t u64_mul_sat(uint64_t a, uint64_t b)
{
	uint64_t p;

	return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

bool str_startswith(const char *s, const char *prefix);
/* Trims blanks at both ends in place and returns s. */
char *str_strip(char *s);

/* A growable, always NUL-terminated string (git's strbuf, cut down). */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Hands the buffer to the caller (never NULL) and leaves sb empty. */
char *strbuf_detach(struct strbuf *sb);

/* Opens a file to read that must be a regular file (O_NONBLOCK first, so
 * a FIFO planted in its place cannot block the open; then fstat). The fd,
 * or -errno: -EISDIR for a directory, -EINVAL for any other file that is
 * not regular (a FIFO, a socket, a device), /dev/null excepted: the empty
 * file users name for "none". The fd is left non-blocking, which changes
 * nothing for a regular file. */
int open_regular(const char *path);
/* The largest file read_file() reads whole: a format without a size of its
 * own is refused past it (-EFBIG) rather than read into memory. */
#define HB_READ_FILE_MAX ((size_t)1 << 30)
/* Reads a whole regular file (open_regular) into a NUL-terminated buffer;
 * *len (may be NULL) is its length, which a NUL byte inside does not cut.
 * 0 or -errno (-EFBIG past HB_READ_FILE_MAX). */
int read_file(const char *path, char **out, size_t *len);
/* The same from an open file descriptor (left open), to its end. */
int read_fd(int fd, char **out, size_t *len);
/* Writes all of data, retrying short writes and EINTR. 0 or -errno. */
int write_all(int fd, const void *data, size_t len);
/* Writes data to path through a new path.tmp.PID (O_EXCL: never through a
 * symlink) + fsync + rename. 0 or -errno. */
int write_file_atomic(const char *path, const void *data, size_t len, int mode);
/* mkdir -p. 0 or -errno. */
int mkdir_p(const char *path, int mode);
/* rm -rf, without following symlinks. 0 or -errno. */
int remove_tree(const char *path);
/* Copies a regular file. 0 or -errno. */
int copy_file(const char *from, const char *to, int mode);

struct stat;

/* Reading what another user owns (docs/security.md): NAME, one component,
 * opened in the directory DIRFD when it is a regular file itself (never
 * through a symlink: -ELOOP; a FIFO cannot block the open). The fd, with
 * *st (may be NULL) its fstat, or -errno as open_regular(). */
int open_regular_at(int dirfd, const char *name, struct stat *st);
/* Whether rel is a path that stays where it starts: relative, not empty,
 * and none of its names empty, "." or "..". */
bool rel_path_valid(const char *rel);
/* The same for REL, a relative path under the directory DIR: every
 * component opened in its parent without following a symlink; a REL
 * rel_path_valid() refuses is -EINVAL. */
int open_regular_beneath(const char *dir, const char *rel, struct stat *st);
/* Copies at most max bytes from in to out (-EFBIG past them: a file that
 * grows while copied). 0 or -errno. */
int copy_fd(int in, int out, uint64_t max);

#endif
