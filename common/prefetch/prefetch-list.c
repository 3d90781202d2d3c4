/*
 * A game's prefetch list: what the game had in memory of which files,
 * learnt over its sessions (prefetch.h). One text file per executable,
 * versioned (docs/formats.md, "Prefetch lists"), so a person can read what
 * the prefetch would read and a list survives a change of the program.
 */
#include "prefetch/prefetch.h"
#include "base/hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pf_list_init(struct pf_list *l)
{
	memset(l, 0, sizeof(*l));
}

void pf_list_release(struct pf_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->files[i].path);
		free(l->files[i].ranges);
	}
	free(l->files);
	free(l->exe);
	pf_list_init(l);
}

size_t pf_list_add(struct pf_list *l, const char *path, uint64_t size, int64_t mtime,
		   struct pf_range *ranges, size_t n)
{
	struct pf_file *f;

	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 16;
		l->files = xrealloc(l->files, l->alloc * sizeof(*l->files));
	}
	f = &l->files[l->n];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	f->size = size;
	f->mtime = mtime;
	f->ranges = ranges;
	f->n = n;
	return l->n++;
}

/* The file just added (its index first: the array may move). */
static struct pf_file *list_push(struct pf_list *l, const char *path, uint64_t size, int64_t mtime,
				 struct pf_range *ranges, size_t n)
{
	size_t i = pf_list_add(l, path, size, mtime, ranges, n);

	return &l->files[i];
}

ssize_t pf_list_find(const struct pf_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->files[i].path, path) == 0)
			return (ssize_t)i;
	return -1;
}

uint64_t pf_list_bytes(const struct pf_list *l)
{
	uint64_t b = 0;

	for (size_t i = 0; i < l->n; i++)
		for (size_t j = 0; j < l->files[i].n; j++)
			b += l->files[i].ranges[j].len;
	return b;
}

static int parse_u64(const char *s, uint64_t *v)
{
	return safe_atou64(s, v);
}

