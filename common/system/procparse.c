/*
 * The /proc and /sys parsers the stall recorder runs every sample (see
 * procparse.h). They read a NUL-terminated buffer in one pass with small
 * hand-written scanners instead of sscanf or strtoull: the recorder's whole
 * sample has a budget of 10 us of CPU, and a scanf call alone costs a good
 * part of a microsecond. They are strict: a number with junk after it, a
 * sign where the kernel prints none, an overflow or a line that stops
 * early is -EINVAL, never a half-filled struct (out-params are written
 * only on success).
 */
#include "system/procparse.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* ---- scanners ----------------------------------------------------------
 * Each takes a cursor by reference and moves it past what it read only
 * on success. A field ends at a blank, a newline or the buffer's end. */

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool ends_field(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\0';
}

static inline bool ends_line(char c)
{
	return c == '\n' || c == '\0';
}

static inline const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : NULL;
}

/* Decimal digits at *pp into v: at least one digit, no overflow. Up to 19
 * digits cannot overflow, so only longer numbers take the checked loop. */
static int scan_dec(const char **pp, uint64_t *v)
{
	const char *p = *pp, *s = p;
	uint64_t x = 0;

	while (is_digit(*p))
		x = x * 10 + (uint64_t)(*p++ - '0');
	if (p == s)
		return -EINVAL;
	if (p - s > 19) {
		for (x = 0; s < p; s++)
			if (__builtin_mul_overflow(x, 10, &x) ||
			    __builtin_add_overflow(x, (uint64_t)(*s - '0'), &x))
				return -EINVAL;
	}
	*pp = p;
	*v = x;
	return 0;
}

/* "0x" and hex digits at *pp into v (the kernel's %llx with a 0x). */
static int scan_hex(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	int n = 0;

	if (p[0] != '0' || p[1] != 'x')
		return -EINVAL;
	for (p += 2;; p++, n++) {
		unsigned d;

		if (is_digit(*p))
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (x >> 60)
			return -EINVAL;
		x = x << 4 | d;
	}
	if (n == 0)
		return -EINVAL;
	*pp = p;
	*v = x;
	return 0;
}

/* The next blank-separated unsigned decimal field on this line. */
static int field_u64(const char **pp, uint64_t *v)
{
	const char *p = skip_blanks(*pp);

	if (scan_dec(&p, v) < 0 || !ends_field(*p))
		return -EINVAL;
	*pp = p;
	return 0;
}

/* The same for a signed one (an optional '-'). */
static int field_i64(const char **pp, int64_t *v)
{
	const char *p = skip_blanks(*pp);
	bool neg = *p == '-';
	uint64_t m;

	p += neg;
	if (scan_dec(&p, &m) < 0 || !ends_field(*p))
		return -EINVAL;
	if (m > (uint64_t)INT64_MAX + neg)
		return -EINVAL;
	*v = neg ? (int64_t)(0 - m) : (int64_t)m;
	*pp = p;
	return 0;
}

/* The next "0x..." field on this line. */
static int field_hex(const char **pp, uint64_t *v)
{
	const char *p = skip_blanks(*pp);

	if (scan_hex(&p, v) < 0 || !ends_field(*p))
		return -EINVAL;
	*pp = p;
	return 0;
}

/* True when only blanks are left on the line at p. */
static bool line_done(const char *p)
{
	return ends_line(*skip_blanks(p));
}

/* A fixed-point decimal as the kernel prints PSI averages ("%lu.%02lu"):
 * digits, optionally a '.' and more digits. */
static int scan_fixed(const char **pp, double *v)
{
	static const double scale[] = { 1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9 };
	const char *p = *pp;
	uint64_t ip, fp = 0;
	unsigned nf = 0;

	if (scan_dec(&p, &ip) < 0)
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return -EINVAL;
		for (; is_digit(*p); p++, nf++) {
			if (nf >= sizeof(scale) / sizeof(scale[0]) - 1)
				return -EINVAL;
			fp = fp * 10 + (uint64_t)(*p - '0');
		}
	}
	*v = (double)ip + (double)fp * scale[nf];
	*pp = p;
	return 0;
}

