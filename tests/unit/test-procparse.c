/*
 * common/system/procparse.c on real /proc and /sys files other projects test
 * against (tests/fixtures/testdata/procfs, see MANIFEST.md section 5),
 * on hand-written buffers for the shapes those trees lack, and on this
 * machine's own /proc. Next to each expected value a comment says where it
 * comes from: a source project's own test or golden output (and the value
 * there), or the fixture read by hand.
 */
#include "system/procparse.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *load_path(const char *path)
{
	char *text;
	int r = read_file(path, &text, NULL);

	ck_assert_msg(r == 0, "cannot read '%s': %s", path, strerror(-r));
	return text;
}

/* A file of tests/fixtures/testdata. */
static char *load(const char *rel)
{
	return load_path(testdata_path(rel));
}

static void load_pstat(const char *rel, struct pstat *st)
{
	char *text = load(rel);
	int r = pstat_parse(text, st);

	ck_assert_msg(r == 0, "%s: %s", rel, strerror(-r));
	free(text);
}

/* sysstat's root1 was captured 7192.55 s after boot (root1/proc/uptime):
 * its golden outputs divide since-boot counters by that */
static double sysstat_uptime(const char *root)
{
	char rel[128];
	char *text;
	double up;

	snprintf(rel, sizeof(rel), "procfs/sysstat/%s/proc/uptime", root);
	text = load(rel);
	ck_assert_int_eq(sscanf(text, "%lf", &up), 1);
	free(text);
	return up;
}

/* ---- /proc/PID/stat ---- */

START_TEST(pstat_vim)
{
	struct pstat st;

	load_pstat("procfs/prometheus_procfs/proc/26231/stat", &st);
	ck_assert_int_eq(st.pid, 26231);
	ck_assert_str_eq(st.comm, "vim");       /* procfs TestProcStatComm: "vim" */
	ck_assert_int_eq(st.state, 'R');        /* by hand */
	ck_assert_int_eq(st.ppid, 5392);        /* by hand, field 4 */
	ck_assert_int_eq(st.pgrp, 7446);        /* by hand, field 5 */
	ck_assert_int_eq(st.session, 5392);     /* by hand, field 6 */
	ck_assert_uint_eq(st.flags, 4218880);   /* by hand, field 9 */
	ck_assert_int_eq(st.cutime, 158);       /* by hand, field 16 */
	ck_assert_int_eq(st.cstime, 99);        /* by hand, field 17 */
	ck_assert_uint_eq(st.minflt, 32533);    /* by hand, field 10 */
	ck_assert_uint_eq(st.majflt, 26);       /* by hand, field 12 */
	ck_assert_uint_eq(st.utime, 1677);      /* procfs TestProcStat: 1677 */
	ck_assert_uint_eq(st.stime, 44);        /* procfs TestProcStat: 44 */
	ck_assert_int_eq(st.num_threads, 1);    /* by hand, field 20 */
	ck_assert_uint_eq(st.starttime, 82375); /* procfs TestProcStat: 82375 */
	ck_assert_int_eq(st.processor, 0);      /* by hand, field 39 */
	ck_assert(st.have_blkio);
	ck_assert_uint_eq(st.blkio_ticks, 31);  /* by hand, field 42 */
}
END_TEST

START_TEST(pstat_comm_parens)
{
	struct pstat st;

	/* comm field "((a b ) ( c d) )", then a stray second line
	 * "#!/bin/cat /proc/self/stat" after the record */
	load_pstat("procfs/prometheus_procfs/proc/584/stat", &st);
	ck_assert_int_eq(st.pid, 1020);                 /* by hand: the file says 1020 */
	ck_assert_str_eq(st.comm, "(a b ) ( c d) ");    /* procfs TestProcStatComm */
	ck_assert_int_eq(st.state, 'R');
	ck_assert_int_eq(st.ppid, 28378);               /* by hand */
	ck_assert_uint_eq(st.minflt, 286);              /* by hand */
	ck_assert_uint_eq(st.starttime, 10839175);      /* by hand, field 22 */
	ck_assert_int_eq(st.processor, 5);              /* by hand, field 39 */
	ck_assert(st.have_blkio);
	ck_assert_uint_eq(st.blkio_ticks, 0);
}
END_TEST

START_TEST(pstat_comm_script)
{
	struct pstat st;

	load_pstat("procfs/gopsutil/process/testdata/linux/68927/stat", &st);
	ck_assert_int_eq(st.pid, 68927);
	ck_assert_str_eq(st.comm, "test(cmd).sh");      /* by hand */
	ck_assert_int_eq(st.state, 'S');
	ck_assert_int_eq(st.ppid, 68044);               /* by hand */
	ck_assert_uint_eq(st.minflt, 165);              /* by hand */
	ck_assert_uint_eq(st.starttime, 114413973);     /* by hand, field 22 */
	ck_assert_int_eq(st.processor, 1);              /* by hand, field 39 */
}
END_TEST

START_TEST(pstat_idle_kthread)
{
	struct pstat st;

	load_pstat("procfs/node_exporter/proc/11/stat", &st);
	ck_assert_str_eq(st.comm, "rcu_preempt");
	ck_assert_int_eq(st.state, 'I');        /* by hand: idle kthread (>= 4.14) */
	ck_assert_int_eq(st.ppid, 2);           /* kthreadd */
	ck_assert_uint_eq(st.utime, 0);
	ck_assert_uint_eq(st.stime, 346);       /* by hand, field 15 */
	ck_assert_uint_eq(st.starttime, 32);    /* by hand, field 22 */
	ck_assert_int_eq(st.processor, 2);      /* by hand, field 39 */
}
END_TEST

START_TEST(pstat_sysstat)
{
	struct pstat st;
	double up = sysstat_uptime("root1");

	/* sysstat's expected.pidstat (pidstat since boot on root1) prints
	 * firefox, pid 8741: %usr 0.97 %system 0.28 CPU 2; %usr is
	 * utime / 100 Hz / uptime * 100 */
	load_pstat("procfs/sysstat/root1/proc/8741/stat", &st);
	ck_assert_str_eq(st.comm, "firefox");
	ck_assert_uint_eq(st.utime, 6962);      /* by hand */
	ck_assert_uint_eq(st.stime, 2001);      /* by hand */
	ck_assert_double_eq_tol(st.utime / 100.0 / up * 100, 0.97, 0.005);
	ck_assert_double_eq_tol(st.stime / 100.0 / up * 100, 0.28, 0.005);
	ck_assert_int_eq(st.processor, 2);      /* expected.pidstat: CPU 2 */
	ck_assert_int_eq(st.num_threads, 67);   /* by hand, field 20 */
	ck_assert_uint_eq(st.majflt, 528);      /* by hand, field 12 */
	ck_assert_uint_eq(st.blkio_ticks, 1146); /* by hand, field 42 */

	load_pstat("procfs/sysstat/root1/proc/8407/stat", &st);
	ck_assert_str_eq(st.comm, "gnome-terminal-");   /* comm cut by the kernel at 15 */
	load_pstat("procfs/sysstat/root1/proc/9009/stat", &st);
	ck_assert_str_eq(st.comm, "WebExtensions");
	ck_assert_int_eq(st.ppid, 8741);                /* by hand: a firefox child */
	load_pstat("procfs/sysstat/root3/proc/21342/stat", &st);
	ck_assert_str_eq(st.comm, "soffice.bin");
}
END_TEST

