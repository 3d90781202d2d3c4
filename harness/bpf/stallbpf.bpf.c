/*
 * The stall recorder's kernel program (STALLS=bpf): every off-CPU interval
 * of the game's threads over a threshold, with the state it left in, its
 * kernel stack, who woke it and from where, how long it then waited for a
 * CPU, its page faults, and the block requests its threads issued. Filtered
 * here, in the kernel, to the processes in follow_tgid (the game's pid,
 * which the recorder puts there, and every process forked from one in it),
 * so a switch between two other tasks costs two short scans and nothing
 * else.
 *
 * Attached without tracefs: BTF-typed tracepoints (tp_btf) of the
 * scheduler's switch, waking, fork and exit, the block layer's insert,
 * issue and completion, and x86's user page fault; on other architectures
 * a major-fault software perf event instead (hb_fault_major). Records go to
 * user space through a ring buffer without waking it, until the buffer is
 * half full: the recorder drains it on its own clock.
 *
 * Cost: a stack is read only for a sleep of the main thread already over
 * stack_min_ns (10 ms) when it is woken (bpf_get_task_stack of the sleeper,
 * bpf_get_stack of the waker), never for the many short ones, nor for the
 * renderer's worker threads unless stacks_all_threads asks: a stack walk
 * costs tens of microseconds on a VM.
 */
#include "stallbpf-kern.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "stallbpf-event.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* set by the recorder before loading */
const volatile __u64 min_off_ns = 1000000;
/* 0: stacks of the main thread alone (the thread whose id is the pid, the
 * one the stall analysis reads), 1: of every thread */
const volatile __u32 stacks_all_threads = 0;
/* stacks only of a sleep at least this long when it is woken */
const volatile __u64 stack_min_ns = 10000000;

#define NO_WAKER 0xffffffffu
#define TASK_RUNNING 0

/* The processes followed, by tgid: the recorder writes the game's pid here
 * (through the skeleton's mapping of .bss), the fork program its children.
 * A scan of a few words in plain memory: the switch of two tasks that are
 * not the game's, by far the most common event, costs no helper call. */
#define MAX_FOLLOW 16
__u32 follow_tgid[MAX_FOLLOW];
__u32 n_follow;
__u64 follow_overflow;          /* processes forked past MAX_FOLLOW, not followed */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct hb_bpf_thread);
} threads SEC(".maps");

/* A block request of a followed thread, from insert or issue to completion. */
struct request_seen {
	__u32 tid, tgid, major, minor, op, bytes;
	__u64 start_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct request_seen);
} requests SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} events SEC(".maps");

/* [0]: records the ring buffer had no room for */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static const struct hb_bpf_thread zero_thread;

static __always_inline bool followed(__u32 tgid)
{
	__u32 n = n_follow;

	for (__u32 i = 0; i < MAX_FOLLOW; i++) {
		if (i >= n)
			break;
		if (follow_tgid[i] == tgid)
			return true;
	}
	return false;
}

static __always_inline struct hb_bpf_thread *thread_of(__u32 tid)
{
	struct hb_bpf_thread *t = bpf_map_lookup_elem(&threads, &tid);

	if (t)
		return t;
	bpf_map_update_elem(&threads, &tid, &zero_thread, BPF_NOEXIST);
	return bpf_map_lookup_elem(&threads, &tid);
}

static __always_inline void count_lost(void)
{
	__u32 k = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &k);

	if (n)
		(*n)++;
}

/* Wakes the reader only when the buffer is half full. */
static __always_inline __u64 submit_flags(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > (2 << 20) ? BPF_RB_FORCE_WAKEUP
									 : BPF_RB_NO_WAKEUP;
}

/* Direct loads through the BTF-typed task pointer (no helper call: the
 * verifier makes them faulting loads): a switch reads these every time. */
static __always_inline void read_delays(struct task_struct *p, struct hb_bpf_thread *t)
{
	struct task_delay_info *d = p->delays;

	if (!d) {
		for (int i = 0; i < HB_BPF_DELAYS; i++)
			t->delay[i] = -1;
		return;
	}
	t->delay[0] = d->blkio_delay;
	t->delay[1] = d->swapin_delay;
	t->delay[2] = d->freepages_delay;
	t->delay[3] = bpf_core_field_exists(d->thrashing_delay) ? d->thrashing_delay : -1;
	t->delay[4] = bpf_core_field_exists(d->compact_delay) ? d->compact_delay : -1;
}

