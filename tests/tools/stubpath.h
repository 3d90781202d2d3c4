/*
 * Where present and fakegame find the stub present library: $HB_STUB, or
 * libhbstub.so in the program's own directory (build/tests/), so both run
 * from the build tree without being told; and vkchain the hook, in the
 * directory above.
 */
#ifndef HB_STUBPATH_H
#define HB_STUBPATH_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* NAME in the program's own directory (NAME may climb: "../x.so"). */
static inline int self_relative_path(char *buf, size_t size, const char *name)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash || (size_t)(slash - buf) + 1 + strlen(name) + 1 > size)
		return -ENAMETOOLONG;
	slash[1] = '\0';
	strcat(slash, name);
	return 0;
}

static inline int stub_path(char *buf, size_t size)
{
	const char *env = getenv("HB_STUB");

	if (env && *env) {
		if (strlen(env) >= size)
			return -ENAMETOOLONG;
		strcpy(buf, env);
		return 0;
	}
	return self_relative_path(buf, size, "libhbstub.so");
}

#endif
