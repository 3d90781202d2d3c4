/*
 * The relay record (relayfile.h; docs/formats.md "relay.txt").
 */
#include "formats/relayfile.h"
#include "base/util.h"
#include "text/recordlines.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void relay_record_init(struct relay_record *r)
{
	memset(r, 0, sizeof(*r));
}

void relay_record_release(struct relay_record *r)
{
	free(r->id);
	free(r->cpus);
	free(r->ev);
	relay_record_init(r);
}

const char *relay_mode_name(enum relay_mode m)
{
	return m == RELAY_MODE_DUET ? "duet" : "relay";
}

int relay_mode_parse(const char *s, enum relay_mode *m)
{
	if (strcmp(s, "relay") == 0)
		*m = RELAY_MODE_RELAY;
	else if (strcmp(s, "duet") == 0)
		*m = RELAY_MODE_DUET;
	else
		return -EINVAL;
	return 0;
}

int relay_turn_at(const struct relay_record *r, uint64_t t)
{
	uint64_t len = (uint64_t)(r->turn_s * 1e9);

	uint64_t k;

	if (t < r->epoch_ns || len == 0)
		return 0;
	k = (t - r->epoch_ns) / len;
	return k > INT_MAX / 2 ? INT_MAX / 2 : (int)k;
}

bool relay_turn_is(const struct relay_record *r, int turn, char side)
{
	return ((turn % 2 == 0) == (side == r->first));
}

uint64_t relay_turn_start(const struct relay_record *r, int turn)
{
	return r->epoch_ns + (uint64_t)turn * (uint64_t)(r->turn_s * 1e9);
}

void relay_record_header(const struct relay_record *r, struct strbuf *out)
{
	strbuf_addstr(out, "# hitchbench relay record (docs/formats.md \"relay.txt\")\n");
	strbuf_addf(out, "format=%u\n", HB_RELAY_FORMAT);
	strbuf_addf(out, "relay=%s\n", r->id);
	strbuf_addf(out, "mode=%s\n", relay_mode_name(r->mode));
	strbuf_addf(out, "role=%c\n", r->role);
	strbuf_addf(out, "first=%c\n", r->first);
	strbuf_addf(out, "turn_s=%.6g\n", r->turn_s);
	strbuf_addf(out, "settle_ms=%.6g\n", r->settle_ms);
	strbuf_addf(out, "epoch_ns=%" PRIu64 "\n", r->epoch_ns);
	strbuf_addf(out, "cpus=%s\n", r->cpus && *r->cpus ? r->cpus : "-");
}

void relay_event_line(const struct relay_event *e, struct strbuf *out)
{
	strbuf_addf(out, "%s=%d %" PRIu64 " %" PRIu64 "\n", e->resume ? "resume" : "stop", e->turn, e->due_ns,
		    e->applied_ns);
}

static int parse_event(const char *v, bool resume, struct relay_record *r, const char **why)
{
	struct relay_event e = { .resume = resume };
	char *dup = xstrdup(v), *w[4];
	int bad = str_words(dup, w, 4) != 3 || safe_atoi(w[0], &e.turn) < 0 || e.turn < 0 ||
		  safe_atou64(w[1], &e.due_ns) < 0 || safe_atou64(w[2], &e.applied_ns) < 0;

	free(dup);
	if (bad) {
		*why = "stop and resume want 'TURN DUE_NS APPLIED_NS'";
		return -EINVAL;
	}
	if (e.applied_ns < e.due_ns) {
		*why = "a stop or resume applied before it was due";
		return -EINVAL;
	}
	if (r->n_ev && e.due_ns < r->ev[r->n_ev - 1].due_ns) {
		*why = "the stops and resumes are not in time order";
		return -EINVAL;
	}
	if (r->n_ev == r->alloc_ev) {
		r->alloc_ev = r->alloc_ev ? r->alloc_ev * 2 : 64;
		r->ev = xrealloc(r->ev, r->alloc_ev * sizeof(*r->ev));
	}
	r->ev[r->n_ev++] = e;
	return 0;
}

