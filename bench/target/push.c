/*
 * What push decides and reads (see push.h), apart from the command that
 * talks to the target, so the decisions and the parsing are tested
 * without one.
 */
#include "target/push.h"
#include "text/kvfile.h"
#include "runner/spawn.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *push_how_name(enum push_how how)
{
	switch (how) {
	case PUSH_HOST_BUILD:
		return "host-build";
	case PUSH_CROSS:
		return "cross";
	default:
		return "target-build";
	}
}

enum push_how push_decide(const char *host_arch, const char *target_arch, bool on_target)
{
	if (on_target)
		return PUSH_TARGET_BUILD;
	return host_arch && target_arch && !strcmp(host_arch, target_arch) ? PUSH_HOST_BUILD : PUSH_CROSS;
}

static const struct {
	const char *deb, *machine, *triplet;
} arches[] = {
	{ "amd64", "x86_64", "x86_64-linux-gnu" },
	{ "arm64", "aarch64", "aarch64-linux-gnu" },
	{ "s390x", "s390x", "s390x-linux-gnu" },
	{ "ppc64", "ppc64", "powerpc64-linux-gnu" },
	{ "ppc64el", "ppc64le", "powerpc64le-linux-gnu" },
	{ "i386", "i686", "i686-linux-gnu" },
	{ "armhf", "armv7l", "arm-linux-gnueabihf" },
};

const char *push_arch_triplet(const char *arch)
{
	for (size_t i = 0; arch && i < ARRAY_SIZE(arches); i++)
		if (!strcmp(arch, arches[i].deb))
			return arches[i].triplet;
	return NULL;
}

char *push_output_line(char *const *argv)
{
	char *out = NULL;
	int status;

	if (spawn_capture(argv, &out, &status) == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		str_strip(out);
		if (*out && !strchr(out, '\n'))
			return out;
	}
	free(out);
	return NULL;
}

char *push_host_arch(void)
{
	char *argv[] = { "dpkg", "--print-architecture", NULL };
	char *out = push_output_line(argv);
	struct utsname u;

	if (out)
		return out;
	if (uname(&u) < 0)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (!strcmp(u.machine, arches[i].machine))
			return xstrdup(arches[i].deb);
	return NULL;
}

/* The number after "label: " in out, thousands separators skipped. */
static int stat_number(const char *out, const char *label, uint64_t *v)
{
	const char *p = strstr(out, label);
	char digits[32];
	size_t n = 0;

	if (!p)
		return -EINVAL;
	p += strlen(label);
	while (*p == ' ')
		p++;
	for (; (*p >= '0' && *p <= '9') || *p == ','; p++)
		if (*p != ',' && n + 1 < sizeof(digits))
			digits[n++] = *p;
	digits[n] = '\0';
	return safe_atou64(digits, v);
}

int push_stats_parse(const char *out, struct push_stats *st)
{
	struct push_stats s = { 0 };

	if (stat_number(out, "Number of regular files transferred:", &s.files) < 0 ||
	    stat_number(out, "Total bytes sent:", &s.bytes_sent) < 0)
		return -EINVAL;
	/* only with --delete, and only when rsync had something to say */
	if (stat_number(out, "Number of deleted files:", &s.deleted) < 0)
		s.deleted = 0;
	*st = s;
	return 0;
}

char *push_txt_format(const char *version, const char *arch, enum push_how how, time_t when, const char *host)
{
	struct kvfile kv;
	struct tm tm;
	char utc[32];
	char *text;

	gmtime_r(&when, &tm);
	strftime(utc, sizeof(utc), "%Y-%m-%dT%H:%M:%SZ", &tm);
	kvfile_init(&kv);
	kvfile_addf(&kv, "format", "%d", PUSH_TXT_FORMAT);
	kvfile_add(&kv, "harness_version", version);
	kvfile_add(&kv, "arch", arch);
	kvfile_add(&kv, "how", push_how_name(how));
	kvfile_add(&kv, "pushed_utc", utc);
	kvfile_add(&kv, "pushed_from", host);
	text = kvfile_format(&kv);
	kvfile_release(&kv);
	return text;
}

int push_run_logged(char *const *argv, const char *cwd, const char *log_path)
{
	struct spawn_opts o = { .argv = argv, .envp = environ, .cwd = cwd, .in_fd = -1 };
	int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r, status;
	pid_t pid;

	if (fd < 0)
		return -errno;
	o.out_fd = o.err_fd = fd;
	r = spawn_process(&o, &pid);
	close(fd);
	if (r < 0)
		return r;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
