/*
 * A user's XDG base directory for hitchbench (see xdgdir.h).
 */
#include "base/xdgdir.h"
#include "base/util.h"

#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

char *xdg_user_dir(const char *var, const char *fallback)
{
	const char *d = getenv(var), *home = getenv("HOME");

	if (d && *d == '/')
		return xasprintf("%s/hitchbench", d);
	if (!home || !*home) {
		struct passwd *pw = getpwuid(geteuid());

		home = pw ? pw->pw_dir : "/";
	}
	return xasprintf("%s/%s/hitchbench", home, fallback);
}
