/*
 * The kernel's types as far as stallbpf.bpf.c reads them, and no further:
 * each is marked preserve_access_index, so libbpf moves every field access
 * to where the running kernel's BTF (/sys/kernel/btf/vmlinux) says the field
 * is (CO-RE). Field names are the kernel's; what is not read is not
 * declared. Fields that some kernels lack are checked with
 * bpf_core_field_exists() before they are read.
 */
#ifndef HB_STALLBPF_KERN_H
#define HB_STALLBPF_KERN_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>

typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
typedef _Bool bool;
#define true 1
#define false 0

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct task_delay_info {
	u64 blkio_delay;
	u64 swapin_delay;
	u64 freepages_delay;
	u64 thrashing_delay;
	u64 compact_delay;
};

/* the user registers a sleeping task entered the kernel with: the
 * kernel's struct pt_regs (a "___" suffix is CO-RE's flavour: the UAPI's
 * struct of that name, with other field names, is already declared) */
#if defined(__TARGET_ARCH_x86)
struct pt_regs___hb {
	unsigned long ax;       /* -ENOSYS while a system call is in progress */
	unsigned long orig_ax;  /* the call's number (an exception's error code) */
};
#elif defined(__TARGET_ARCH_arm64)
struct pt_regs___hb {
	int syscallno;          /* -1 (NO_SYSCALL) outside a system call */
};
#endif

struct task_struct {
	unsigned int __state;   /* 5.14 on */
	long state;             /* before 5.14 */
	int pid;
	int tgid;
	char comm[16];
	unsigned long min_flt;  /* the faults it took, minor and major */
	unsigned long maj_flt;
	struct task_delay_info *delays;
};

struct gendisk {
	int major;
	int first_minor;
};

struct request_queue {
	struct gendisk *disk;
};

struct request {
	struct request_queue *q;
	unsigned int cmd_flags;
	unsigned int __data_len;
};

#pragma clang attribute pop

#endif
