/*
 * site.state: what the previous build made each page from, and the change
 * points it knew with when each was first found (docs/formats.md, "Site
 * state"). Text, one record a line, fields separated by tabs, each field
 * with its bytes below 0x20, 0x7f and '%' written as %XX, so that any name
 * a database holds fits in a field. The file is the site's own, but it
 * sits in a directory others may write, so it is read as strictly as any
 * input: a damaged line stops the build with its number, and nothing is
 * written.
 */
#include "site/site-internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SITE_STATE_FORMAT 1
#define CHANGE_FIELDS 16

void site_state_init(struct site_state *s)
{
	memset(s, 0, sizeof(*s));
}

void site_change_release(struct site_change *c)
{
	free(c->page), free(c->machine), free(c->label), free(c->game), free(c->run_name);
	free(c->metric), free(c->kernel_before), free(c->kernel_after), free(c->batch_after);
	free(c->found_utc);
}

void site_state_release(struct site_state *s)
{
	for (size_t i = 0; i < s->n_pages; i++) {
		free(s->pages[i].path);
		free(s->pages[i].fingerprint);
	}
	for (size_t i = 0; i < s->n_changes; i++)
		site_change_release(&s->changes[i]);
	free(s->pages);
	free(s->changes);
	free(s->generator);
	free(s->built_utc);
	site_state_init(s);
}

static int page_cmp(const void *a, const void *b)
{
	return strcmp(((const struct site_page_state *)a)->path, ((const struct site_page_state *)b)->path);
}

const char *site_state_page(const struct site_state *s, const char *path)
{
	struct site_page_state key = { .path = (char *)path };
	const struct site_page_state *p;

	if (!s->n_pages)
		return NULL;
	p = bsearch(&key, s->pages, s->n_pages, sizeof(*s->pages), page_cmp);
	return p ? p->fingerprint : NULL;
}

void site_state_add_page(struct site_state *s, const char *path, const char *fingerprint)
{
	s->pages = xrealloc(s->pages, (s->n_pages + 1) * sizeof(*s->pages));
	s->pages[s->n_pages].path = xstrdup(path);
	s->pages[s->n_pages].fingerprint = xstrdup(fingerprint);
	s->n_pages++;
}

static void put_field(struct strbuf *sb, const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '%')
			strbuf_addf(sb, "%%%02X", *p);
		else
			strbuf_addch(sb, (char)*p);
}

static void put_number(struct strbuf *sb, double v)
{
	char buf[64];

	if (!isfinite(v)) {
		strbuf_addstr(sb, "nan");
		return;
	}
	format_double_exact(buf, sizeof(buf), v);
	strbuf_addstr(sb, buf);
}

char *site_state_format(const struct site_state *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "# hitchbench site state: what each page was built from (docs/formats.md)\n"
			 "format\t%d\n", SITE_STATE_FORMAT);
	if (s->generator) {
		strbuf_addstr(&sb, "generator\t");
		put_field(&sb, s->generator);
		strbuf_addch(&sb, '\n');
	}
	if (s->built_utc) {
		strbuf_addstr(&sb, "built\t");
		put_field(&sb, s->built_utc);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < s->n_pages; i++) {
		strbuf_addstr(&sb, "page\t");
		put_field(&sb, s->pages[i].path);
		strbuf_addch(&sb, '\t');
		put_field(&sb, s->pages[i].fingerprint);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < s->n_changes; i++) {
		const struct site_change *c = &s->changes[i];
		const char *text[] = { c->page, c->machine, c->label, c->game, c->run_name, c->metric,
				       c->kernel_before, c->kernel_after, c->batch_after, c->found_utc };
		const double num[] = { c->percent, c->lo, c->hi, c->p, c->before, c->after };

		strbuf_addstr(&sb, "change");
		for (size_t k = 0; k < ARRAY_SIZE(text); k++) {
			strbuf_addch(&sb, '\t');
			put_field(&sb, text[k] ? text[k] : "-");
		}
		for (size_t k = 0; k < ARRAY_SIZE(num); k++) {
			strbuf_addch(&sb, '\t');
			put_number(&sb, num[k]);
		}
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb);
}

