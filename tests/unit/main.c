/*
 * Runs every unit-test suite that registered itself (see test.h) with
 * Check, each test in its own process. Exit 0 when all passed.
 */
#include "test.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Suite *(*suites[64])(void);
static size_t n_suites;

void test_register(Suite *(*make)(void))
{
	if (n_suites == ARRAY_SIZE(suites))
		abort();
	suites[n_suites++] = make;
}

static const char *env_path(const char *var, const char *fallback, const char *rel,
			    char *buf, size_t size)
{
	const char *base = getenv(var);

	snprintf(buf, size, "%s/%s", base && *base ? base : fallback, rel);
	return buf;
}

const char *fixture_path(const char *rel)
{
	static char buf[4096];

	return env_path("HB_FIXTURES", "tests/fixtures", rel, buf, sizeof(buf));
}

const char *testdata_path(const char *rel)
{
	static char buf[4096];

	return env_path("HB_TESTDATA", "../shared/testdata", rel, buf, sizeof(buf));
}

const char *srcdir_path(const char *rel)
{
	static char buf[4096];

	return env_path("HB_SRCDIR", ".", rel, buf, sizeof(buf));
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

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (n_suites == 0) {
		fprintf(stderr, "unit-tests: no suite registered\n");
		return 1;
	}
	sr = srunner_create(suites[0]());
	for (size_t i = 1; i < n_suites; i++)
		srunner_add_suite(sr, suites[i]());
	/* unit-tests SUITE runs one suite (CK_RUN_SUITE works too) */
	srunner_run(sr, argc > 1 ? argv[1] : NULL, NULL, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
