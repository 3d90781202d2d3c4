/*
 * The line walk of appended records (recordlines.h).
 */
#include "text/recordlines.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int record_lines(const char *text, size_t len, const char *name, record_line_fn fn, void *rec, unsigned *seen,
		 bool *cut, struct strbuf *err)
{
	const char *why = NULL;
	int line = 0;
	size_t i = 0;

	*seen = 0;
	if (cut)
		*cut = false;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		char *l;
		int r = 0;

		line++;
		if (!nl) {
			/* a writer killed mid-write: the line is not whole */
			if (cut)
				*cut = true;
			break;
		}
		if (memchr(text + i, '\0', n)) {
			why = "NUL byte";
			goto bad;
		}
		l = xstrndup(text + i, n);
		i += n + 1;
		if (l[0] != '#' && l[0] != '\0')
			r = fn(l, rec, seen, &why);
		free(l);
		if (r < 0)
			goto bad;
	}
	return 0;
bad:
	strbuf_addf(err, "%s:%d: %s", name, line, why);
	return -EINVAL;
}

int record_load(const char *path, record_parse_fn parse, void *rec, struct strbuf *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = read_file(path, &text, &len);

	if (rc < 0) {
		if (rc != -ENOENT)
			strbuf_addf(err, "cannot read '%s': %s", path, strerror(-rc));
		return rc;
	}
	rc = parse(text, len, path, rec, NULL, err);
	free(text);
	return rc;
}
