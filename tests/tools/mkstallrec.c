/*
 * mkstallrec: a stall record made the recorder's way, for the byte-order
 * test (tests/cli/t1700-cross-s390x.sh, where it runs on a big-endian
 * machine under qemu-user): a live record filled row by row
 * (stallrec_live_*), then loaded back and packed (stallrec_load,
 * stallrec_write), as hitchbench-stallrec does when it ends.
 *
 *   mkstallrec DIR      writes DIR/stalls.live and DIR/stalls.rec.zst
 *
 * Prints the rows it wrote as `recdump FILE COLUMNS` prints them (the
 * columns are the record's, in order), so a reader on another machine can
 * be compared with the writer. The values make every byte of a 64-bit
 * word differ (0x0102030405060708, negatives), so a value read in the
 * wrong byte order cannot pass for the right one.
 */
#include "base/exitcodes.h"
#include "formats/stallrecord.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROWS 6

static const char *const names[] = { "t_us", "pid", "frames", "main.wchan", "main.majflt",
				     "vm.nr_free_pages", "disk.vda.rd_ios" };
static const uint8_t encs[] = { SR_ENC_DELTA2, SR_ENC_DELTA, SR_ENC_DELTA, SR_ENC_DELTA,
				SR_ENC_DELTA, SR_ENC_DELTA, SR_ENC_DELTA };
#define N_COLS (sizeof(names) / sizeof(names[0]))

static const char *const wchans[] = { "", "futex_wait_queue", "folio_wait_bit_common" };

int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct stallrec_live l;
	struct stallrec r;
	char *live, *packed;
	int ret = HB_EXIT_FAILURE;

	if (argc != 2) {
		fprintf(stderr, "usage: mkstallrec DIR\n");
		return HB_EXIT_USAGE;
	}
	ret = mkdir_p(argv[1], 0755);
	if (ret < 0) {
		fprintf(stderr, "mkstallrec: cannot make '%s': %s\n", argv[1], strerror(-ret));
		return HB_EXIT_FAILURE;
	}
	ret = HB_EXIT_FAILURE;
	live = xasprintf("%s/stalls.live", argv[1]);
	packed = xasprintf("%s/%s", argv[1], HB_STALLREC_FILE);
	unlink(live); /* the live file is made anew (O_EXCL) */
	if (stallrec_live_create(&l, live, names, encs, N_COLS, 64, 8, 2,
				 "period_us=10000\nkernel=mkstallrec\n", &err) < 0) {
		fprintf(stderr, "mkstallrec: %s\n", err.buf);
		goto out;
	}
	for (int i = 0; i < ROWS; i++) {
		int64_t *row = stallrec_live_row(&l);
		const char *w = wchans[i % 3];

		row[0] = 5000000000LL + i * 10000 + (i * 37 % 11);
		row[1] = 0x01020304;
		row[2] = i * 3;
		row[3] = stallrec_live_intern(&l, w, strlen(w));
		row[4] = 0x0102030405060708LL + i;
		row[5] = -0x0a0b0c0d0e0f1011LL + i * i;
		row[6] = i == 3 ? 7 : 1000 + i * 8; /* a device reset: a negative delta */
		stallrec_live_commit(&l);
		printf("%lld\t%lld\t%lld\t%s\t%lld\t%lld\t%lld\n", (long long)row[0], (long long)row[1],
		       (long long)row[2], w, (long long)row[4], (long long)row[5], (long long)row[6]);
	}
	stallrec_live_stack(&l, 5000012345LL, 0x0a0b0c0d, "[<0>] folio_wait_bit_common+0x13c/0x350\n",
			    strlen("[<0>] folio_wait_bit_common+0x13c/0x350\n"));
	stallrec_live_close(&l);
	/* the recorder's finish: the live file loaded, its numbers added, packed */
	stallrec_init(&r);
	if (stallrec_load(live, &r, &err) < 0) {
		fprintf(stderr, "mkstallrec: %s\n", err.buf);
		goto out;
	}
	kvfile_add(&r.trailer, "samples", "6");
	kvfile_add(&r.trailer, "stop", "duration");
	if (stallrec_write(&r, packed, &err) < 0)
		fprintf(stderr, "mkstallrec: %s\n", err.buf);
	else
		ret = HB_EXIT_OK;
	stallrec_release(&r);
out:
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "mkstallrec: cannot write to stdout: %s\n", strerror(errno));
		ret = HB_EXIT_FAILURE;
	}
	free(live);
	free(packed);
	strbuf_release(&err);
	return ret;
}
