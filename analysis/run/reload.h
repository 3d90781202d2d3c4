/*
 * Reload segments: the stretches of a looped run where the game reloads
 * its map or demo at the start of each pass, which are not play.
 *
 * A rule says where a pass's segment ends (gamedb/<game>/analysis.ini, or
 * a recipe's [reload] section, which wins; both in gamedb/README.md):
 *
 *   RELOAD_FIXED   [pass start, pass start + after_s]
 *   RELOAD_LINE    [pass start, stamp of the pass's first game.log line
 *                  matching the ERE + margin_s]
 *   RELOAD_NONE    no segment: the game does not reload inside the window
 *
 * A frame (the interval between two presents) that overlaps a pass's
 * segment, so one that starts or ends inside it or spans it, belongs to the
 * reload, and the segment is widened to that frame's start and end: a load
 * that ends in one long frame (OpenArena's opengl2 cgame load outlasts its
 * load line by seconds) is then all reload, never play. docs/metrics.md.
 */
#ifndef HB_RELOAD_H
#define HB_RELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

enum reload_kind {
	RELOAD_UNSET = 0, /* no rule given (yet) */
	RELOAD_NONE,      /* none = yes */
	RELOAD_FIXED,     /* after_pass_start = SECONDS */
	RELOAD_LINE,      /* line = ERE, margin = SECONDS */
};

struct reload_rule {
	enum reload_kind kind;
	double after_s;       /* RELOAD_FIXED */
	char *line;           /* RELOAD_LINE: POSIX extended regex on a game.log line */
	double margin_s;      /* RELOAD_LINE */
	bool have_margin;
	char *why;            /* why = ...: measured how, or why it is a guess */
	char *source;         /* "PATH:LINE" of the [reload] section it came from */
	unsigned keys_set;    /* reload_rule_set's record of the keys seen */
};

struct reload_segment {
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC, widened to the frames in it */
	int pass;                  /* N of bench.txt pass.N.start_ns */
};

/* A pass of a run: N and its start (bench.txt pass.N.start_ns). */
struct reload_pass {
	int pass;
	uint64_t start_ns;
};

void reload_rule_init(struct reload_rule *r);
void reload_rule_release(struct reload_rule *r);

/* One "key = value" of a [reload] section (after_pass_start, line, margin,
 * none, why) into r; the same keys for analysis.ini and recipes; why may
 * repeat (each adds a line, joined by a blank), the others not. 0;
 * -ENOENT for a key that is not a reload key; -EEXIST for a key set
 * before; -EINVAL with what is wrong in msg (no file or line: the caller's
 * parser knows them). */
int reload_rule_set(struct reload_rule *r, const char *key, const char *value, struct strbuf *msg);
/* A whole section: a rule of one kind, margin only with line (and then
 * required), why present. 0 or -EINVAL with msg. */
int reload_rule_check(const struct reload_rule *r, struct strbuf *msg);
/* "pass start + 1 s", "pass start to 1 s after the first line matching
 * 'RE'", "none" (a new string), as the tests read a rule back. */
char *reload_rule_describe(const struct reload_rule *r);

/* Reads gamedb/<game>/analysis.ini (one [reload] section). 0; -errno when
 * it cannot be read; -EINVAL with "PATH:LINE: what is wrong" in err. out
 * (initialized) is written only on success; its source is "PATH:LINE". */
int reload_rule_load(const char *path, struct reload_rule *out, struct strbuf *err);
/* The same from a buffer, for the tests. */
int reload_rule_parse_string(const char *text, const char *path, struct reload_rule *out,
			     struct strbuf *err);

/* The stamps (ns) of the lines of a game.log (docs/formats.md) matching
 * the ERE, in file order, into a new array. 0; -errno when it cannot be
 * read; -EINVAL with "PATH:LINE: ..." for a line without a stamp or a bad
 * regex. */
int reload_match_log(const char *path, const char *ere, uint64_t **stamps, size_t *n,
		     struct strbuf *err);

/* A run's segments under a rule: passes in start order, line_ns the
 * ascending stamps of the lines matching the rule's pattern (RELOAD_LINE
 * only), t_ns the run's ascending present times. A pass's line is the first
 * at or after its start and before the next pass's start. Segments are
 * returned in pass order (a new array, NULL with none); a pass whose
 * segment begins after window_end_ns is left out. Returns 0; -ENODATA when
 * a pass that presented frames in (window_start, window_end] has no line
 * (the split cannot be made: no play numbers); -EINVAL for an unset rule.
 * A pass without a line that presented nothing in the window (stopped while
 * loading) gets the segment [its start, window_end]. */
int reload_segments(const struct reload_rule *rule, const struct reload_pass *passes, size_t n_pass,
		    const uint64_t *line_ns, size_t n_line, const uint64_t *t_ns, size_t n_frames,
		    uint64_t window_start_ns, uint64_t window_end_ns,
		    struct reload_segment **out, size_t *n_out);

#endif
