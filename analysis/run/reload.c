/*
 * Reload rules and segments (contract in reload.h, format in
 * gamedb/README.md).
 *
 * analysis.ini is read by the INI adapter (common/text/inifile.h), as every INI
 * file is. The keys are checked by reload_rule_set(), which a recipe's
 * [reload] section goes through too.
 */
#include "run/reload.h"
#include "text/inifile.h"
#include "text/regexlimit.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest reload a rule may name: far beyond any load, far from overflow. */
#define MAX_RELOAD_S 3600.0

void reload_rule_init(struct reload_rule *r)
{
	memset(r, 0, sizeof(*r));
}

void reload_rule_release(struct reload_rule *r)
{
	if (!r)
		return;
	free(r->line);
	free(r->why);
	free(r->source);
	memset(r, 0, sizeof(*r));
}

static int set_kind(struct reload_rule *r, enum reload_kind kind, struct strbuf *msg)
{
	static const char *const keys[] = {
		[RELOAD_NONE] = "none", [RELOAD_FIXED] = "after_pass_start", [RELOAD_LINE] = "line",
	};

	if (r->kind != RELOAD_UNSET && r->kind != kind) {
		strbuf_addf(msg, "'%s' and '%s' exclude each other: one rule per game",
			    keys[r->kind], keys[kind]);
		return -EINVAL;
	}
	r->kind = kind;
	return 0;
}

static int parse_reload_seconds(const char *key, const char *value, double *out, struct strbuf *msg)
{
	double v;

	if (safe_atod(value, &v) < 0 || !isfinite(v) || v < 0 || v > MAX_RELOAD_S) {
		strbuf_addf(msg, "bad %s '%s' (seconds, 0 to %.0f)", key, value, MAX_RELOAD_S);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int reload_rule_set(struct reload_rule *r, const char *key, const char *value, struct strbuf *msg)
{
	static const char *const keys[] = { "after_pass_start", "margin", "line", "none", "why" };
	size_t k;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[k], key); k++)
		;
	if (k == sizeof(keys) / sizeof(keys[0]))
		return -ENOENT;
	/* why may take several lines, joined by a blank */
	if ((r->keys_set & (1u << k)) && strcmp(key, "why"))
		return -EEXIST;
	r->keys_set |= 1u << k;
	if (!strcmp(key, "after_pass_start")) {
		if (parse_reload_seconds(key, value, &r->after_s, msg) < 0)
			return -EINVAL;
		return set_kind(r, RELOAD_FIXED, msg);
	}
	if (!strcmp(key, "margin")) {
		r->have_margin = true;
		return parse_reload_seconds(key, value, &r->margin_s, msg);
	}
	if (!strcmp(key, "line")) {
		struct strbuf why = STRBUF_INIT;
		regex_t re;

		if (regex_compile(&re, value, &why) < 0) {
			strbuf_addf(msg, "bad line pattern '%s': %s", value, why.buf);
			strbuf_release(&why);
			return -EINVAL;
		}
		regfree(&re);
		free(r->line);
		r->line = xstrdup(value);
		return set_kind(r, RELOAD_LINE, msg);
	}
	if (!strcmp(key, "none")) {
		if (strcmp(value, "yes")) {
			strbuf_addf(msg, "'none' takes 'yes', not '%s'", value);
			return -EINVAL;
		}
		return set_kind(r, RELOAD_NONE, msg);
	}
	if (!strcmp(key, "why")) {
		char *why = r->why ? xasprintf("%s %s", r->why, value) : xstrdup(value);

		free(r->why);
		r->why = why;
		return 0;
	}
	return -ENOENT;
}

int reload_rule_check(const struct reload_rule *r, struct strbuf *msg)
{
	if (r->kind == RELOAD_UNSET) {
		strbuf_addstr(msg, "[reload] needs one of 'after_pass_start', 'line' or 'none'");
		return -EINVAL;
	}
	if (r->kind == RELOAD_LINE && !r->have_margin) {
		strbuf_addstr(msg, "'line' needs 'margin' (seconds after the line)");
		return -EINVAL;
	}
	if (r->kind != RELOAD_LINE && r->have_margin) {
		strbuf_addstr(msg, "'margin' goes with 'line' only");
		return -EINVAL;
	}
	if (!r->why || !*r->why) {
		strbuf_addstr(msg, "[reload] needs 'why': measured how, or why it is a guess");
		return -EINVAL;
	}
	return 0;
}

