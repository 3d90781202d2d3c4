/*
 * Where present and fakegame find the stub present library: $HB_STUB, or
 * libhbstub.so in the program's own directory (build/tests/), so both run
 * from the build tree without being told.
 */
#ifndef HB_STUBPATH_H
#define HB_STUBPATH_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int stub_path(char *buf, size_t size)
{
	const char *env = getenv("HB_STUB");
	ssize_t n;
	char *slash;

	if (env && *env) {
		if (strlen(env) >= size)
			return -ENAMETOOLONG;
		strcpy(buf, env);
		return 0;
	}
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash || (size_t)(slash - buf) + sizeof("/libhbstub.so") > size)
		return -ENAMETOOLONG;
	strcpy(slash, "/libhbstub.so");
	return 0;
}

#endif
