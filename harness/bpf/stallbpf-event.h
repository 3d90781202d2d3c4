/*
 * What the stall recorder's kernel program (stallbpf.bpf.c) hands the
 * recorder (harness/stallrec-bpf.c) through its ring buffer: one record
 * per off-CPU interval of a followed thread over the threshold, and one
 * per block request a followed thread issued; and the threads map's value.
 * Both sides are built from
 * this file by the same compiler family for the same machine, so the
 * layout is the machine's own (it never leaves it: the recorder writes
 * the wait record's text, common/formats/waitrecord.h). Only fixed-size types.
 */
#ifndef HB_STALLBPF_EVENT_H
#define HB_STALLBPF_EVENT_H

#define HB_BPF_STACK_DEPTH 16   /* kernel frames kept of a sleeper's stack */
#define HB_BPF_WAKER_DEPTH 10   /* of the waker's (the first two are the tracing's own) */
#define HB_BPF_DELAYS 5         /* blkio, swapin, freepages (reclaim), thrashing, compact */

enum hb_bpf_kind { HB_BPF_OFF = 1, HB_BPF_BIO = 2 };

struct hb_bpf_off {
	__u32 kind;             /* HB_BPF_OFF */
	__u32 tid, tgid;
	__u32 state;            /* the task state it left in; 0 preempted */
	__u32 waker_tid, waker_tgid;    /* waker_tid ~0u: no wakeup seen */
	__u32 stack_n, waker_stack_n;   /* frames in stack[] and waker_stack[] */
	__s32 syscall;          /* the system call it sleeps in; -1 none (a fault), -2 unknown */
	__u32 pad;
	__u64 off_ns, on_ns, wake_ns;
	__u64 run_ns, runq_ns, sleep_ns;        /* totals before this interval */
	__u64 faults, fault_addr;
	__s64 delay[HB_BPF_DELAYS];     /* -1: the kernel keeps none */
	char comm[16], waker_comm[16];
	/* the record ends here when it has no stacks (HB_BPF_OFF_SHORT) */
	__u64 stack[HB_BPF_STACK_DEPTH];
	__u64 waker_stack[HB_BPF_WAKER_DEPTH];
};

/* An off record without stacks: stack_n and waker_stack_n are 0 */
#define HB_BPF_OFF_SHORT __builtin_offsetof(struct hb_bpf_off, stack)

/* A followed thread between its events: the program's task-local storage
 * (threads). Its open interval belongs to epoch alone: the recorder raises
 * the program's epoch at each resume. */
struct hb_bpf_thread {
	__u64 on_ns, off_ns, wake_ns;
	__u64 run_ns, runq_ns, sleep_ns;
	__u64 faults, fault_addr;
	__s64 delay[HB_BPF_DELAYS];
	__u32 state, waker_tid, waker_tgid, stack_n, waker_stack_n;
	__s32 syscall;
	__u32 epoch, pad;
	char waker_comm[16];
	__u64 stack[HB_BPF_STACK_DEPTH];
	__u64 waker_stack[HB_BPF_WAKER_DEPTH];
};

/* The program's counters in .bss (stallbpf.bpf.c says what each is), a
 * cache line of their own. */
struct hb_bpf_counts {
	__u64 records, lost;
	__s64 requests_open;
	__u64 pad[5];
} __attribute__((aligned(64)));

struct hb_bpf_bio {
	__u32 kind;             /* HB_BPF_BIO */
	__u32 tid, tgid;
	__u32 major, minor;
	__u32 op;               /* cmd_flags & REQ_OP_MASK */
	__s32 error;
	__u32 bytes;
	__u64 start_ns, done_ns;
};

#endif