static __always_inline __u32 task_state(struct task_struct *p)
{
	if (bpf_core_field_exists(p->__state))
		return p->__state;
	return (__u32)p->state;
}

/* The system call a task leaving the CPU is in: its number, -1 when it
 * entered the kernel otherwise (a page fault), -2 where this is not known
 * (an architecture without the rule below). Two loads: no stack walk. */
static __always_inline __s32 task_syscall(struct task_struct *p)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs___hb *r = (struct pt_regs___hb *)bpf_task_pt_regs(p);

	if (!r)
		return -2;
	/* entry_SYSCALL_64 stores -ENOSYS as ax; an exception keeps the user's */
	return r->ax == (unsigned long)-38 ? (__s32)r->orig_ax : -1;
#elif defined(__TARGET_ARCH_arm64)
	struct pt_regs___hb *r = (struct pt_regs___hb *)bpf_task_pt_regs(p);

	return r ? (r->syscallno >= 0 ? r->syscallno : -1) : -2;
#else
	return -2;
#endif
}

static __always_inline void emit_off(struct hb_bpf_thread *t, struct task_struct *p, __u32 tid, __u32 tgid,
				     __u64 now)
{
	struct hb_bpf_off *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count_lost();
		return;
	}
	e->kind = HB_BPF_OFF;
	e->tid = tid;
	e->tgid = tgid;
	e->state = t->state;
	e->waker_tid = t->waker_tid;
	e->waker_tgid = t->waker_tgid;
	e->stack_n = t->stack_n;
	e->waker_stack_n = t->waker_stack_n;
	e->syscall = t->syscall;
	e->off_ns = t->off_ns;
	e->on_ns = now;
	e->wake_ns = t->wake_ns;
	e->run_ns = t->run_ns;
	e->runq_ns = t->runq_ns;
	e->sleep_ns = t->sleep_ns;
	e->faults = t->faults;
	e->fault_addr = t->fault_addr;
	__builtin_memcpy(e->delay, t->delay, sizeof(e->delay));
	__builtin_memcpy(e->comm, p->comm, sizeof(e->comm));
	__builtin_memcpy(e->waker_comm, t->waker_comm, sizeof(e->waker_comm));
	__builtin_memcpy(e->stack, t->stack, sizeof(e->stack));
	__builtin_memcpy(e->waker_stack, t->waker_stack, sizeof(e->waker_stack));
	bpf_ringbuf_submit(e, submit_flags());
}

static __always_inline void switch_out(struct task_struct *prev, bool preempt, __u64 now)
{
	struct hb_bpf_thread *t = thread_of(prev->pid);

	if (!t)
		return;
	if (t->on_ns)
		t->run_ns += now - t->on_ns;
	t->on_ns = 0;
	t->off_ns = now;
	t->wake_ns = 0;
	t->state = preempt ? TASK_RUNNING : task_state(prev);
	t->syscall = t->state == TASK_RUNNING ? -1 : task_syscall(prev);
	t->waker_tid = NO_WAKER;
	t->waker_tgid = 0;
	t->stack_n = 0;
	t->waker_stack_n = 0;
	read_delays(prev, t);
}

