/*
 * The quieting steps (quiet.h). Each step journals the old value of what
 * it changes before changing it, records what it did as a quiet.* key,
 * and when it cannot apply here (no systemd, no cpufreq, not root) says
 * so in the record instead of failing the batch.
 */
#include "quiet/quiet.h"
#include "quiet/banner.h"
#include "system/fsroot.h"
#include "quiet/systemd-units.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct step_ctx {
	struct thaw_journal *j;
	struct kvfile *record;
	struct strbuf *err;
	struct strbuf skipped;   /* "drop_caches compact_memory" not done for lack of root */
	int journal_err;         /* < 0: stop changing anything */
	bool failed;
};

static void skip_root(struct step_ctx *c, const char *step, const char *key)
{
	kvfile_addf(c->record, key, "skipped (not root)");
	if (c->skipped.len)
		strbuf_addch(&c->skipped, ' ');
	strbuf_addstr(&c->skipped, step);
}

static int journal(struct step_ctx *c, enum thaw_kind kind, const char *key, const char *old)
{
	int r = thaw_journal_add(c->j, kind, key, old);

	if (r < 0) {
		c->journal_err = r;
		strbuf_addf(c->err, "cannot journal %s '%s' in '%s': %s", thaw_kind_name(kind), key,
			    c->j->path, strerror(-r));
	}
	return r;
}

