/*
 * The thaw journal's life (contract in thaw.h): the locked state
 * directory, who owns a journal found there, journaling before each
 * change, and restoring. The file's text is thaw-journal.c's. The whole
 * file is rewritten (tmp + fsync + rename, then the directory fsync'd)
 * for every entry: a journal holds a handful of lines, and a rename never
 * leaves half a line behind for a crash to confuse.
 */
#include "quiet/thaw.h"
#include "quiet/thaw-internal.h"
#include "quiet/banner.h"
#include "system/fsroot.h"
#include "base/timeutil.h"
#include "quiet/systemd-units.h"
#include "base/xdgdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- reports ---- */

void thaw_result_describe(const struct thaw_result *res, struct strbuf *out)
{
	strbuf_addf(out, "%-9s %s %s = %s (read back: %s", res->ok ? "restored" : "MISMATCH",
		    thaw_kind_name(res->kind), res->key, res->want, res->got ? res->got : "nothing");
	if (res->err)
		strbuf_addf(out, "; %s", strerror(-res->err));
	strbuf_addstr(out, ")\n");
}

void thaw_report_init(struct thaw_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	strbuf_init(&rep->notes);
}

void thaw_report_release(struct thaw_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->r[i].key);
		free(rep->r[i].want);
		free(rep->r[i].got);
	}
	free(rep->r);
	strbuf_release(&rep->notes);
	memset(rep, 0, sizeof(*rep));
}

__attribute__((format(printf, 2, 3)))
static void note(struct thaw_report *rep, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&rep->notes, fmt, ap);
	va_end(ap);
	strbuf_addch(&rep->notes, '\n');
}

/* ---- the state directory and the lock ---- */

char *thaw_state_dir(void)
{
	const char *d = getenv(HB_STATE_DIR_ENV);

	if (d && *d)
		return xstrdup(d);
	if (geteuid() == 0)
		return xstrdup(HB_SYSTEM_STATE_DIR);
	return xdg_user_dir("XDG_STATE_HOME", ".local/state");
}

void thaw_journal_init(struct thaw_journal *j)
{
	memset(j, 0, sizeof(*j));
	j->dir_fd = -1;
}

void thaw_journal_release(struct thaw_journal *j)
{
	if (j->dir_fd >= 0)
		close(j->dir_fd); /* and with it the lock */
	free(j->dir);
	free(j->path);
	thaw_owner_release(&j->owner);
	thaw_entries_free(j->entries, j->n);
	thaw_journal_init(j);
}

static void clear_entries(struct thaw_journal *j)
{
	thaw_entries_free(j->entries, j->n);
	j->entries = NULL;
	j->n = j->alloc = 0;
}

static char *current_boot_id(void)
{
	char buf[128];

	if (fsroot_read_line("proc/sys/kernel/random/boot_id", buf, sizeof(buf)) < 0)
		return NULL;
	return xstrdup(buf);
}

/* Does the journal's owner still run? Read under the root (in a fixture
 * tree, a process that is not there is gone); a zombie is gone. */
static bool owner_alive(const struct thaw_owner *o)
{
	struct proc_stat st;

	if (o->pid == getpid())
		return true;
	if (proc_stat_read(o->pid, &st) < 0 || st.state == 'Z')
		return false;
	return o->starttime == 0 || st.starttime == o->starttime;
}

static enum thaw_found classify(const struct thaw_owner *o)
{
	char *boot;
	bool other_boot;

	if (strcmp(o->root, fsroot()) != 0)
		return THAW_FOUND_OTHER_ROOT;
	boot = current_boot_id();
	/* without a boot id to compare, the journal is taken as this boot's:
	 * restoring a value twice is harmless, dropping one is not */
	other_boot = boot && strcmp(boot, o->boot_id) != 0;
	free(boot);
	if (other_boot)
		return THAW_FOUND_OTHER_BOOT;
	if (o->session == THAW_MANUAL)
		return THAW_FOUND_MANUAL;
	if (o->pid != getpid() && owner_alive(o))
		return THAW_FOUND_ALIVE;
	return o->pid == getpid() ? THAW_FOUND_NONE : THAW_FOUND_DEAD;
}

int thaw_journal_open(struct thaw_journal *j, const char *dir, enum thaw_session session,
		      struct strbuf *err)
{
	char *text = NULL;
	const char *nul;
	size_t len = 0;
	int r, line = 0;
	struct strbuf why = STRBUF_INIT;

