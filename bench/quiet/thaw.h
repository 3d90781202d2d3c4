/*
 * The thaw journal: every setting quieting changes is first written, with
 * its old value, to a state file (fsync'd), and only then changed. Thawing
 * restores the entries in reverse order and reads each back. The file
 * outlives a killed runner, so the next run or "hitchbench thaw" puts the
 * machine back. Format: docs/formats.md, "Thaw journal".
 *
 * One quieting process at a time: the state directory is flock'ed by
 * whoever opens the journal, for as long as it is open. Nothing here
 * prints; what happened comes back in a struct thaw_report.
 */
#ifndef HB_THAW_H
#define HB_THAW_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

#define THAW_FORMAT 1
/* The kernel's largest pid_max (PID_MAX_LIMIT on 64-bit) */
#define THAW_PID_MAX 4194304
#define THAW_FILE "thaw.state"
#define HB_STATE_DIR_ENV "HITCHBENCH_STATE_DIR"

enum thaw_kind {
	THAW_FILE_SETTING, /* "file REL VALUE": a file under the root (/proc, /sys) */
	THAW_UNIT,         /* "unit NAME active": a systemd unit we stopped */
	THAW_VT,           /* "vt N": the VT that was active before the banner's */
};

/* Who quieted: a batch (the runner; its death leaves the journal to be
 * recovered) or a manual session ("hitchbench quiet": the machine stays
 * quiet until "hitchbench thaw"). */
enum thaw_session {
	THAW_BATCH,
	THAW_MANUAL,
};

struct thaw_entry {
	enum thaw_kind kind;
	char *key;   /* REL, unit name, or "" for the VT */
	char *value; /* the old value: file content, "active", VT number */
};

/* The header of a journal. */
struct thaw_owner {
	int pid;
	unsigned long long starttime; /* /proc/PID/stat field 22; 0 = unknown */
	enum thaw_session session;
	char *boot_id;
	char *root;
	char *since;                  /* UTC, ISO 8601 */
};

/* What was found in the state directory when the journal was opened. */
enum thaw_found {
	THAW_FOUND_NONE,
	THAW_FOUND_DEAD,       /* its owner is gone: recover it */
	THAW_FOUND_MANUAL,     /* left by "hitchbench quiet": thaw restores it */
	THAW_FOUND_ALIVE,      /* its owner still runs (another batch) */
	THAW_FOUND_OTHER_BOOT, /* written before a reboot: stale, settings reset */
	THAW_FOUND_OTHER_ROOT, /* for another HITCHBENCH_ROOT: not ours to touch */
};

struct thaw_journal {
	char *dir, *path;
	int dir_fd;               /* holds the flock; -1 when closed */
	enum thaw_session session;
	enum thaw_found found;
	struct thaw_owner owner;  /* the header in the file (ours once we write) */
	bool exists;              /* the file is there */
	bool adopted;             /* the entries are ours to add to */
	struct thaw_entry *entries;
	size_t n, alloc;
};

/* One restored entry. */
struct thaw_result {
	enum thaw_kind kind;
	char *key;
	char *want;  /* the old value */
	char *got;   /* read back afterwards; NULL when it could not be read */
	int err;     /* 0, or -errno of the write / start / switch */
	bool ok;     /* got == want */
};

struct thaw_report {
	struct thaw_result *r;
	size_t n, alloc;
	struct strbuf notes;     /* lines for people: what was found, discarded */
	size_t mismatches;
};

void thaw_report_init(struct thaw_report *rep);
/* One restored entry as a line for people, newline included:
 * "restored  file REL = OLD (read back: GOT)" or "MISMATCH  ...; error)". */
void thaw_result_describe(const struct thaw_result *res, struct strbuf *out);
void thaw_report_release(struct thaw_report *rep);

/* Where the journal lives: $HITCHBENCH_STATE_DIR, else /var/lib/hitchbench
 * for root, else $XDG_STATE_HOME/hitchbench or ~/.local/state/hitchbench.
 * A new string. */