/* Copies at most size-1 bytes of [s, s+len) and terminates. */
static void copy_cut(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* ---- /proc/PID/stat ---------------------------------------------------- */

int pstat_parse(const char *buf, struct pstat *out)
{
	const char *p = buf, *open, *close;
	struct pstat st;
	uint64_t v;
	int field;

	memset(&st, 0, sizeof(st));
	/* "PID (COMM) S ...": the comm may hold anything, ')' and newlines
	 * included, so it ends at the buffer's last ')' */
	if (scan_dec(&p, &v) < 0 || v > INT_MAX || p[0] != ' ' || p[1] != '(')
		return -EINVAL;
	st.pid = (int)v;
	open = p + 1;
	close = strrchr(open, ')');
	if (!close)
		return -EINVAL;
	copy_cut(st.comm, sizeof(st.comm), open + 1, (size_t)(close - open - 1));
	p = close + 1;
	if (p[0] != ' ' || ends_field(p[1]) || !ends_field(p[2]))
		return -EINVAL;
	st.state = p[1];
	p += 2;

	st.processor = -1;
	/* fields 4.. as proc(5) numbers them; signed ones (tty_nr, tpgid,
	 * priority, nice, cutime, ...) are only skipped, but still checked */
	for (field = 4; field <= 42; field++) {
		bool neg;

		p = skip_blanks(p);
		if (ends_line(*p))
			break;
		neg = *p == '-';
		p += neg;
		switch (field) {
		case 4: case 5: case 6: case 9: case 10: case 12: case 14: case 15: case 16:
		case 17: case 20: case 22: case 39: case 42:
			break;
		default:
			/* a field not kept: checked for digits, not converted */
			if (!is_digit(*p))
				return -EINVAL;
			while (is_digit(*p))
				p++;
			if (!ends_field(*p))
				return -EINVAL;
			continue;
		}
		if (scan_dec(&p, &v) < 0 || !ends_field(*p) ||
		    (neg && field != 16 && field != 17 && field != 20))
			return -EINVAL;
		switch (field) {
		case 4: case 5: case 6:
			if (v > INT_MAX)
				return -EINVAL;
			*(field == 4 ? &st.ppid : field == 5 ? &st.pgrp : &st.session) = (int)v;
			break;
		case 9:
			if (v > UINT_MAX)
				return -EINVAL;
			st.flags = (unsigned)v;
			break;
		case 16:
		case 17:
			/* signed longs; INT64_MIN's magnitude is one past INT64_MAX */
			if (v > (uint64_t)INT64_MAX + neg)
				return -EINVAL;
			*(field == 16 ? &st.cutime : &st.cstime) =
				neg ? (int64_t)(0 - v) : (int64_t)v;
			break;
		case 10: st.minflt = v; break;
		case 12: st.majflt = v; break;
		case 14: st.utime = v; break;
		case 15: st.stime = v; break;
		case 20:
			if (v > INT64_MAX)
				return -EINVAL;
			st.num_threads = neg ? -(int64_t)v : (int64_t)v;
			break;
		case 22: st.starttime = v; break;
		case 39:
			/* printed as an int: a value beyond is no CPU number */
			st.processor = v > INT_MAX ? -1 : (int)v;
			break;
		case 42:
			st.blkio_ticks = v;
			st.have_blkio = true;
			break;
		}
	}
	if (field <= 22)
		return -EINVAL;   /* stopped before starttime */
	*out = st;
	return 0;
}

/* ---- /proc/PID/task/TID/schedstat --------------------------------------- */

int pschedstat_parse(const char *buf, struct pschedstat *out)
{
	const char *p = buf;
	struct pschedstat st;

	if (field_u64(&p, &st.run_ns) < 0 || field_u64(&p, &st.runq_ns) < 0 ||
	    field_u64(&p, &st.slices) < 0 || !line_done(p))
		return -EINVAL;
	*out = st;
	return 0;
}

/* ---- /proc/PID/task/TID/syscall ----------------------------------------- */

int psyscall_parse(const char *buf, struct psyscall *out)
{
	const char *p = buf;
	struct psyscall sc;
	uint64_t sp, pc;
	int64_t nr;
	int i;

	memset(&sc, 0, sizeof(sc));
	if (!strncmp(p, "running", 7) && line_done(p + 7)) {
		sc.kind = PSYSCALL_RUNNING;
		sc.nr = -1;
		*out = sc;
		return 0;
	}
	if (field_i64(&p, &nr) < 0 || nr < LONG_MIN || nr > LONG_MAX)
		return -EINVAL;
	sc.nr = (long)nr;
	if (nr < 0) {
		/* blocked outside a system call: "-1 SP PC" */
		sc.kind = PSYSCALL_NONE;
	} else {
		sc.kind = PSYSCALL_IN;
		for (i = 0; i < 6; i++)
			if (field_hex(&p, &sc.args[i]) < 0)
				return -EINVAL;
	}
	if (field_hex(&p, &sp) < 0 || field_hex(&p, &pc) < 0 || !line_done(p))
		return -EINVAL;
	*out = sc;
	return 0;
}

/* ---- /proc/vmstat ------------------------------------------------------- */

/* The value on the line at p when it is "name VALUE"; -ENOENT when the
 * line holds another name, -EINVAL when the value is malformed. *end (may
 * be NULL) is set to the line's end, past its newline, in both cases. */
static int vmstat_line_value(const char *p, const char *name, size_t len, uint64_t *v,
			     const char **end)
{
	int r = 0;

	if (strncmp(p, name, len) != 0 || p[len] != ' ')
		return -ENOENT;
	p += len + 1;
	if (scan_dec(&p, v) < 0 || !line_done(p))
		r = -EINVAL;
	if (end) {
		p += strcspn(p, "\n");
		*end = p + (*p == '\n');
	}
	return r;
}

/* Sorts ix->order by line so a read walks the buffer once (insertion sort:
 * at most VMSTAT_MAX_WANT names, and only when the index is rebuilt). */
static void vmstat_sort_order(struct vmstat_index *ix)
{
	size_t i, j;

	for (i = 0; i < ix->n; i++)
		ix->order[i] = (unsigned char)i;
	for (i = 1; i < ix->n; i++) {
		unsigned char k = ix->order[i];

		for (j = i; j > 0 && ix->line[ix->order[j - 1]] > ix->line[k]; j--)
			ix->order[j] = ix->order[j - 1];
		ix->order[j] = k;
	}
}

/* Finds every wanted name's line in buf; returns how many it found. */
static int vmstat_search(struct vmstat_index *ix, const char *buf)
{
	const char *p;
	size_t i;
	int line, found = 0;

	ix->searches++;
	for (i = 0; i < ix->n; i++) {
		ix->line[i] = -1;
		ix->off[i] = 0;
	}
	for (p = buf, line = 0; p && *p; p = next_line(p), line++) {
		size_t len = strcspn(p, " \n");

		for (i = 0; i < ix->n; i++) {
			if (ix->line[i] < 0 && len == ix->len[i] && !memcmp(p, ix->name[i], len)) {
				ix->line[i] = line;
				ix->off[i] = (unsigned)(p - buf);
				found++;
				break;
			}
		}
	}
	vmstat_sort_order(ix);
	return found;
}

int vmstat_index_init(struct vmstat_index *ix, const char *const *names, size_t n,
		      const char *buf)
{
	size_t i;

	if (n > VMSTAT_MAX_WANT)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		if (len == 0 || len > UCHAR_MAX)
			return -EINVAL;
		ix->name[i] = names[i];
		ix->len[i] = (unsigned char)len;
	}
	ix->n = n;
	ix->searches = 0;
	return vmstat_search(ix, buf);
}

