/*
 * One OpenSSH ControlMaster per command (see ssh.h). Every remote command
 * and rsync goes through its socket, so a push, a check or a pull is one
 * login on the target, whatever it does there.
 */
#include "target/ssh.h"
#include "text/argv.h"
#include "runner/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int ssh_url_parse(const char *url, struct ssh_target *t, const char **why)
{
	const char *p, *at, *colon, *end;
	char *host;

	if (!str_startswith(url, "ssh://")) {
		*why = "not an ssh:// address";
		return -EINVAL;
	}
	p = url + strlen("ssh://");
	end = p + strlen(p);
	if (end > p && end[-1] == '/')
		end--;
	at = memchr(p, '@', (size_t)(end - p));
	if (at && at == p) {
		*why = "an empty user before '@'";
		return -EINVAL;
	}
	colon = memchr(at ? at + 1 : p, ':', (size_t)(end - (at ? at + 1 : p)));
	host = xstrndup(at ? at + 1 : p, (size_t)((colon ? colon : end) - (at ? at + 1 : p)));
	if (!*host || strpbrk(host, "/@ \t[]")) {
		free(host);
		*why = "no host name (ssh://[user@]host[:port])";
		return -EINVAL;
	}
	/* ssh is given "--" before the host, so nothing would be taken as an
	 * option; but no host or user name starts with '-', and one that does
	 * is a mistake, or a trick, to say so of (issue 38) */
	*why = host[0] == '-' ? "the host name starts with '-'" : NULL;
	if (at && p[0] == '-')
		*why = "the user name starts with '-'";
	for (const char *u = p; at && u < at && !*why; u++)
		if ((unsigned char)*u <= ' ' || *u == 0x7f)
			*why = "the user name has a blank or a control byte";
	if (*why) {
		free(host);
		return -EINVAL;
	}
	if (colon) {
		char *digits = xstrndup(colon + 1, (size_t)(end - colon - 1));
		uint64_t v;
		int r = safe_atou64(digits, &v);

		free(digits);
		if (r < 0 || v < 1 || v > 65535) {
			free(host);
			*why = "the port is not a number from 1 to 65535";
			return -EINVAL;
		}
		t->port = (int)v;
	} else {
		t->port = 0;
	}
	free(t->host);
	free(t->user);
	t->host = host;
	t->user = at ? xstrndup(p, (size_t)(at - p)) : NULL;
	return 0;
}

void ssh_target_release(struct ssh_target *t)
{
	free(t->name);
	free(t->url);
	free(t->user);
	free(t->host);
	free(t->prefix);
	free(t->ssh_config);
	memset(t, 0, sizeof(*t));
}

/* The programs used, "ssh" and "rsync" from PATH unless $HITCHBENCH_SSH /
 * $HITCHBENCH_RSYNC name others. */
static const char *ssh_program(void)
{
	const char *s = getenv("HITCHBENCH_SSH");

	return s && *s ? s : "ssh";
}

static const char *rsync_program(void)
{
	const char *s = getenv("HITCHBENCH_RSYNC");

	return s && *s ? s : "rsync";
}

/* The options every ssh of ours takes: the socket, the target's config,
 * port and user, and the three that keep the user's files unwritten and no
 * prompt waiting for a terminal. */
static void push_common(struct argv_list *a, const struct ssh_conn *c, const char *master)
{
	const struct ssh_target *t = c->target;

	argv_pushf(a, "-oControlPath=%s", c->control);
	argv_pushf(a, "-oControlMaster=%s", master);
	argv_push(a, "-oBatchMode=yes");
	argv_push(a, "-oStrictHostKeyChecking=yes");
	argv_push(a, "-oUpdateHostKeys=no");
	if (t->ssh_config) {
		argv_push(a, "-F");
		argv_push(a, t->ssh_config);
	}
	if (t->port) {
		argv_push(a, "-p");
		argv_pushf(a, "%d", t->port);
	}
	if (t->user) {
		argv_push(a, "-l");
		argv_push(a, t->user);
	}
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 255;
}

int ssh_open(struct ssh_conn *c, const struct ssh_target *t)
{
	char tmpl[] = "/tmp/hitchbench-ssh.XXXXXX";
	struct argv_list a;
	int r, status;

	memset(c, 0, sizeof(*c));
	strbuf_init(&c->err);
	c->target = t;
	if (!mkdtemp(tmpl))
		return -errno;
	c->dir = xstrdup(tmpl);
	c->control = xasprintf("%s/cm", c->dir);
	argv_init(&a);
	argv_push(&a, ssh_program());
	argv_push(&a, "-MNf");
	push_common(&a, c, "yes");
	argv_push(&a, "-oControlPersist=no");
	argv_push(&a, "--");
	argv_push(&a, t->host);
	r = spawn_capture_io(a.v, NULL, NULL, &c->err, &status);
	argv_release(&a);
	if (r == 0 && exit_code(status) != 0)
		r = -EHOSTUNREACH;
	if (r < 0) {
		rmdir(c->dir);
		return r;
	}
	c->open = true;
	c->masters++;
	return 0;
}