static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	__u32 tid = next->pid;
	struct hb_bpf_thread *t = thread_of(tid);

	if (!t)
		return;
	if (t->off_ns) {
		__u64 off = now - t->off_ns, ready;

		/* preempted: runnable from the start; asleep: from its wakeup
		 * (none seen: all of it counts as asleep) */
		if (t->state == TASK_RUNNING)
			ready = t->off_ns;
		else
			ready = t->wake_ns ? t->wake_ns : now;
		if (off >= min_off_ns)
			emit_off(t, next, tid, next->tgid, now);
		t->runq_ns += now - ready;
		t->sleep_ns += ready - t->off_ns;
	}
	t->off_ns = 0;
	t->on_ns = now;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(hb_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = 0;

	if (followed(prev->tgid)) {
		now = bpf_ktime_get_ns();
		switch_out(prev, preempt, now);
	}
	if (followed(next->tgid)) {
		if (!now)
			now = bpf_ktime_get_ns();
		switch_in(next, now);
	}
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(hb_waking, struct task_struct *p)
{
	__u32 tid = p->pid;
	struct hb_bpf_thread *t;
	__u64 now, id;
	long n;

	if (!followed(p->tgid))
		return 0;
	t = bpf_map_lookup_elem(&threads, &tid);
	/* on a CPU still (woken before it slept), or woken already */
	if (!t || !t->off_ns || t->wake_ns)
		return 0;
	now = bpf_ktime_get_ns();
	t->wake_ns = now;
	id = bpf_get_current_pid_tgid();
	t->waker_tid = (__u32)id;
	t->waker_tgid = id >> 32;
	bpf_get_current_comm(t->waker_comm, sizeof(t->waker_comm));
	if (now - t->off_ns < stack_min_ns || (!stacks_all_threads && p->pid != p->tgid))
		return 0;
	n = bpf_get_task_stack(p, t->stack, sizeof(t->stack), 0);
	t->stack_n = n > 0 ? (__u64)n / 8 : 0;
	n = bpf_get_stack(ctx, t->waker_stack, sizeof(t->waker_stack), 0);
	t->waker_stack_n = n > 0 ? (__u64)n / 8 : 0;
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(hb_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = child->tgid, slot;

	if (tgid == (__u32)parent->tgid || !followed(parent->tgid))
		return 0;
	slot = __sync_fetch_and_add(&n_follow, 1);
	if (slot < MAX_FOLLOW)
		follow_tgid[slot] = tgid;
	else
		__sync_fetch_and_add(&follow_overflow, 1);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(hb_exit, struct task_struct *p)
{
	__u32 tid = p->pid;

	if (followed(p->tgid))
		bpf_map_delete_elem(&threads, &tid);
	return 0;
}

static __always_inline void fault(__u64 address)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct hb_bpf_thread *t;

	if (!followed(id >> 32))
		return;
	t = bpf_map_lookup_elem(&threads, &tid);
	if (t) {
		t->faults++;
		t->fault_addr = address;
	}
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(hb_fault, unsigned long address)
{
	fault(address);
	return 0;
}

SEC("perf_event")
int hb_fault_major(struct bpf_perf_event_data *ctx)
{
	fault(ctx->addr);
	return 0;
}

static __always_inline int request_start(struct request *rq)
{
	__u64 id = bpf_get_current_pid_tgid(), key = (__u64)rq;
	struct request_seen r = { 0 };
	struct gendisk *disk;

	if (!followed(id >> 32) || bpf_map_lookup_elem(&requests, &key))
		return 0;
	r.tid = (__u32)id;
	r.tgid = id >> 32;
	r.start_ns = bpf_ktime_get_ns();
	r.op = rq->cmd_flags & 0xff;
	r.bytes = rq->__data_len;
	disk = rq->q->disk;
	if (disk) {
		r.major = disk->major;
		r.minor = disk->first_minor;
	}
	bpf_map_update_elem(&requests, &key, &r, BPF_NOEXIST);
	return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(hb_rq_insert, struct request *rq)
{
	return request_start(rq);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(hb_rq_issue, struct request *rq)
{
	return request_start(rq);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(hb_rq_complete, struct request *rq, int error)
{
	__u64 key = (__u64)rq;
	struct request_seen *r = bpf_map_lookup_elem(&requests, &key);
	struct hb_bpf_bio *e;

	if (!r)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		e->kind = HB_BPF_BIO;
		e->tid = r->tid;
		e->tgid = r->tgid;
		e->major = r->major;
		e->minor = r->minor;
		e->op = r->op;
		e->error = error;
		e->bytes = r->bytes;
		e->start_ns = r->start_ns;
		e->done_ns = bpf_ktime_get_ns();
		bpf_ringbuf_submit(e, submit_flags());
	} else {
		count_lost();
	}
	bpf_map_delete_elem(&requests, &key);
	return 0;
}
