/*
 * The flip record (flipfile.h; docs/formats.md "flip.txt").
 */
#include "formats/flipfile.h"
#include "base/util.h"
#include "text/recordlines.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void flip_record_init(struct flip_record *r)
{
	memset(r, 0, sizeof(*r));
}

void flip_record_release(struct flip_record *r)
{
	free(r->switch_name);
	free(r->a);
	free(r->b);
	free(r->plan);
	for (size_t i = 0; i < r->n_ev; i++)
		free(r->ev[i].failed);
	free(r->ev);
	flip_record_init(r);
}

static const char *flip_order_name(enum flip_order o)
{
	return o == FLIP_ORDER_PASSES ? "passes" : "pairs";
}

static const char *flip_unit_name(enum flip_unit u)
{
	return u == FLIP_UNIT_FRAMES ? "frames" : "seconds";
}

char flip_side(const struct flip_record *r, int pass, int seg)
{
	if (r->order == FLIP_ORDER_PASSES)
		return ((pass + seg) % 2 == 1) ? 'A' : 'B';
	if (!r->plan || seg < 0 || (size_t)seg >= strlen(r->plan))
		return 0;
	return r->plan[seg];
}

/* splitmix64: the plan must be the same on every machine for a seed. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

char *flip_plan_pairs(uint64_t seed, size_t n)
{
	char *p = xrealloc(NULL, n + 1);
	uint64_t s = seed;

	for (size_t i = 0; i + 1 < n; i += 2) {
		bool ab = (mix(&s) >> 63) == 0;

		p[i] = ab ? 'A' : 'B';
		p[i + 1] = ab ? 'B' : 'A';
	}
	if (n % 2)
		p[n - 1] = 'A';
	p[n] = '\0';
	return p;
}

void flip_record_header(const struct flip_record *r, struct strbuf *out)
{
	strbuf_addf(out, "# hitchbench flip record (docs/formats.md \"flip.txt\")\n");
	strbuf_addf(out, "format=%u\n", HB_FLIP_FORMAT);
	strbuf_addf(out, "switch=%s\n", r->switch_name);
	strbuf_addf(out, "a=%s\n", r->a);
	strbuf_addf(out, "b=%s\n", r->b);
	strbuf_addf(out, "order=%s\n", flip_order_name(r->order));
	strbuf_addf(out, "unit=%s\n", flip_unit_name(r->unit));
	strbuf_addf(out, "segment_s=%.6g\n", r->segment_s);
	strbuf_addf(out, "settle_ms=%.6g\n", r->settle_ms);
	strbuf_addf(out, "act_ms=%.6g\n", r->act_ms);
	strbuf_addf(out, "late_ms=%.6g\n", r->late_ms);
	strbuf_addf(out, "seed=%" PRIu64 "\n", r->seed);
	if (r->order == FLIP_ORDER_PAIRS)
		strbuf_addf(out, "plan=%s\n", r->plan ? r->plan : "");
}

void flip_event_line(const struct flip_event *e, struct strbuf *out)
{
	strbuf_addf(out, "flip=%d %d %c %" PRIu64 " %" PRIu64, e->pass, e->seg, e->side, e->due_ns,
		    e->applied_ns);
	if (e->failed) {
		strbuf_addstr(out, " failed: ");
		/* one line: a reason never breaks the record */
		for (const char *c = e->failed; *c; c++)
			strbuf_addch(out, *c == '\n' || *c == '\r' ? ' ' : *c);
	}
	strbuf_addch(out, '\n');
}

/* The fields through the strict parsers: a pass past an int no longer
 * overflows (sscanf's %d). */
static int parse_event(const char *v, struct flip_event *e, const char **why)
{
	char *dup = xstrdup(v), *w[6];
	int pass, seg, n = str_words(dup, w, 6), r = -EINVAL;
	uint64_t due, applied;

	if (n < 5 || safe_atoi(w[0], &pass) < 0 || pass < 1 || safe_atoi(w[1], &seg) < 0 || seg < 0 ||
	    (strcmp(w[2], "A") != 0 && strcmp(w[2], "B") != 0) || safe_atou64(w[3], &due) < 0 ||
	    safe_atou64(w[4], &applied) < 0) {
		*why = "flip wants 'PASS SEG A|B DUE_NS APPLIED_NS [failed: WHY]'";
		goto out;
	}
	memset(e, 0, sizeof(*e));
	e->pass = pass;
	e->seg = seg;
	e->side = w[2][0];
	e->due_ns = due;
	e->applied_ns = applied;
	if (applied == 0) {
		if (n < 6 || strncmp(w[5], "failed: ", 8) != 0 || !w[5][8]) {
			*why = "a flip applied at 0 says why it failed ('failed: WHY')";
			goto out;
		}
		e->failed = xstrdup(w[5] + 8);
	} else if (n > 5) {
		*why = "a flip that was applied has nothing after its time";
		goto out;
	} else if (applied < due) {
		*why = "a flip applied before it was due";
		goto out;
	}
	r = 0;
out:
	free(dup);
	return r;
}