char *reload_rule_describe(const struct reload_rule *r)
{
	switch (r->kind) {
	case RELOAD_FIXED:
		return xasprintf("pass start + %g s", r->after_s);
	case RELOAD_LINE:
		return xasprintf("pass start to %g s after the first line matching '%s'",
				 r->margin_s, r->line);
	case RELOAD_NONE:
		return xstrdup("none");
	case RELOAD_UNSET:
		break;
	}
	return xstrdup("unset");
}

/* analysis.ini as an INI format: one [reload], its keys those of
 * reload_rule_set(). */
struct analysis_ini {
	int section_line;       /* where [reload] was, 0 before */
	struct reload_rule rule;
};

static int on_section(struct ini *ini, void *user, const char *name)
{
	struct analysis_ini *a = user;

	if (strcmp(name, "reload"))
		return ini_fail(ini, "unknown section '[%s]' (analysis.ini has [reload] only)", name);
	if (a->section_line)
		return ini_fail(ini, "duplicate section '[reload]' (first on line %d)",
				a->section_line);
	a->section_line = ini_line(ini);
	return 0;
}

static int on_key(struct ini *ini, void *user, const char *section, const char *name,
		  const char *value)
{
	struct analysis_ini *a = user;
	struct strbuf msg = STRBUF_INIT;
	int e;

	if (!section)
		return ini_fail(ini, "key '%s' outside [reload]", name);
	if (!*value)
		return ini_fail(ini, "empty value for '%s'", name);
	e = reload_rule_set(&a->rule, name, value, &msg);
	if (e == -ENOENT)
		ini_fail(ini, "unknown key '%s'", name);
	else if (e == -EEXIST)
		ini_fail(ini, "duplicate key '%s'", name);
	else if (e < 0)
		ini_fail(ini, "%s", msg.buf);
	strbuf_release(&msg);
	return e;
}

static int on_end(struct ini *ini, void *user)
{
	struct analysis_ini *a = user;
	struct strbuf msg = STRBUF_INIT;
	int e = 0;

	if (!a->section_line)
		return ini_fail_at(ini, 0, "no [reload] section");
	if (reload_rule_check(&a->rule, &msg) < 0)
		e = ini_fail_at(ini, a->section_line, "%s", msg.buf);
	strbuf_release(&msg);
	return e;
}

static const struct ini_format analysis_ini_format = {
	.what = "an analysis.ini",
	.expected = "expected 'key = value' or '[reload]'",
	.max_line = 198,
	.too_long_hint = "; a long 'why' takes several 'why =' lines",
	.section = on_section,
	.key = on_key,
	.end = on_end,
};

/* Hands the rule over to out when the parse (result e) went well. */
static int rule_done(int e, struct analysis_ini *a, const char *path, struct reload_rule *out)
{
	if (e == 0) {
		a->rule.source = xasprintf("%s:%d", path, a->section_line);
		reload_rule_release(out);
		*out = a->rule;
		memset(&a->rule, 0, sizeof(a->rule));
	}
	reload_rule_release(&a->rule);
	return e;
}

int reload_rule_parse_string(const char *text, const char *path, struct reload_rule *out,
			     struct strbuf *err)
{
	struct analysis_ini a = { 0 };
	int e = ini_parse_text(&analysis_ini_format, text, strlen(text), path, &a, err);

	return rule_done(e, &a, path, out);
}

int reload_rule_load(const char *path, struct reload_rule *out, struct strbuf *err)
{
	struct analysis_ini a = { 0 };
	int e = ini_load(&analysis_ini_format, path, &a, err);

	return rule_done(e, &a, path, out);
}

/* "SECONDS.MICROSECONDS" of a game.log line, to ns. */
static int parse_stamp(const char *s, size_t len, uint64_t *ns)
{
	const char *dot = memchr(s, '.', len);
	uint64_t sec = 0, us = 0;

	if (!dot || dot == s || (size_t)(s + len - dot - 1) != 6)
		return -EINVAL;
	for (const char *c = s; c < dot; c++) {
		if (!isdigit((unsigned char)*c) || sec > UINT64_MAX / 10 / 1000000000ull)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(*c - '0');
	}
	for (const char *c = dot + 1; c < s + len; c++) {
		if (!isdigit((unsigned char)*c))
			return -EINVAL;
		us = us * 10 + (uint64_t)(*c - '0');
	}
	*ns = sec * 1000000000ull + us * 1000ull;
	return 0;
}