/* How many lines around the expected place a read looks at for a name
 * before it gives up and searches the whole buffer. */
#define VMSTAT_SLACK 8

static bool has_name(const char *p, const char *name, size_t len)
{
	return !strncmp(p, name, len) && p[len] == ' ';
}

/* The line from `from` on that starts with name, looked for near at: the
 * line holding at, the VMSTAT_SLACK lines after it, then those before it.
 * NULL when none of them. */
static const char *vmstat_near(const char *from, const char *at, const char *name, size_t len)
{
	const char *p;
	int k;

	while (at > from && at[-1] != '\n')
		at--;
	for (p = at, k = 0; p && k <= VMSTAT_SLACK; p = next_line(p), k++)
		if (has_name(p, name, len))
			return p;
	for (p = at, k = 0; p > from && k < VMSTAT_SLACK; k++) {
		for (p--; p > from && p[-1] != '\n'; p--)
			;
		if (has_name(p, name, len))
			return p;
	}
	return NULL;
}

/* One pass over buf reading the wanted lines near where the last buffer
 * had them, shifted by how far the lines before them moved. false, with
 * values half written, when a name is not near its place or the buffer
 * ends first: the kernel's order changed. */
static bool vmstat_read_indexed(struct vmstat_index *ix, const char *buf,
				uint64_t *values, bool *have)
{
	const char *from = buf;   /* the line after the last one found */
	long shift = 0;           /* how far that line moved since the last read */
	size_t k;

	for (k = 0; k < ix->n; k++) {
		size_t i = ix->order[k];
		const char *at, *end;
		size_t gap;
		long guess;
		int r;

		values[i] = 0;
		if (have)
			have[i] = false;
		if (ix->line[i] < 0)
			continue;
		guess = (long)ix->off[i] + shift;
		gap = guess > from - buf ? (size_t)(guess - (from - buf)) : 0;
		gap = strnlen(from, gap);   /* not past the buffer's end */
		at = vmstat_near(from, from + gap, ix->name[i], ix->len[i]);
		if (!at)
			return false;
		r = vmstat_line_value(at, ix->name[i], ix->len[i], &values[i], &end);
		shift = (at - buf) - (long)ix->off[i];
		ix->off[i] = (unsigned)(at - buf);
		from = end;
		if (r == 0 && have)
			have[i] = true;
		if (r < 0)
			values[i] = 0;   /* a malformed value reads as absent */
	}
	return true;
}