static int parse_double(const char *v, double lo, double hi, double *out, const char **why)
{
	double d;

	if (safe_atod(v, &d) < 0 || !(d >= lo && d <= hi)) {
		*why = "not a number in range";
		return -EINVAL;
	}
	*out = d;
	return 0;
}

/* One key=value line into r. seen: the keys met so far (a bit each). */
static int parse_line(char *line, void *rec, unsigned *seen, const char **why)
{
	struct flip_record *r = rec;
	static const char *const keys[] = { "format", "switch", "a", "b", "order", "unit", "segment_s",
					    "segment_frames", "settle_ms", "act_ms", "late_ms", "seed",
					    "plan", "flip" };
	char *eq = strchr(line, '=');
	const char *v;
	size_t k;
	uint64_t u;

	if (!eq) {
		*why = "not a key=value line";
		return -EINVAL;
	}
	*eq = '\0';
	v = eq + 1;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strcmp(line, keys[k]) == 0)
			break;
	if (k == sizeof(keys) / sizeof(keys[0])) {
		*why = "unknown key";
		return -EINVAL;
	}
	if (strcmp(line, "flip") == 0) {
		struct flip_event e;

		if (!(*seen & 1u)) {
			*why = "a flip line before the format line";
			return -EINVAL;
		}
		if (parse_event(v, &e, why) < 0)
			return -EINVAL;
		if (r->n_ev == r->alloc_ev) {
			r->alloc_ev = r->alloc_ev ? r->alloc_ev * 2 : 64;
			r->ev = xrealloc(r->ev, r->alloc_ev * sizeof(*r->ev));
		}
		r->ev[r->n_ev++] = e;
		return 0;
	}
	if (*seen & (1u << k)) {
		*why = "a key that appears once appears again";
		return -EINVAL;
	}
	*seen |= 1u << k;
	if (k == 0) {
		if (safe_atou64(v, &u) < 0 || u != HB_FLIP_FORMAT) {
			*why = "format is not 1 (this build reads flip records of format 1)";
			return -EINVAL;
		}
		r->format = (unsigned)u;
	} else if (k >= 1 && k <= 3) {
		if (!*v || strchr(v, ' ')) {
			*why = "an empty value, or one with a space";
			return -EINVAL;
		}
		*(k == 1 ? &r->switch_name : k == 2 ? &r->a : &r->b) = xstrdup(v);
	} else if (k == 4) {
		if (strcmp(v, "passes") && strcmp(v, "pairs")) {
			*why = "order is passes or pairs";
			return -EINVAL;
		}
		r->order = strcmp(v, "passes") == 0 ? FLIP_ORDER_PASSES : FLIP_ORDER_PAIRS;
	} else if (k == 5) {
		if (strcmp(v, "frames") && strcmp(v, "seconds")) {
			*why = "unit is frames or seconds";
			return -EINVAL;
		}
		r->unit = strcmp(v, "frames") == 0 ? FLIP_UNIT_FRAMES : FLIP_UNIT_SECONDS;
	} else if (k == 6) {
		return parse_double(v, 0.001, 3600, &r->segment_s, why);
	} else if (k == 7) {
		if (safe_atou64(v, &u) < 0 || u < 2 || u > 1000000) {
			*why = "segment_frames is 2 to 1000000";
			return -EINVAL;
		}
		r->segment_frames = (unsigned)u;
	} else if (k >= 8 && k <= 10) {
		return parse_double(v, 0, 3600e3, k == 8 ? &r->settle_ms : k == 9 ? &r->act_ms : &r->late_ms,
				    why);
	} else if (k == 11) {
		if (safe_atou64(v, &r->seed) < 0) {
			*why = "seed is a whole number";
			return -EINVAL;
		}
	} else if (k == 12) {
		if (strspn(v, "AB") != strlen(v) || strlen(v) > HB_FLIP_PLAN_MAX) {
			*why = "plan is a string of A and B";
			return -EINVAL;
		}
		r->plan = xstrdup(v);
	}
	return 0;
}

int flip_record_parse(const char *text, size_t len, const char *name, struct flip_record *r,
		      bool *cut, struct strbuf *err)
{
	static const unsigned need = 0x1fffu & ~(1u << 7) & ~(1u << 12); /* all but segment_frames, plan */
	unsigned seen;

	if (record_lines(text, len, name, parse_line, r, &seen, cut, err) < 0)
		return -EINVAL;
	if ((seen & need) != need) {
		strbuf_addf(err, "%s: the header is not whole (format, switch, a, b, order, unit, segment_s, "
			    "settle_ms, act_ms, late_ms and seed are each needed)", name);
		return -EINVAL;
	}
	if (r->order == FLIP_ORDER_PAIRS && !r->plan) {
		strbuf_addf(err, "%s: a pairs record has no plan", name);
		return -EINVAL;
	}
	return 0;
}

static int parse_any(const char *text, size_t len, const char *name, void *rec, bool *cut, struct strbuf *err)
{
	return flip_record_parse(text, len, name, rec, cut, err);
}

int flip_record_load(const char *path, struct flip_record *r, struct strbuf *err)
{
	return record_load(path, parse_any, r, err);
}
