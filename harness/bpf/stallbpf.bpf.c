/*
 * The stall recorder's kernel program (STALLS=bpf): every off-CPU interval
 * over a threshold of the main thread of each of the game's processes (the
 * thread the stall analysis reads; every thread's with waits_all_threads),
 * with the state it left in, the system call it slept in, its kernel stack,
 * who woke it and from where, how long it then waited for a CPU, its page
 * faults and delay accounting; and the block requests the game's threads
 * issued. Filtered here, in the kernel, to the processes in follow_tgid
 * (the game's pid, which the recorder puts there, and every process forked
 * from one in it).
 *
 * Attached without tracefs: BTF-typed tracepoints (tp_btf) of the
 * scheduler's switch, waking and fork, and of the block layer's insert,
 * issue and completion. A thread's faults are its own counters, read at
 * each switch; --bpf-faults asks for x86's user page fault tracepoint
 * (hb_fault) or a major-fault software perf event (hb_fault_major) instead.
 * Records go to user space through a ring buffer without waking it, until
 * the buffer is half full: the recorder drains it on its own clock.
 *
 * Cost (docs/stalls.md, "The BPF recorder"): the switch and waking programs
 * run for every switch and wakeup of the machine, and on a VM each costs
 * mostly the cache lines it touches. A task not followed, and a worker
 * thread of the game (most of its switches: llvmpipe's), costs the loads of
 * its ids and a scan of a few words; a main thread one clock read, one
 * task-local lookup (no hash), and for an interval over the threshold a
 * record in the ring buffer, without its stacks unless it has some. A
 * stack is read only for a sleep of the main thread already over
 * stack_min_ns (10 ms) when it is woken (bpf_get_task_stack of the sleeper,
 * bpf_get_stack of the waker): a stack walk costs tens of microseconds.
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
/* 0: the waits of each process's main thread alone (the thread the stall
 * analysis reads; its llvmpipe workers are most of a game's switches),
 * 1: of every thread */
const volatile __u32 waits_all_threads = 0;
/* 1: a thread's faults from its own counters (min_flt + maj_flt, read at
 * each switch out; no fault program runs); 0: counted by hb_fault or
 * hb_fault_major, with the last address */
const volatile __u32 fault_counters = 1;

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
/* Raised by the recorder at each resume: a thread's state from before it
 * (another epoch) has no open interval and no running time to add. */
__u32 epoch;
/* What the programs write often, on a cache line of its own (the
 * followed list above is read at every switch of every CPU): records
 * submitted (a plain count, not exact under a race: the recorder only asks
 * whether it moved, and skips a drain when it did not); records the ring
 * buffer had no room for (exact); block requests of followed threads in
 * flight (while none is, a completion, of any request of the machine's,
 * looks nothing up). Read by the recorder through .bss. */
struct hb_bpf_counts counts;

/* A followed thread's state, in the task itself (task-local storage: no
 * hash of the tid, freed with the task, so no exit program). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
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

/* Whether p's waits get a record each: a main thread's (its id the pid),
 * or every thread's when waits_all_threads asks. */
static __always_inline bool recorded(struct task_struct *p)
{
	return waits_all_threads || p->pid == p->tgid;
}

