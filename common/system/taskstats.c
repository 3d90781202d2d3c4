/*
 * The taskstats client (taskstats.h): generic netlink by hand, a few
 * dozen bytes each way, no library.
 */
#include "system/taskstats.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define GENL_HDRLEN_ALL (NLMSG_HDRLEN + GENL_HDRLEN)

/* A request: netlink header, genetlink header, one attribute. */
static int send_request(struct taskstats_client *c, uint16_t type, uint8_t cmd, uint16_t attr,
			const void *data, uint16_t len)
{
	unsigned char msg[128];
	struct nlmsghdr *nh = (struct nlmsghdr *)msg;
	struct genlmsghdr *gh = (struct genlmsghdr *)(msg + NLMSG_HDRLEN);
	struct nlattr *na = (struct nlattr *)(msg + GENL_HDRLEN_ALL);
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	size_t total = GENL_HDRLEN_ALL + NLA_ALIGN(NLA_HDRLEN + len);

	if (total > sizeof(msg))
		return -EINVAL;
	memset(msg, 0, total);
	nh->nlmsg_len = (uint32_t)total;
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST;
	nh->nlmsg_seq = ++c->seq;
	gh->cmd = cmd;
	gh->version = 1;
	na->nla_type = attr;
	na->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((unsigned char *)na + NLA_HDRLEN, data, len);
	if (sendto(c->fd, msg, total, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

static ssize_t receive(struct taskstats_client *c)
{
	ssize_t n;

	do
		n = recv(c->fd, c->buf, sizeof(c->buf), 0);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* The attributes of a genetlink message: calls fn for each. */
typedef int (*attr_fn)(const struct nlattr *a, void *arg);

static int each_attr(const unsigned char *p, size_t len, attr_fn fn, void *arg)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t al = a->nla_len;
		int r;

		if (al < NLA_HDRLEN || al > len)
			return -EINVAL;
		r = fn(a, arg);
		if (r != 0)
			return r;
		al = NLA_ALIGN(al);
		if (al > len)
			break;
		p += al;
		len -= al;
	}
	return 0;
}

/* The payload of a message, or an error reply's -errno. */
static int genl_payload(const void *msg, size_t len, const unsigned char **p, size_t *plen)
{
	const struct nlmsghdr *nh = msg;

	if (len < NLMSG_HDRLEN || nh->nlmsg_len > len || nh->nlmsg_len < NLMSG_HDRLEN)
		return -EINVAL;
	if (nh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(nh);

		if (nh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
			return -EINVAL;
		return e->error < 0 ? e->error : -EINVAL;
	}
	if (nh->nlmsg_len < GENL_HDRLEN_ALL)
		return -EINVAL;
	*p = (const unsigned char *)msg + GENL_HDRLEN_ALL;
	*plen = nh->nlmsg_len - GENL_HDRLEN_ALL;
	return 0;
}

static int family_id(const struct nlattr *a, void *arg)
{
	if (a->nla_type == CTRL_ATTR_FAMILY_ID && a->nla_len >= NLA_HDRLEN + 2) {
		memcpy(arg, (const unsigned char *)a + NLA_HDRLEN, 2);
		return 1;
	}
	return 0;
}

int taskstats_open(struct taskstats_client *c)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	struct timeval tv = { 0, 200000 };
	const unsigned char *p;
	size_t plen;
	ssize_t n;
	int r;

	memset(c, 0, sizeof(*c));
	c->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (c->fd < 0)
		return -errno;
	/* a lost reply must not hang the recorder */
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(c->fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		r = -errno;
		goto fail;
	}
	r = send_request(c, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
			 TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME));
	if (r < 0)
		goto fail;
	n = receive(c);
	if (n < 0) {
		r = (int)n;
		goto fail;
	}
	r = genl_payload(c->buf, (size_t)n, &p, &plen);
	if (r < 0)
		goto fail;
	if (each_attr(p, plen, family_id, &c->family) != 1 || c->family == 0) {
		r = -ENOENT;
		goto fail;
	}
	return 0;
fail:
	close(c->fd);
	c->fd = -1;
	return r == -EINVAL ? -ENOENT : r;
}

void taskstats_close(struct taskstats_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

struct find_stats {
	const struct taskstats *ts;
	size_t len;
};

static int stats_attr(const struct nlattr *a, void *arg)
{
	struct find_stats *f = arg;

	if (a->nla_type == TASKSTATS_TYPE_AGGR_PID || a->nla_type == TASKSTATS_TYPE_AGGR_TGID)
		return each_attr((const unsigned char *)a + NLA_HDRLEN, a->nla_len - NLA_HDRLEN,
				 stats_attr, arg);
	if (a->nla_type == TASKSTATS_TYPE_STATS) {
		f->ts = (const struct taskstats *)((const unsigned char *)a + NLA_HDRLEN);
		f->len = a->nla_len - NLA_HDRLEN;
		return 1;
	}
	return 0;
}

/* A field of the kernel's struct, if its (older) struct reaches it. */
#define FIELD(f, member) \
	((f).len >= offsetof(struct taskstats, member) + 8 ? \
	 ({ uint64_t v_; memcpy(&v_, (const unsigned char *)(f).ts + offsetof(struct taskstats, member), 8); v_; }) : 0)

int taskstats_parse_reply(const void *msg, size_t len, struct task_delays *out)
{
	struct find_stats f = { NULL, 0 };
	const unsigned char *p;
	size_t plen;
	uint16_t version;
	int r = genl_payload(msg, len, &p, &plen);

	if (r < 0)
		return r;
	if (each_attr(p, plen, stats_attr, &f) != 1 || f.len < offsetof(struct taskstats, cpu_count))
		return -EINVAL;
	memcpy(&version, f.ts, sizeof(version));
	memset(out, 0, sizeof(*out));
	out->version = version;
	out->cpu_ns = FIELD(f, cpu_delay_total);
	out->blkio_ns = FIELD(f, blkio_delay_total);
	out->swapin_ns = FIELD(f, swapin_delay_total);
	out->reclaim_ns = FIELD(f, freepages_delay_total);
	out->thrashing_ns = FIELD(f, thrashing_delay_total);
	out->compact_ns = FIELD(f, compact_delay_total);
	return 0;
}

int taskstats_query(struct taskstats_client *c, int tid, struct task_delays *out)
{
	uint32_t pid = (uint32_t)tid;
	ssize_t n;
	int r;

	if (c->fd < 0)
		return -EBADF;
	r = send_request(c, c->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID, &pid, sizeof(pid));
	if (r < 0)
		return r;
	for (;;) {
		n = receive(c);
		if (n < 0)
			return (int)n;
		/* a late reply to an earlier query that timed out: skip it */
		if ((size_t)n >= NLMSG_HDRLEN && ((struct nlmsghdr *)c->buf)->nlmsg_seq != c->seq)
			continue;
		return taskstats_parse_reply(c->buf, (size_t)n, out);
	}
}
