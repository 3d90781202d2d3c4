/*
 * The interference scan of old runs (analysis/interference/intfscan.h): each matcher on
 * lines in the real formats (sources named in intfscan.c and in
 * tests/fixtures/intfscan/README.md), the stamps, interference.ini, and the
 * scan of the hand-made run directories in tests/fixtures/intfscan/runs.
 * Expected times are worked out by hand from the fixtures' stamps and
 * their bench.txt first_frame_ns (2702.169075539 s).
 */
#include "interference/intfscan.h"
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int xmatch(const char *line, struct intf_line *m)
{
	uint64_t ns;
	bool have;

	return intf_match_xserver(intf_stamp_bracket(line, &ns, &have), m);
}

START_TEST(xserver_lines)
{
	struct intf_line m;

	ck_assert_int_eq(xmatch("[  2709.900] (II) config/udev: Adding input device Logitech USB "
				"Receiver (/dev/input/event5)", &m), 1);
	ck_assert_int_eq(m.kind, INTF_INPUT_ADDED);
	ck_assert_str_eq(m.detail, "Logitech USB Receiver");
	ck_assert(!m.exempt);
	/* a name with parentheses of its own keeps them */
	ck_assert_int_eq(xmatch("(II) config/udev: Adding input device Pad (wired) (/dev/input/event7)",
				&m), 1);
	ck_assert_str_eq(m.detail, "Pad (wired)");
	ck_assert_int_eq(xmatch("[  2712.000] (II) config/udev: removing device Logitech USB Receiver",
				&m), 1);
	ck_assert_int_eq(m.kind, INTF_INPUT_REMOVED);
	ck_assert_str_eq(m.detail, "Logitech USB Receiver");
	ck_assert_int_eq(xmatch("[  2701.802] (II) config/udev: Adding input device hitchbench input "
				"keyboard (/dev/input/event9)", &m), 1);
	ck_assert(m.exempt);
	ck_assert_int_eq(xmatch("[  100.0] (II) config/hal: Adding input device Old Mouse "
				"(/dev/input/event2)", &m), 1);
	ck_assert_int_eq(xmatch("[  2705.100] (II) systemd-logind: got pause for 13:64", &m), 1);
	ck_assert_int_eq(m.kind, INTF_VT_AWAY);
	ck_assert_int_eq(xmatch("[  2709.251] (II) systemd-logind: got resume for 13:64", &m), 1);
	ck_assert_int_eq(m.kind, INTF_VT_BACK);
	ck_assert_int_eq(xmatch("[  116.301] (II) AIGLX: Suspending AIGLX clients for VT switch", &m), 1);
	ck_assert_int_eq(m.kind, INTF_VT_AWAY);
	ck_assert_int_eq(xmatch("[  140.156] (II) AIGLX: Resuming AIGLX clients after VT switch", &m), 1);
	ck_assert_int_eq(m.kind, INTF_VT_BACK);
	/* through the journal, as gdm's X session logs it */
	ck_assert_int_eq(xmatch("Jun 11 19:04:39 pc /usr/lib/gdm3/gdm-x-session[1291]: (II) "
				"systemd-logind: got pause for 13:69", &m), 1);
	/* not ours: a GPU going, the driver choice, libinput's own lines */
	ck_assert_int_eq(xmatch("[  3.0] (II) config/udev: removing GPU device /sys/x /dev/dri/card1", &m), 0);
	ck_assert_int_eq(xmatch("[  2709.900] (II) Using input driver 'libinput' for 'Logitech USB "
				"Receiver'", &m), 0);
	ck_assert_int_eq(xmatch("[    68.754] (II) event3  - Logitech USB Receiver: device removed", &m), 0);
}
END_TEST

static int kmatch(const char *line, struct intf_line *m)
{
	uint64_t ns;
	bool have;
	return intf_match_kernel(intf_stamp_kernel(line, &ns, &have), m);
}