START_TEST(pstat_limits)
{
	struct pstat st;
	char *text = load("procfs/prometheus_procfs/proc/26232/stat");

	/* procfs's hand-edited limits file: INT64_MIN/MAX in cutime and
	 * cstime (skipped fields, fine), but also 9223372036854775807 in
	 * field 39, the CPU number, which the kernel prints as an int: no
	 * CPU number, so unknown (-1); the rest of the line stands */
	ck_assert_int_eq(pstat_parse(text, &st), 0);
	ck_assert_int_eq(st.processor, -1);
	ck_assert_int_eq(st.pid, 33);         /* the file says pid 33 (ata_sff) */
	free(text);
	/* the same line with a real CPU number in field 39 */
	ck_assert_int_eq(pstat_parse("33 (ata_sff) S 2 0 0 0 -1 69238880 0 0 0 0 0 0 "
				     "-9223372036854775808 9223372036854775807 0 -20 1 0 5 0 0 "
				     "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 "
				     "18446744073709551615 0 0 -9223372036854775808 3 0 0 0 0 0\n",
				     &st), 0);
	ck_assert_int_eq(st.pid, 33);
	ck_assert_int_eq(st.cutime, INT64_MIN);
	ck_assert_int_eq(st.cstime, INT64_MAX);
	ck_assert_uint_eq(st.flags, 69238880);   /* 0x4208060: PF_KTHREAD (0x200000) set */
	ck_assert_uint_eq(st.starttime, 5);
	ck_assert_int_eq(st.processor, 3);
	ck_assert(st.have_blkio);
}
END_TEST

START_TEST(pstat_short_and_bad)
{
	struct pstat st;

	/* an old kernel's line: 22 fields, up to starttime */
	ck_assert_int_eq(pstat_parse("7 (x) S 1 7 7 0 -1 0 5 0 6 0 3 4 0 0 20 0 2 0 99\n", &st), 0);
	ck_assert_uint_eq(st.minflt, 5);
	ck_assert_uint_eq(st.majflt, 6);
	ck_assert_uint_eq(st.utime, 3);
	ck_assert_uint_eq(st.stime, 4);
	ck_assert_int_eq(st.num_threads, 2);
	ck_assert_uint_eq(st.starttime, 99);
	ck_assert_int_eq(st.processor, -1);
	ck_assert(!st.have_blkio);
	/* up to field 39 (the CPU) but not 42 */
	ck_assert_int_eq(pstat_parse("7 (x) S 1 7 7 0 -1 0 5 0 6 0 3 4 0 0 20 0 2 0 99 "
				     "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1", &st), 0);
	ck_assert_int_eq(st.processor, 1);
	ck_assert(!st.have_blkio);

	memset(&st, 0x5a, sizeof(st));
	ck_assert_int_eq(pstat_parse("", &st), -EINVAL);
	ck_assert_int_eq(pstat_parse("12 (x", &st), -EINVAL);
	ck_assert_int_eq(pstat_parse("12 x) S 1", &st), -EINVAL);
	ck_assert_int_eq(pstat_parse("pid (x) S 1 7 7 0 -1 0 5 0 6 0 3 4 0 0 20 0 2 0 99", &st),
			 -EINVAL);
	/* cut before starttime */
	ck_assert_int_eq(pstat_parse("7 (x) S 1 7 7 0 -1 0 5 0 6 0 3 4 0 0 20 0 2 0", &st), -EINVAL);
	/* junk in a number, a field the parser only skips included */
	ck_assert_int_eq(pstat_parse("7 (x) S 1 7 7 0 -1 0 5 0 6 0 3x 4 0 0 20 0 2 0 99", &st),
			 -EINVAL);
	ck_assert_int_eq(pstat_parse("7 (x) S 1 7 7 0 -1 0 5 0 6 0 3 4 0 0 2o 0 2 0 99", &st),
			 -EINVAL);
	/* a sign where the kernel prints none */
	ck_assert_int_eq(pstat_parse("7 (x) S 1 7 7 0 -1 0 5 0 6 0 -3 4 0 0 20 0 2 0 99", &st),
			 -EINVAL);
	/* utime past UINT64_MAX */
	ck_assert_int_eq(pstat_parse("7 (x) S 1 7 7 0 -1 0 5 0 6 0 18446744073709551616 4 0 0 "
				     "20 0 2 0 99", &st), -EINVAL);
	/* two characters of state */
	ck_assert_int_eq(pstat_parse("7 (x) SS 1 7 7 0 -1 0 5 0 6 0 3 4 0 0 20 0 2 0 99", &st),
			 -EINVAL);
	ck_assert_int_eq(st.pid, 0x5a5a5a5a);   /* nothing written on failure */
}
END_TEST

START_TEST(pstat_long_comm)
{
	struct pstat st;
	char line[256];
	int n;

	n = snprintf(line, sizeof(line), "7 (");
	for (int i = 0; i < 100; i++)
		line[n++] = (char)('a' + i % 26);
	snprintf(line + n, sizeof(line) - (size_t)n, ") S 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 99");
	ck_assert_int_eq(pstat_parse(line, &st), 0);
	ck_assert_uint_eq(strlen(st.comm), 63);
	ck_assert_int_eq(strncmp(st.comm, "abcdefghijklmnopqrstuvwxyz", 26), 0);
	ck_assert_uint_eq(st.starttime, 99);
}
END_TEST

/* ---- schedstat and syscall ---- */

START_TEST(schedstat)
{
	struct pschedstat s;

	ck_assert_int_eq(pschedstat_parse("123456789 987654 42\n", &s), 0);
	ck_assert_uint_eq(s.run_ns, 123456789);
	ck_assert_uint_eq(s.runq_ns, 987654);
	ck_assert_uint_eq(s.slices, 42);
	ck_assert_int_eq(pschedstat_parse("18446744073709551615 0 1", &s), 0);
	ck_assert_uint_eq(s.run_ns, UINT64_MAX);

	memset(&s, 0x5a, sizeof(s));
	ck_assert_int_eq(pschedstat_parse("", &s), -EINVAL);
	ck_assert_int_eq(pschedstat_parse("1 2\n", &s), -EINVAL);
	ck_assert_int_eq(pschedstat_parse("1 2 3 4\n", &s), -EINVAL);
	ck_assert_int_eq(pschedstat_parse("1 2 3x\n", &s), -EINVAL);
	ck_assert_int_eq(pschedstat_parse("1 -2 3\n", &s), -EINVAL);
	ck_assert_int_eq(pschedstat_parse("18446744073709551616 0 1", &s), -EINVAL);
	ck_assert_uint_eq(s.slices, 0x5a5a5a5a5a5a5a5aULL);
}
END_TEST