void vmstat_index_read(struct vmstat_index *ix, const char *buf, uint64_t *values, bool *have)
{
	if (vmstat_read_indexed(ix, buf, values, have))
		return;
	vmstat_search(ix, buf);
	vmstat_read_indexed(ix, buf, values, have);
}

int vmstat_get(const char *buf, const char *name, uint64_t *value)
{
	size_t len = strlen(name);
	const char *p;

	for (p = buf; p && *p; p = next_line(p)) {
		int r = vmstat_line_value(p, name, len, value, NULL);

		if (r != -ENOENT)
			return r;
	}
	return -ENOENT;
}

/* ---- block device counters --------------------------------------------- */

/* The 11, 15 or 17 counters at p, to the end of the line. */
static int blk_counters(const char *p, struct blkstat *st)
{
	uint64_t v[17];
	int n;

	for (n = 0;; n++) {
		p = skip_blanks(p);
		if (ends_line(*p))
			break;
		if (n == 17 || field_u64(&p, &v[n]) < 0)
			return -EINVAL;
	}
	if (n != 11 && n != 15 && n != 17)
		return -EINVAL;
	st->rd_ios = v[0];
	st->rd_merges = v[1];
	st->rd_sectors = v[2];
	st->rd_ms = v[3];
	st->wr_ios = v[4];
	st->wr_merges = v[5];
	st->wr_sectors = v[6];
	st->wr_ms = v[7];
	st->in_flight = v[8];
	st->io_ms = v[9];
	st->weighted_ms = v[10];
	st->dc_ios = n >= 15 ? v[11] : 0;
	st->dc_merges = n >= 15 ? v[12] : 0;
	st->dc_sectors = n >= 15 ? v[13] : 0;
	st->dc_ms = n >= 15 ? v[14] : 0;
	st->fl_ios = n >= 17 ? v[15] : 0;
	st->fl_ms = n >= 17 ? v[16] : 0;
	st->fields = n;
	return 0;
}

