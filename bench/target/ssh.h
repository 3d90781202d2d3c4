/*
 * Talking to a target machine over OpenSSH: one multiplexed connection per
 * command (a ControlMaster whose socket lives in a private directory of
 * ours), through which every remote command and every rsync of the command
 * goes. The user's keys and known_hosts are used as they are and never
 * written: BatchMode (no prompt), StrictHostKeyChecking=yes (an unknown host
 * is refused, not added) and UpdateHostKeys=no.
 */
#ifndef HB_SSH_H
#define HB_SSH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/util.h"

/* A target as the config names it (bench/target/targets.h keeps a list of them). */
struct ssh_target {
	char *name;
	char *url;          /* ssh://[user@]host[:port] as given */
	char *user;         /* NULL: ssh's default (the config's User, else ours) */
	char *host;
	int port;           /* 0: ssh's default */
	char *prefix;       /* where the harness lives on the target; NULL: ~/hitchbench */
	char *ssh_config;   /* an ssh_config file given with -F; NULL: the user's own */
};

/* Parses ssh://[user@]host[:port] (a trailing '/' allowed) into t's user,
 * host and port (t's other fields untouched). 0 or -EINVAL (*why says what
 * is wrong). */
int ssh_url_parse(const char *url, struct ssh_target *t, const char **why);
void ssh_target_release(struct ssh_target *t);

struct ssh_conn {
	const struct ssh_target *target;
	char *dir;          /* private 0700 directory holding the control socket */
	char *control;      /* dir/cm */
	bool open;
	size_t masters;     /* connections this command opened (1 once open) */
	struct strbuf err;  /* the master's stderr when opening failed */
};

/* Starts the master connection (ssh -M -N -f: returns once authenticated).
 * 0, or -errno / -EHOSTUNREACH when ssh failed (c->err holds what ssh
 * said). */
int ssh_open(struct ssh_conn *c, const struct ssh_target *t);

/* Runs remote_cmd (a shell command line on the target) through the master:
 * stdin_text (NULL: none) is its input, its stdout and stderr go to out and
 * err (either may be NULL: discarded). Returns the remote command's exit
 * status (0..255; 255 is also ssh's own failure), or -errno. */
int ssh_exec(struct ssh_conn *c, const char *remote_cmd, const char *stdin_text, struct strbuf *out,
	     struct strbuf *err);

/* Runs remote_cmd through the master as ssh_exec does, handing each line of
 * its stdout to line (without its newline) as it comes; its stderr goes to
 * err_fd (-1: discarded). line returns 0 to go on, else the lines are read
 * no further (the command is then waited for all the same). A signal that
 * interrupts the read (one the caller handles without SA_RESTART: Ctrl-C)
 * ends ssh (SIGTERM). Returns the remote command's exit status, or -errno. */
int ssh_exec_lines(struct ssh_conn *c, const char *remote_cmd, int err_fd,
		   int (*line)(const char *text, void *data), void *data);

/* Runs rsync with args (NULL-terminated, without the program name), its
 * remote shell the master (rsync -e "ssh -o ControlPath=..."). A remote path
 * is written ssh_remote_spec(c, PATH). out/err as for ssh_exec. The exit
 * status of rsync, or -errno. */
int ssh_rsync(struct ssh_conn *c, const char *const *args, struct strbuf *out, struct strbuf *err);

/* "HOST:PATH" (user@ included) for rsync; the caller frees. */
char *ssh_remote_spec(const struct ssh_conn *c, const char *path);

/* Ends the master (ssh -O exit) and removes the directory. Safe twice. */
void ssh_close(struct ssh_conn *c);

/* s as one word of a POSIX shell command line ('...' with ' as '\''). */
char *sh_quote(const char *s);

#endif
