/*
 * The VT banner (see banner.h). Plain text: the kernel console has a
 * small font, but a few lines are readable from across the room.
 */
#include "quiet/banner.h"
#include "system/fsroot.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/vt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int vt_active(int *vt)
{
	struct vt_stat st;
	int fd = fsroot_open("dev/tty0", O_RDWR | O_NOCTTY), r = 0;

	if (fd < 0)
		return fd;
	if (ioctl(fd, VT_GETSTATE, &st) < 0)
		r = -errno;
	else
		*vt = st.v_active;
	close(fd);
	return r;
}

int vt_activate(int n)
{
	int fd = fsroot_open("dev/tty0", O_RDWR | O_NOCTTY), r = 0;

	if (fd < 0)
		return fd;
	if (ioctl(fd, VT_ACTIVATE, n) < 0)
		r = -errno;
	close(fd);
	return r;
}

char *banner_text(const char *what, time_t since)
{
	char when[32];

	utc_iso8601(since, when, sizeof(when));
	/* clear the screen, cursor home, then the words */
	return xasprintf("\033[H\033[2J\n\n"
			 "    ##  BENCHMARK RUNNING  ##\n\n"
			 "    what:  %s\n"
			 "    since: %s\n\n"
			 "    Please do not touch the keyboard or the mouse:\n"
			 "    any input makes the run invalid.\n"
			 "    'hitchbench thaw' gives the machine back.\n",
			 what && *what ? what : "a hitchbench session", when);
}

int banner_write(int vt, const char *what, time_t since)
{
	char rel[32];
	char *text = banner_text(what, since);
	size_t len = strlen(text), done = 0;
	int fd, r = 0;

	snprintf(rel, sizeof(rel), "dev/tty%d", vt);
	fd = fsroot_open(rel, O_WRONLY | O_NOCTTY);
	if (fd < 0) {
		free(text);
		return fd;
	}
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		done += (size_t)n;
	}
	close(fd);
	free(text);
	return r;
}
