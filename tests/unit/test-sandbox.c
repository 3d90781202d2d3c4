/*
 * A root helper's narrowing (common/system/sandbox.h), checked in a forked
 * child (no_new_privs and a dropped bounding set never come back) against
 * what the kernel says in /proc/self/status: NoNewPrivs 1 always; CapEff,
 * CapPrm, CapBnd the kept set and CapAmb empty when root, also across an
 * exec (SECURE_NOROOT). Unprivileged, the strict part is skipped with
 * the reason and the best-effort part checked. The read-only tree: a file
 * made in the directory it writes, refused (EROFS) beside it, the
 * machine's own tree unchanged.
 */
#include "system/sandbox.h"
#include "test.h"
#include "base/util.h"

#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child's findings, as its exit status: 0 all held, else the first
 * check that failed */
enum finding {
	FOUND_OK,
	FOUND_ENTER_FAILED,
	FOUND_STRICTNESS,
	FOUND_NNP,
	FOUND_EFFECTIVE,
	FOUND_PERMITTED,
	FOUND_BOUNDING,
	FOUND_AMBIENT,
	FOUND_DESCRIBE,
	FOUND_EXEC,
	FOUND_SETUP,
};

/* A /proc/PID/status field's value (hex for the Cap* lines), or
 * UINT64_MAX when it is missing. */
static uint64_t status_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, strncmp(key, "Cap", 3) == 0 ? 16 : 10);
	}
	return UINT64_MAX;
}

static uint64_t own_field(const char *key)
{
	char *text = NULL;
	uint64_t v = UINT64_MAX;

	if (read_file("/proc/self/status", &text, NULL) == 0)
		v = status_field(text, key);
	free(text);
	return v;
}

/* What an exec'd cat prints of its own status, in a pipe. */
static char *exec_status(void)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fds) < 0)
		return NULL;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		execl("/bin/cat", "cat", "/proc/self/status", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		strbuf_add(&sb, buf, (size_t)n);
	close(fds[0]);
	waitpid(pid, &status, 0);
	return strbuf_detach(&sb);
}

/* In the child: narrows to want (the mask of keep[]), checks, exits.
 * without_setpcap: CAP_SETPCAP dropped first, as a container's root may
 * lack it (best effort even as root). */
static enum finding narrow_and_check(const int *keep, size_t n, uint64_t want, const char *want_line,
				     bool without_setpcap)
{
	struct strbuf line = STRBUF_INIT;
	bool strict = false;
	char *after;
	uint64_t had_bnd;

	if (without_setpcap && geteuid() == 0) {
		if (capng_get_caps_process() < 0 ||
		    capng_update(CAPNG_DROP, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SETPCAP) < 0 ||
		    capng_apply(CAPNG_SELECT_CAPS) < 0)
			return FOUND_SETUP;
	}
	had_bnd = own_field("CapBnd");
	if (sandbox_enter(keep, n, &strict) < 0)
		return FOUND_ENTER_FAILED;
	if (own_field("NoNewPrivs") != 1)
		return FOUND_NNP;
	if (own_field("CapAmb") != 0)
		return FOUND_AMBIENT;
	if (!strict) {
		/* best effort: what it held of keep at most, the bounding set as it was */
		if ((own_field("CapEff") & ~want) != 0)
			return FOUND_EFFECTIVE;
		if (own_field("CapBnd") != had_bnd)
			return FOUND_BOUNDING;
		return geteuid() == 0 && !without_setpcap ? FOUND_STRICTNESS : FOUND_OK;
	}
	if (without_setpcap)
		return FOUND_STRICTNESS;
	if (own_field("CapEff") != want)
		return FOUND_EFFECTIVE;
	if (own_field("CapPrm") != want)
		return FOUND_PERMITTED;
	if (own_field("CapBnd") != want)
		return FOUND_BOUNDING;
	if (sandbox_describe(&line) < 0 || strcmp(line.buf, want_line) != 0) {
		fprintf(stderr, "sandbox_describe: '%s', want '%s'\n", line.buf, want_line);
		return FOUND_DESCRIBE;
	}
	strbuf_release(&line);
	/* uid 0 gains nothing at exec: the bounding set and SECURE_NOROOT */
	after = exec_status();
	if (!after || status_field(after, "CapEff") != 0 || status_field(after, "CapPrm") != 0 ||
	    status_field(after, "NoNewPrivs") != 1)
		return FOUND_EXEC;
	free(after);
	return FOUND_OK;
}

