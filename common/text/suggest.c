/*
 * "Did you mean" (see suggest.h).
 */
#include "text/suggest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SUGGEST_MAX 4 /* names given at most */

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* three rows of the table: two back (for a swap), the last, this one */
	size_t *row = xrealloc(NULL, 3 * (lb + 1) * sizeof(*row));
	size_t *r2 = row, *r1 = row + lb + 1, *r0 = row + 2 * (lb + 1), d;

	for (size_t j = 0; j <= lb; j++)
		r1[j] = j;
	for (size_t i = 1; i <= la; i++) {
		r0[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t best = r1[j - 1] + (ca != cb);

			if (r1[j] + 1 < best)
				best = r1[j] + 1;
			if (r0[j - 1] + 1 < best)
				best = r0[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && r2[j - 2] + 1 < best)
				best = r2[j - 2] + 1;
			r0[j] = best;
		}
		size_t *t = r2;
		r2 = r1;
		r1 = r0;
		r0 = t;
	}
	d = r1[lb];
	free(row);
	return d;
}

static bool is_prefix(const char *word, const char *name)
{
	size_t n = strlen(word);

	return n >= 3 && n < strlen(name) && strncasecmp(word, name, n) == 0;
}

size_t suggest_append(struct strbuf *out, const char *word, const char *const *names, size_t n)
{
	size_t limit = strlen(word) / 3, best = (size_t)-1, given = 0;
	size_t *dist;

	if (!n)
		return 0;
	limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
	dist = xrealloc(NULL, n * sizeof(*dist));
	for (size_t i = 0; i < n; i++) {
		dist[i] = suggest_distance(word, names[i]);
		/* a prefix counts as one edit away: "rep" for "report" */
		if (dist[i] > 1 && is_prefix(word, names[i]))
			dist[i] = 1;
		if (dist[i] && dist[i] <= limit && dist[i] < best)
			best = dist[i];
	}
	for (size_t i = 0; i < n; i++)
		if (dist[i] == best && given < SUGGEST_MAX)
			given++;
	if (given)
		strbuf_addstr(out, given == 1 ? " did you mean " : " did you mean one of ");
	for (size_t i = 0, k = 0; i < n && k < given; i++) {
		if (dist[i] != best)
			continue;
		strbuf_addf(out, "%s'%s'", k ? ", " : "", names[i]);
		k++;
	}
	if (given)
		strbuf_addch(out, '?');
	free(dist);
	return given;
}

static size_t suggest_table(struct strbuf *out, const char *word, const char *const *first, size_t n,
			    size_t stride)
{
	const char **names = xrealloc(NULL, (n ? n : 1) * sizeof(*names));
	size_t given;

	for (size_t i = 0; i < n; i++)
		names[i] = *(const char *const *)((const char *)first + i * stride);
	given = suggest_append(out, word, names, n);
	free(names);
	return given;
}

char *suggest_or(const char *word, const char *const *first, size_t n, size_t stride,
		 const char *otherwise)
{
	struct strbuf sb = STRBUF_INIT;

	if (!suggest_table(&sb, word, first, n, stride))
		strbuf_addstr(&sb, otherwise);
	return sb.buf ? sb.buf : xstrdup("");
}