START_TEST(syscall_shapes)
{
	struct psyscall sc;

	ck_assert_int_eq(psyscall_parse("running\n", &sc), 0);
	ck_assert_int_eq(sc.kind, PSYSCALL_RUNNING);

	/* blocked outside a system call (a page fault, a preempted task) */
	ck_assert_int_eq(psyscall_parse("-1 0x7ffd8e3c1b28 0x55d0c3a1f2b4\n", &sc), 0);
	ck_assert_int_eq(sc.kind, PSYSCALL_NONE);

	/* futex(uaddr, FUTEX_WAIT_PRIVATE=0x80, val 2, NULL, ...) on x86-64 */
	ck_assert_int_eq(psyscall_parse("202 0x7f5bc2483b60 0x80 0x2 0x0 0x0 0xFFFFFFFF "
					"0x7ffdeb872af8 0x7f5bc256c2ad\n", &sc), 0);
	ck_assert_int_eq(sc.kind, PSYSCALL_IN);
	ck_assert_int_eq(sc.nr, 202);
	ck_assert_uint_eq(sc.args[0], 0x7f5bc2483b60ULL);
	ck_assert_uint_eq(sc.args[1], 0x80);
	ck_assert_uint_eq(sc.args[2], 2);
	ck_assert_uint_eq(sc.args[3], 0);
	ck_assert_uint_eq(sc.args[5], 0xffffffffULL);
	ck_assert_int_eq(psyscall_parse("0 0xffffffffffffffff 0x0 0x0 0x0 0x0 0x0 0x1 0x2", &sc), 0);
	ck_assert_uint_eq(sc.args[0], UINT64_MAX);

	memset(&sc, 0x5a, sizeof(sc));
	ck_assert_int_eq(psyscall_parse("", &sc), -EINVAL);
	ck_assert_int_eq(psyscall_parse("runningx\n", &sc), -EINVAL);
	ck_assert_int_eq(psyscall_parse("-1 0x7ffd8e3c1b28\n", &sc), -EINVAL);
	ck_assert_int_eq(psyscall_parse("-1 7ffd8e3c1b28 55d0c3a1f2b4\n", &sc), -EINVAL);
	ck_assert_int_eq(psyscall_parse("202 0x1 0x80 0x2 0x0 0x0 0x0 0x7ffdeb872af8\n", &sc),
			 -EINVAL);   /* one value short */
	ck_assert_int_eq(psyscall_parse("202 0x1 0x80 0x2 0x0 0x0 0x0 0x7ffd 0x7f 0x1\n", &sc),
			 -EINVAL);   /* one too many */
	ck_assert_int_eq(psyscall_parse("202 0x1 0x80 0xg 0x0 0x0 0x0 0x7ffd 0x7f\n", &sc), -EINVAL);
	ck_assert_int_eq(psyscall_parse("202 0x1 0x80 0x 0x0 0x0 0x0 0x7ffd 0x7f\n", &sc), -EINVAL);
	ck_assert_int_eq(psyscall_parse("202 0x10000000000000000 0x80 0x2 0x0 0x0 0x0 0x7ffd 0x7f\n",
					&sc), -EINVAL);
	ck_assert_int_eq(psyscall_parse("futex 0x1\n", &sc), -EINVAL);
	ck_assert_int_eq(sc.nr, 0x5a5a5a5a5a5a5a5aLL);
}
END_TEST

/* ---- /proc/vmstat ---- */

START_TEST(vmstat_node_exporter)
{
	char *text = load("procfs/node_exporter/proc/vmstat");
	uint64_t v;

	ck_assert_int_eq(vmstat_get(text, "pgfault", &v), 0);
	ck_assert_uint_eq(v, 2320168809ULL);    /* e2e-output.txt: node_vmstat_pgfault 2.320168809e+09 */
	ck_assert_int_eq(vmstat_get(text, "pswpout", &v), 0);
	ck_assert_uint_eq(v, 35045);            /* e2e-output.txt: node_vmstat_pswpout 35045 */
	ck_assert_int_eq(vmstat_get(text, "nr_free_pages", &v), 0);
	ck_assert_uint_eq(v, 977769);           /* by hand: the first line */
	ck_assert_int_eq(vmstat_get(text, "pgfaul", &v), -ENOENT);
	ck_assert_int_eq(vmstat_get(text, "no_such_counter", &v), -ENOENT);
	free(text);

	/* "allocstall" is only a prefix of sysstat's allocstall_* lines */
	text = load("procfs/sysstat/root1/proc/vmstat");
	ck_assert_int_eq(vmstat_get(text, "allocstall", &v), -ENOENT);
	ck_assert_int_eq(vmstat_get(text, "pgfault", &v), 0);
	ck_assert_uint_eq(v, 60863302);         /* by hand, line 72 */
	free(text);

	ck_assert_int_eq(vmstat_get("pgfault 12x\n", "pgfault", &v), -EINVAL);
	ck_assert_int_eq(vmstat_get("pgfault\n", "pgfault", &v), -ENOENT);
}
END_TEST

/* The node_exporter file with lines a and b (0-based) swapped and line
 * gone removed: what a kernel with another counter order would print. */
static char *vmstat_reorder(const char *text, int a, int b, int gone)
{
	const char *line[256];
	size_t len[256];
	int n = 0, i, order[256];
	char *out = zalloc(strlen(text) + 1), *o = out;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');

		ck_assert(nl && n < 256);
		line[n] = p;
		len[n++] = (size_t)(nl - p + 1);
		p = nl + 1;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	order[a] = b;
	order[b] = a;
	for (i = 0; i < n; i++) {
		if (order[i] == gone)
			continue;
		memcpy(o, line[order[i]], len[order[i]]);
		o += len[order[i]];
	}
	*o = '\0';
	return out;
}

