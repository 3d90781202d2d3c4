/*
 * Finding new processes by the kernel's proc connector (NETLINK_CONNECTOR,
 * CN_IDX_PROC): a fork, exec and exit event for every process as it
 * happens. It needs root and CONFIG_PROC_EVENTS; the self-test forks a
 * child to see that events really arrive.
 */
#include "procwatch/procwatch-internal.h"
#include "base/timeutil.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int cn_send_op(int sock, enum proc_cn_mcast_op op)
{
	/* nlmsghdr, cn_msg, then the op: laid out by hand (cn_msg ends in
	 * a flexible array, so it cannot sit inside a struct) */
	char m[NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(op))] __attribute__((aligned(8)));
	struct nlmsghdr *nl = (struct nlmsghdr *)m;
	struct cn_msg *cn = NLMSG_DATA(nl);

	memset(m, 0, sizeof(m));
	nl->nlmsg_len = sizeof(m);
	nl->nlmsg_type = NLMSG_DONE;
	nl->nlmsg_pid = (unsigned)getpid();
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	return send(sock, m, sizeof(m), 0) < 0 ? -errno : 0;
}

int pw_cn_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int bufsize = 1 << 20;
	int sock = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	int r;

	if (sock < 0)
		return -errno;
	/* room for a burst of forks; SO_RCVBUFFORCE needs root, as the
	 * connector does */
	if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof(bufsize)) < 0)
		setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof(bufsize));
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (r = cn_send_op(sock, PROC_CN_MCAST_LISTEN)) < 0) {
		r = -errno;
		close(sock);
		return r;
	}
	return sock;
}

/* Walks one datagram's proc events; fn sees each. */
static void cn_each(struct procwatch *w, ssize_t len,
		    void (*fn)(struct procwatch *w, const struct proc_event *ev, void *arg), void *arg)
{
	size_t off = 0, left = (size_t)len;

	/* NLMSG_OK/NEXT by hand: the last message's padding may be absent */
	while (left >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr *nl = (struct nlmsghdr *)(w->msg.raw + off);
		struct cn_msg *cn = NLMSG_DATA(nl);
		size_t step = NLMSG_ALIGN(nl->nlmsg_len);

		if (nl->nlmsg_len < sizeof(*nl) || nl->nlmsg_len > left)
			break;
		if (step > left)
			step = left;
		off += step;
		left -= step;
		if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn)) ||
		    nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + cn->len))
			continue;

		if (nl->nlmsg_type == NLMSG_ERROR || nl->nlmsg_type == NLMSG_NOOP)
			continue;
		if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC ||
		    cn->len < sizeof(struct proc_event))
			continue;
		/* the event sits 4 bytes off an 8-byte boundary: copied out to read it */
		{
			struct proc_event ev;

			memcpy(&ev, cn->data, sizeof(ev));
			fn(w, &ev, arg);
		}
	}
}

static void on_event(struct procwatch *w, const struct proc_event *ev, void *arg)
{
	struct proc_ent *e, *parent;

	switch (ev->what) {
	case PROC_EVENT_FORK:
		if (ev->event_data.fork.child_pid != ev->event_data.fork.child_tgid)
			return;   /* a thread */
		if (pw_ent_find(w, ev->event_data.fork.child_tgid))
			return;   /* the start's scan saw it already */
		e = pw_ent_insert(w, ev->event_data.fork.child_tgid);
		e->ppid = ev->event_data.fork.parent_tgid;
		e->born_ns = ev->timestamp_ns;
		e->pending = true;
		w->n_pending++;
		parent = pw_ent_find(w, e->ppid);
		/* a parent there at the start is read now, while it is likely
		 * still alive (a helper's sanitizer forks its leak check and
		 * exits: the child is judged after both are gone) */
		if (parent)
			pw_read_markers(w, parent);
		e->owner = (parent && parent->owner == OWN_RUN) ? OWN_RUN : OWN_UNDECIDED;
		break;
	case PROC_EVENT_EXEC:
		e = pw_ent_find(w, ev->event_data.exec.process_tgid);
		if (e)
			e->execd = true;
		if (e && e->pending)
			pw_decide(w, e, ev->timestamp_ns, 0);
		break;
	case PROC_EVENT_EXIT:
		if (ev->event_data.exit.process_pid != ev->event_data.exit.process_tgid)
			return;
		e = pw_ent_find(w, ev->event_data.exit.process_tgid);
		if (!e)
			return;
		if (e->pending)
			pw_decide(w, e, ev->timestamp_ns, 0);   /* its stat is a zombie's, or gone */
		e = pw_ent_find(w, ev->event_data.exit.process_tgid);
		if (e && e->candidate)
			pw_busy_check(w, e, ev->timestamp_ns);
		pw_ent_remove(w, ev->event_data.exit.process_tgid);
		break;
	default:
		break;
	}
}

int pw_cn_read(struct procwatch *w)
{
	for (;;) {
		ssize_t len = recv(w->sock, w->msg.raw, sizeof(w->msg.raw), 0);

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			if (errno == ENOBUFS) {
				/* events were dropped: what is still alive is found by a scan */
				w->st.lost++;
				pw_scan_list(w);
				continue;
			}
			return -errno;
		}
		if (len == 0)
			return 0;
		w->st.events++;
		cn_each(w, len, on_event, NULL);
	}
}

static void saw_child(struct procwatch *w, const struct proc_event *ev, void *arg)
{
	if (ev->what == PROC_EVENT_FORK && ev->event_data.fork.child_tgid == *(pid_t *)arg)
		*(pid_t *)arg = 0;
}

/* Forks a child that exits at once and waits up to 500 ms for its fork
 * event: the connector is there and delivers (CONFIG_PROC_EVENTS, the
 * initial pid namespace). 0 or -errno. */
int pw_cn_selftest(struct procwatch *w)
{
	uint64_t deadline = mono_ns() + 500000000u;
	pid_t child = fork(), want;

	if (child < 0)
		return -errno;
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	want = child;
	while (want) {
		struct pollfd pfd = { .fd = w->sock, .events = POLLIN };
		uint64_t t = mono_ns();
		ssize_t len;

		if (t >= deadline)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)((deadline - t) / 1000000u) + 1) < 0 && errno != EINTR)
			return -errno;
		while ((len = recv(w->sock, w->msg.raw, sizeof(w->msg.raw), 0)) > 0)
			cn_each(w, len, saw_child, &want);
	}
	return 0;
}

/* Stops the connector's events and closes it (nothing when there is none). */
void pw_cn_close(struct procwatch *w)
{
	if (w->sock < 0)
		return;
	cn_send_op(w->sock, PROC_CN_MCAST_IGNORE);
	close(w->sock);
	w->sock = -1;
}

