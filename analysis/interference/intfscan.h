/*
 * Interference in old runs: what a saved run directory still shows of
 * someone using the machine while the run went on (docs/interference.md,
 * "Old runs"). The live watcher sees far more; this is for runs made
 * before it, or without it. `hitchbench interference-scan` is the caller.
 *
 * Three kinds of log are read when the run directory keeps them:
 *
 *   the X server's: xserver.log (what the runner's own Xvfb wrote) and any
 *     Xorg.*.log copied beside it. VT switches (AIGLX suspending/resuming
 *     "for VT switch", systemd-logind "got pause"/"got resume") and input
 *     devices added or removed ("config/udev: Adding input device NAME
 *     (PATH)", "config/udev: removing device NAME").
 *   the kernel's: kernel.log or dmesg.log, as dmesg prints it ("[ SEC.USEC]
 *     MSG") or as /dev/kmsg gives it ("PRI,SEQ,USEC,FLAGS;MSG"). USB
 *     connects and disconnects, new input devices ("input: NAME as PATH"),
 *     Bluetooth HID devices. The runner keeps no kernel log today.
 *   the game's: game.log, against the patterns of gamedb/GAME/interference.ini
 *     (lines a game writes only when a player does something).
 *
 * Left out, and counted: the harness's own input devices (their names start
 * "hitchbench input"; in the kernel log, every device under
 * /devices/virtual/input/, which is where uinput puts them; BlueZ's uhid
 * devices are under /devices/virtual/misc/uhid/ and count), and stamped
 * lines outside the run's time. A line without a stamp cannot be placed and
 * is kept, its time unknown.
 *
 * Clocks: the X server stamps its log file with CLOCK_MONOTONIC seconds,
 * dmesg and /dev/kmsg with the kernel's printk clock (monotonic since boot,
 * close to CLOCK_MONOTONIC), game.log with CLOCK_MONOTONIC; bench.txt's
 * clock_pair, pass.1.start_ns and first_frame_ns are CLOCK_MONOTONIC, so the
 * three are placed on the run's time without conversion.
 */
#ifndef HB_INTFSCAN_H
#define HB_INTFSCAN_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

#define INTF_HARNESS_DEVICE "hitchbench input" /* the harness's own devices' name prefix */
#define INTF_ACTIONS_FILE "interference.ini"   /* gamedb/GAME/ */

enum intf_kind {
	INTF_VT_AWAY,           /* the X server left its VT */
	INTF_VT_BACK,           /* ... and came back */
	INTF_INPUT_ADDED,       /* the X server added an input device */
	INTF_INPUT_REMOVED,
	INTF_USB_CONNECT,       /* kernel: a new USB device */
	INTF_USB_DISCONNECT,
	INTF_KERNEL_INPUT,      /* kernel: a new input device */
	INTF_BLUETOOTH_HID,     /* kernel: a Bluetooth HID device connected */
	INTF_PLAYER_ACTION,     /* a game.log line a player's doing */
	INTF_N_KINDS
};

/* What a matcher recognised in one line. */
struct intf_line {
	enum intf_kind kind;
	bool exempt;            /* the harness's own device */
	char detail[128];       /* the device's name, the USB port; may be empty */
};

/* The stamp a log line opens with: the X server's "[ SEC.MSEC] ", dmesg's
 * "[ SEC.USEC] " (both intf_stamp_bracket), /dev/kmsg's "P,SEQ,USEC,F;"
 * (intf_stamp_kmsg). Each returns the message after the stamp and sets
 * *ns and *have; without a stamp, the line itself and *have false. */
const char *intf_stamp_bracket(const char *line, uint64_t *ns, bool *have);
const char *intf_stamp_kmsg(const char *line, uint64_t *ns, bool *have);
/* A kernel log's line: syslog's or journalctl's "DATE HOST kernel: " left
 * out, then either stamp. */
const char *intf_stamp_kernel(const char *line, uint64_t *ns, bool *have);

/* The matchers, on a message without its stamp. 1 when the message is one
 * of theirs (m filled), else 0. */
int intf_match_xserver(const char *msg, struct intf_line *m);
int intf_match_kernel(const char *msg, struct intf_line *m);

/* A game's player actions: gamedb/GAME/interference.ini, lines of
 *   action = ERE      (POSIX extended, matched against game.log's text)
 *   why = TEXT        (required after each action; may repeat, joined)
 * and comment lines starting with '#' or ';'. Nothing else. */
struct intf_action {
	char *pattern;
	char *why;
	int line;
	regex_t re;
};

struct intf_actions {
	struct intf_action *v;
	size_t n;
	char *source;           /* the file read, NULL when none */
};

void intf_actions_init(struct intf_actions *a);
void intf_actions_release(struct intf_actions *a);
/* From a buffer, for the tests (intf_actions_load reads the file): 0, or
 * -EINVAL with "path:line: what is wrong" in err and a unchanged. */
int intf_actions_parse(struct intf_actions *a, const char *text, const char *path,
		       struct strbuf *err);
/* The index of the first action matching the line, or -1. */
int intf_actions_match(const struct intf_actions *a, const char *text);

/* One piece of evidence: a line, or a burst of like lines (same kind, log
 * and detail, each within INTF_BURST_S of the one before) merged. */
#define INTF_BURST_S 2.0

struct intf_evidence {
	enum intf_kind kind;
	char *log;              /* the log's name in the run directory */
	int line;               /* its first line */
	int lines;              /* lines merged */
	bool timed;
	double t_s, t_last_s;   /* seconds after the run's time base: first and last line */
	const char *phase;      /* "load", "warm-up", "window", "after the window", or NULL */
	char *detail;           /* device, port, or the action's pattern */
	char *why;              /* player actions: the gamedb's reason */
	char *text;             /* the first line as written */
};

enum intf_log_flags {
	INTF_LOG_XSERVER = 1 << 0,
	INTF_LOG_KERNEL = 1 << 1,
	INTF_LOG_GAME = 1 << 2,      /* game.log read against patterns */
};

struct intf_scan {
	char *name;             /* the run directory's name */
	char *run_id;           /* bench.txt run_id, or NULL */
	char *game;
	const char *base;       /* what times count from: "the first frame", ... or NULL */
	struct intf_evidence *v;
	size_t n;
	unsigned logs;          /* enum intf_log_flags: what was read */
	struct strbuf logs_read;/* "Xorg.0.log, game.log (gamedb/x/interference.ini)" */
	size_t exempt;          /* lines of the harness's own devices, left out */
	size_t outside;         /* stamped lines outside the run's time, left out */
};

void intf_scan_init(struct intf_scan *s);
void intf_scan_release(struct intf_scan *s);
/* Scans the run directory dir. gamedb_dirs (n of them, NULLs skipped) are
 * searched for the game's interference.ini. 0; -EINVAL with "FILE:LINE:
 * ..." in err for a bad bench.txt, a bad interference.ini or a game.log
 * line without a stamp; -errno with err when a log cannot be read. */
int intf_scan_run(const char *dir, const char *const *gamedb_dirs, size_t n_dirs,
		  struct intf_scan *out, struct strbuf *err);

/* One evidence as words: "VT switch away at 3.0 s (window)", with its
 * count and span when merged. */
void intf_evidence_describe(const struct intf_evidence *e, struct strbuf *out);
/* The scan's evidence in one line, for results/interfered.txt: each log's
 * evidence, at most max_items of them, then how many more. */
char *intf_scan_summary(const struct intf_scan *s, size_t max_items);

#endif
