/*
 * The taskstats client: replies built by hand as the kernel lays them out
 * (a TASKSTATS_TYPE_AGGR_PID nest holding the pid and the struct), an
 * error reply, a reply from an older kernel whose struct stops before the
 * newer delays; and, where this kernel answers, a real query.
 */
#include "system/taskstats.h"
#include "test.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static size_t put_attr(unsigned char *p, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };

	memcpy(p, &a, sizeof(a));
	if (data)
		memcpy(p + NLA_HDRLEN, data, len);
	return NLA_ALIGN(NLA_HDRLEN + len);
}

/* A TASKSTATS_CMD_NEW reply for pid whose struct is stats_len bytes. */
static size_t make_reply(unsigned char *msg, uint32_t pid, const struct taskstats *ts,
			 size_t stats_len)
{
	struct nlmsghdr nh = { .nlmsg_type = 0x20 };
	struct genlmsghdr gh = { .cmd = TASKSTATS_CMD_NEW, .version = 1 };
	unsigned char *p = msg + NLMSG_HDRLEN + GENL_HDRLEN;
	unsigned char *nest = p;
	size_t n;

	p += NLA_HDRLEN;
	p += put_attr(p, TASKSTATS_TYPE_PID, &pid, sizeof(pid));
	p += put_attr(p, TASKSTATS_TYPE_STATS, ts, stats_len);
	n = (size_t)(p - nest);
	put_attr(nest, TASKSTATS_TYPE_AGGR_PID, NULL, n - NLA_HDRLEN);
	nh.nlmsg_len = (uint32_t)(p - msg);
	memcpy(msg, &nh, sizeof(nh));
	memcpy(msg + NLMSG_HDRLEN, &gh, sizeof(gh));
	return nh.nlmsg_len;
}

START_TEST(reply)
{
	static unsigned char msg[2048];
	struct taskstats ts;
	struct task_delays d;
	size_t len;

	memset(&ts, 0, sizeof(ts));
	ts.version = TASKSTATS_VERSION;
	ts.cpu_delay_total = 1000;
	ts.blkio_delay_total = 2000;
	ts.swapin_delay_total = 3000;
	ts.freepages_delay_total = 4000;
	ts.thrashing_delay_total = 5000;
	ts.compact_delay_total = 6000;
	len = make_reply(msg, 42, &ts, sizeof(ts));
	ck_assert_int_eq(taskstats_parse_reply(msg, len, &d), 0);
	ck_assert_uint_eq(d.version, TASKSTATS_VERSION);
	ck_assert_uint_eq(d.cpu_ns, 1000);
	ck_assert_uint_eq(d.blkio_ns, 2000);
	ck_assert_uint_eq(d.swapin_ns, 3000);
	ck_assert_uint_eq(d.reclaim_ns, 4000);
	ck_assert_uint_eq(d.thrashing_ns, 5000);
	ck_assert_uint_eq(d.compact_ns, 6000);

	/* a version 6 kernel: its struct ends before freepages_delay_total */
	ts.version = 6;
	len = make_reply(msg, 42, &ts, offsetof(struct taskstats, freepages_count));
	ck_assert_int_eq(taskstats_parse_reply(msg, len, &d), 0);
	ck_assert_uint_eq(d.blkio_ns, 2000);
	ck_assert_uint_eq(d.reclaim_ns, 0);
	ck_assert_uint_eq(d.compact_ns, 0);

	/* cut short, and a message without the struct */
	ck_assert_int_eq(taskstats_parse_reply(msg, 10, &d), -EINVAL);
	len = make_reply(msg, 42, &ts, 8);
	ck_assert_int_eq(taskstats_parse_reply(msg, len, &d), -EINVAL);
}
END_TEST

START_TEST(error_reply)
{
	unsigned char msg[64];
	struct nlmsghdr nh = { .nlmsg_len = NLMSG_HDRLEN + sizeof(struct nlmsgerr),
			       .nlmsg_type = NLMSG_ERROR };
	struct nlmsgerr e = { .error = -EPERM };
	struct task_delays d;

	memcpy(msg, &nh, sizeof(nh));
	memcpy(msg + NLMSG_HDRLEN, &e, sizeof(e));
	ck_assert_int_eq(taskstats_parse_reply(msg, nh.nlmsg_len, &d), -EPERM);
}
END_TEST

/* The kernel's own answer for this process, where it gives one. */
START_TEST(live)
{
	struct taskstats_client c;
	struct task_delays d;
	int r = taskstats_open(&c);

	if (r < 0)
		test_skip("no taskstats netlink family here: %s", strerror(-r));
	r = taskstats_query(&c, getpid(), &d);
	if (r == -EPERM) {
		test_skipped("taskstats refused: no CAP_NET_ADMIN");
	} else {
		ck_assert_int_eq(r, 0);
		ck_assert_uint_ge(d.version, 1);
		/* a thread that does not exist */
		ck_assert_int_lt(taskstats_query(&c, 0x3fffffff, &d), 0);
	}
	taskstats_close(&c);
}
END_TEST

TEST_SUITE(taskstats_suite)
{
	Suite *s = suite_create("taskstats");
	TCase *tc = tcase_create("client");

	tcase_add_test(tc, reply);
	tcase_add_test(tc, error_reply);
	tcase_add_test(tc, live);
	suite_add_tcase(s, tc);
	return s;
}