START_TEST(kernel_lines)
{
	struct intf_line m;

	ck_assert_int_eq(kmatch("[ 7678.712155] usb 1-3: new high-speed USB device number 5 using "
				"ehci_hcd", &m), 1);
	ck_assert_int_eq(m.kind, INTF_USB_CONNECT);
	ck_assert_str_eq(m.detail, "1-3");
	ck_assert_int_eq(kmatch("6,950,2709000000,-;usb 2-1.1: USB disconnect, device number 5", &m), 1);
	ck_assert_int_eq(m.kind, INTF_USB_DISCONNECT);
	ck_assert_str_eq(m.detail, "2-1.1");
	/* a reset is the same device, not a connect */
	ck_assert_int_eq(kmatch("[   10.0] usb 1-1: reset full-speed USB device number 2 using xhci_hcd",
				&m), 0);
	ck_assert_int_eq(kmatch("[    9.9] usb 1-2: New USB device found, idVendor=046d", &m), 0);
	ck_assert_int_eq(kmatch("[ 180.780017] input: HHKB-BT as /devices/pci0000:00/0000:00:14.0/usb3/"
				"3-14/3-14:1.0/bluetooth/hci0/hci0:70/0005:04FE:0202.0001/input/input16",
				&m), 1);
	ck_assert_int_eq(m.kind, INTF_KERNEL_INPUT);
	ck_assert_str_eq(m.detail, "HHKB-BT");
	ck_assert(!m.exempt);
	/* uinput's devices are the harness's; BlueZ's uhid ones are real */
	ck_assert_int_eq(kmatch("[ 2701.8] input: evemu keyboard as /devices/virtual/input/input9", &m), 1);
	ck_assert(m.exempt);
	ck_assert_int_eq(kmatch("[ 2706.8] input: Xbox Wireless Controller as /devices/virtual/misc/uhid/"
				"0005:045E:0B13.0004/input/input14", &m), 1);
	ck_assert(!m.exempt);
	ck_assert_int_eq(kmatch("[ 9099.530234] hid-generic 0005:04FE:0202.0001: input,hidraw0: BLUETOOTH "
				"HID v1.11 Keyboard [HHKB-BT] on xx:xx:xx:xx:xx:xx", &m), 1);
	ck_assert_int_eq(m.kind, INTF_BLUETOOTH_HID);
	ck_assert_str_eq(m.detail, "HHKB-BT");
	ck_assert_int_eq(kmatch("[ 2.0] hid-generic 0003:046D:C52B.0003: input,hidraw0: USB HID v1.11 "
				"Keyboard [Logitech USB Receiver] on usb-0000:00:14.0-2/input0", &m), 0);
	/* syslog's kern.log: "DATE HOST kernel: [ STAMP] " */
	ck_assert_int_eq(kmatch("May 23 22:29:06 pulpo kernel: [ 5296.184306] usb 1-2: USB disconnect, "
				"device number 4", &m), 1);
	ck_assert_int_eq(m.kind, INTF_USB_DISCONNECT);
}
END_TEST

START_TEST(stamps)
{
	uint64_t ns = 0;
	bool have;
	const char *msg;

	msg = intf_stamp_bracket("[  2705.100] (II) x", &ns, &have);
	ck_assert(have);
	ck_assert_uint_eq(ns, 2705100000000ULL);
	ck_assert_str_eq(msg, "(II) x");
	msg = intf_stamp_bracket("[ 7678.712155] usb", &ns, &have);
	ck_assert(have);
	ck_assert_uint_eq(ns, 7678712155000ULL);
	ck_assert_str_eq(msg, "usb");
	msg = intf_stamp_bracket("[drm] not a stamp", &ns, &have);
	ck_assert(!have);
	ck_assert_str_eq(msg, "[drm] not a stamp");
	msg = intf_stamp_bracket("(II) no stamp", &ns, &have);
	ck_assert(!have);
	msg = intf_stamp_kmsg("6,921,2706801002,-;microsoft x", &ns, &have);
	ck_assert(have);
	ck_assert_uint_eq(ns, 2706801002000ULL);
	ck_assert_str_eq(msg, "microsoft x");
	msg = intf_stamp_kmsg("6,921,2706801002,-,caller=T1;x", &ns, &have);
	ck_assert(have);
	ck_assert_str_eq(msg, "x");
	msg = intf_stamp_kernel("May 23 22:29:06 pulpo kernel: [ 5296.184306] usb 1-2: x", &ns, &have);
	ck_assert(have);
	ck_assert_uint_eq(ns, 5296184306000ULL);
	ck_assert_str_eq(msg, "usb 1-2: x");
	/* a continuation line, a line with ';' that is no record */
	intf_stamp_kmsg(" SUBSYSTEM=usb", &ns, &have);
	ck_assert(!have);
	msg = intf_stamp_kmsg("input: a;b as /devices/x", &ns, &have);
	ck_assert(!have);
	ck_assert_str_eq(msg, "input: a;b as /devices/x");
}
END_TEST

