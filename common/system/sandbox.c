/*
 * A root helper's privileges narrowed after its setup (sandbox.h), with
 * Debian's libcap-ng: it sets the four capability sets and the bounding
 * set in one capng_apply() and locks the securebits (capng_lock).
 */
#include "system/sandbox.h"
#include "base/util.h"

#include <cap-ng.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>

/* capng_* return -1 (or another negative number) without errno: the step
 * is named by its own code, errno kept when it says more */
static int capng_failed(void)
{
	return errno ? -errno : -EPERM;
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
	{
		bool held[64] = { false };

		for (size_t i = 0; i < n; i++)
			if (keep[i] >= 0 && keep[i] < 64)
				held[keep[i]] = capng_have_capability(CAPNG_PERMITTED, (unsigned)keep[i]);
		capng_clear(CAPNG_SELECT_ALL);
		for (int c = 0; c < 64; c++) {
			if (!held[c])
				continue;
			if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED | CAPNG_BOUNDING_SET,
					 (unsigned)c) < 0)
				return -EINVAL;
		}
	}
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

int sandbox_narrow(const int *keep, size_t n, void (*say)(enum msg_level level, const char *text))
{
	struct strbuf said = STRBUF_INIT;
	bool strict = false;
	int r = sandbox_enter(keep, n, &strict);

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
	}
	say(r < 0 ? MSG_ERROR : MSG_INFO, said.buf);
	strbuf_release(&said);
	return r;
}

const char *sandbox_fd_path(int fd, char buf[SANDBOX_FD_PATH_LEN])
{
	snprintf(buf, SANDBOX_FD_PATH_LEN, "/proc/self/fd/%d", fd);
	return buf;
}