static int run_child(const int *keep, size_t n, uint64_t want, const char *want_line, bool without_setpcap)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(narrow_and_check(keep, n, want, want_line, without_setpcap));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(nothing_kept)
{
	ck_assert_int_eq(run_child(NULL, 0, 0,
				   "no_new_privs=1 effective=none permitted=none bounding=none ambient=none", false),
			 FOUND_OK);
	if (geteuid() != 0)
		test_skip("not root: no_new_privs checked, the capability sets only as far as one's own");
}
END_TEST

START_TEST(one_kept)
{
	const int keep[] = { CAP_SYS_PTRACE };

	ck_assert_int_eq(run_child(keep, 1, 1ull << CAP_SYS_PTRACE,
				   "no_new_privs=1 effective=sys_ptrace permitted=sys_ptrace bounding=sys_ptrace "
				   "ambient=none", false),
			 FOUND_OK);
	if (geteuid() != 0)
		test_skip("not root: the strict narrowing to CAP_SYS_PTRACE needs CAP_SETPCAP");
}
END_TEST

START_TEST(best_effort_without_setpcap)
{
	const int keep[] = { CAP_SYS_PTRACE };

	/* root without CAP_SETPCAP (or any user): no_new_privs, the sets
	 * narrowed, the bounding set left as it was, no failure */
	ck_assert_int_eq(run_child(keep, 1, 1ull << CAP_SYS_PTRACE, NULL, true), FOUND_OK);
}
END_TEST

/* In a forked child: the tree read-only but for dir, in a mount namespace
 * of its own; 0 when a file can be made in dir and not beside it, and the
 * machine's own tree is untouched (checked by the parent). */
static int readonly_child(const char *dir, const char *beside)
{
	struct strbuf why = STRBUF_INIT;
	char *in = xasprintf("%s/made", dir), *out = xasprintf("%s/made", beside);
	const char *writes[] = { dir, NULL };
	int fd;

	if (sandbox_readonly(writes, &why) < 0) {
		if (geteuid() == 0)
			fprintf(stderr, "sandbox_readonly: %s\n", why.buf);
		return 1;
	}
	fd = open(in, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return 2;
	close(fd);
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd >= 0 || errno != EROFS)
		return 3;
	return 0;
}

START_TEST(tree_read_only)
{
	char *root = test_tmpdir(), *dir = xasprintf("%s/out", root), *beside = xasprintf("%s/else", root);
	char *made;
	struct stat st;
	int status;
	pid_t pid;

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	ck_assert_int_eq(mkdir_p(beside, 0755), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(readonly_child(dir, beside));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	if (geteuid() != 0) {
		/* unshare(CLONE_NEWNS) needs CAP_SYS_ADMIN: it said why */
		ck_assert_int_eq(WEXITSTATUS(status), 1);
		test_skipped("not root: a mount namespace of its own needs CAP_SYS_ADMIN");
	} else {
		ck_assert_int_eq(WEXITSTATUS(status), 0);
		/* the file made in the writable directory is the machine's, and the
		 * machine's tree stayed writable */
		made = xasprintf("%s/made", dir);
		ck_assert_int_eq(stat(made, &st), 0);
		free(made);
		made = xasprintf("%s/made", beside);
		ck_assert_int_eq(stat(made, &st), -1);
		test_put(beside, "made", "still writable here\n");
		ck_assert_int_eq(stat(made, &st), 0);
		free(made);
	}
	remove_tree(root);
	free(root);
	free(dir);
	free(beside);
}
END_TEST

TEST_SUITE(sandbox_suite)
{
	Suite *s = suite_create("sandbox");
	TCase *tc = tcase_create("narrow");

	tcase_add_test(tc, nothing_kept);
	tcase_add_test(tc, one_kept);
	tcase_add_test(tc, best_effort_without_setpcap);
	tcase_add_test(tc, tree_read_only);
	suite_add_tcase(s, tc);
	return s;
}
