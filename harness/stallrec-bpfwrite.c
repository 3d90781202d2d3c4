/*
 * The BPF path's records into the live wait record's lines
 * (common/formats/waitrecord.h): a thread's name the first time it is seen (and
 * when it changes), a kernel stack the first time it is seen (named from
 * kallsyms, numbered in order), then the off or bio line that uses them.
 * A drain collects its lines and writes them at once, flushed, so that a
 * recorder that dies loses at most the drain it was in.
 */
#ifndef HB_NO_BPF

#include "base/message.h"
#include "stallrec-bpf.h"
#include "system/fsroot.h"
#include "base/hash.h"
#include "system/syscallname.h"
#include "base/timeutil.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int stallbpf_writer_open(struct stallbpf *b, struct strbuf *err)
{
	/* never through a symlink the game user put in its staging directory */
	int fd = open(b->opts.live_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);

	b->out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!b->out) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		strbuf_addf(err, "%s: %s", b->opts.live_path, strerror(e));
		return -e;
	}
	waitrec_put_header(&b->line);
	return 0;
}

static void flush_lines(struct stallbpf *b)
{
	if (!b->out || !b->line.len)
		return;
	if (fwrite(b->line.buf, 1, b->line.len, b->out) != b->line.len || fflush(b->out) != 0)
		error_msg("BPF: writing %s: %s", b->opts.live_path,
			strerror(errno));
	strbuf_reset(&b->line);
}

void stallbpf_writer_close(struct stallbpf *b)
{
	flush_lines(b);
	if (b->out)
		fclose(b->out);
	b->out = NULL;
	strbuf_release(&b->line);
}

void stallbpf_meta(struct stallbpf *b, const char *key, const char *value)
{
	waitrec_put_meta(&b->line, key, value);
}

void stallbpf_meta_devices(struct stallbpf *b)
{
	int fd = fsroot_open("sys/class/block", O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		char rel[300], dev[32], key[48];

		if (e->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "sys/class/block/%s/dev", e->d_name);
		if (fsroot_read_line(rel, dev, sizeof(dev)) < 0)
			continue;
		/* MAJ:MIN as MAJ.MIN: a key has no colon */
		dev[strcspn(dev, ":")] = '.';
		snprintf(key, sizeof(key), "dev.%s", dev);
		waitrec_put_meta(&b->line, key, e->d_name);
	}
	closedir(d);
	flush_lines(b);
}

void stallbpf_line(struct stallbpf *b, const char *kind, const char *fields)
{
	strbuf_addf(&b->line, "%s\t%s\n", kind, fields);
	flush_lines(b);
}

/* A thread line, unless this thread was written with this name. */
static void thread_line(struct stallbpf *b, uint32_t tid, uint32_t tgid, const char *comm)
{
	uint32_t name = fnv1a_32(comm, strnlen(comm, 16)) | 1;
	size_t i = (tid * 2654435761u) % STALLBPF_THREADS;
	struct wr_thread t = { (int32_t)tid, (int32_t)tgid, "" };

	for (size_t k = 0; k < 16; k++, i = (i + 1) % STALLBPF_THREADS) {
		if (b->thread_seen[i].name && b->thread_seen[i].tid != (int32_t)tid)
			continue;
		/* the idle task is one per CPU, all tid 0: named once */
		if (b->thread_seen[i].name == name || (tid == 0 && b->thread_seen[i].name))
			return;
		b->thread_seen[i].tid = (int32_t)tid;
		b->thread_seen[i].name = name;
		break;
	}
	memcpy(t.comm, comm, sizeof(t.comm));
	t.comm[sizeof(t.comm) - 1] = '\0';
	waitrec_put_thread(&b->line, &t);
}

/* The stack's id, its line written the first time; 0 for none. */
static uint32_t stack_id(struct stallbpf *b, const __u64 *pc, uint32_t n)
{
	uint64_t h = 1469598103934665603ull;
	const char *fn[HB_BPF_STACK_DEPTH];
	char hex[HB_BPF_STACK_DEPTH][24];
	size_t i;

	if (n == 0)
		return 0;
	if (n > HB_BPF_STACK_DEPTH)
		n = HB_BPF_STACK_DEPTH;
	for (uint32_t k = 0; k < n; k++)
		h = (h ^ pc[k]) * 1099511628211ull;
	h |= 1;
	i = h % STALLBPF_STACKS;
	for (size_t k = 0; k < 32 && b->stack_seen[i].hash; k++, i = (i + 1) % STALLBPF_STACKS)
		if (b->stack_seen[i].hash == h)
			return b->stack_seen[i].id;
	for (uint32_t k = 0; k < n; k++) {
		fn[k] = ksyms_name(&b->ksyms, pc[k]);
		if (!fn[k]) {
			snprintf(hex[k], sizeof(hex[k]), "0x%llx", (unsigned long long)pc[k]);
			fn[k] = hex[k];
		}
	}
	/* the waker's stack starts in the tracing itself (the program, the
	 * tracepoint's caller): not the waker's */
	while (n > 1 && (str_startswith(fn[0], "bpf_") || str_startswith(fn[0], "__bpf_trace_"))) {
		memmove(fn, fn + 1, (n - 1) * sizeof(fn[0]));
		n--;
	}
	waitrec_put_stack(&b->line, ++b->n_stacks, fn, n);
	if (!b->stack_seen[i].hash) {
		b->stack_seen[i].hash = h;
		b->stack_seen[i].id = b->n_stacks;
	}
	return b->n_stacks;
}