int site_state_write(const char *path, const struct site_state *s)
{
	char *text = site_state_format(s);
	int r = write_file_atomic(path, text, strlen(text), 0644);

	free(text);
	return r;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A field decoded in place. 0, or -EINVAL for a bad %XX or a byte that
 * should have been one. */
static int decode_field(char *f)
{
	char *w = f;

	for (char *p = f; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return -EINVAL;
		if (*p == '%') {
			int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);

			if (lo < 0 || (hi == 0 && lo == 0))
				return -EINVAL;
			*w++ = (char)(hi * 16 + lo);
			p += 2;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	return 0;
}

/* line split at tabs into at most max fields, each decoded. The count, or
 * -EINVAL. */
static int split_fields(char *line, char **f, int max)
{
	int n = 0;

	for (char *p = line;; p++) {
		if (n == max)
			return -EINVAL;
		f[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p = '\0';
	}
	for (int i = 0; i < n; i++)
		if (decode_field(f[i]) < 0)
			return -EINVAL;
	return n;
}

static int parse_change(char **f, int n, struct site_change *c, const char **why)
{
	double *num[] = { &c->percent, &c->lo, &c->hi, &c->p, &c->before, &c->after };
	char **text[] = { &c->page, &c->machine, &c->label, &c->game, &c->run_name, &c->metric,
			  &c->kernel_before, &c->kernel_after, &c->batch_after, &c->found_utc };

	if (n != 1 + CHANGE_FIELDS) {
		*why = "a change line has 16 fields after its word";
		return -EINVAL;
	}
	for (size_t k = 0; k < ARRAY_SIZE(num); k++)
		if (!strcmp(f[1 + ARRAY_SIZE(text) + k], "nan"))   /* a size of a median of 0 */
			*num[k] = NAN;
		else if (safe_atod(f[1 + ARRAY_SIZE(text) + k], num[k]) < 0) {
			*why = "a change's number does not parse";
			return -EINVAL;
		}
	if (!rel_path_valid(f[1]) || !rel_path_valid(f[9])) {
		*why = "a change's page or batch is not a relative path inside the site";
		return -EINVAL;
	}
	for (size_t k = 0; k < ARRAY_SIZE(text); k++)
		*text[k] = xstrdup(f[1 + k]);
	return 0;
}

static int parse_line(char *line, struct site_state *s, bool *have_format, const char **why)
{
	char *f[1 + CHANGE_FIELDS + 1];
	int n = split_fields(line, f, ARRAY_SIZE(f));
	int format;

	if (n < 0) {
		*why = "a field has a control byte or a bad %XX, or the line has too many fields";
		return -EINVAL;
	}
	if (!*have_format) {
		if (n != 2 || strcmp(f[0], "format") != 0 || safe_atoi(f[1], &format) < 0) {
			*why = "the first line is not 'format N'";
			return -EINVAL;
		}
		if (format != SITE_STATE_FORMAT) {
			*why = "a format this program does not know";
			return -EINVAL;
		}
		*have_format = true;
		return 0;
	}
	if (!strcmp(f[0], "generator") || !strcmp(f[0], "built")) {
		char **v = !strcmp(f[0], "generator") ? &s->generator : &s->built_utc;

		if (n != 2 || *v) {
			*why = n != 2 ? "a line of two fields expected" : "a header line repeats";
			return -EINVAL;
		}
		*v = xstrdup(f[1]);
		return 0;
	}
	if (!strcmp(f[0], "page")) {
		if (n != 3 || !rel_path_valid(f[1])) {
			*why = "a page line is 'page PATH FINGERPRINT' with a relative path inside the site";
			return -EINVAL;
		}
		site_state_add_page(s, f[1], f[2]);
		return 0;
	}
	if (!strcmp(f[0], "change")) {
		struct site_change c = { 0 };

		if (parse_change(f, n, &c, why) < 0)
			return -EINVAL;
		s->changes = xrealloc(s->changes, (s->n_changes + 1) * sizeof(*s->changes));
		s->changes[s->n_changes++] = c;
		return 0;
	}
	*why = "an unknown record (format, generator, built, page, change)";
	return -EINVAL;
}

int site_state_parse(char *text, size_t len, const char *path, struct site_state *s, struct strbuf *err)
{
	char *line, *next;
	bool have_format = false;
	size_t lineno = 0;
	int r = 0;

	site_state_init(s);
	if (memchr(text, '\0', len)) {
		strbuf_addf(err, "%s: a NUL byte: not a site state", path);
		return -EINVAL;
	}
	for (line = text; r == 0 && *line; line = next) {
		const char *why = NULL;

		lineno++;
		next = strchr(line, '\n');
		if (!next) {
			strbuf_addf(err, "%s:%zu: the last line is cut short (no newline)", path, lineno);
			r = -EINVAL;
			break;
		}
		*next++ = '\0';
		if (line[0] == '#')
			continue;
		if (parse_line(line, s, &have_format, &why) < 0) {
			strbuf_addf(err, "%s:%zu: %s", path, lineno, why);
			r = -EINVAL;
		}
	}
	if (r == 0 && !have_format) {
		strbuf_addf(err, "%s:%zu: no 'format' line", path, lineno);
		r = -EINVAL;
	}
	if (r == 0 && s->n_pages) {
		qsort(s->pages, s->n_pages, sizeof(*s->pages), page_cmp);
		for (size_t i = 1; i < s->n_pages; i++)
			if (!strcmp(s->pages[i].path, s->pages[i - 1].path)) {
				strbuf_addf(err, "%s: page '%s' is listed twice", path, s->pages[i].path);
				r = -EINVAL;
				break;
			}
	}
	if (r < 0)
		site_state_release(s);
	return r;
}

int site_state_read(const char *path, struct site_state *s, struct strbuf *err)
{
	char *text = NULL;
	size_t len;
	int r = read_file(path, &text, &len);

	site_state_init(s);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	r = site_state_parse(text, len, path, s, err);
	free(text);
	return r;
}