/* The words of a line: up to max, the last one taking the rest. */
static size_t split(char *line, char **w, size_t max)
{
	size_t n = 0;

	while (*line && n < max) {
		if (n == max - 1) {
			w[n++] = line;
			break;
		}
		w[n++] = line;
		line = strchr(line, ' ');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

int pf_list_parse(const char *text, struct pf_list *l, int *err_line)
{
	char *copy = xstrdup(text), *line, *next;
	struct pf_file *cur = NULL;
	size_t alloc_r = 0;
	int lineno = 0, format = 0, r = 0;

	pf_list_init(l);
	for (line = copy; line && *line; line = next) {
		char *w[6] = { NULL };
		size_t n, max = 4;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (str_startswith(line, "file "))
			max = 6;
		else if (str_startswith(line, "exe "))
			max = 2;
		n = split(line, w, max);
		if (n == 0)
			goto bad;
		if (strcmp(w[0], "format") == 0 && n == 2) {
			if (safe_atoi(w[1], &format) < 0 || format != PREFETCH_FORMAT)
				goto bad;
		} else if (!format) {
			goto bad;
		} else if (strcmp(w[0], "exe") == 0 && n >= 2) {
			/* the path is the rest of the line */
			free(l->exe);
			l->exe = xstrdup(w[1]);
		} else if (strcmp(w[0], "exe_size") == 0 && n == 2) {
			if (parse_u64(w[1], &l->exe_size) < 0)
				goto bad;
		} else if (strcmp(w[0], "exe_mtime") == 0 && n == 2) {
			int64_t v;

			if (safe_atoi64(w[1], &v) < 0)
				goto bad;
			l->exe_mtime = v;
		} else if (strcmp(w[0], "sessions") == 0 && n == 2) {
			if (safe_atoi(w[1], &l->sessions) < 0)
				goto bad;
		} else if (strcmp(w[0], "file") == 0 && n == 6) {
			uint64_t size;
			int64_t mtime;
			int first, misses;

			if (parse_u64(w[1], &size) < 0 || safe_atoi64(w[2], &mtime) < 0 ||
			    safe_atoi(w[3], &first) < 0 || safe_atoi(w[4], &misses) < 0 || !*w[5])
				goto bad;
			cur = list_push(l, w[5], size, mtime, NULL, 0);
			cur->first = first;
			cur->misses = misses;
			alloc_r = 0;
		} else if (strcmp(w[0], "range") == 0 && n == 4 && cur) {
			struct pf_range rg;

			if (parse_u64(w[1], &rg.off) < 0 || parse_u64(w[2], &rg.len) < 0 ||
			    parse_u64(w[3], &rg.phys) < 0)
				goto bad;
			/* inside the file, not empty, after the range before
			 * (the union and the reads count on that order) */
			if (rg.len == 0 || rg.off >= cur->size || rg.len > cur->size - rg.off ||
			    (cur->n && rg.off < cur->ranges[cur->n - 1].off + cur->ranges[cur->n - 1].len))
				goto bad;
			if (cur->n == alloc_r) {
				alloc_r = alloc_r ? alloc_r * 2 : 4;
				cur->ranges = xrealloc(cur->ranges, alloc_r * sizeof(rg));
			}
			cur->ranges[cur->n++] = rg;
		} else {
			goto bad;
		}
	}
	if (!format || !l->exe) {
		lineno = 0;
		goto bad;
	}
	goto out;
bad:
	r = -EINVAL;
	if (err_line)
		*err_line = lineno;
	pf_list_release(l);
out:
	free(copy);
	return r;
}

void pf_list_format(const struct pf_list *l, struct strbuf *out)
{
	strbuf_addstr(out, "# hitchbench prefetch list (docs/formats.md)\n");
	strbuf_addf(out, "format %d\n", PREFETCH_FORMAT);
	strbuf_addf(out, "exe %s\n", l->exe ? l->exe : "");
	strbuf_addf(out, "exe_size %llu\n", (unsigned long long)l->exe_size);
	strbuf_addf(out, "exe_mtime %lld\n", (long long)l->exe_mtime);
	strbuf_addf(out, "sessions %d\n", l->sessions);
	for (size_t i = 0; i < l->n; i++) {
		const struct pf_file *f = &l->files[i];

		strbuf_addf(out, "file %llu %lld %d %d %s\n", (unsigned long long)f->size,
			    (long long)f->mtime, f->first, f->misses, f->path);
		for (size_t j = 0; j < f->n; j++)
			strbuf_addf(out, "range %llu %llu %llu\n",
				    (unsigned long long)f->ranges[j].off,
				    (unsigned long long)f->ranges[j].len,
				    (unsigned long long)f->ranges[j].phys);
	}
}

int pf_list_read(const char *path, struct pf_list *l, int *err_line)
{
	char *text;
	int r = read_file(path, &text, NULL);

	if (r < 0)
		return r;
	r = pf_list_parse(text, l, err_line);
	free(text);
	return r;
}

int pf_list_write(const struct pf_list *l, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	pf_list_format(l, &sb);
	r = write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	return r;
}

bool pf_path_learnable(const char *path)
{
	size_t len = strlen(path);

	if (path[0] != '/' || strchr(path, '\n'))
		return false;
	if (str_startswith(path, "/proc/") || str_startswith(path, "/sys/") ||
	    str_startswith(path, "/dev/") || str_startswith(path, "/memfd:"))
		return false;
	return !(len >= 10 && strcmp(path + len - 10, " (deleted)") == 0);
}

/* The wrappers a recipe's command may start with: the short options that
 * take the next word as their argument, and the words after the options
 * that are still the wrapper's (taskset's mask or CPU list). */
static const struct {
	const char *name, *arg_opts;
	int positional;
} wrappers[] = {
	{ "stdbuf", "ioe", 0 },
	{ "env", "uCS", 0 },
	{ "nice", "n", 0 },
	{ "ionice", "cn", 0 },
	{ "nohup", "", 0 },
	{ "taskset", "", 1 },
};

size_t pf_command_start(char *const *argv)
{
	size_t i = 0;

	while (argv[i]) {
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		size_t w = 0;

		while (w < ARRAY_SIZE(wrappers) && strcmp(base, wrappers[w].name) != 0)
			w++;
		if (w == ARRAY_SIZE(wrappers))
			break;
		/* its options, their arguments and env's NAME=VALUE words */
		for (i++; argv[i] && (argv[i][0] == '-' || strchr(argv[i], '=')); i++) {
			const char *o = argv[i];

			if (strcmp(o, "--") == 0) {
				i++;
				break;
			}
			if (o[0] == '-' && o[1] && o[1] != '-' && !o[2] && strchr(wrappers[w].arg_opts, o[1]) &&
			    argv[i + 1])
				i++;
		}
		for (int k = 0; k < wrappers[w].positional && argv[i]; k++)
			i++;
	}
	return i;
}

void pf_maps_paths(const char *maps, void (*fn)(const char *path, void *arg), void *arg)
{
	const char *line = maps;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *p = line;
		int field = 0;

		/* "start-end perms offset dev inode   path": the path is what
		 * follows the fifth field's blanks, spaces in it included */
		while (field < 5 && p < line + len) {
			while (p < line + len && *p != ' ')
				p++;
			while (p < line + len && *p == ' ')
				p++;
			field++;
		}
		if (field == 5 && p < line + len && *p == '/') {
			char *path = xstrndup(p, (size_t)(line + len - p));

			if (pf_path_learnable(path))
				fn(path, arg);
			free(path);
		}
		line = end ? end + 1 : NULL;
	}
}

void pf_key(const char *exe, char *buf, size_t size)
{
	char hex[HB_SHA256_HEX_LEN + 1];
	const char *base = strrchr(exe, '/');

	base = base ? base + 1 : exe;
	sha256_hex(exe, strlen(exe), hex);
	hex[16] = '\0';
	snprintf(buf, size, "%.64s-%s", *base ? base : "exe", hex);
	/* a key is a file name: nothing that could leave the directory */
	for (char *p = buf; *p; p++)
		if (*p == '/' || *p == ' ' || *p == '\n')
			*p = '_';
}

const char *pf_dir(void)
{
	const char *d = getenv(PREFETCH_DIR_ENV);

	return d && *d ? d : PREFETCH_DIR_DEFAULT;
}

bool pf_list_current(const struct pf_list *l, uint64_t exe_size, int64_t exe_mtime)
{
	return l->exe_size == exe_size && l->exe_mtime == exe_mtime;
}

static struct pf_range *ranges_dup(const struct pf_range *r, size_t n)
{
	struct pf_range *c;

	if (!n)
		return NULL;
	c = xrealloc(NULL, n * sizeof(*r));
	memcpy(c, r, n * sizeof(*r));
	return c;
}

void pf_list_merge(const struct pf_list *old, const struct pf_list *seen, struct pf_list *out)
{
	int session;

	pf_list_init(out);
	out->exe = xstrdup(seen->exe);
	out->exe_size = seen->exe_size;
	out->exe_mtime = seen->exe_mtime;
	if (old && (!old->exe || !seen->exe || strcmp(old->exe, seen->exe) != 0 ||
		    !pf_list_current(old, seen->exe_size, seen->exe_mtime)))
		old = NULL;     /* another program, or an upgraded one: learnt anew */
	session = (old ? old->sessions : 0) + 1;
	out->sessions = session;
	for (size_t i = 0; old && i < old->n; i++) {
		const struct pf_file *o = &old->files[i];
		ssize_t k = pf_list_find(seen, o->path);
		const struct pf_file *s = k >= 0 ? &seen->files[k] : NULL;
		struct pf_file *f;

		if (s && s->n) {
			struct pf_range *u;
			size_t nu;

			if (s->size == o->size && s->mtime == o->mtime) {
				pf_ranges_union(o->ranges, o->n, s->ranges, s->n, &u, &nu);
			} else {
				u = ranges_dup(s->ranges, s->n);
				nu = s->n;
			}
			f = list_push(out, o->path, s->size, s->mtime, u, nu);
			f->first = o->first;
			f->misses = 0;
		} else {
			if (o->misses + 1 >= PREFETCH_MAX_MISSES)
				continue;
			/* not in memory now: kept as it was, one miss more
			 * (a changed file's old ranges mean nothing any more) */
			if (s && (s->size != o->size || s->mtime != o->mtime)) {
				f = list_push(out, o->path, s->size, s->mtime, NULL, 0);
			} else {
				f = list_push(out, o->path, o->size, o->mtime,
							    ranges_dup(o->ranges, o->n), o->n);
			}
			f->first = o->first;
			f->misses = o->misses + 1;
		}
	}
	for (size_t i = 0; i < seen->n; i++) {
		const struct pf_file *s = &seen->files[i];
		struct pf_file *f;

		if (!s->n || pf_list_find(out, s->path) >= 0)
			continue;
		if (old && pf_list_find(old, s->path) >= 0)
			continue;       /* dropped above after its last miss */
		f = list_push(out, s->path, s->size, s->mtime,
					    ranges_dup(s->ranges, s->n), s->n);
		f->first = session;
	}
}
