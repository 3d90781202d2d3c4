/*
 * Runs every unit-test suite that registered itself (see test.h) with
 * Check, each test in its own process. Exit 0 when none failed.
 *
 * Check knows pass and fail only, so a test that cannot run on this
 * machine calls test_skip() (test.h): it appends a line to a file this
 * program makes, and after the run every such line is printed as
 * "SKIP file:test: reason [path:line]" with a count, so tests/run.sh
 * counts them as skipped and not as the passes Check calls them.
 */
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* where skipped tests write their line (inherited by Check's children) */
#define SKIP_FILE_ENV "HB_UNIT_SKIP_FILE"

static Suite *(*suites[128])(void);
static size_t n_suites;

void test_register(Suite *(*make)(void))
{
	if (n_suites == ARRAY_SIZE(suites)) {
		fprintf(stderr, "unit-tests: more than %zu suites: make suites[] in tests/unit/main.c larger\n",
			ARRAY_SIZE(suites));
		abort();
	}
	suites[n_suites++] = make;
}

static const char *env_path(const char *var, const char *fallback, const char *rel,
			    char *buf, size_t size)
{
	const char *base = getenv(var);

	snprintf(buf, size, "%s/%s", base && *base ? base : fallback, rel);
	return buf;
}

/* main() sets all three to absolute paths before any test runs */
const char *fixture_path(const char *rel)
{
	static char buf[4096];

	return env_path("HB_FIXTURES", "tests/fixtures", rel, buf, sizeof(buf));
}

const char *testdata_path(const char *rel)
{
	static char buf[4096];

	return env_path("HB_TESTDATA", "tests/fixtures/testdata", rel, buf, sizeof(buf));
}

const char *srcdir_path(const char *rel)
{
	static char buf[4096];

	return env_path("HB_SRCDIR", ".", rel, buf, sizeof(buf));
}

/* HB_SRCDIR defaults to the working directory, HB_FIXTURES to its
 * tests/fixtures and HB_TESTDATA to tests/fixtures/testdata there, all
 * made absolute (tests link to these trees from temporary directories).
 * Returns -1 with a message when the fixtures are not there: every test
 * that reads one would fail, each with a less helpful message. */
static int resolve_dirs(void)
{
	const char *src = getenv("HB_SRCDIR"), *fix = getenv("HB_FIXTURES");
	char *cwd = getcwd(NULL, 0), *s, *f;
	int ret = 0;

	if (!cwd) {
		perror("unit-tests: getcwd");
		return -1;
	}
	s = src && *src ? xstrdup(src) : xstrdup(cwd);
	if (s[0] != '/') {
		char *abs = xasprintf("%s/%s", cwd, s);

		free(s);
		s = abs;
	}
	setenv("HB_SRCDIR", s, 1);
	f = fix && *fix ? xstrdup(fix) : xasprintf("%s/tests/fixtures", s);
	if (access(f, R_OK | X_OK) != 0) {
		fprintf(stderr, "unit-tests: no fixtures at '%s': run from the checkout or set "
			"HB_SRCDIR (or HB_FIXTURES)\n", f);
		ret = -1;
	}
	setenv("HB_FIXTURES", f, 0);
	if (!getenv("HB_TESTDATA") || !*getenv("HB_TESTDATA")) {
		char *t = xasprintf("%s/testdata", f);

		setenv("HB_TESTDATA", t, 1);
		free(t);
	}
	free(f);
	free(s);
	free(cwd);
	return ret;
}

/* the test that noted a skip: "file:test" */
static char skip_noted[256];

void test_skip_note(const char *file, int line, const char *fmt, ...)
{
	const char *path = getenv(SKIP_FILE_ENV), *base = strrchr(file, '/');
	char reason[512], key[sizeof(skip_noted)];
	size_t blen;
	char *text;
	va_list ap;
	int fd, r;

	/* tests/unit/test-prefetch.c names its tests "prefetch:..." */
	base = base ? base + 1 : file;
	if (!strncmp(base, "test-", 5))
		base += 5;
	blen = strcspn(base, ".");
	/* tcase_name() is the running test's name (START_TEST's) */
	snprintf(key, sizeof(key), "%.*s:%s", (int)blen, base, tcase_name());
	/* once per test (a helper may be called more than once) */
	if (!strcmp(skip_noted, key))
		return;
	snprintf(skip_noted, sizeof(skip_noted), "%s", key);
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	text = xasprintf("SKIP %s: %s [%s:%d]\n", key, reason, file, line);
	fd = path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	/* one write: tests of other processes append to the same file */
	r = fd < 0 ? (path ? -errno : -ENOENT) : write_all(fd, text, strlen(text));
	if (fd >= 0)
		close(fd);
	if (r < 0)
		ck_abort_msg("cannot note a skip in '%s': %s", path ? path : "$" SKIP_FILE_ENV,
			     strerror(-r));
	free(text);
}

/* Prints the skip lines the tests wrote, then their count; returns it. */
static int report_skips(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int n = 0, r = read_file(path, &text, &len);

	if (r < 0) {
		fprintf(stderr, "unit-tests: cannot read '%s': %s\n", path, strerror(-r));
		return -1;
	}
	for (const char *p = text; p < text + len; p++)
		n += *p == '\n';
	fwrite(text, 1, len, stdout);
	if (n)
		printf("unit-tests: %d skipped (Check counts them among its passes above)\n", n);
	free(text);
	return n;
}

char *test_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *d = xasprintf("%s/hb-unit-XXXXXX", t && *t ? t : "/tmp");

	if (!mkdtemp(d))
		abort();
	return d;
}

void test_put(const char *root, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel);
	char *dir = xstrdup(path);

	*strrchr(dir, '/') = '\0';
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	ck_assert_int_eq(write_file_atomic(path, text, strlen(text), 0644), 0);
	free(path);
	free(dir);
}

int test_data_lines(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *buf = NULL;
	size_t len;
	int n = 0;

	ck_assert_int_eq(read_file(path, &buf, &len), 0);
	for (const char *p = buf; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		n += *p != '#' && *p != '\n';
	free(buf);
	free(path);
	return n;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed, skipped, fd;
	char *skips;

	if (n_suites == 0) {
		fprintf(stderr, "unit-tests: no suite registered\n");
		return 1;
	}
	if (resolve_dirs() < 0)
		return 1;
	skips = xasprintf("%s/hb-unit-skips-XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ?
			  getenv("TMPDIR") : "/tmp");
	fd = mkstemp(skips);
	if (fd < 0) {
		fprintf(stderr, "unit-tests: cannot make '%s': %s\n", skips, strerror(errno));
		return 1;
	}
	close(fd);
	setenv(SKIP_FILE_ENV, skips, 1);
	sr = srunner_create(suites[0]());
	for (size_t i = 1; i < n_suites; i++)
		srunner_add_suite(sr, suites[i]());
	/* unit-tests SUITE runs one suite (CK_RUN_SUITE works too) */
	srunner_run(sr, argc > 1 ? argv[1] : NULL, NULL, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	fflush(stdout);
	skipped = report_skips(skips);
	unlink(skips);
	free(skips);
	if (fflush(stdout) != 0 || ferror(stdout))
		return 1;
	return failed == 0 && skipped >= 0 ? 0 : 1;
}