int reload_match_log(const char *path, const char *ere, uint64_t **stamps, size_t *n,
		     struct strbuf *err)
{
	char *text = NULL, *s;
	size_t len, got = 0, cap = 0;
	struct strbuf why = STRBUF_INIT;
	uint64_t *v = NULL;
	regex_t re;
	int e, line = 0;

	if (regex_compile(&re, ere, &why) < 0) {
		strbuf_addf(err, "bad line pattern '%s': %s", ere, why.buf);
		strbuf_release(&why);
		return -EINVAL;
	}
	e = read_file(path, &text, &len);
	if (e < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-e));
		goto out;
	}
	for (s = text; s < text + len;) {
		char *end = memchr(s, '\n', (size_t)(text + len - s));
		char *tab;
		uint64_t ns;

		if (!end)
			end = text + len;
		*end = '\0';
		line++;
		tab = memchr(s, '\t', (size_t)(end - s));
		if (!tab || parse_stamp(s, (size_t)(tab - s), &ns) < 0) {
			strbuf_addf(err, "%s:%d: expected 'SECONDS.MICROSECONDS<TAB>LINE'", path, line);
			e = -EINVAL;
			goto out;
		}
		if (regexec(&re, tab + 1, 0, NULL, 0) == 0) {
			if (got == cap) {
				cap = cap ? 2 * cap : 16;
				v = xrealloc(v, cap * sizeof(*v));
			}
			v[got++] = ns;
		}
		s = end + 1;
	}
	*stamps = v;
	*n = got;
	v = NULL;
out:
	free(v);
	free(text);
	regfree(&re);
	return e;
}

/* First index i with t[i] > x (n if none). */
static size_t first_after(const uint64_t *t, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Widens [seg->start, seg->end] to every frame (t[i-1], t[i]] overlapping
 * it: one that starts or ends inside it, or spans it. Overlap is tested
 * against the rule's segment, not the widened one, so widening stops after
 * the frame that crosses the segment's end. */
static void widen(struct reload_segment *seg, const uint64_t *t, size_t n)
{
	uint64_t s = seg->start_ns, e = seg->end_ns;
	size_t i = first_after(t, n, s);

	/* t[i] > s from here on; the first present ends no frame */
	for (i = i ? i : 1; i < n && t[i - 1] < e; i++) {
		if (t[i - 1] < seg->start_ns)
			seg->start_ns = t[i - 1];
		if (t[i] > seg->end_ns)
			seg->end_ns = t[i];
	}
}

int reload_segments(const struct reload_rule *rule, const struct reload_pass *passes, size_t n_pass,
		    const uint64_t *line_ns, size_t n_line, const uint64_t *t_ns, size_t n_frames,
		    uint64_t window_start_ns, uint64_t window_end_ns,
		    struct reload_segment **out, size_t *n_out)
{
	struct reload_segment *segs = NULL;
	size_t n = 0;

	if (rule->kind == RELOAD_UNSET)
		return -EINVAL;
	if (rule->kind == RELOAD_NONE)
		goto done;
	segs = zalloc((n_pass ? n_pass : 1) * sizeof(*segs));
	for (size_t k = 0; k < n_pass; k++) {
		uint64_t start = passes[k].start_ns;
		uint64_t next = k + 1 < n_pass ? passes[k + 1].start_ns : UINT64_MAX;
		struct reload_segment seg = { start, start, passes[k].pass };

		if (start > window_end_ns)
			continue;
		if (rule->kind == RELOAD_FIXED) {
			seg.end_ns = u64_add_sat(start, (uint64_t)llround(rule->after_s * 1e9));
		} else {
			size_t j = 0;

			while (j < n_line && line_ns[j] < start)
				j++;
			if (j < n_line && line_ns[j] < next) {
				seg.end_ns = u64_add_sat(line_ns[j],
							 (uint64_t)llround(rule->margin_s * 1e9));
			} else {
				/* no line: fine only when the pass drew nothing in the window */
				size_t i = first_after(t_ns, n_frames, start > window_start_ns ?
						       start : window_start_ns);

				if (i < n_frames && t_ns[i] <= window_end_ns && t_ns[i] < next) {
					free(segs);
					return -ENODATA;
				}
				seg.end_ns = window_end_ns;
			}
		}
		widen(&seg, t_ns, n_frames);
		segs[n++] = seg;
	}
done:
	if (n == 0) {
		free(segs);
		segs = NULL;
	}
	*out = segs;
	*n_out = n;
	return 0;
}