int diskstats_line_parse(const char *line, struct blkstat *out)
{
	const char *p = line, *name;
	struct blkstat st;
	uint64_t maj, min;
	size_t len;

	if (field_u64(&p, &maj) < 0 || maj > UINT_MAX ||
	    field_u64(&p, &min) < 0 || min > UINT_MAX)
		return -EINVAL;
	name = skip_blanks(p);
	for (p = name; !ends_field(*p); p++)
		;
	len = (size_t)(p - name);
	if (len == 0 || len >= sizeof(st.name))
		return -EINVAL;
	memcpy(st.name, name, len);
	st.name[len] = '\0';
	st.major = (unsigned)maj;
	st.minor = (unsigned)min;
	if (blk_counters(p, &st) < 0)
		return -EINVAL;
	*out = st;
	return 0;
}

int blkstat_parse(const char *buf, struct blkstat *out)
{
	struct blkstat st;

	st.major = st.minor = 0;
	st.name[0] = '\0';
	if (blk_counters(buf, &st) < 0)
		return -EINVAL;
	*out = st;
	return 0;
}

/* ---- pressure ----------------------------------------------------------- */

/* " avg10=A avg60=B avg300=C total=T" after the line's keyword. */
static int psi_line_parse(const char *p, struct psi_line *pl)
{
	static const char *const key[] = { "avg10=", "avg60=", "avg300=" };
	double *avg[] = { &pl->avg10, &pl->avg60, &pl->avg300 };
	size_t i;

	for (i = 0; i < 3; i++) {
		size_t len = strlen(key[i]);

		p = skip_blanks(p);
		if (strncmp(p, key[i], len) != 0)
			return -EINVAL;
		p += len;
		if (scan_fixed(&p, avg[i]) < 0 || !ends_field(*p))
			return -EINVAL;
	}
	p = skip_blanks(p);
	if (strncmp(p, "total=", 6) != 0)
		return -EINVAL;
	p += 6;
	if (scan_dec(&p, &pl->total_us) < 0 || !line_done(p))
		return -EINVAL;
	pl->have = true;
	return 0;
}

int psi_parse(const char *buf, struct psi *out)
{
	struct psi ps;
	const char *p;

	memset(&ps, 0, sizeof(ps));
	for (p = buf; p && *p; p = next_line(p)) {
		struct psi_line *pl;

		if (!strncmp(p, "some ", 5))
			pl = &ps.some;
		else if (!strncmp(p, "full ", 5))
			pl = &ps.full;
		else
			return -EINVAL;
		if (pl->have || psi_line_parse(p + 4, pl) < 0)
			return -EINVAL;
	}
	if (!ps.some.have && !ps.full.have)
		return -EINVAL;
	*out = ps;
	return 0;
}

/* ---- /proc/swaps -------------------------------------------------------- */

/* The path field, undoing the kernel's octal escapes (mangle_path writes
 * a space as \040); cut to size-1 bytes. */
static int swap_path(const char **pp, char *dst, size_t size)
{
	const char *p = skip_blanks(*pp);
	size_t n = 0;

	if (ends_field(*p))
		return -EINVAL;
	while (!ends_field(*p)) {
		char c = *p++;

		if (c == '\\' && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' && p[1] <= '7' &&
		    p[2] >= '0' && p[2] <= '7') {
			c = (char)((p[0] - '0') << 6 | (p[1] - '0') << 3 | (p[2] - '0'));
			p += 3;
		}
		if (n + 1 < size)
			dst[n++] = c;
	}
	dst[n] = '\0';
	*pp = p;
	return 0;
}