/* The task state's letter (the kernel's TASK_* bits). */
static char state_letter(uint32_t s)
{
	if (s == 0)
		return 'R';
	if (s & 0x0001)
		return 'S';
	if (s & 0x0002)
		return s & 0x0400 ? 'I' : 'D';
	if (s & (0x0004 | 0x0008))
		return 'T';
	if (s & (0x0010 | 0x0020))
		return 'X';
	return '?';
}

/* e is a short record (HB_BPF_OFF_SHORT bytes) when its stack counts are 0. */
static void off_event(struct stallbpf *b, const struct hb_bpf_off *e)
{
	struct wr_off o = {
		.tid = (int32_t)e->tid, .state = state_letter(e->state),
		.off_ns = e->off_ns, .on_ns = e->on_ns, .wake_ns = e->wake_ns,
		.run_ns = e->run_ns, .runq_ns = e->runq_ns, .sleep_ns = e->sleep_ns,
		.faults = e->faults, .fault_addr = e->fault_addr,
		.blkio_ns = e->delay[0], .swapin_ns = e->delay[1], .reclaim_ns = e->delay[2],
		.thrash_ns = e->delay[3], .compact_ns = e->delay[4],
	};

	if (e->syscall >= 0 && sysname_of(e->syscall))
		snprintf(o.syscall, sizeof(o.syscall), "%s", sysname_of(e->syscall)->name);
	else if (e->syscall >= 0)
		snprintf(o.syscall, sizeof(o.syscall), "syscall_%d", (int)e->syscall);
	else
		snprintf(o.syscall, sizeof(o.syscall), "%s", e->syscall == -1 ? "-" : "?");
	thread_line(b, e->tid, e->tgid, e->comm);
	if (e->waker_tid == 0xffffffffu) {
		o.waker_tid = -1;
	} else {
		o.waker_tid = (int32_t)e->waker_tid;
		thread_line(b, e->waker_tid, e->waker_tgid, e->waker_comm);
	}
	o.stack = e->stack_n ? stack_id(b, e->stack, e->stack_n) : 0;
	o.waker_stack = e->waker_stack_n ? stack_id(b, e->waker_stack, e->waker_stack_n) : 0;
	/* a wakeup the kernel saw before the switch out was recorded */
	if (o.wake_ns && (o.wake_ns < o.off_ns || o.wake_ns > o.on_ns))
		o.wake_ns = 0;
	waitrec_put_off(&b->line, &o);
	b->n_off++;
}

static void bio_event(struct stallbpf *b, const struct hb_bpf_bio *e)
{
	static const char ops[] = { 'R', 'W', 'F', 'D' };
	struct wr_bio w = {
		.tid = (int32_t)e->tid, .start_ns = e->start_ns, .done_ns = e->done_ns,
		.major = e->major, .minor = e->minor, .op = e->op < 4 ? ops[e->op] : '?',
		.bytes = e->bytes, .error = e->error,
	};

	if (w.done_ns < w.start_ns)
		w.done_ns = w.start_ns;
	waitrec_put_bio(&b->line, &w);
	b->n_bio++;
}

int stallbpf_on_event(void *ctx, void *data, size_t size)
{
	struct stallbpf *b = ctx;
	uint32_t kind;

	if (size < sizeof(kind))
		return 0;
	memcpy(&kind, data, sizeof(kind));
	if (kind == HB_BPF_OFF && size >= sizeof(struct hb_bpf_off))
		off_event(b, data);
	else if (kind == HB_BPF_OFF && size >= HB_BPF_OFF_SHORT &&
		 ((const struct hb_bpf_off *)data)->stack_n == 0 &&
		 ((const struct hb_bpf_off *)data)->waker_stack_n == 0)
		off_event(b, data);
	else if (kind == HB_BPF_BIO && size >= sizeof(struct hb_bpf_bio))
		bio_event(b, data);
	return 0;
}

/* Takes what the ring buffer holds. Nothing at all (not even the clock
 * of its own cost, a system call) when the program submitted and lost
 * nothing since the drain before: two loads from the program's .bss. */
void stallbpf_drain(struct stallbpf *b)
{
	const volatile struct hb_bpf_counts *c = &b->skel->bss->counts;
	uint64_t records = c->records, lost = c->lost, t0;

	if (records == b->records_seen && lost == b->lost && !b->line.len)
		return;
	t0 = thread_cpu_ns();
	b->records_seen = records;
	ring_buffer__consume(b->rb);
	if (lost > b->lost) {
		waitrec_put_lost(&b->line, lost - b->lost);
		b->lost = lost;
	}
	flush_lines(b);
	b->drain_ns += thread_cpu_ns() - t0;
}

#endif
