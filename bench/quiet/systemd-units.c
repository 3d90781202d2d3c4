/*
 * systemctl, run as a program (see systemd-units.h). No D-Bus library: the
 * runner needs three verbs, and a program is what tests can fake.
 */
#include "quiet/systemd-units.h"
#include "system/fsroot.h"
#include "runner/spawn.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Is prog the machine's own systemctl (the same file as /usr/bin's or
 * /bin's)? */
static int is_system_systemctl(const char *prog)
{
	static const char *const own[] = { "/usr/bin/systemctl", "/bin/systemctl" };
	struct stat a, b;

	if (stat(prog, &a) < 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		if (stat(own[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return 1;
	return 0;
}

int systemd_find_systemctl(char **prog, const char **why)
{
	extern char **environ;
	int fd = fsroot_open("run/systemd/system", O_RDONLY | O_DIRECTORY);
	char *p;

	if (fd < 0) {
		*why = "no systemd";
		return -ENOENT;
	}
	close(fd);
	p = spawn_find_program("systemctl", environ);
	if (!p) {
		*why = "no systemctl on the PATH";
		return -ENOENT;
	}
	if (strcmp(fsroot(), "/") != 0 && is_system_systemctl(p)) {
		free(p);
		*why = "a test root with the machine's own systemctl";
		return -EPERM;
	}
	*prog = p;
	return 0;
}

static int run(const char *prog, const char *verb, const char *unit, char **out, int *status)
{
	char *argv[] = { (char *)prog, (char *)verb, "--", (char *)unit, NULL };

	return spawn_capture(argv, out, status);
}

int systemd_unit_state(const char *prog, const char *unit, char *buf, size_t size)
{
	char *out = NULL;
	int status, r = run(prog, "is-active", unit, &out, &status);

	if (r < 0)
		return r;
	/* is-active exits non-zero for anything but "active": the word
	 * printed is the answer */
	out[strcspn(out, "\n")] = '\0';
	if (!*out)
		r = -EIO;
	else
		snprintf(buf, size, "%s", out);
	free(out);
	return r;
}

static int verb(const char *prog, const char *v, const char *unit)
{
	char *out = NULL;
	int status, r = run(prog, v, unit, &out, &status);

	free(out);
	if (r < 0)
		return r;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

int systemd_unit_stop(const char *prog, const char *unit)
{
	return verb(prog, "stop", unit);
}

int systemd_unit_start(const char *prog, const char *unit)
{
	return verb(prog, "start", unit);
}
