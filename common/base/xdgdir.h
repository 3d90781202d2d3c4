/*
 * Where hitchbench keeps a user's files: the XDG base directories
 * (data, state, config) for an ordinary user, the system's state directory
 * for root. One home for what the results directory of an installed
 * hitchbench, the thaw journal and the targets config each resolve.
 */
#ifndef HB_XDGDIR_H
#define HB_XDGDIR_H

/* root's home for hitchbench's results and state (the package's postinst
 * makes it; docs/install.md) */
#define HB_SYSTEM_STATE_DIR "/var/lib/hitchbench"

/* $VAR/hitchbench when the environment variable VAR (XDG_DATA_HOME,
 * XDG_STATE_HOME, XDG_CONFIG_HOME) is an absolute path (the specification
 * ignores a relative one), else HOME/FALLBACK/hitchbench (FALLBACK the
 * specification's default: ".local/share", ".local/state", ".config"),
 * HOME from the environment or, when it is unset or empty, from the
 * effective user's passwd entry ("/" without one). The caller frees it. */
char *xdg_user_dir(const char *var, const char *fallback);

#endif
