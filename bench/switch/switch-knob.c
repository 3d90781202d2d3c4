/*
 * KNOB=PATH=VALUE: one of the kernel's or the system's run-time knobs, a
 * file under /proc/sys or /sys (the transparent huge pages mode, a CPU
 * governor or energy preference, the scheduler's base_slice_ns under
 * /sys/kernel/debug/sched, a disk's I/O scheduler), set to VALUE for the
 * run and put back after it; or, in a flip run, turned between two values
 * while the game plays (docs/switches.md "KNOB").
 *
 * Before the value is written the old one is journaled (the thaw journal,
 * fsync'd), so a runner killed mid-run leaves the machine for `hitchbench
 * thaw` (or the next batch) to put back. Before the run the knob is
 * checked: it exists, is writable, and takes the value (read back: the
 * same, or for a choice file such as THP's "always [madvise] never" the
 * choice in brackets); the run fails with the reason otherwise. A
 * sched_ext scheduler is attached and detached the same way where the
 * kernel has sched_ext (docs/switches.md says how).
 */
#include "switch/switch.h"
#include "quiet/thaw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* "PATH=VALUE" split (PATH without its leading '/', as the root takes it). */
static int split(const char *v, char **rel, char **value)
{
	const char *eq = strchr(v, '=');

	if (!eq || v[0] != '/' || eq == v + 1 || !eq[1])
		return -EINVAL;
	*rel = xstrndup(v + 1, (size_t)(eq - v - 1));
	*value = xstrdup(eq + 1);
	return 0;
}

static int check(const char *v, struct strbuf *err)
{
	char *rel, *value;
	int r = 0;

	if (split(v, &rel, &value) < 0) {
		strbuf_addstr(err, "wants PATH=VALUE, PATH a file under /proc/sys or /sys "
			      "(KNOB=/sys/kernel/mm/transparent_hugepage/enabled=madvise)");
		return -EINVAL;
	}
	if ((strncmp(rel, "proc/sys/", 9) != 0 && strncmp(rel, "sys/", 4) != 0) || strstr(rel, "/../") ||
	    strstr(rel, "/./") || strstr(rel, "//") || rel[strlen(rel) - 1] == '/' ||
	    strcspn(value, " \t+\n") != strlen(value)) {
		strbuf_addf(err, "'%s': the path must be a file under /proc/sys or /sys (no '..'), the value "
			    "one word", v);
		r = -EINVAL;
	}
	free(rel);
	free(value);
	return r;
}

/* "transparent_hugepage.enabled-always": the file's last two names. */
static void label(const struct switch_on *on, struct strbuf *out)
{
	char *rel, *value, *last, *prev;

	if (split(on->value, &rel, &value) < 0)
		return;
	last = strrchr(rel, '/');
	*last = '\0';
	prev = strrchr(rel, '/');
	strbuf_addf(out, "%s.%s-", prev ? prev + 1 : rel, last + 1);
	for (const char *c = value; *c; c++)
		strbuf_addch(out, (*c == '/' || *c == '[' || *c == ']') ? '_' : *c);
	free(rel);
	free(value);
}

/* Writes value and reads it back. 0, or -errno with err. */
static int set_knob(const char *rel, const char *value, struct strbuf *err)
{
	char *got = NULL;
	int r = thaw_write_setting(rel, value);

	if (r < 0) {
		strbuf_addf(err, "KNOB: cannot write '%s' to /%s: %s", value, rel, strerror(-r));
		return r;
	}
	r = thaw_read_setting(rel, &got);
	if (r < 0) {
		strbuf_addf(err, "KNOB: cannot read /%s back: %s", rel, strerror(-r));
		return r;
	}
	if (!thaw_setting_is(got, value)) {
		strbuf_addf(err, "KNOB: /%s reads '%s' after '%s' was written: the kernel did not take it",
			    rel, got, value);
		r = -EINVAL;
	}
	free(got);
	return r;
}

