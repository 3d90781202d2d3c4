/*
 * The narrowing of a root helper after its setup (issue 38, the trust
 * boundary between a game and root's helpers; docs/security.md). A helper
 * that reads what the game can write (its frame file, its /proc files,
 * the ELF files it maps) opens what it needs as root, then calls
 * sandbox_enter() with the few capabilities its loop still uses:
 *
 *   - no_new_privs: nothing it could execute gains privileges;
 *   - effective, permitted and inheritable sets: the capabilities kept,
 *     those it holds of them, nothing else;
 *   - the bounding set the same, the ambient set empty, and the
 *     securebit SECURE_NOROOT set and locked (uid 0 gains nothing at
 *     exec): an exec cannot bring anything back.
 *
 * Strict when the process may change its bounding set (it holds
 * CAP_SETPCAP, as root's helpers do): every step must succeed. Best effort
 * otherwise (a test's unprivileged run, a container without CAP_SETPCAP):
 * no_new_privs, the capabilities it holds narrowed, the ambient set
 * cleared; the bounding set stays as it is, which sandbox_describe() shows.
 *
 * The kernel keeps all of this per thread (new threads inherit it): call it
 * before starting threads. A helper's uid stays 0, so root's own files
 * stay writable by their owner: sandbox_readonly() takes the tree away
 * from it but for the directories it still writes, and what it only reads
 * it opens O_RDONLY.
 */
#ifndef HB_SANDBOX_H
#define HB_SANDBOX_H

#include "base/message.h"

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* Narrows the calling thread to keep (CAP_* numbers, n of them; those it
 * does not hold are not kept). *strict (may be NULL) says which of the two
 * it was. 0, or -errno of the first step that failed (strict), or of
 * no_new_privs (best effort). */
int sandbox_enter(const int *keep, size_t n, bool *strict);

/* What the kernel says of the calling thread now, as one line without a
 * newline: "no_new_privs=1 effective=sys_ptrace bounding=sys_ptrace
 * ambient=none" (names without "cap_", comma-separated; "none", or "all"
 * for every capability of this kernel). 0 or -errno. */
int sandbox_describe(struct strbuf *out);

/* The whole tree read-only for the calling process, in a mount namespace
 * of its own (unshare(CLONE_NEWNS), its mounts private, then
 * mount_setattr(MOUNT_ATTR_RDONLY) over every mount), but for the
 * directories of writes (a NULL-terminated list of the directories it
 * still writes into, or of files it still creates there; NULL: none), each
 * bound on itself first and made writable again.
 * Its uid stays 0, so without this it could still write every file root
 * owns. What it has open stays as it was opened (the fds are on the
 * machine's own mounts); the machine's mounts do not change. Needs
 * CAP_SYS_ADMIN (call it before sandbox_enter()) and Linux 5.12. 0, or
 * -errno with why. */
int sandbox_readonly(const char *const *writes, struct strbuf *why);

/* What a helper's main() calls after its setup: sandbox_readonly(writes),
 * then sandbox_enter(), then one line handed to say (the program's
 * msg_lines; the library never prints): MSG_INFO "sandbox: strict: " or
 * "sandbox: best effort (no CAP_SETPCAP: the bounding set stays): ",
 * sandbox_describe()'s words and "read_only=yes (writes NAME...)" (the
 * last part of each of writes) or
 * "read_only=no (why)"; or MSG_ERROR with what failed. A tree it could not
 * make read-only is said, not a failure (an older kernel, a container):
 * the capabilities are the boundary, the read-only tree a second one.
 * 0 or -errno of sandbox_enter(); the caller ends on failure. */
int sandbox_narrow(const int *keep, size_t n, const char *const *writes,
		   void (*say)(enum msg_level level, const char *text));

/* The path that opens fd's file again (/proc/self/fd/N) into buf: how a
 * helper reads back a file it made in the run's staging directory. By
 * name it could find another file there (the directory is root's, but a
 * helper does not rely on who else may write it), and a narrowed helper
 * may not search it; through its own fd it finds the very file it wrote. */
#define SANDBOX_FD_PATH_LEN 32
const char *sandbox_fd_path(int fd, char buf[SANDBOX_FD_PATH_LEN]);

#endif
