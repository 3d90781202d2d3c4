/*
 * A root helper's privileges narrowed after its setup (sandbox.h): the
 * capability sets with Debian's libcap-ng (the effective, permitted,
 * inheritable, bounding and ambient sets in one capng_apply(), the
 * securebits locked with capng_lock()), the read-only tree with a mount
 * namespace of its own and mount_setattr().
 */
#include "system/sandbox.h"
#include "base/util.h"

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>

/* libcap-ng returns a negative number and may leave errno unset: -EPERM
 * then (each caller clears errno before the call) */
static int capng_failed(void)
{
	return errno ? -errno : -EPERM;
}

/* libcap-ng's state (read from the kernel by the caller) cut to the
 * capabilities of keep that it holds: in the effective, permitted and
 * bounding sets, none in the inheritable and ambient sets. */
static int state_keep_only(const int *keep, size_t n)
{
	bool held[64] = { false };

	for (size_t i = 0; i < n; i++)
		if (keep[i] >= 0 && keep[i] < 64)
			held[keep[i]] = capng_have_capability(CAPNG_PERMITTED, (unsigned)keep[i]);
	capng_clear(CAPNG_SELECT_ALL);
	for (int c = 0; c < 64; c++)
		if (held[c] && capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED | CAPNG_BOUNDING_SET,
					    (unsigned)c) < 0)
			return -EINVAL;
	return 0;
}

int sandbox_enter(const int *keep, size_t n, bool *strict)
{
	bool full;
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	errno = 0;
	if (capng_get_caps_process() < 0)
		return capng_failed();
	full = capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP);
	if (strict)
		*strict = full;
	r = state_keep_only(keep, n);
	if (r < 0)
		return r;
	errno = 0;
	if (!full) {
		/* lowering one's own sets needs no privilege; the bounding set
		 * does (CAP_SETPCAP), so it stays as it is */
		r = capng_apply(CAPNG_SELECT_CAPS);
		if (r == 0 && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
			return -errno;
		return r < 0 ? capng_failed() : 0;
	}
	/* the securebits first: locking them needs CAP_SETPCAP, which goes
	 * with the rest unless kept */
	if (capng_lock() < 0)
		return capng_failed();
	errno = 0;
	if (capng_apply(CAPNG_SELECT_ALL) < 0)
		return capng_failed();
	return 0;
}

/* The names of one set, comma-separated; "none", or "all" when it holds
 * every capability the kernel has (PR_CAPBSET_READ fails past its last). */
static void describe_set(struct strbuf *out, const char *label, capng_type_t which)
{
	size_t start = out->len;
	int c, held = 0;

	strbuf_addf(out, " %s=", label);
	for (c = 0; c < 64 && prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++) {
		const char *name;

		if (!capng_have_capability(which, (unsigned)c))
			continue;
		name = capng_capability_to_name((unsigned)c);
		if (held++)
			strbuf_addch(out, ',');
		if (name)
			strbuf_addstr(out, name);
		else
			strbuf_addf(out, "%d", c);
	}
	if (held == 0) {
		strbuf_addstr(out, "none");
	} else if (held == c) {
		out->len = start;
		out->buf[out->len] = '\0';
		strbuf_addf(out, " %s=all", label);
	}
}

int sandbox_describe(struct strbuf *out)
{
	int nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);

	if (nnp < 0)
		return -errno;
	errno = 0;
	if (capng_get_caps_process() < 0)
		return capng_failed();
	strbuf_addf(out, "no_new_privs=%d", nnp);
	describe_set(out, "effective", CAPNG_EFFECTIVE);
	describe_set(out, "permitted", CAPNG_PERMITTED);
	describe_set(out, "bounding", CAPNG_BOUNDING_SET);
	describe_set(out, "ambient", CAPNG_AMBIENT);
	return 0;
}

/* One of writes (a directory, or a file whose directory it is), a mount
 * of its own (a bind of itself, with what is mounted below it) so that it
 * can be made writable again. */
static int bind_own_dir(const char *path, char **dir)
{
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		*dir = xstrdup(path);
	else
		*dir = slash == path ? xstrdup("/") : slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	return mount(*dir, *dir, NULL, MS_BIND | MS_REC, NULL) < 0 ? -errno : 0;
}

int sandbox_readonly(const char *const *writes, struct strbuf *why)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	struct mount_attr rw = { .attr_clr = MOUNT_ATTR_RDONLY };
	size_t n = 0;
	char **dirs;
	int r = 0;

	while (writes && writes[n])
		n++;
	if (unshare(CLONE_NEWNS) < 0) {
		strbuf_addf(why, "unshare(CLONE_NEWNS): %s", strerror(errno));
		return -errno;
	}
	/* nothing done here reaches the machine's own mounts */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		strbuf_addf(why, "making its mounts private: %s", strerror(errno));
		return -errno;
	}
	dirs = zalloc((n ? n : 1) * sizeof(*dirs));
	for (size_t i = 0; r == 0 && i < n; i++) {
		r = bind_own_dir(writes[i], &dirs[i]);
		if (r < 0)
			strbuf_addf(why, "binding '%s': %s", dirs[i], strerror(-r));
	}
	if (r == 0 && mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof(ro)) < 0) {
		r = -errno;
		strbuf_addf(why, "mount_setattr(/, read-only): %s", strerror(errno));
	}
	for (size_t i = 0; r == 0 && i < n; i++) {
		if (mount_setattr(AT_FDCWD, dirs[i], 0, &rw, sizeof(rw)) < 0) {
			r = -errno;
			strbuf_addf(why, "mount_setattr(%s, writable): %s", dirs[i], strerror(errno));
		}
	}
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	return r;
}

int sandbox_narrow(const int *keep, size_t n, const char *const *writes,
		   void (*say)(enum msg_level level, const char *text))
{
	struct strbuf said = STRBUF_INIT, ro_why = STRBUF_INIT;
	bool strict = false;
	int r, ro;

	/* first: a mount namespace of its own needs CAP_SYS_ADMIN */
	ro = sandbox_readonly(writes, &ro_why);
	r = sandbox_enter(keep, n, &strict);
	if (r < 0) {
		strbuf_addf(&said, "sandbox: cannot narrow its privileges (%s): %s",
			    strict ? "strict" : "best effort", strerror(-r));
	} else {
		int e;

		strbuf_addstr(&said, strict ? "sandbox: strict: "
					    : "sandbox: best effort (no CAP_SETPCAP: the bounding set stays): ");
		e = sandbox_describe(&said);
		if (e < 0)
			strbuf_addf(&said, "(cannot read its capabilities back: %s)", strerror(-e));
		if (ro == 0)
			strbuf_addf(&said, " read_only=yes");
		else
			strbuf_addf(&said, " read_only=no (%s)", ro_why.buf);
		for (size_t i = 0; ro == 0 && writes && writes[i]; i++) {
			const char *slash = strrchr(writes[i], '/');

			strbuf_addf(&said, "%s%s", i ? " " : " (writes ", slash && slash[1] ? slash + 1 : writes[i]);
		}
		if (ro == 0 && writes && writes[0])
			strbuf_addch(&said, ')');
	}
	say(r < 0 ? MSG_ERROR : MSG_INFO, said.buf);
	strbuf_release(&said);
	strbuf_release(&ro_why);
	return r;
}

const char *sandbox_fd_path(int fd, char buf[SANDBOX_FD_PATH_LEN])
{
	snprintf(buf, SANDBOX_FD_PATH_LEN, "/proc/self/fd/%d", fd);
	return buf;
}
