/*
 * The targets config: the machines hitchbench pushes to and runs on, by
 * name (docs/targets.md). An INI file read through common/text/inifile.c:
 *
 *   version = 1
 *
 *   [ps3]
 *   url = ssh://root@ps3.lan
 *   prefix = /home/root/hitchbench     (optional; default ~/hitchbench there)
 *   ssh_config = /home/me/.ssh/lab     (optional: ssh -F)
 *   arch = ppc64                       (optional: what 'target check' saw)
 *
 * A rewrite changes only the lines of the target it is about: every other
 * line (other targets, comments, blank lines) is written back byte for
 * byte. It is done under a lock on the file's directory, on the file as it
 * is at that moment (another command's change made since this one read it
 * is kept), and atomically (a new file renamed over the old).
 */
#ifndef HB_TARGETS_H
#define HB_TARGETS_H

#include <stdbool.h>
#include <stddef.h>

#include "text/argv.h"
#include "target/ssh.h"
#include "base/util.h"

#define TARGETS_VERSION 1

struct target_entry {
	struct ssh_target ssh;   /* name, url (parsed), prefix, ssh_config */
	char *arch;              /* Debian architecture 'target check' saw; NULL: never checked */
	/* where its section is in the text it was read from: [off, off + len);
	 * len 0 for a target added since */
	size_t off, len;
	int line;                /* its "[NAME]" line, 0 when added */
	bool changed;            /* to be written anew */
	unsigned changed_keys;   /* which key lines (bit per key: url, prefix, ssh_config, arch) */
};

struct target_list {
	char *path;
	char *text;              /* the file as read ("" when there was none) */
	size_t head_len;         /* the lines before the first section */
	struct target_entry *v;
	size_t n, alloc;
	struct argv_list removed; /* names removed since the load (for targets_save); zeroed when none */
};

/* Where the config is: $HITCHBENCH_TARGETS, else
 * $XDG_CONFIG_HOME/hitchbench/targets.ini, else
 * ~/.config/hitchbench/targets.ini. The caller frees. */
char *targets_default_path(void);

/* A target's name: letters, digits, '.', '_', '-', not starting with
 * '.' or '-', at most 64 characters. */
bool targets_name_valid(const char *name);

void target_list_init(struct target_list *l);
void target_list_release(struct target_list *l);

/* Reads path (a missing file is an empty list). 0; -EINVAL with
 * "PATH:LINE: what is wrong" appended to err; -errno with "cannot read
 * 'PATH': why". */
int targets_load(const char *path, struct target_list *out, struct strbuf *err);

/* The target named name, or NULL. */
const struct ssh_target *targets_find(const struct target_list *l, const char *name);
struct target_entry *targets_entry(struct target_list *l, const char *name);

/* Adds a target (the strings copied; prefix, ssh_config and arch may be
 * NULL). 0; -EEXIST when the name is taken; -EINVAL for a bad name or url
 * (*why says what is wrong). */
int targets_add(struct target_list *l, const char *name, const char *url, const char *prefix,
		const char *ssh_config, const char *arch, const char **why);
/* Sets a target's arch (NULL: none) and marks it changed. 0 or -ENOENT. */
int targets_set_arch(struct target_list *l, const char *name, const char *arch);
/* 0 or -ENOENT. */
int targets_remove(struct target_list *l, const char *name);

/* Writes the list's changes (added, changed and removed targets) to
 * l->path: under the lock, onto the file as it is now, atomically. l is
 * then what the file holds. 0; -errno with what failed in err (the file as
 * it is now may be one this hitchbench cannot read: its error). The list
 * is reloaded: what targets_find() or targets_entry() gave before points
 * nowhere after (find it again). */
int targets_save(struct target_list *l, struct strbuf *err);

/* The text targets_save writes for l (tests; the caller frees). */
char *targets_format(const struct target_list *l);

#endif