START_TEST(vmstat_index)
{
	static const char *const names[] = {
		"pgmajfault", "pgfault", "pswpin", "pswpout", "nr_alloc_batch", "no_such_counter",
		"allocstall",
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	struct vmstat_index ix;
	char *text = load("procfs/node_exporter/proc/vmstat"), *moved;
	uint64_t v[N];
	bool have[N];
	int line_before[N];

	/* line numbers (0-based) by hand: nr_alloc_batch 1, pswpin 44,
	 * pswpout 45, pgfault 53, pgmajfault 54, allocstall 83 */
	ck_assert_int_eq(vmstat_index_init(&ix, names, N, text), N - 1);
	ck_assert_int_eq(ix.line[0], 54);
	ck_assert_int_eq(ix.line[1], 53);
	ck_assert_int_eq(ix.line[4], 1);
	ck_assert_int_eq(ix.line[5], -1);
	ck_assert_uint_eq(ix.searches, 1);
	memcpy(line_before, ix.line, sizeof(line_before));

	vmstat_index_read(&ix, text, v, have);
	ck_assert_uint_eq(v[0], 507162);        /* e2e-output.txt: node_vmstat_pgmajfault 507162 */
	ck_assert_uint_eq(v[1], 2320168809ULL); /* e2e-output.txt: node_vmstat_pgfault 2.320168809e+09 */
	ck_assert_uint_eq(v[2], 1476);          /* e2e-output.txt: node_vmstat_pswpin 1476 */
	ck_assert_uint_eq(v[3], 35045);         /* e2e-output.txt: node_vmstat_pswpout 35045 */
	ck_assert_uint_eq(v[4], 4158);          /* by hand, line 2 */
	ck_assert_uint_eq(v[6], 83165);         /* by hand, line 84 */
	ck_assert(have[0] && have[1] && have[2] && have[3] && have[4] && have[6]);
	ck_assert(!have[5]);
	ck_assert_uint_eq(v[5], 0);
	/* the order held: nothing was searched again */
	ck_assert_uint_eq(ix.searches, 1);
	ck_assert_int_eq(memcmp(line_before, ix.line, sizeof(line_before)), 0);

	/* every number one digit longer (as counters grow): each line moves,
	 * the order holds; read from where the lines moved to, no search,
	 * values right */
	{
		char *wide = zalloc(strlen(text) * 2 + 1), *o = wide;

		for (const char *p = text; *p; p++) {
			if (*p == '\n')
				*o++ = '7';
			*o++ = *p;
		}
		vmstat_index_read(&ix, wide, v, have);
		ck_assert_uint_eq(v[0], 5071627);
		ck_assert_uint_eq(v[1], 23201688097ULL);
		ck_assert_uint_eq(v[4], 41587);
		ck_assert_uint_eq(v[6], 831657);
		ck_assert(have[0] && have[1] && have[4] && have[6] && !have[5]);
		ck_assert_uint_eq(ix.searches, 1);
		/* and back to the narrower numbers */
		vmstat_index_read(&ix, text, v, have);
		ck_assert_uint_eq(v[1], 2320168809ULL);
		ck_assert_uint_eq(v[6], 83165);
		ck_assert_uint_eq(ix.searches, 1);
		free(wide);
	}
	/* a malformed value reads as absent; the rest still reads */
	{
		char *bad = xstrdup(text), *p = strstr(bad, "\npgfault ") + 9;

		*p = 'x';
		vmstat_index_read(&ix, bad, v, have);
		ck_assert(!have[1] && have[0] && have[2]);
		ck_assert_uint_eq(v[1], 0);
		ck_assert_uint_eq(v[0], 507162);
		ck_assert_uint_eq(ix.searches, 1);
		free(bad);
	}

	/* pgfault and pswpin swapped, nr_alloc_batch gone (as after 4.8):
	 * the remembered lines no longer hold their names, so the index is
	 * searched again and still reads the right values */
	moved = vmstat_reorder(text, 53, 44, 1);
	vmstat_index_read(&ix, moved, v, have);
	ck_assert_uint_eq(v[0], 507162);
	ck_assert_uint_eq(v[1], 2320168809ULL);
	ck_assert_uint_eq(v[2], 1476);
	ck_assert_uint_eq(v[3], 35045);
	ck_assert_uint_eq(v[6], 83165);
	ck_assert(!have[4] && !have[5]);
	ck_assert_uint_eq(v[4], 0);
	ck_assert_uint_eq(ix.searches, 2);
	/* new lines: one up for everything after the removed line 1, and
	 * pgfault (was 53) and pswpin (was 44) trading places */
	ck_assert_int_eq(ix.line[0], 53);
	ck_assert_int_eq(ix.line[1], 43);
	ck_assert_int_eq(ix.line[2], 52);
	ck_assert_int_eq(ix.line[3], 44);
	ck_assert_int_eq(ix.line[4], -1);
	/* no have[] wanted */
	vmstat_index_read(&ix, moved, v, NULL);
	ck_assert_uint_eq(v[1], 2320168809ULL);
	ck_assert_uint_eq(ix.searches, 2);
	free(moved);

	/* a buffer shorter than the remembered lines */
	vmstat_index_read(&ix, "pgfault 5\n", v, have);
	ck_assert(have[1] && !have[0] && !have[2]);
	ck_assert_uint_eq(v[1], 5);
	free(text);

	{
		const char *many[VMSTAT_MAX_WANT + 1];

		for (int i = 0; i <= VMSTAT_MAX_WANT; i++)
			many[i] = "pgfault";
		ck_assert_int_eq(vmstat_index_init(&ix, many, VMSTAT_MAX_WANT + 1, "pgfault 1\n"),
				 -E2BIG);
		many[0] = "";
		ck_assert_int_eq(vmstat_index_init(&ix, many, 1, "pgfault 1\n"), -EINVAL);
	}
}
END_TEST

START_TEST(vmstat_index_snapshots)
{
	static const char *const names[] = { "pgpgin", "pgfault", "pgmajfault", "nr_alloc_batch" };
	struct vmstat_index ix;
	char *t1 = load("procfs/sysstat/root1/proc/vmstat");
	char *t2 = load("procfs/sysstat/root2/proc/vmstat");
	uint64_t v[4], want;
	bool have[4];

	/* sysstat's consecutive snapshots: same order, other values; the
	 * kernel they come from has no nr_alloc_batch */
	ck_assert_int_eq(vmstat_index_init(&ix, names, 4, t1), 3);
	vmstat_index_read(&ix, t1, v, have);
	ck_assert_uint_eq(v[0], 2685938);       /* by hand, line 52 */
	ck_assert_uint_eq(v[2], 10715);         /* by hand, line 73 */
	ck_assert(!have[3]);
	vmstat_index_read(&ix, t2, v, have);
	ck_assert_int_eq(vmstat_get(t2, "pgfault", &want), 0);
	ck_assert_uint_eq(v[1], want);
	ck_assert(have[0] && have[1] && have[2] && !have[3]);
	ck_assert_uint_eq(ix.searches, 1);
	free(t1);
	free(t2);
}
END_TEST

/* ---- block devices ---- */

/* The line of diskstats text that names dev, parsed. */
static int diskstats_find(const char *text, const char *dev, struct blkstat *st)
{
	const char *p;

	for (p = text; *p; p = strchr(p, '\n') + 1) {
		char maj[16], min[16], name[64];

		ck_assert(strchr(p, '\n'));
		if (sscanf(p, "%15s %15s %63s", maj, min, name) == 3 && !strcmp(name, dev))
			return diskstats_line_parse(p, st);
	}
	ck_abort_msg("no %s in diskstats", dev);
	return -ENOENT;
}

/* Every line parses but those named in bad[]; returns how many lines. */
static int diskstats_all(const char *text, const char *const *bad, size_t nbad)
{
	const char *p;
	int lines = 0;

	for (p = text; *p; p = strchr(p, '\n') + 1, lines++) {
		struct blkstat st;
		char name[64];
		bool expect_bad = false;

		ck_assert(sscanf(p, "%*s %*s %63s", name) == 1);
		for (size_t i = 0; i < nbad; i++)
			expect_bad |= !strcmp(name, bad[i]);
		ck_assert_msg((diskstats_line_parse(p, &st) == 0) == !expect_bad, "line %d (%s)",
			      lines + 1, name);
		if (!expect_bad)
			ck_assert_str_eq(st.name, name);
	}
	return lines;
}

START_TEST(diskstats_node_exporter)
{
	char *text = load("procfs/node_exporter/proc/diskstats");
	struct blkstat st;

	ck_assert_int_eq(diskstats_all(text, NULL, 0), 51);
	ck_assert_int_eq(diskstats_find(text, "sda", &st), 0);
	ck_assert_int_eq(st.fields, 11);
	ck_assert_uint_eq(st.major, 8);
	ck_assert_uint_eq(st.minor, 0);
	/* e2e-output.txt: node_disk_read_bytes_total{sda} 5.13713216512e+11,
	 * which node_exporter computes as sectors * 512 */
	ck_assert_uint_eq(st.rd_sectors * 512, 513713216512ULL);
	/* e2e-output.txt: node_disk_reads_completed_total{sda} 2.5354637e+07 */
	ck_assert_uint_eq(st.rd_ios, 25354637);
	/* e2e-output.txt: node_disk_io_time_seconds_total{sda} 9653.88 (ms / 1000) */
	ck_assert_uint_eq(st.io_ms, 9653880);
	ck_assert_uint_eq(st.weighted_ms, 82621804);    /* by hand */
	ck_assert_uint_eq(st.dc_ios, 0);

	ck_assert_int_eq(diskstats_find(text, "sdb", &st), 0);
	ck_assert_int_eq(st.fields, 15);
	ck_assert_uint_eq(st.dc_ios, 68851);            /* by hand */
	ck_assert_uint_eq(st.dc_sectors, 1925173784);   /* by hand */
	ck_assert_uint_eq(st.fl_ios, 0);

	ck_assert_int_eq(diskstats_find(text, "sdc", &st), 0);
	ck_assert_int_eq(st.fields, 17);
	/* e2e-output.txt for sdc: reads_completed 126552, read_bytes 8.48782848e+08
	 * (sectors * 512), io_time 10.73 s, discards_completed 18851,
	 * discarded_sectors 1.25173784e+08, discard_time 11.13 s,
	 * flush_requests 1555, flush_requests_time 1.944 s */
	ck_assert_uint_eq(st.rd_ios, 126552);
	ck_assert_uint_eq(st.rd_sectors * 512, 848782848);
	ck_assert_uint_eq(st.io_ms, 10730);
	ck_assert_uint_eq(st.dc_ios, 18851);
	ck_assert_uint_eq(st.dc_sectors, 125173784);
	ck_assert_uint_eq(st.dc_ms, 11130);
	ck_assert_uint_eq(st.fl_ios, 1555);
	ck_assert_uint_eq(st.fl_ms, 1944);
	free(text);
}
END_TEST

START_TEST(diskstats_prometheus)
{
	char *text = load("procfs/prometheus_procfs/proc/diskstats");
	const char *p = text;
	struct blkstat st[52];
	int i;

	/* procfs TestDiskstats: 52 devices; [24] WriteIOs 28444756; [48]
	 * 18 fields, DiscardTicks 11130; [49] 20 fields, flush requests 127,
	 * time flushing 182 */
	for (i = 0; *p; i++, p = strchr(p, '\n') + 1) {
		ck_assert_int_lt(i, 52);
		ck_assert_int_eq(diskstats_line_parse(p, &st[i]), 0);
	}
	ck_assert_int_eq(i, 52);
	ck_assert_str_eq(st[0].name, "ram0");
	ck_assert_int_eq(st[1].fields + 3, 14);
	ck_assert_uint_eq(st[24].wr_ios, 28444756);
	ck_assert_uint_eq(st[48].dc_ms, 11130);
	ck_assert_int_eq(st[48].fields + 3, 18);
	ck_assert_int_eq(st[49].fields + 3, 20);
	ck_assert_uint_eq(st[49].fl_ios, 127);
	ck_assert_uint_eq(st[49].fl_ms, 182);
	free(text);
}
END_TEST

START_TEST(diskstats_sysstat)
{
	static const char *const sds[] = { "sds" };
	char *t1 = load("procfs/sysstat/root1/proc/diskstats");
	char *t3 = load("procfs/sysstat/root3/proc/diskstats");
	double up = sysstat_uptime("root1");
	struct blkstat st;

	/* 18-field lines everywhere but the truncated 17-field sds line,
	 * which must be refused */
	ck_assert_int_eq(diskstats_all(t1, sds, 1), 22);
	ck_assert_int_eq(diskstats_all(t3, sds, 1), 21);
	ck_assert_int_eq(diskstats_find(t1, "sds", &st), -EINVAL);

	/* expected.iostat-x, first report (since boot, root1): sda r/s 6.90,
	 * rkB/s 222.14, w/s 1.69; rates are counter / uptime */
	ck_assert_int_eq(diskstats_find(t1, "sda", &st), 0);
	ck_assert_int_eq(st.fields, 15);
	ck_assert_double_eq_tol(st.rd_ios / up, 6.90, 0.005);
	ck_assert_double_eq_tol(st.rd_sectors / 2.0 / up, 222.14, 0.005);
	ck_assert_double_eq_tol(st.wr_ios / up, 1.69, 0.005);
	/* sdq's discards: expected.iostat-x d/s 1.20, dkB/s 25.21 */
	ck_assert_int_eq(diskstats_find(t1, "sdq", &st), 0);
	ck_assert_double_eq_tol(st.dc_ios / up, 1.20, 0.005);
	ck_assert_double_eq_tol(st.dc_sectors / 2.0 / up, 25.21, 0.005);

	/* root3's 20-field sdc: flushes 32 in 2145 ms, by hand */
	ck_assert_int_eq(diskstats_find(t3, "sdc", &st), 0);
	ck_assert_int_eq(st.fields, 17);
	ck_assert_uint_eq(st.fl_ios, 32);
	ck_assert_uint_eq(st.fl_ms, 2145);
	free(t1);
	free(t3);
}
END_TEST

START_TEST(diskstats_bad)
{
	struct blkstat st;

	memset(&st, 0x5a, sizeof(st));
	ck_assert_int_eq(diskstats_line_parse("", &st), -EINVAL);
	ck_assert_int_eq(diskstats_line_parse("   8       0 sda", &st), -EINVAL);
	/* 10 and 12 numbers */
	ck_assert_int_eq(diskstats_line_parse("8 0 sda 1 2 3 4 5 6 7 8 9 10", &st), -EINVAL);
	ck_assert_int_eq(diskstats_line_parse("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12", &st), -EINVAL);
	/* 18 numbers */
	ck_assert_int_eq(diskstats_line_parse("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18",
					      &st), -EINVAL);
	ck_assert_int_eq(diskstats_line_parse("8 0 sda 1 2 3 4 5 6 7 8 9 10 1x", &st), -EINVAL);
	ck_assert_int_eq(diskstats_line_parse("x 0 sda 1 2 3 4 5 6 7 8 9 10 11", &st), -EINVAL);
	ck_assert_int_eq(diskstats_line_parse("8 0 a_name_longer_than_the_kernels_32 "
					      "1 2 3 4 5 6 7 8 9 10 11", &st), -EINVAL);
	ck_assert_uint_eq(st.rd_ios, 0x5a5a5a5a5a5a5a5aULL);
	/* the line ends at its newline: the next line is not read */
	ck_assert_int_eq(diskstats_line_parse("8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sda1 1 2 3 4",
					      &st), 0);
	ck_assert_int_eq(st.fields, 11);
	ck_assert_uint_eq(st.weighted_ms, 11);
}
END_TEST

START_TEST(blkstat_files)
{
	struct blkstat st, line;
	char *text, *ds;

	/* procfs TestBlockDevice: dm-0 11 stats, ReadIOs 6447303,
	 * WeightedIOTicks 6088971; sda 15 stats, WriteSectors 286915323,
	 * DiscardTicks 12 */
	text = load("procfs/prometheus_procfs/sys/block/dm-0/stat");
	ck_assert_int_eq(blkstat_parse(text, &st), 0);
	ck_assert_int_eq(st.fields, 11);
	ck_assert_uint_eq(st.rd_ios, 6447303);
	ck_assert_uint_eq(st.weighted_ms, 6088971);
	ck_assert_str_eq(st.name, "");
	free(text);
	text = load("procfs/prometheus_procfs/sys/block/sda/stat");
	ck_assert_int_eq(blkstat_parse(text, &st), 0);
	ck_assert_int_eq(st.fields, 15);
	ck_assert_uint_eq(st.wr_sectors, 286915323);
	ck_assert_uint_eq(st.dc_ms, 12);
	free(text);

	/* sysstat: /sys/block/X/stat holds the same numbers as the
	 * diskstats line of the same snapshot */
	for (int r = 1; r <= 3; r++) {
		char rel[96];

		snprintf(rel, sizeof(rel), "procfs/sysstat/root%d/proc/diskstats", r);
		ds = load(rel);
		for (int d = 0; d < 2; d++) {
			const char *dev = d ? "sdb" : "sda";

			snprintf(rel, sizeof(rel), "procfs/sysstat/root%d/sys/block/%s/stat", r, dev);
			text = load(rel);
			ck_assert_int_eq(blkstat_parse(text, &st), 0);
			ck_assert_int_eq(diskstats_find(ds, dev, &line), 0);
			ck_assert_int_eq(st.fields, 15);
			ck_assert_uint_eq(st.rd_ios, line.rd_ios);
			ck_assert_uint_eq(st.rd_sectors, line.rd_sectors);
			ck_assert_uint_eq(st.wr_ms, line.wr_ms);
			ck_assert_uint_eq(st.weighted_ms, line.weighted_ms);
			free(text);
		}
		free(ds);
	}

	ck_assert_int_eq(blkstat_parse("1 2 3 4 5 6 7 8 9 10 11 12\n", &st), -EINVAL);
	ck_assert_int_eq(blkstat_parse("1 2 3 4 5 6 7 8 9 10 -11\n", &st), -EINVAL);
	ck_assert_int_eq(blkstat_parse("", &st), -EINVAL);
}
END_TEST

/* ---- pressure ---- */

static void load_psi(const char *rel, struct psi *ps)
{
	char *text = load(rel);
	int r = psi_parse(text, ps);

	ck_assert_msg(r == 0, "%s: %s", rel, strerror(-r));
	free(text);
}

START_TEST(psi_node_exporter)
{
	struct psi ps;

	load_psi("procfs/node_exporter/proc/pressure/io", &ps);
	ck_assert(ps.some.have && ps.full.have);
	/* e2e-output.txt: node_pressure_io_waiting_seconds_total 159.886802
	 * (some total / 1e6), node_pressure_io_stalled_seconds_total
	 * 159.229614 (full total / 1e6) */
	ck_assert_uint_eq(ps.some.total_us, 159886802);
	ck_assert_uint_eq(ps.full.total_us, 159229614);
	ck_assert_double_eq_tol(ps.some.avg10, 0.18, 1e-9);     /* by hand */
	ck_assert_double_eq_tol(ps.some.avg60, 0.34, 1e-9);
	ck_assert_double_eq_tol(ps.full.avg300, 0.10, 1e-9);

	/* irq (6.1+) has only a "full" line, and this file no final newline;
	 * e2e-output.txt: node_pressure_irq_stalled_seconds_total 0.008494 */
	load_psi("procfs/node_exporter/proc/pressure/irq", &ps);
	ck_assert(!ps.some.have && ps.full.have);
	ck_assert_uint_eq(ps.full.total_us, 8494);

	/* e2e-output.txt: node_pressure_cpu_waiting_seconds_total 14.036781 */
	load_psi("procfs/node_exporter/proc/pressure/cpu", &ps);
	ck_assert_uint_eq(ps.some.total_us, 14036781);
	ck_assert(ps.full.have);
	ck_assert_uint_eq(ps.full.total_us, 0);
}
END_TEST

START_TEST(psi_prometheus)
{
	struct psi ps;

	/* procfs TestPSIStats: cpu has no "full"; some Avg10 0.1, Avg60 2.0,
	 * Avg300 3.85, Total 15; memory and io full: Avg10 0.2, Avg60 3.0,
	 * Avg300 4.95, Total 25 */
	load_psi("procfs/prometheus_procfs/proc/pressure/cpu", &ps);
	ck_assert(ps.some.have && !ps.full.have);
	ck_assert_double_eq_tol(ps.some.avg10, 0.1, 1e-9);
	ck_assert_double_eq_tol(ps.some.avg60, 2.0, 1e-9);
	ck_assert_double_eq_tol(ps.some.avg300, 3.85, 1e-9);
	ck_assert_uint_eq(ps.some.total_us, 15);
	load_psi("procfs/prometheus_procfs/proc/pressure/memory", &ps);
	ck_assert(ps.full.have);
	ck_assert_double_eq_tol(ps.full.avg10, 0.2, 1e-9);
	ck_assert_double_eq_tol(ps.full.avg60, 3.0, 1e-9);
	ck_assert_double_eq_tol(ps.full.avg300, 4.95, 1e-9);
	ck_assert_uint_eq(ps.full.total_us, 25);
	load_psi("procfs/prometheus_procfs/proc/pressure/io", &ps);
	ck_assert_uint_eq(ps.some.total_us, 15);
	ck_assert_uint_eq(ps.full.total_us, 25);
}
END_TEST

START_TEST(psi_sysstat)
{
	struct psi ps;
	double up = sysstat_uptime("root1");

	/* expected.sar-qPSI (sar -q PSI on root1): %sio 1.34 and %fio 1.29
	 * are total us / 1e6 / uptime * 100; avg10 0.45, 0.45; avg60 0.34,
	 * 0.33; avg300 0.20, 0.20 */
	load_psi("procfs/sysstat/root1/proc/pressure/io", &ps);
	ck_assert_double_eq_tol(ps.some.total_us / 1e6 / up * 100, 1.34, 0.005);
	ck_assert_double_eq_tol(ps.full.total_us / 1e6 / up * 100, 1.29, 0.005);
	ck_assert_double_eq_tol(ps.some.avg10, 0.45, 1e-9);
	ck_assert_double_eq_tol(ps.full.avg60, 0.33, 1e-9);
	ck_assert_double_eq_tol(ps.full.avg300, 0.20, 1e-9);
	/* that kernel's cpu file has only "some" (before 5.13) */
	load_psi("procfs/sysstat/root3/proc/pressure/cpu", &ps);
	ck_assert(ps.some.have && !ps.full.have);
	ck_assert_uint_eq(ps.some.total_us, 1553911);           /* by hand */
	load_psi("procfs/sysstat/root3/proc/pressure/memory", &ps);
	ck_assert_double_eq_tol(ps.some.avg10, 21.06, 1e-9);    /* by hand */
	ck_assert_uint_eq(ps.full.total_us, 9803);              /* by hand */
}
END_TEST

START_TEST(psi_bad)
{
	struct psi ps;

	memset(&ps, 0x5a, sizeof(ps));
	ck_assert_int_eq(psi_parse("", &ps), -EINVAL);
	ck_assert_int_eq(psi_parse("some avg10=0.00 avg60=0.00 avg300=0.00\n", &ps), -EINVAL);
	ck_assert_int_eq(psi_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=\n", &ps), -EINVAL);
	ck_assert_int_eq(psi_parse("some avg10=0.0x avg60=0.00 avg300=0.00 total=1\n", &ps),
			 -EINVAL);
	ck_assert_int_eq(psi_parse("some avg10=. avg60=0.00 avg300=0.00 total=1\n", &ps), -EINVAL);
	ck_assert_int_eq(psi_parse("some avg60=0.00 avg10=0.00 avg300=0.00 total=1\n", &ps),
			 -EINVAL);
	ck_assert_int_eq(psi_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=1 x\n", &ps),
			 -EINVAL);
	ck_assert_int_eq(psi_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
				   "bogus avg10=0.00 avg60=0.00 avg300=0.00 total=1\n", &ps), -EINVAL);
	ck_assert_int_eq(psi_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
				   "some avg10=0.00 avg60=0.00 avg300=0.00 total=2\n", &ps), -EINVAL);
	ck_assert_int_eq(ps.some.total_us, 0x5a5a5a5a5a5a5a5aULL);
}
END_TEST