START_TEST(actions_ini)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "action = ^x\n", "g.ini:1: the action has no 'why'" },
		{ "action = ^x\naction = ^y\nwhy = z\n", "g.ini:1: the action has no 'why'" },
		{ "# c\nwhy = z\n", "g.ini:2: 'why' before any 'action'" },
		{ "action = (\nwhy = z\n", "g.ini:1: bad action pattern '('" },
		{ "action = ^x\nwhy = y\nline = z\n", "g.ini:3: unknown key 'line'" },
		{ "[actions]\n", "g.ini:1: expected 'action = PATTERN' or 'why = TEXT'" },
		{ "action =\n", "g.ini:1: empty value for 'action'" },
	};
	struct intf_actions a;
	struct strbuf err = STRBUF_INIT;

	intf_actions_init(&a);
	ck_assert_int_eq(intf_actions_parse(&a, "; c\n# c\naction = ^p digs\nwhy = one\nwhy = two\n\n"
					    "action = ^p (activates|places)\nwhy = click\n", "g.ini", &err), 0);
	ck_assert_uint_eq(a.n, 2);
	ck_assert_str_eq(a.v[0].why, "one two");
	ck_assert_int_eq(a.v[1].line, 7);
	ck_assert_int_eq(intf_actions_match(&a, "p digs default:dirt"), 0);
	ck_assert_int_eq(intf_actions_match(&a, "p places default:stone"), 1);
	ck_assert_int_eq(intf_actions_match(&a, "the bot: p digs"), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		ck_assert_int_eq(intf_actions_parse(&a, bad[i].text, "g.ini", &err), -EINVAL);
		ck_assert_msg(err.buf && strncmp(err.buf, bad[i].err, strlen(bad[i].err)) == 0,
			      "case %zu: '%s'", i, err.buf ? err.buf : "");
		ck_assert_uint_eq(a.n, 2); /* a bad file leaves what was there */
	}
	intf_actions_release(&a);
	strbuf_release(&err);
}
END_TEST

static void scan(const char *run, struct intf_scan *s)
{
	char *rel = xasprintf("intfscan/runs/%s", run);
	const char *dirs[2] = { NULL, NULL };
	struct strbuf err = STRBUF_INIT;
	char *gamedb = xstrdup(fixture_path("intfscan/gamedb"));

	dirs[1] = gamedb;
	intf_scan_init(s);
	ck_assert_msg(intf_scan_run(fixture_path(rel), dirs, 2, s, &err) == 0, "%s",
		      err.buf ? err.buf : "");
	strbuf_release(&err);
	free(rel);
	free(gamedb);
}

static void check_evidence(const struct intf_evidence *e, enum intf_kind kind, const char *detail,
			   int line, int lines, const char *describe)
{
	struct strbuf sb = STRBUF_INIT;

	ck_assert_int_eq(e->kind, kind);
	ck_assert_str_eq(e->detail, detail);
	ck_assert_int_eq(e->line, line);
	ck_assert_int_eq(e->lines, lines);
	intf_evidence_describe(e, &sb);
	ck_assert_str_eq(sb.buf, describe);
	strbuf_release(&sb);
}

