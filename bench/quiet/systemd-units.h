/*
 * The few systemd calls quieting needs: is a unit active, stop it, start
 * it again. Only where systemd runs the machine (run/systemd/system under
 * the root, as sd_booted() checks) and systemctl is on the PATH. Tests put
 * a fake systemctl first on the PATH (tests/tools/fake-systemctl); with a
 * fixture root the machine's own systemctl is refused, so a test can never
 * stop a real service.
 */
#ifndef HB_SYSTEMD_UNITS_H
#define HB_SYSTEMD_UNITS_H

#include <stddef.h>

/* The systemctl to use (a new string in *prog), or -ENOENT with *why
 * ("no systemd", "no systemctl on the PATH") or -EPERM ("a test root with
 * the machine's own systemctl"). */
int systemd_find_systemctl(char **prog, const char **why);
/* The first line of "systemctl is-active UNIT" ("active", "inactive",
 * "failed", ...). 0 or -errno. */
int systemd_unit_state(const char *prog, const char *unit, char *buf, size_t size);
/* systemctl stop/start UNIT. 0, -EIO when systemctl failed, or -errno. */
int systemd_unit_stop(const char *prog, const char *unit);
int systemd_unit_start(const char *prog, const char *unit);

#endif