/* ---- swaps, cgroup, DRM fdinfo (hand-written: none of the trees has them) ---- */

START_TEST(swaps)
{
	static const char text[] =
		"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
		"/dev/zram0                              partition\t4194300\t\t1024\t\t100\n"
		"/swap\\040file\t\t\t\t\tfile\t\t2097148\t\t0\t\t-2\n";
	struct swap_entry e[2];

	ck_assert_int_eq(swaps_parse(text, e, 2), 2);
	ck_assert_str_eq(e[0].path, "/dev/zram0");
	ck_assert_str_eq(e[0].type, "partition");
	ck_assert_uint_eq(e[0].size_kib, 4194300);
	ck_assert_uint_eq(e[0].used_kib, 1024);
	ck_assert_int_eq(e[0].priority, 100);
	ck_assert_str_eq(e[1].path, "/swap file");      /* the kernel escapes a space as \040 */
	ck_assert_str_eq(e[1].type, "file");
	ck_assert_int_eq(e[1].priority, -2);
	/* room for one: the count is still two */
	memset(e, 0, sizeof(e));
	ck_assert_int_eq(swaps_parse(text, e, 1), 2);
	ck_assert_str_eq(e[0].path, "/dev/zram0");
	ck_assert_str_eq(e[1].path, "");
	/* no swap: the heading alone */
	ck_assert_int_eq(swaps_parse("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n", e, 2), 0);

	ck_assert_int_eq(swaps_parse("", e, 2), -EINVAL);
	ck_assert_int_eq(swaps_parse("Filename Type Size Used Priority\n/dev/sda2 partition 10 0\n",
				     e, 2), -EINVAL);
	ck_assert_int_eq(swaps_parse("Filename Type Size Used Priority\n"
				     "/dev/sda2 partition 10 0x 1\n", e, 2), -EINVAL);
}
END_TEST