	thaw_journal_release(j);
	j->session = session;
	j->dir = dir ? xstrdup(dir) : thaw_state_dir();
	j->path = xasprintf("%s/%s", j->dir, THAW_FILE);
	r = mkdir_p(j->dir, 0700);
	if (r < 0) {
		strbuf_addf(err, "cannot create '%s': %s", j->dir, strerror(-r));
		goto out;
	}
	j->dir_fd = open(j->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->dir_fd < 0) {
		r = -errno;
		strbuf_addf(err, "cannot open '%s': %s", j->dir, strerror(-r));
		goto out;
	}
	if (flock(j->dir_fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		strbuf_addf(err, "cannot lock '%s': %s", j->dir,
			    r == -EBUSY ? "another hitchbench is quieting or thawing this machine" :
			    strerror(-r));
		goto out;
	}
	r = read_file(j->path, &text, &len);
	if (r == -ENOENT) {
		r = 0;
		j->found = THAW_FOUND_NONE;
		goto out;
	}
	if (r < 0) {
		strbuf_addf(err, "cannot read '%s': %s", j->path, strerror(-r));
		goto out;
	}
	if ((nul = memchr(text, '\0', len))) {
		/* the parser reads a string: what follows a NUL would be lost */
		line = 1;
		for (const char *p = text; p < nul; p++)
			line += *p == '\n';
		strbuf_addf(err, "%s:%d: NUL byte", j->path, line);
		r = -EINVAL;
		goto out;
	}
	r = thaw_parse(text, &j->owner, &j->entries, &j->n, &line, &why);
	if (r < 0) {
		if (line > 0)
			strbuf_addf(err, "%s:%d: %s", j->path, line, why.buf);
		else
			strbuf_addf(err, "%s: %s", j->path, why.buf);
		goto out;
	}
	j->alloc = j->n;
	j->exists = true;
	j->found = classify(&j->owner);
out:
	if (r < 0 && j->dir_fd >= 0) {
		close(j->dir_fd);
		j->dir_fd = -1;
	}
	free(text);
	strbuf_release(&why);
	return r;
}

/* ---- writing ---- */

/* -EPERM as pid 1 (an init): a journal never names it (thaw_parse). */
static int become_owner(struct thaw_journal *j)
{
	struct proc_stat st;
	char when[32];
	char *since;

	if (getpid() < 2)
		return -EPERM;
	since = j->owner.since ? xstrdup(j->owner.since) : NULL;

	thaw_owner_release(&j->owner);
	j->owner.pid = getpid();
	j->owner.starttime = proc_stat_read(getpid(), &st) == 0 ? st.starttime : 0;
	j->owner.session = j->session;
	j->owner.boot_id = current_boot_id();
	if (!j->owner.boot_id)
		j->owner.boot_id = xstrdup("unknown");
	j->owner.root = xstrdup(fsroot());
	if (!since) {
		utc_iso8601(time(NULL), when, sizeof(when));
		since = xstrdup(when);
	}
	j->owner.since = since;
	j->adopted = true;
	return 0;
}

static int journal_write(struct thaw_journal *j)
{
	char *text = thaw_format(&j->owner, j->entries, j->n);
	int r = write_file_atomic(j->path, text, strlen(text), 0600);

	free(text);
	if (r == 0 && fsync(j->dir_fd) < 0)
		r = -errno;
	if (r == 0)
		j->exists = true;
	return r;
}

static int journal_remove(struct thaw_journal *j)
{
	if (unlink(j->path) < 0 && errno != ENOENT)
		return -errno;
	j->exists = false;
	if (fsync(j->dir_fd) < 0)
		return -errno;
	return 0;
}

const struct thaw_entry *thaw_journal_find(const struct thaw_journal *j, enum thaw_kind kind,
					   const char *key)
{
	for (size_t i = 0; i < j->n; i++)
		if (j->entries[i].kind == kind && !strcmp(j->entries[i].key, key))
			return &j->entries[i];
	return NULL;
}

int thaw_journal_add(struct thaw_journal *j, enum thaw_kind kind, const char *key,
		     const char *value)
{
	int r;

	if (j->dir_fd < 0)
		return -EBADF;
	if (!j->adopted) {
		/* a journal found at open must be recovered first */
		if (j->found != THAW_FOUND_NONE)
			return -EBUSY;
		r = become_owner(j);
		if (r < 0)
			return r;
	}
	if (thaw_journal_find(j, kind, key))
		return 0;
	thaw_entry_push(&j->entries, &j->n, &j->alloc, kind, xstrdup(key), xstrdup(value));
	r = journal_write(j);
	if (r < 0) {
		/* not on disk: the caller must not change the setting */
		j->n--;
		free(j->entries[j->n].key);
		free(j->entries[j->n].value);
	}
	return r;
}

/* ---- restoring ---- */

static char *chomp_dup(const char *s)
{
	size_t n = strlen(s);

	if (n > 0 && s[n - 1] == '\n')
		n--;
	return xasprintf("%.*s", (int)n, s);
}

bool thaw_setting_is(const char *got, const char *want)
{
	const char *open = strchr(got, '['), *close;

	if (strcmp(got, want) == 0)
		return true;
	if (!open || !(close = strchr(open, ']')))
		return false;
	return (size_t)(close - open - 1) == strlen(want) && strncmp(open + 1, want, strlen(want)) == 0;
}

char *thaw_setting_value(const char *got)
{
	const char *open = strchr(got, '['), *close = open ? strchr(open, ']') : NULL;

	return close ? xstrndup(open + 1, (size_t)(close - open - 1)) : xstrdup(got);
}

/* Both ways through fsroot_open_beneath(): a journal's REL never leads out
 * of root/proc or root/sys, by '..' or by a link. */
int thaw_read_setting(const char *rel, char **out)
{
	struct stat st;
	char *text;
	int fd = fsroot_open_beneath(rel, O_RDONLY | O_NONBLOCK | O_NOCTTY), r;

	if (fd < 0)
		return fd;
	r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (r == 0)
		r = read_fd(fd, &text, NULL);
	close(fd);
	if (r < 0)
		return r;
	*out = chomp_dup(text);
	free(text);
	return 0;
}

/* O_TRUNC so that a shorter value in a fixture file does not leave the
 * end of a longer one (sysfs and procfs ignore it). */
int thaw_write_setting(const char *rel, const char *value)
{
	char *line = xasprintf("%s\n", value);
	size_t len = strlen(line);
	int fd = fsroot_open_beneath(rel, O_WRONLY | O_TRUNC | O_NONBLOCK | O_NOCTTY), r = 0;
	ssize_t n;

	if (fd < 0) {
		free(line);
		return fd;
	}
	do {
		n = write(fd, line, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	free(line);
	return r;
}

static void restore_file(const struct thaw_entry *e, struct thaw_result *res)
{
	char *now = NULL;

	/* writing only what differs: thawing twice, or as a user who may not
	 * write, leaves an unchanged value alone */
	if (thaw_read_setting(e->key, &now) < 0 || strcmp(now, e->value) != 0)
		res->err = thaw_write_setting(e->key, e->value);
	free(now);
	if (thaw_read_setting(e->key, &res->got) < 0)
		res->got = NULL;
}

static void restore_unit(const struct thaw_entry *e, struct thaw_result *res)
{
	char *prog = NULL, state[64];
	const char *why;

	res->err = systemd_find_systemctl(&prog, &why);
	if (res->err < 0)
		return;
	if (systemd_unit_state(prog, e->key, state, sizeof(state)) < 0 || strcmp(state, e->value) != 0)
		res->err = systemd_unit_start(prog, e->key);
	if (systemd_unit_state(prog, e->key, state, sizeof(state)) == 0)
		res->got = xstrdup(state);
	free(prog);
}

static void restore_vt(const struct thaw_entry *e, struct thaw_result *res)
{
	int want, now;

	if (safe_atoi(e->value, &want) < 0 || want < 1) {
		res->err = -EINVAL;
		return;
	}
	if (vt_active(&now) < 0 || now != want)
		res->err = vt_activate(want);
	if (vt_active(&now) == 0)
		res->got = xasprintf("%d", now);
}

static void restore_all(struct thaw_journal *j, struct thaw_report *rep)
{
	for (size_t i = j->n; i-- > 0;) {
		const struct thaw_entry *e = &j->entries[i];
		struct thaw_result *res;

		if (rep->n == rep->alloc) {
			rep->alloc = rep->alloc ? rep->alloc * 2 : 8;
			rep->r = xrealloc(rep->r, rep->alloc * sizeof(*rep->r));
		}
		res = &rep->r[rep->n++];
		memset(res, 0, sizeof(*res));
		res->kind = e->kind;
		res->key = xstrdup(e->key);
		res->want = xstrdup(e->value);
		switch (e->kind) {
		case THAW_FILE_SETTING:
			restore_file(e, res);
			break;
		case THAW_UNIT:
			restore_unit(e, res);
			break;
		case THAW_VT:
			restore_vt(e, res);
			break;
		}
		res->ok = res->got && thaw_setting_is(res->got, res->want);
		if (!res->ok)
			rep->mismatches++;
	}
}

static const char *session_name(enum thaw_session s)
{
	return s == THAW_MANUAL ? "'hitchbench quiet'" : "a batch";
}

/* Restores what the journal holds, whoever wrote it; the caller decided
 * that it may. */
static int restore(struct thaw_journal *j, struct thaw_report *rep, struct strbuf *err)
{
	int r;

	restore_all(j, rep);
	if (rep->mismatches) {
		strbuf_addf(err, "%zu setting(s) did not come back; '%s' is kept for another "
			    "'hitchbench thaw'", rep->mismatches, j->path);
		return -EIO;
	}
	r = journal_remove(j);
	if (r < 0) {
		strbuf_addf(err, "cannot remove '%s': %s", j->path, strerror(-r));
		return r;
	}
	clear_entries(j);
	j->found = THAW_FOUND_NONE;
	j->adopted = false;
	thaw_owner_release(&j->owner);
	return 0;
}

/* What both thaw_recover and thaw_restore refuse or discard. 1 when the
 * caller goes on. */
static int check_found(struct thaw_journal *j, struct thaw_report *rep, struct strbuf *err)
{
	int r;

	switch (j->found) {
	case THAW_FOUND_ALIVE:
		strbuf_addf(err, "a batch (pid %d, since %s) is quieting this machine; its journal "
			    "is '%s'", j->owner.pid, j->owner.since, j->path);
		return -EBUSY;
	case THAW_FOUND_OTHER_ROOT:
		strbuf_addf(err, "'%s' is for the root '%s', not '%s'", j->path, j->owner.root,
			    fsroot());
		return -EXDEV;
	case THAW_FOUND_OTHER_BOOT:
		note(rep, "discarded '%s' from another boot (%s, since %s): settings do not survive "
		     "a reboot", j->path, j->owner.boot_id, j->owner.since);
		r = journal_remove(j);
		if (r < 0) {
			strbuf_addf(err, "cannot remove '%s': %s", j->path, strerror(-r));
			return r;
		}
		clear_entries(j);
		thaw_owner_release(&j->owner);
		j->found = THAW_FOUND_NONE;
		return 0;
	default:
		return 1;
	}
}

int thaw_recover(struct thaw_journal *j, struct thaw_report *rep, struct strbuf *err)
{
	int r = check_found(j, rep, err);

	if (r <= 0)
		return r;
	switch (j->found) {
	case THAW_FOUND_DEAD:
		note(rep, "restoring what %s (pid %d, since %s) left in '%s'",
		     session_name(j->owner.session), j->owner.pid, j->owner.since, j->path);
		return restore(j, rep, err);
	case THAW_FOUND_MANUAL:
		if (j->session == THAW_BATCH) {
			strbuf_addf(err, "the machine was quieted by 'hitchbench quiet' (since %s); "
				    "'hitchbench thaw' gives it back first", j->owner.since);
			return -EEXIST;
		}
		note(rep, "continuing the quiet session since %s (%zu setting(s) journaled)",
		     j->owner.since, j->n);
		r = become_owner(j);
		if (r == 0)
			r = journal_write(j);
		if (r < 0)
			strbuf_addf(err, "cannot write '%s': %s", j->path, strerror(-r));
		return r;
	default:
		return 0;
	}
}

int thaw_restore(struct thaw_journal *j, struct thaw_report *rep, struct strbuf *err)
{
	int r;

	if (j->dir_fd < 0)
		return -EBADF;
	r = check_found(j, rep, err);
	if (r <= 0)
		return r;
	if (!j->exists) {
		clear_entries(j);
		return 0;
	}
	if (!j->adopted)
		note(rep, "restoring what %s (pid %d, since %s) left in '%s'",
		     session_name(j->owner.session), j->owner.pid, j->owner.since, j->path);
	return restore(j, rep, err);
}
