/*
 * The few systemd calls quieting needs: is a unit active, stop it, start
 * it again. Only where systemd runs the machine (run/systemd/system under
 * the root, as sd_booted() checks) and systemctl is on the PATH. Tests put
 * a fake systemctl first on the PATH (tests/tools/fake-systemctl); with a
 * fixture root the machine's own systemctl is refused, so a test can never
 * stop a real service.
 */
#ifndef HB_UNITS_H
#define HB_UNITS_H

#include <stddef.h>

/* The systemctl to use (a new string in *prog), or -ENOENT with *why
 * ("no systemd", "no systemctl on the PATH") or -EPERM ("a test root with
 * the machine's own systemctl"). */
int units_systemctl(char **prog, const char **why);
/* The first line of "systemctl is-active UNIT" ("active", "inactive",
 * "failed", ...). 0 or -errno. */
int units_state(const char *prog, const char *unit, char *buf, size_t size);
/* systemctl stop/start UNIT. 0, -EIO when systemctl failed, or -errno. */
int units_stop(const char *prog, const char *unit);
int units_start(const char *prog, const char *unit);

#endif