/* ssh over the connection's master, running remote_cmd there, into a */
static void remote_argv(struct argv_list *a, struct ssh_conn *c, const char *remote_cmd)
{
	argv_init(a);
	argv_push(a, ssh_program());
	push_common(a, c, "no");
	argv_push(a, "--");
	argv_push(a, c->target->host);
	argv_push(a, remote_cmd);
}

int ssh_exec(struct ssh_conn *c, const char *remote_cmd, const char *stdin_text, struct strbuf *out,
	     struct strbuf *err)
{
	struct argv_list a;
	int r, status;

	if (!c->open)
		return -ENOTCONN;
	remote_argv(&a, c, remote_cmd);
	r = spawn_capture_io(a.v, stdin_text, out, err, &status);
	argv_release(&a);
	return r < 0 ? r : exit_code(status);
}

int ssh_exec_lines(struct ssh_conn *c, const char *remote_cmd, int err_fd,
		   int (*line)(const char *text, void *data), void *data)
{
	struct spawn_opts so = { .envp = environ, .in_fd = -1, .err_fd = err_fd };
	struct argv_list a;
	char *text = NULL;
	size_t size = 0;
	ssize_t n;
	int p[2], r, status;
	bool reading = true;
	FILE *f;
	pid_t pid;

	if (!c->open)
		return -ENOTCONN;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	remote_argv(&a, c, remote_cmd);
	so.argv = a.v;
	so.out_fd = p[1];
	r = spawn_process(&so, &pid);
	close(p[1]);
	argv_release(&a);
	if (r < 0) {
		close(p[0]);
		return r;
	}
	f = fdopen(p[0], "r");
	if (!f) {
		r = -errno;
		close(p[0]);
		kill(pid, SIGTERM);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return r;
	}
	while ((n = getline(&text, &size, f)) >= 0) {
		if (n > 0 && text[n - 1] == '\n')
			text[n - 1] = '\0';
		if (reading && line(text, data) != 0)
			reading = false; /* the rest read and dropped, so the command never blocks on it */
	}
	/* a signal the caller handles (Ctrl-C) ends the wait: and ssh with it */
	if (ferror(f) && errno == EINTR)
		kill(pid, SIGTERM);
	free(text);
	fclose(f);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return exit_code(status);
}

char *ssh_remote_spec(const struct ssh_conn *c, const char *path)
{
	const struct ssh_target *t = c->target;

	return t->user ? xasprintf("%s@%s:%s", t->user, t->host, path) : xasprintf("%s:%s", t->host, path);
}

int ssh_rsync(struct ssh_conn *c, const char *const *args, struct strbuf *out, struct strbuf *err)
{
	struct argv_list a, shell;
	char *e;
	int r, status;

	if (!c->open)
		return -ENOTCONN;
	/* rsync splits -e on blanks, honouring quotes: each word quoted */
	argv_init(&shell);
	argv_push(&shell, ssh_program());
	push_common(&shell, c, "no");
	argv_init(&a);
	argv_push(&a, rsync_program());
	{
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; shell.v[i]; i++) {
			char *q = sh_quote(shell.v[i]);

			strbuf_addf(&sb, "%s%s", i ? " " : "", q);
			free(q);
		}
		e = strbuf_detach(&sb);
	}
	argv_push(&a, "-e");
	argv_push(&a, e);
	for (size_t i = 0; args[i]; i++)
		argv_push(&a, args[i]);
	r = spawn_capture_io(a.v, NULL, out, err, &status);
	free(e);
	argv_release(&shell);
	argv_release(&a);
	return r < 0 ? r : exit_code(status);
}

void ssh_close(struct ssh_conn *c)
{
	if (c->open) {
		struct argv_list a;
		int status;

		argv_init(&a);
		argv_push(&a, ssh_program());
		push_common(&a, c, "no");
		argv_push(&a, "-Oexit");
		argv_push(&a, "--");
		argv_push(&a, c->target->host);
		spawn_capture_io(a.v, NULL, NULL, NULL, &status);
		argv_release(&a);
		c->open = false;
	}
	if (c->dir) {
		unlink(c->control);
		rmdir(c->dir);
	}
	free(c->dir);
	free(c->control);
	c->dir = c->control = NULL;
	strbuf_release(&c->err);
}

char *sh_quote(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addch(&sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(&sb, "'\\''");
		else
			strbuf_addch(&sb, *s);
	}
	strbuf_addch(&sb, '\'');
	return strbuf_detach(&sb);
}