START_TEST(scan_fixtures)
{
	struct intf_scan s;
	char *summary;

	/* clean: boot-time lines outside the run, the harness's devices exempt,
	 * a scripted line that is not the player's */
	scan("20261130T120707Z-fixgame-base", &s);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_uint_eq(s.exempt, 3);
	ck_assert_uint_eq(s.outside, 4);
	ck_assert_uint_eq(s.logs, INTF_LOG_XSERVER | INTF_LOG_KERNEL | INTF_LOG_GAME);
	ck_assert_str_eq(s.base, "the first frame");
	intf_scan_release(&s);

	/* 2705.100 - 2702.169 = 2.93 s; 2709.250: 7.08 s; 2709.900: 7.73 s;
	 * the removal at 2712.000 is after the run's end (2701.643 + 9 s) */
	scan("20261130T120707Z-fixgame-base-2", &s);
	ck_assert_uint_eq(s.n, 4);
	check_evidence(&s.v[0], INTF_VT_AWAY, "", 6, 4, "VT switch away x4 at 2.9 s (window)");
	check_evidence(&s.v[1], INTF_VT_BACK, "", 10, 2, "VT switch back x2 at 7.1 s (window)");
	check_evidence(&s.v[2], INTF_INPUT_ADDED, "Logitech USB Receiver", 12, 1,
		       "input device added 'Logitech USB Receiver' at 7.7 s (window)");
	ck_assert_str_eq(s.v[3].detail, "Logitech USB Receiver Mouse");
	ck_assert_uint_eq(s.outside, 3);
	ck_assert_str_eq(s.v[0].log, "Xorg.0.log");
	intf_scan_release(&s);

	/* /dev/kmsg microseconds: 2703500123 us - 2702169075.539 us = 1.33 s */
	scan("20261130T120707Z-fixgame-base-3", &s);
	ck_assert_uint_eq(s.n, 5);
	check_evidence(&s.v[0], INTF_USB_CONNECT, "1-2", 3, 1, "USB connect '1-2' at 1.3 s (warm-up)");
	check_evidence(&s.v[1], INTF_KERNEL_INPUT, "Logitech USB Receiver", 7, 1,
		       "new input device 'Logitech USB Receiver' at 1.5 s (warm-up)");
	check_evidence(&s.v[2], INTF_KERNEL_INPUT, "Xbox Wireless Controller", 10, 1,
		       "new input device 'Xbox Wireless Controller' at 4.6 s (window)");
	check_evidence(&s.v[3], INTF_BLUETOOTH_HID, "Xbox Wireless Controller", 11, 1,
		       "Bluetooth HID device 'Xbox Wireless Controller' at 4.6 s (window)");
	check_evidence(&s.v[4], INTF_USB_DISCONNECT, "1-2", 12, 1,
		       "USB disconnect '1-2' at 6.8 s (window)");
	ck_assert_uint_eq(s.exempt, 1);
	ck_assert_uint_eq(s.outside, 1);
	intf_scan_release(&s);

	/* game.log: three digs 2703.2004-2703.90025 (1.03-1.73 s), one activate at 4.83 s */
	scan("20261130T120707Z-fixgame-base-4", &s);
	ck_assert_uint_eq(s.n, 2);
	check_evidence(&s.v[0], INTF_PLAYER_ACTION, "^singleplayer digs", 3, 3,
		       "player action '^singleplayer digs' x3 at 1.0-1.7 s (warm-up)");
	ck_assert_ptr_nonnull(strstr(s.v[0].why, "never digs"));
	check_evidence(&s.v[1], INTF_PLAYER_ACTION, "^singleplayer (activates|places)", 6, 1,
		       "player action '^singleplayer (activates|places)' at 4.8 s (window)");
	summary = intf_scan_summary(&s, 1);
	ck_assert_str_eq(summary, "game.log: player action '^singleplayer digs' x3 at 1.0-1.7 s "
				  "(warm-up); 1 more");
	free(summary);
	intf_scan_release(&s);
}
END_TEST

/* A run without clocks: lines cannot be placed, and are kept. */
START_TEST(scan_without_clocks)
{
	char *dir = test_tmpdir();
	const char *none[1] = { NULL };
	struct strbuf err = STRBUF_INIT;
	struct intf_scan s;
	char *run;

	test_put(dir, "r/bench.txt", "format=1\ngame=g\n");
	test_put(dir, "r/Xorg.0.log", "[    10.731] (II) config/udev: Adding input device Mouse "
				      "(/dev/input/event1)\n(II) systemd-logind: got pause for 13:64\n");
	test_put(dir, "r/game.log", "not stamped\n");
	intf_scan_init(&s);
	run = xasprintf("%s/r", dir);
	ck_assert_int_eq(intf_scan_run(run, none, 1, &s, &err), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert(!s.v[0].timed);
	ck_assert_ptr_null(s.base);
	/* game.log lines must be stamped: no patterns, so it is not read */
	ck_assert_uint_eq(s.logs, INTF_LOG_XSERVER);
	intf_scan_release(&s);
	strbuf_release(&err);
	remove_tree(dir);
	free(run);
	free(dir);
}
END_TEST

TEST_SUITE(intfscan_suite)
{
	Suite *s = suite_create("intfscan");
	TCase *tc = tcase_create("intfscan");

	tcase_add_test(tc, xserver_lines);
	tcase_add_test(tc, kernel_lines);
	tcase_add_test(tc, stamps);
	tcase_add_test(tc, actions_ini);
	tcase_add_test(tc, scan_fixtures);
	tcase_add_test(tc, scan_without_clocks);
	suite_add_tcase(s, tc);
	return s;
}