int swaps_parse(const char *buf, struct swap_entry *out, size_t max)
{
	const char *p;
	int count = 0;

	if (strncmp(buf, "Filename", 8) != 0)
		return -EINVAL;
	for (p = next_line(buf); p && *p; p = next_line(p)) {
		struct swap_entry e;
		const char *t;
		int64_t prio;

		if (swap_path(&p, e.path, sizeof(e.path)) < 0)
			return -EINVAL;
		t = p = skip_blanks(p);
		while (!ends_field(*p))
			p++;
		if (p == t)
			return -EINVAL;
		copy_cut(e.type, sizeof(e.type), t, (size_t)(p - t));
		if (field_u64(&p, &e.size_kib) < 0 || field_u64(&p, &e.used_kib) < 0 ||
		    field_i64(&p, &prio) < 0 || prio < INT_MIN || prio > INT_MAX ||
		    !line_done(p))
			return -EINVAL;
		e.priority = (int)prio;
		if ((size_t)count < max)
			out[count] = e;
		if (count == INT_MAX)
			return -EINVAL;
		count++;
	}
	return count;
}

/* ---- /proc/PID/cgroup --------------------------------------------------- */

int cgroup2_path_parse(const char *buf, char *path, size_t size)
{
	const char *p;

	for (p = buf; p && *p; p = next_line(p)) {
		size_t len;

		if (strncmp(p, "0::", 3) != 0)
			continue;
		p += 3;
		len = strcspn(p, "\n");
		if (len == 0)
			return -EINVAL;
		if (len >= size)
			return -ERANGE;
		memcpy(path, p, len);
		path[len] = '\0';
		return 0;
	}
	return -ENOENT;
}

/* ---- DRM fdinfo --------------------------------------------------------- */

/* The size after "drm-KEY:" in bytes: "N", "N KiB" or "N MiB" as
 * Documentation/gpu/drm-usage-stats.rst defines (no unit: bytes). */
static int drm_size_bytes(const char *p, uint64_t *bytes)
{
	uint64_t v;
	unsigned shift = 0;

	p = skip_blanks(p);
	if (scan_dec(&p, &v) < 0)
		return -EINVAL;
	p = skip_blanks(p);
	if (!strncmp(p, "KiB", 3)) {
		shift = 10;
		p += 3;
	} else if (!strncmp(p, "MiB", 3)) {
		shift = 20;
		p += 3;
	}
	if (!line_done(p) || v > UINT64_MAX >> shift)
		return -EINVAL;
	*bytes = v << shift;
	return 0;
}

int drm_fdinfo_mem_kib(const char *buf, uint64_t *kib)
{
	uint64_t total = 0, memory = 0;
	bool have_total = false, have_memory = false;
	const char *p;

	for (p = buf; p && *p; p = next_line(p)) {
		const char *colon;
		uint64_t b;
		uint64_t *sum;
		bool *have;

		if (!strncmp(p, "drm-total-", 10)) {
			sum = &total;
			have = &have_total;
		} else if (!strncmp(p, "drm-memory-", 11)) {
			sum = &memory;
			have = &have_memory;
		} else {
			continue;
		}
		colon = strchr(p, ':');
		if (!colon || memchr(p, '\n', (size_t)(colon - p)))
			return -EINVAL;
		if (drm_size_bytes(colon + 1, &b) < 0 || __builtin_add_overflow(*sum, b, sum))
			return -EINVAL;
		*have = true;
	}
	if (!have_total && !have_memory)
		return -ENOENT;
	/* drm-memory-<region> is the older name of drm-total-<region>: count
	 * the regions once, under the newer names when the kernel has them */
	*kib = (have_total ? total : memory) / 1024;
	return 0;
}