static __always_inline struct hb_bpf_thread *thread_of(struct task_struct *p)
{
	return bpf_task_storage_get(&threads, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

static __always_inline void count_lost(void)
{
	__sync_fetch_and_add(&counts.lost, 1);
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

/* A record of the interval that ends now. Most have no stacks (only the
 * main thread's sleeps from stack_min_ns do), and then the record ends
 * before them (HB_BPF_OFF_SHORT): a third of the bytes, and a record's cost
 * is mostly its cache lines, each written into cold memory. */
static __always_inline void emit_off(struct hb_bpf_thread *t, struct task_struct *p, __u64 now, bool stacks)
{
	struct hb_bpf_off *e = bpf_ringbuf_reserve(&events, stacks ? sizeof(*e) : HB_BPF_OFF_SHORT, 0);

	/* counted after the submit: a drain that saw the count sees the record */

	if (!e) {
		count_lost();
		return;
	}
	e->kind = HB_BPF_OFF;
	e->tid = p->pid;
	e->tgid = p->tgid;
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
	if (stacks) {
		__builtin_memcpy(e->stack, t->stack, sizeof(e->stack));
		__builtin_memcpy(e->waker_stack, t->waker_stack, sizeof(e->waker_stack));
	}
	bpf_ringbuf_submit(e, submit_flags());
	counts.records++;
}

static __always_inline void switch_out(struct task_struct *prev, bool preempt, __u64 now)
{
	struct hb_bpf_thread *t = thread_of(prev);

	if (!t)
		return;
	if (t->on_ns && t->epoch == epoch)
		t->run_ns += now - t->on_ns;
	t->epoch = epoch;
	t->on_ns = 0;
	t->off_ns = now;
	t->wake_ns = 0;
	t->state = preempt ? TASK_RUNNING : task_state(prev);
	t->syscall = t->state == TASK_RUNNING ? -1 : task_syscall(prev);
	t->waker_tid = NO_WAKER;
	t->waker_tgid = 0;
	t->stack_n = 0;
	t->waker_stack_n = 0;
	if (fault_counters)
		t->faults = prev->min_flt + prev->maj_flt;
	read_delays(prev, t);
}

static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	struct hb_bpf_thread *t = thread_of(next);

	if (!t)
		return;
	if (t->off_ns && t->epoch == epoch) {
		__u64 off = now - t->off_ns, ready;

		/* preempted: runnable from the start; asleep: from its wakeup
		 * (none seen: all of it counts as asleep) */
		if (t->state == TASK_RUNNING)
			ready = t->off_ns;
		else
			ready = t->wake_ns ? t->wake_ns : now;
		if (off >= min_off_ns) {
			if (t->stack_n || t->waker_stack_n)
				emit_off(t, next, now, true);
			else
				emit_off(t, next, now, false);
		}
		t->runq_ns += now - ready;
		t->sleep_ns += ready - t->off_ns;
	}
	t->epoch = epoch;
	t->off_ns = 0;
	t->on_ns = now;
}

/* Runs at every switch of the machine. A task not followed, or a thread
 * that gets no record, costs the loads of its ids and a scan of the
 * followed list; a recorded thread one clock read and one task-local
 * lookup more. On a VM most of that is cache misses: what a switch
 * touches is kept to a few lines. */
SEC("tp_btf/sched_switch")
int BPF_PROG(hb_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	bool out = recorded(prev) && followed(prev->tgid), in = recorded(next) && followed(next->tgid);
	__u64 now;

	if (!out && !in)
		return 0;
	now = bpf_ktime_get_ns();
	if (out)
		switch_out(prev, preempt, now);
	if (in)
		switch_in(next, now);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(hb_waking, struct task_struct *p)
{
	struct hb_bpf_thread *t;
	__u64 now, id;
	long n;

	if (!recorded(p) || !followed(p->tgid))
		return 0;
	t = bpf_task_storage_get(&threads, p, NULL, 0);
	/* on a CPU still (woken before it slept), woken already, or its
	 * interval opened before a pause */
	if (!t || !t->off_ns || t->wake_ns || t->epoch != epoch)
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

/* fault_counters off: each fault of a recorded thread, counted with its
 * address (the program runs at every user fault of the machine) */
static __always_inline void fault(__u64 address)
{
	struct task_struct *p = bpf_get_current_task_btf();
	struct hb_bpf_thread *t;

	if (!recorded(p) || !followed(p->tgid))
		return;
	t = bpf_task_storage_get(&threads, p, NULL, 0);
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
	if (bpf_map_update_elem(&requests, &key, &r, BPF_NOEXIST) == 0)
		__sync_fetch_and_add(&counts.requests_open, 1);
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
	struct request_seen *r;
	struct hb_bpf_bio *e;

	/* every request of the machine completes here: none of ours is in
	 * flight most of the time, and then there is nothing to look up */
	if (*(volatile __s64 *)&counts.requests_open <= 0)
		return 0;
	r = bpf_map_lookup_elem(&requests, &key);
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
		counts.records++;
	} else {
		count_lost();
	}
	if (bpf_map_delete_elem(&requests, &key) == 0)
		__sync_fetch_and_add(&counts.requests_open, -1);
	return 0;
}
