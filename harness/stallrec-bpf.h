/*
 * The BPF path's state, shared by stallrec-bpf.c (loading, attaching,
 * waiting, the cost) and stallrec-bpfwrite.c (the ring buffer's records
 * into wait record lines). Private to those two files: the rest of the
 * recorder sees the four functions in stallrec-internal.h.
 */
#ifndef HB_STALLREC_BPF_H
#define HB_STALLREC_BPF_H

#include "stallrec-internal.h"
#include "system/ksyms.h"
#include "formats/waitrecord.h"

#include <linux/types.h>
#include <bpf/libbpf.h>

#include "bpf/stallbpf-event.h"
#include "stallbpf.skel.h"

#define STALLBPF_THREADS 4096   /* threads whose names were written, remembered */
#define STALLBPF_STACKS 8192    /* stacks written, remembered by their hash */

struct stallbpf {
	struct stallbpf_opts opts;
	struct stallbpf_skel *skel;
	struct bpf_link *links[16];
	size_t n_links;
	struct bpf_link **perf_links;
	size_t n_perf_links;
	bool have_rq_insert, have_rq_issue, have_rq_complete, faults_perf, faults_tp;
	struct ring_buffer *rb;
	sigset_t wait_mask;             /* the mask inside the wait: SIGUSR1 let through */
	int stats_fd;
	char stats_why[128];
	struct ksyms ksyms;
	struct strbuf ksyms_why;
	/* the live record */
	FILE *out;
	struct strbuf line;             /* what a drain writes, at its end */
	struct { int32_t tid; uint32_t name; } thread_seen[STALLBPF_THREADS];
	struct { uint64_t hash; uint32_t id; } stack_seen[STALLBPF_STACKS];
	uint32_t n_stacks;
	/* counts and cost */
	uint64_t n_off, n_bio, lost, drain_ns, t0;
	uint64_t records_seen;          /* the program's count of records at the last drain */
	/* paused by a flip run: its programs detached */
	bool paused;
	uint64_t pauses, resume_ns;
};

/* stallrec-bpfwrite.c */
int stallbpf_writer_open(struct stallbpf *b, struct strbuf *err);
void stallbpf_writer_close(struct stallbpf *b);
void stallbpf_meta(struct stallbpf *b, const char *key, const char *value);
/* meta dev.MAJ:MIN=NAME for every block device (sys/class/block) */
void stallbpf_meta_devices(struct stallbpf *b);
/* one line "KIND<TAB>FIELDS", written at once */
void stallbpf_line(struct stallbpf *b, const char *kind, const char *fields);
/* ring_buffer__new's callback */
int stallbpf_on_event(void *ctx, void *data, size_t size);
/* takes what the ring buffer holds and writes it */
void stallbpf_drain(struct stallbpf *b);

/* stallrec-bpf.c */
void stallbpf_free(struct stallbpf *b);

#endif