START_TEST(cgroup_path)
{
	char path[64];

	/* cgroup v1 only: no "0::" line */
	ck_assert_int_eq(cgroup2_path_parse("12:pids:/user.slice\n"
					    "4:memory:/user.slice\n"
					    "1:name=systemd:/user.slice/session-2.scope\n",
					    path, sizeof(path)), -ENOENT);
	/* hybrid: v1 controllers and the v2 tree side by side */
	ck_assert_int_eq(cgroup2_path_parse("9:name=systemd:/\n"
					    "4:memory:/game\n"
					    "1:cpu:/\n"
					    "0::/user.slice/game.scope\n", path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/user.slice/game.scope");
	/* v2 only, no final newline */
	ck_assert_int_eq(cgroup2_path_parse("0::/hitchbench/run-1", path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/hitchbench/run-1");
	ck_assert_int_eq(cgroup2_path_parse("0::/\n", path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/");
	ck_assert_int_eq(cgroup2_path_parse("0::/a/much/longer/path\n", path, 8), -ERANGE);
	ck_assert_int_eq(cgroup2_path_parse("0::\n", path, sizeof(path)), -EINVAL);
	ck_assert_int_eq(cgroup2_path_parse("", path, sizeof(path)), -ENOENT);
}
END_TEST

START_TEST(drm_fdinfo)
{
	uint64_t kib;

	/* amdgpu-like: regions in KiB, drm-total-* beside other keys whose
	 * sizes must not count (resident, shared, purgeable) */
	ck_assert_int_eq(drm_fdinfo_mem_kib("pos:\t0\nflags:\t02100002\nmnt_id:\t24\n"
					    "drm-driver:\tamdgpu\ndrm-client-id:\t12\n"
					    "drm-engine-gfx:\t12345 ns\n"
					    "drm-total-vram:\t262144 KiB\n"
					    "drm-shared-vram:\t1024 KiB\n"
					    "drm-resident-vram:\t262144 KiB\n"
					    "drm-total-gtt:\t8192 KiB\n"
					    "drm-total-cpu:\t0\n", &kib), 0);
	ck_assert_uint_eq(kib, 262144 + 8192);
	/* MiB and plain bytes (no unit), summed in bytes then cut to KiB:
	 * 2 MiB + 1536 bytes + 600 bytes = 2048 KiB + 2136 bytes = 2050 KiB */
	ck_assert_int_eq(drm_fdinfo_mem_kib("drm-driver:\ti915\n"
					    "drm-total-system0:\t2 MiB\n"
					    "drm-total-stolen-system0:\t1536\n"
					    "drm-total-local0:\t600\n", &kib), 0);
	ck_assert_uint_eq(kib, 2050);
	/* an older kernel: drm-memory-* only */
	ck_assert_int_eq(drm_fdinfo_mem_kib("drm-driver:\tamdgpu\n"
					    "drm-memory-vram:\t4096 KiB\n"
					    "drm-memory-gtt:\t 512 KiB\n"
					    "drm-memory-cpu:\t0 KiB\n", &kib), 0);
	ck_assert_uint_eq(kib, 4608);
	/* both: drm-memory-* is the old name for the same sizes; count once */
	ck_assert_int_eq(drm_fdinfo_mem_kib("drm-memory-vram:\t4096 KiB\n"
					    "drm-total-vram:\t4096 KiB\n", &kib), 0);
	ck_assert_uint_eq(kib, 4096);
	/* none: llvmpipe has no DRM fd; a DRM fd without memory keys */
	kib = 77;
	ck_assert_int_eq(drm_fdinfo_mem_kib("pos:\t0\nflags:\t02\nmnt_id:\t15\n", &kib), -ENOENT);
	ck_assert_int_eq(drm_fdinfo_mem_kib("drm-driver:\tvirtio_gpu\n"
					    "drm-engine-render:\t0 ns\n", &kib), -ENOENT);
	ck_assert_int_eq(drm_fdinfo_mem_kib("drm-total-vram:\t12 GiB\n", &kib), -EINVAL);
	ck_assert_int_eq(drm_fdinfo_mem_kib("drm-total-vram:\tKiB\n", &kib), -EINVAL);
	ck_assert_int_eq(drm_fdinfo_mem_kib("drm-total-vram 12\n", &kib), -EINVAL);
	ck_assert_uint_eq(kib, 77);
}
END_TEST

/* ---- this machine ---- */

START_TEST(live_proc)
{
	char path[64], *text;
	struct pstat st;
	struct pschedstat ss;
	struct psyscall sc;
	struct blkstat bs;
	uint64_t v;
	const char *p;

	text = load_path("/proc/self/stat");
	ck_assert_int_eq(pstat_parse(text, &st), 0);
	ck_assert_int_eq(st.pid, getpid());
	ck_assert_int_eq(st.state, 'R');
	ck_assert_int_ge(st.processor, 0);      /* every kernel since 2.2 has field 39 */
	free(text);

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)gettid());
	text = load_path(path);
	ck_assert_msg(pschedstat_parse(text, &ss) == 0, "%s: '%s'", path, text);
	free(text);

	/* reading one's own syscall file: inside read(2), or "running" */
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)gettid());
	text = load_path(path);
	ck_assert_msg(psyscall_parse(text, &sc) == 0, "%s: '%s'", path, text);
	free(text);

	text = load_path("/proc/vmstat");
	ck_assert_int_eq(vmstat_get(text, "pgfault", &v), 0);
	ck_assert_uint_gt(v, 0);
	free(text);

	text = load_path("/proc/diskstats");
	for (p = text; *p; p = strchr(p, '\n') + 1) {
		ck_assert(strchr(p, '\n'));
		ck_assert_msg(diskstats_line_parse(p, &bs) == 0, "/proc/diskstats: '%.*s'",
			      (int)(strchr(p, '\n') - p), p);
	}
	free(text);
}
END_TEST

TEST_SUITE(procparse_suite)
{
	Suite *s = suite_create("procparse");
	TCase *tc = tcase_create("procparse");

	tcase_add_test(tc, pstat_vim);
	tcase_add_test(tc, pstat_comm_parens);
	tcase_add_test(tc, pstat_comm_script);
	tcase_add_test(tc, pstat_idle_kthread);
	tcase_add_test(tc, pstat_sysstat);
	tcase_add_test(tc, pstat_limits);
	tcase_add_test(tc, pstat_short_and_bad);
	tcase_add_test(tc, pstat_long_comm);
	tcase_add_test(tc, schedstat);
	tcase_add_test(tc, syscall_shapes);
	tcase_add_test(tc, vmstat_node_exporter);
	tcase_add_test(tc, vmstat_index);
	tcase_add_test(tc, vmstat_index_snapshots);
	tcase_add_test(tc, diskstats_node_exporter);
	tcase_add_test(tc, diskstats_prometheus);
	tcase_add_test(tc, diskstats_sysstat);
	tcase_add_test(tc, diskstats_bad);
	tcase_add_test(tc, blkstat_files);
	tcase_add_test(tc, psi_node_exporter);
	tcase_add_test(tc, psi_prometheus);
	tcase_add_test(tc, psi_sysstat);
	tcase_add_test(tc, psi_bad);
	tcase_add_test(tc, swaps);
	tcase_add_test(tc, cgroup_path);
	tcase_add_test(tc, drm_fdinfo);
	tcase_add_test(tc, live_proc);
	suite_add_tcase(s, tc);
	return s;
}