static const char *const keys[] = { "format", "relay", "mode", "role", "first", "turn_s", "settle_ms",
				    "epoch_ns", "cpus" };
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* One key=value line into r. seen: the header keys met so far (a bit each). */
static int parse_line(char *line, void *rec, unsigned *seen, const char **why)
{
	struct relay_record *r = rec;
	char *eq = strchr(line, '=');
	const char *v;
	size_t k;
	uint64_t u;
	double d;

	if (!eq) {
		*why = "not a key=value line";
		return -EINVAL;
	}
	*eq = '\0';
	v = eq + 1;
	if (strcmp(line, "stop") == 0 || strcmp(line, "resume") == 0) {
		if ((*seen & ((1u << N_KEYS) - 1)) != (1u << N_KEYS) - 1) {
			*why = "a stop or resume before the whole header";
			return -EINVAL;
		}
		return parse_event(v, line[0] == 'r', r, why);
	}
	for (k = 0; k < N_KEYS; k++)
		if (strcmp(line, keys[k]) == 0)
			break;
	if (k == N_KEYS) {
		*why = "unknown key";
		return -EINVAL;
	}
	if (*seen & (1u << k)) {
		*why = "a key that appears once appears again";
		return -EINVAL;
	}
	if (k > 0 && !(*seen & 1u)) {
		*why = "the format line is not first";
		return -EINVAL;
	}
	*seen |= 1u << k;
	switch (k) {
	case 0:
		if (safe_atou64(v, &u) < 0 || u != HB_RELAY_FORMAT) {
			*why = "format is not 1 (this build reads relay records of format 1)";
			return -EINVAL;
		}
		r->format = (unsigned)u;
		return 0;
	case 1:
	case 8:
		if (!*v || strlen(v) > 64 || strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz-,") != strlen(v)) {
			*why = k == 1 ? "relay is an id of 1 to 64 of [0-9a-z-]" :
					"cpus is a CPU list (0,2-3) or -";
			return -EINVAL;
		}
		*(k == 1 ? &r->id : &r->cpus) = xstrdup(v);
		return 0;
	case 2:
		if (relay_mode_parse(v, &r->mode) < 0) {
			*why = "mode is relay or duet";
			return -EINVAL;
		}
		return 0;
	case 3:
	case 4:
		if ((v[0] != 'A' && v[0] != 'B') || v[1]) {
			*why = "role and first are A or B";
			return -EINVAL;
		}
		*(k == 3 ? &r->role : &r->first) = v[0];
		return 0;
	case 5:
	case 6:
		if (safe_atod(v, &d) < 0 || !(d >= 0 && d <= 3600e3) || (k == 5 && !(d >= 0.001 && d <= 3600))) {
			*why = k == 5 ? "turn_s is seconds, 0.001 to 3600" : "settle_ms is 0 to 3600000";
			return -EINVAL;
		}
		*(k == 5 ? &r->turn_s : &r->settle_ms) = d;
		return 0;
	case 7:
		if (safe_atou64(v, &r->epoch_ns) < 0) {
			*why = "epoch_ns is a whole number";
			return -EINVAL;
		}
		return 0;
	}
	return 0;
}

int relay_record_parse(const char *text, size_t len, const char *name, struct relay_record *r,
		       bool *cut, struct strbuf *err)
{
	unsigned seen;

	if (record_lines(text, len, name, parse_line, r, &seen, cut, err) < 0)
		return -EINVAL;
	if (seen != (1u << N_KEYS) - 1) {
		strbuf_addf(err, "%s: the header is not whole (format, relay, mode, role, first, turn_s, "
			    "settle_ms, epoch_ns and cpus are each needed)", name);
		return -EINVAL;
	}
	return 0;
}

static int parse_any(const char *text, size_t len, const char *name, void *rec, bool *cut, struct strbuf *err)
{
	return relay_record_parse(text, len, name, rec, cut, err);
}

int relay_record_load(const char *path, struct relay_record *r, struct strbuf *err)
{
	return record_load(path, parse_any, r, err);
}