static int prepare(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	char *rel, *value, *got = NULL, *old;
	int r;

	if (split(on->value, &rel, &value) < 0)
		return -EINVAL;
	r = thaw_read_setting(rel, &got);
	if (r < 0) {
		strbuf_addf(err, "KNOB: cannot read /%s: %s", rel, strerror(-r));
		goto out;
	}
	old = thaw_setting_value(got);
	if (!ctx->journal) {
		strbuf_addf(err, "KNOB: no thaw journal to keep /%s's value in (a bug: the batch opens one)",
			    rel);
		r = -EINVAL;
	} else if ((r = thaw_journal_add(ctx->journal, THAW_FILE_SETTING, rel, old)) < 0) {
		strbuf_addf(err, "KNOB: cannot journal /%s before changing it: %s", rel, strerror(-r));
	} else if ((r = set_knob(rel, value, err)) == 0) {
		/* the value is accepted by a write and a restore: both ways work */
		r = set_knob(rel, old, err);
		if (r == 0)
			r = set_knob(rel, value, err);
	}
	if (r == 0) {
		kvfile_addf(ctx->bench, "knob", "/%s", rel);
		kvfile_add(ctx->bench, "knob.value", value);
		kvfile_add(ctx->bench, "knob.before", old);
	}
	free(old);
out:
	free(got);
	free(rel);
	free(value);
	return r;
}

/* The value the machine had, back after the run (the journal keeps it
 * until the batch thaws, in case this fails). */
static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT;
	const char *old = kvfile_get(ctx->bench, "knob.before");
	char *rel, *value;

	if (!old || split(on->value, &rel, &value) < 0)
		return;
	if (set_knob(rel, old, &err) < 0) {
		kvfile_add(ctx->bench, "knob.restored", err.buf);
		switch_ctx_note(ctx, "%s ('hitchbench thaw' tries again)", err.buf);
	} else {
		kvfile_add(ctx->bench, "knob.restored", "yes");
	}
	free(rel);
	free(value);
	strbuf_release(&err);
}

/* A flip: the side's value written (the side's KNOB; off: the value the
 * machine had). */
static int flip(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	const char *old = kvfile_get(ctx->bench, "knob.before"), *path = kvfile_get(ctx->bench, "knob");
	char *rel = NULL, *value = NULL;
	int r;

	if (!path || !old) {
		strbuf_addstr(err, "KNOB: the run did not set the knob up");
		return -EINVAL;
	}
	if (on && split(on->value, &rel, &value) < 0)
		return -EINVAL;
	r = set_knob(path + 1, value ? value : old, err);
	free(rel);
	free(value);
	return r;
}

/* Both sides name one knob: a flip turns one file. */
static int flip_check(const struct switch_on *a, const struct switch_on *b, struct strbuf *err)
{
	char *ra, *va, *rb, *vb;
	int r = 0;

	if (!a || !b) {
		strbuf_addstr(err, "KNOB flips between two values of one knob: name it on both sides "
			      "(KNOB=PATH=A and KNOB=PATH=B)");
		return -EINVAL;
	}
	if (split(a->value, &ra, &va) < 0 || split(b->value, &rb, &vb) < 0)
		return -EINVAL;
	if (strcmp(ra, rb) != 0) {
		strbuf_addf(err, "KNOB flips one knob: A names /%s, B /%s", ra, rb);
		r = -EINVAL;
	}
	free(ra);
	free(va);
	free(rb);
	free(vb);
	return r;
}

const struct switch_def switch_knob = {
	.name = "KNOB",
	.help = "PATH=VALUE: a kernel or system knob under /proc/sys or /sys, set for the run "
		"(journaled; thaw puts it back)",
	.check = check,
	.label = label,
	.prepare = prepare,
	.finish = finish,
	.flip = flip,
	.flip_check = flip_check,
	.flip_act_ms = 0,
	.journals = true,
};