char *thaw_state_dir(void);

void thaw_journal_init(struct thaw_journal *j);
/* Creates and locks the state directory (NULL: thaw_state_dir()) and reads
 * the journal left there, if any (j->found says what it is). Nothing is
 * restored yet. -EBUSY when another process holds the lock; -EINVAL for a
 * journal that cannot be read (message in err, with file:line). */
int thaw_journal_open(struct thaw_journal *j, const char *dir, enum thaw_session session,
		      struct strbuf *err);
/* Unlocks and frees; the file stays as it is (a batch thaws first). */
void thaw_journal_release(struct thaw_journal *j);

/* The runner at the start of a batch ("hitchbench quiet" too): makes the
 * journal ours. A journal of a dead owner is restored (as thaw_restore);
 * one from another boot is discarded with a note; a live owner's is
 * refused (-EBUSY); a manual session's is adopted by another manual
 * session and refused by a batch (-EEXIST: "hitchbench thaw" first); one
 * for another root is refused (-EXDEV). -EIO when a recovery left
 * mismatches (the journal is kept). Messages in err. */
int thaw_recover(struct thaw_journal *j, struct thaw_report *rep, struct strbuf *err);

/* Before changing a setting: journals it, fsync'd, unless the same setting
 * is journaled already (the first old value is the one to restore: quieting
 * before every run of a batch journals nothing twice). 0 or -errno. */
int thaw_journal_add(struct thaw_journal *j, enum thaw_kind kind, const char *key,
		     const char *value);
/* The entry for kind/key, or NULL. */
const struct thaw_entry *thaw_journal_find(const struct thaw_journal *j, enum thaw_kind kind,
					   const char *key);

/* Restores every entry in reverse order and reads each back (results in
 * rep). The file is removed when all came back, else kept. 0, -EIO on a
 * mismatch, -EBUSY when the journal's owner still runs, -EXDEV for
 * another root. A journal from another boot is discarded (note). */
int thaw_restore(struct thaw_journal *j, struct thaw_report *rep, struct strbuf *err);

/* A setting under the root: its content without the last newline (a new
 * string), and writing "VALUE\n" as echo would. 0 or -errno. REL is
 * resolved beneath root/proc or root/sys only (fsroot_open_beneath():
 * -EINVAL for '..', -EXDEV for a link out, -ELOOP for a symlink at the
 * end). */
int thaw_read_setting(const char *rel, char **out);
/* Whether a setting read back as got holds want: the same text, or a
 * choice file's bracketed choice ("always [madvise] never" holds
 * "madvise"). And the value in force as a new string: the choice, or got. */
bool thaw_setting_is(const char *got, const char *want);
char *thaw_setting_value(const char *got);
int thaw_write_setting(const char *rel, const char *value);

/* The file format, for tests and for reading one without locking. */
char *thaw_format(const struct thaw_owner *o, const struct thaw_entry *e, size_t n);
/* Parses a journal's text. 0 or -EINVAL with the line in *err_line and a
 * reason in err. Entries are appended to *e (caller frees with
 * thaw_entries_free). Strict, as the file is read by root: each header line
 * once; the owner's pid 2 to THAW_PID_MAX (pid 1 is init, which never
 * quiets: a journal naming it would stay "alive" for ever) and its start
 * time a decimal without sign; a file entry's REL a path under proc/ or
 * sys/ without empty, '.' or '..' names; a unit's name systemd's
 * characters, not starting with '-'; a VT a number 1 to 63. */
int thaw_parse(const char *text, struct thaw_owner *o, struct thaw_entry **e, size_t *n,
	       int *err_line, struct strbuf *err);
void thaw_entries_free(struct thaw_entry *e, size_t n);
void thaw_owner_release(struct thaw_owner *o);
const char *thaw_kind_name(enum thaw_kind kind);

#endif
