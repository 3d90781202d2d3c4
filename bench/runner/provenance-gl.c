/*
 * The GL stack a run drew with, for bench.txt (see provenance.h): the
 * same game on llvmpipe and on a GPU, or on Mesa 22 and Mesa 24, is not
 * the same benchmark. Asked of the X server the game uses, as the game's
 * user with the game's environment, so the answer is the game's.
 */
#include "runner/provenance.h"
#include "runner/spawn.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* glxinfo -B writes about 2 kB; anything past this is not glxinfo -B */
#define GLXINFO_MAX_OUTPUT (256 * 1024)

enum gl_field { GL_VENDOR, GL_RENDERER, GL_VERSION, GL_CORE_VERSION, GL_ES_VERSION, GL_DIRECT,
		GL_EXT_VERSION, GL_FIELDS };

static const struct {
	const char *prefix; /* at the start of the line */
	const char *key;    /* in bench.txt; NULL: used for another key */
} gl_lines[GL_FIELDS] = {
	[GL_VENDOR] = { "OpenGL vendor string:", "gl_vendor" },
	[GL_RENDERER] = { "OpenGL renderer string:", "gl_renderer" },
	[GL_VERSION] = { "OpenGL version string:", "gl_version" },
	[GL_CORE_VERSION] = { "OpenGL core profile version string:", "gl_core_version" },
	[GL_ES_VERSION] = { "OpenGL ES profile version string:", "gl_es_version" },
	[GL_DIRECT] = { "direct rendering:", NULL },
	/* indented, under "Extended renderer info (GLX_MESA_query_renderer):" */
	[GL_EXT_VERSION] = { "Version:", NULL },
};

/* "... Mesa 22.3.6" -> "22.3.6" (to the end: "24.0.0-devel (git-1a2b3c)"
 * and distribution suffixes are part of the version). NULL if none. */
static const char *mesa_in(const char *version)
{
	for (const char *p = version; p && (p = strstr(p, "Mesa ")); p += 5)
		if (p == version || p[-1] == ' ')
			return p + 5;
	return NULL;
}

int glxinfo_parse(const char *text, struct kvfile *kf)
{
	char *field[GL_FIELDS] = { NULL };
	const char *mesa = NULL;
	bool in_ext = false;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		size_t len = strcspn(p, "\n");
		const char *line = p;

		if (*p == ' ' || *p == '\t') {
			if (!in_ext)
				continue;
			line = p + strspn(p, " \t");
		} else {
			in_ext = str_startswith(p, "Extended renderer info");
		}
		for (int f = 0; f < GL_FIELDS; f++) {
			size_t plen = strlen(gl_lines[f].prefix);

			if ((f == GL_EXT_VERSION) != (line != p) || field[f] ||
			    strncmp(line, gl_lines[f].prefix, plen) != 0)
				continue;
			field[f] = xasprintf("%.*s", (int)(len - (size_t)(line - p) - plen), line + plen);
			str_strip(field[f]);
		}
	}
	if (!field[GL_RENDERER] || !*field[GL_RENDERER]) {
		for (int f = 0; f < GL_FIELDS; f++)
			free(field[f]);
		return -ENODATA;
	}
	for (int f = 0; f < GL_FIELDS; f++)
		if (gl_lines[f].key && field[f])
			kvfile_add(kf, gl_lines[f].key, field[f]);
	mesa = mesa_in(field[GL_VERSION]);
	if (!mesa)
		mesa = mesa_in(field[GL_CORE_VERSION]);
	if (!mesa)
		mesa = mesa_in(field[GL_ES_VERSION]);
	/* only Mesa implements GLX_MESA_query_renderer */
	if (!mesa)
		mesa = field[GL_EXT_VERSION];
	if (mesa && *mesa)
		kvfile_add(kf, "mesa_version", mesa);
	if (field[GL_DIRECT])
		kvfile_add(kf, "gl_direct", !strcasecmp(field[GL_DIRECT], "yes") ? "yes" :
					    !strcasecmp(field[GL_DIRECT], "no") ? "no" : field[GL_DIRECT]);
	for (int f = 0; f < GL_FIELDS; f++)
		free(field[f]);
	return 0;
}

/* The last non-empty line of text, for saying why glxinfo failed. */
static char *last_line(const char *text)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	return xasprintf("%.*s", (int)(end - start), start);
}

/* Reads fd until EOF or the deadline (CLOCK_MONOTONIC ns). 0, or
 * -ETIMEDOUT, -EFBIG or the read's -errno. */
static int read_until(int fd, struct strbuf *sb, uint64_t deadline)
{
	for (;;) {
		char chunk[4096];
		uint64_t now = mono_ns();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((deadline - now) / NSEC_PER_MSEC) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		strbuf_add(sb, chunk, (size_t)n);
		if (sb->len > GLXINFO_MAX_OUTPUT)
			return -EFBIG;
	}
}

int provenance_gl(struct kvfile *kf, const char *glxinfo, char *const *envp,
		  const struct game_user *user, double timeout_s)
{
	char *argv[] = { (char *)glxinfo, (char *)"-B", NULL };
	struct spawn_opts o = {
		.argv = argv, .envp = envp, .in_fd = -1, .user = user, .new_session = true,
		.parent_death_signal = SIGKILL,
	};
	uint64_t deadline = mono_ns() + (uint64_t)(timeout_s * 1e9);
	struct strbuf out = STRBUF_INIT;
	int pfd[2], status = 0, r, rw;
	char why[256], *line = NULL;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(why, sizeof(why), "cannot make a pipe: %s", strerror(-r));
		goto out;
	}
	/* stderr too: its "Error: unable to open display" says why */
	o.out_fd = o.err_fd = pfd[1];
	r = spawn_process(&o, &pid);
	close(pfd[1]);
	if (r < 0) {
		close(pfd[0]);
		snprintf(why, sizeof(why), "cannot run '%s': %s", glxinfo, strerror(-r));
		goto out;
	}
	r = read_until(pfd[0], &out, deadline);
	close(pfd[0]);
	if (r < 0)
		kill(-pid, SIGKILL);
	rw = spawn_wait_until(pid, deadline, true, &status, NULL);
	if (r == 0)
		r = rw;
	if (r == -ETIMEDOUT) {
		snprintf(why, sizeof(why), "no answer within %g s", timeout_s);
		goto out;
	}
	if (r < 0) {
		snprintf(why, sizeof(why), "reading its output: %s", strerror(-r));
		goto out;
	}
	line = last_line(out.buf ? out.buf : "");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char st[64];

		describe_wait_status(status, st, sizeof(st));
		snprintf(why, sizeof(why), "%s%s%s", st, *line ? ": " : "", line);
		r = -EIO;
		goto out;
	}
	r = glxinfo_parse(out.buf ? out.buf : "", kf);
	if (r < 0)
		snprintf(why, sizeof(why), "no \"OpenGL renderer string\" in its output");
out:
	if (r < 0)
		kvfile_addf(kf, "gl_probe", "failed: %s", why);
	free(line);
	strbuf_release(&out);
	return r;
}