/* May we write rel? 0, or the -errno of trying (nothing is written). */
static int writable(const char *rel)
{
	int fd = fsroot_open(rel, O_WRONLY);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static bool denied(int r)
{
	return r == -EACCES || r == -EPERM || r == -EROFS;
}

/* ---- services ---- */

static void step_services(const struct quiet_profile *p, struct step_ctx *c)
{
	struct strbuf stopped = STRBUF_INIT, idle = STRBUF_INIT, bad = STRBUF_INIT;
	char *prog = NULL, state[64];
	const char *why;

	if (!p->services.n) {
		kvfile_add(c->record, "quiet.services", "none listed");
		return;
	}
	if (systemd_find_systemctl(&prog, &why) < 0) {
		kvfile_addf(c->record, "quiet.services", "skipped (%s)", why);
		return;
	}
	if (geteuid() != 0) {
		skip_root(c, "services", "quiet.services");
		goto out;
	}
	for (size_t i = 0; i < p->services.n && !c->journal_err; i++) {
		const char *u = p->services.v[i];
		struct strbuf *to = &idle;

		if (systemd_unit_state(prog, u, state, sizeof(state)) < 0) {
			to = &bad;
		} else if (!strcmp(state, "active")) {
			if (journal(c, THAW_UNIT, u, "active") < 0)
				break;
			to = systemd_unit_stop(prog, u) == 0 ? &stopped : &bad;
		} else if (thaw_journal_find(c->j, THAW_UNIT, u)) {
			to = &stopped; /* stopped before an earlier run of this batch */
		}
		if (to->len)
			strbuf_addch(to, ' ');
		strbuf_addstr(to, u);
	}
	kvfile_addf(c->record, "quiet.services", "stopped: %s; not active: %s",
		    stopped.len ? stopped.buf : "none", idle.len ? idle.buf : "none");
	if (bad.len) {
		kvfile_add(c->record, "quiet.services_failed", bad.buf);
		c->failed = true;
	}
out:
	free(prog);
	strbuf_release(&stopped);
	strbuf_release(&idle);
	strbuf_release(&bad);
}

/* ---- write-only actions: drop_caches, compact_memory ---- */

static void step_action(struct step_ctx *c, const char *step, const char *rel, const char *value)
{
	char *key = xasprintf("quiet.%s", step);
	int r = writable(rel);

	if (denied(r))
		skip_root(c, step, key);
	else if (r == -ENOENT)
		kvfile_addf(c->record, key, "not available (no /%s)", rel);
	else if (r < 0 || (r = thaw_write_setting(rel, value)) < 0) {
		kvfile_addf(c->record, key, "failed: %s", strerror(-r));
		c->failed = true;
	} else
		kvfile_add(c->record, key, value);
	free(key);
}

/* ---- settings: journal, then change ---- */

/* 1 changed (or journaled earlier), 0 already so, or -errno. */
static int change_setting(struct step_ctx *c, const char *rel, const char *value)
{
	char *old = NULL;
	int r = thaw_read_setting(rel, &old);

	if (r < 0)
		return r;
	if (!strcmp(old, value)) {
		r = thaw_journal_find(c->j, THAW_FILE_SETTING, rel) ? 1 : 0;
		goto out;
	}
	r = journal(c, THAW_FILE_SETTING, rel, old);
	if (r == 0)
		r = thaw_write_setting(rel, value);
	if (r == 0)
		r = 1;
out:
	free(old);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* cpuN directories with a cpufreq/, in number order. */
static void cpufreq_cpus(struct argv_list *out)
{
	int fd = fsroot_open("sys/devices/system/cpu", O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char *rel;
		int f;

		if (strncmp(de->d_name, "cpu", 3) || strspn(de->d_name + 3, "0123456789") == 0 ||
		    de->d_name[3 + strspn(de->d_name + 3, "0123456789")])
			continue;
		rel = xasprintf("sys/devices/system/cpu/%s/cpufreq/scaling_governor", de->d_name);
		f = fsroot_open(rel, O_RDONLY);
		if (f >= 0) {
			close(f);
			argv_push(out, de->d_name);
		}
		free(rel);
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = list; (s = strstr(s, word)); s += n)
		if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\n' || !s[n]))
			return true;
	return false;
}

static void step_governor(const struct quiet_profile *p, struct step_ctx *c)
{
	struct argv_list cpus;
	const char *g = p->governor;
	int done = 0;

	if (!g) {
		kvfile_add(c->record, "quiet.governor", "left alone");
		return;
	}
	argv_init(&cpus);
	cpufreq_cpus(&cpus);
	if (!cpus.n) {
		kvfile_add(c->record, "quiet.governor", "no cpufreq");
		goto out;
	}
	for (size_t i = 0; i < cpus.n && !c->journal_err; i++) {
		char *base = xasprintf("sys/devices/system/cpu/%s/cpufreq", cpus.v[i]);
		char *gov = xasprintf("%s/scaling_governor", base);
		char *avail_rel = xasprintf("%s/scaling_available_governors", base);
		char *avail = NULL;
		int r;

		if (thaw_read_setting(avail_rel, &avail) == 0 && !has_word(avail, g)) {
			kvfile_addf(c->record, "quiet.governor", "'%s' not available on %s (has: %s)",
				    g, cpus.v[i], avail);
			c->failed = true;
			done = -1;
		} else if (denied(r = writable(gov))) {
			skip_root(c, "governor", "quiet.governor");
			done = -1;
		} else if (r < 0 || (r = change_setting(c, gov, g)) < 0) {
			if (!c->journal_err) {
				kvfile_addf(c->record, "quiet.governor", "failed on %s: %s", cpus.v[i],
					    strerror(-r));
				c->failed = true;
			}
			done = -1;
		} else {
			done++;
		}
		free(base);
		free(gov);
		free(avail_rel);
		free(avail);
		if (done < 0)
			break;
	}
	if (done > 0)
		kvfile_addf(c->record, "quiet.governor", "%s (%d cpus)", g, done);
out:
	argv_release(&cpus);
}

static void step_delayacct(struct step_ctx *c)
{
	static const char rel[] = "proc/sys/kernel/task_delayacct";
	int r = writable(rel);

	if (r == -ENOENT)
		kvfile_add(c->record, "quiet.delayacct", "not available (kernel before 5.14: boot with 'delayacct')");
	else if (denied(r))
		skip_root(c, "delayacct", "quiet.delayacct");
	else if (r < 0 || (r = change_setting(c, rel, "1")) < 0) {
		if (!c->journal_err) {
			kvfile_addf(c->record, "quiet.delayacct", "failed: %s", strerror(-r));
			c->failed = true;
		}
	} else
		kvfile_add(c->record, "quiet.delayacct", "1");
}

static void step_banner(const struct quiet_profile *p, const struct quiet_opts *o,
			struct step_ctx *c)
{
	char was[16];
	int active, r;

	if (!p->banner_vt) {
		kvfile_add(c->record, "quiet.banner", "off");
		return;
	}
	r = vt_active(&active);
	if (r < 0) {
		kvfile_addf(c->record, "quiet.banner", "off (no console: %s)", strerror(-r));
		return;
	}
	snprintf(was, sizeof(was), "%d", active);
	if (active != p->banner_vt && journal(c, THAW_VT, "tty0", was) < 0)
		return;
	r = banner_write(p->banner_vt, o->what, time(NULL));
	if (r == 0 && active != p->banner_vt)
		r = vt_activate(p->banner_vt);
	if (r < 0) {
		kvfile_addf(c->record, "quiet.banner", "failed on tty%d: %s", p->banner_vt,
			    strerror(-r));
		c->failed = true;
		return;
	}
	kvfile_addf(c->record, "quiet.banner", "tty%d", p->banner_vt);
}

int quiet_apply(const struct quiet_profile *p, struct thaw_journal *j, const struct quiet_opts *o,
		struct kvfile *record, struct strbuf *err)
{
	struct step_ctx c = { .j = j, .record = record, .err = err };
	int r = 0;

	strbuf_init(&c.skipped);
	kvfile_add(record, "quiet.profile", p->path ? p->path : "defaults");
	step_services(p, &c);
	if (c.journal_err)
		goto out;
	if (p->sync)
		sync();
	kvfile_add(record, "quiet.sync", p->sync ? "yes" : "no");
	if (p->drop_caches) {
		char v[4];

		snprintf(v, sizeof(v), "%d", p->drop_caches);
		step_action(&c, "drop_caches", "proc/sys/vm/drop_caches", v);
	} else {
		kvfile_add(record, "quiet.drop_caches", "0 (off)");
	}
	if (p->compact_memory)
		step_action(&c, "compact_memory", "proc/sys/vm/compact_memory", "1");
	else
		kvfile_add(record, "quiet.compact_memory", "no");
	step_governor(p, &c);
	if (c.journal_err)
		goto out;
	if (p->delayacct)
		step_delayacct(&c);
	else
		kvfile_add(record, "quiet.delayacct", "left alone");
	if (c.journal_err)
		goto out;
	step_banner(p, o, &c);
	if (c.journal_err)
		goto out;
	if (c.skipped.len)
		kvfile_addf(record, "quiet.skipped", "%s (not root)", c.skipped.buf);
	if (p->idle.timeout_s > 0) {
		struct idle_result res;
		struct strbuf sb = STRBUF_INIT;

		r = quiet_wait_idle(&p->idle, o->poll_s, o->wake_fd, &res);
		if (r == 0) {
			quiet_idle_describe(&p->idle, &res, &sb);
			kvfile_add(record, "quiet.idle", sb.buf);
		} else {
			kvfile_add(record, "quiet.idle", "interrupted");
		}
		strbuf_release(&sb);
	} else {
		kvfile_add(record, "quiet.idle", "not waited (timeout_s = 0)");
	}
out:
	strbuf_release(&c.skipped);
	if (c.journal_err)
		return c.journal_err;
	if (r < 0)
		return r;
	return c.failed ? -EIO : 0;
}
