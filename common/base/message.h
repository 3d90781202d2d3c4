/*
 * What a program says on stderr, in git's words and in one voice for the
 * hitchbench command and every helper: "PROG: what went wrong",
 * "PROG: warning: ...", "PROG: note: ...", a usage error followed by the
 * usage. The program's name is set once, by its main(); each message is
 * one write of a whole line, so the threads of a helper never mix theirs.
 *
 * Only programs print: the commands (bench/main.c, bench/cmd/) and the
 * helpers' main files and their parts in harness/. Library code (the rest
 * of common/, analysis/, and bench/ outside cmd/) returns its error and
 * never calls these: scripts/shape.sh checks the text, and the walls'
 * links (build/walls/, docs/layout.md) leave this unit out, so a call
 * from there fails to link by name.
 */
#ifndef HB_MESSAGE_H
#define HB_MESSAGE_H

#include <stdbool.h>

/* syslog's levels, the numbers sd-daemon(3)'s "<N>" prefix uses */
enum msg_level {
	MSG_ERROR = 3,
	MSG_WARNING = 4,
	MSG_NOTE = 5,
	MSG_INFO = 6,
};

/* The program's name before every line ("hitchbench",
 * "hitchbench-sampler"); "hitchbench" until main() says otherwise. */
void msg_program(const char *name);

/* With on, every line starts with its level as "<N>", for a program whose
 * stderr a journal reads (hitchbench-reboot under Slurm). */
void msg_levels(bool on);

/* Every message is also handed to fn (the line without the program's name
 * or level), for a program that keeps a log of its own; NULL: none. */
void msg_copy(void (*fn)(enum msg_level level, const char *msg, void *data), void *data);

/* Each line of text as one message at level (what a library unit
 * returned in a strbuf, one finding a line): "PROG: what", with the
 * level's word for warnings and notes ("warning: ", "note: "). */
void msg_lines(enum msg_level level, const char *text);

/* The shorthands every program uses. */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Something the user should know that is not wrong: "PROG: note: ". */
void note_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and results a program reports as it goes: "PROG: what". */
void info_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error: the message, then the usage, both on stderr; returns
 * HB_EXIT_USAGE (2) for the caller to exit with. Every program's --help
 * prints its usage on stdout instead. */
int usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A whole-number option of a helper program in lo..hi into *out: 0, or
 * "OPT: want a whole number in LO..HI, not 'ARG'" said and HB_EXIT_USAGE
 * (2) returned. */
int opt_int_range(const char *opt, const char *arg, int lo, int hi, int *out);

#endif
