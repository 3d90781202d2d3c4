/*
 * common/base/timeutil.c: sleep_until, the one sleep to an absolute deadline
 * every observer's loop uses (a deadline already past, a stop flag set
 * before or by a signal during the sleep, a signal that is slept through),
 * and the two readings of a program's own CPU time the observers' cost
 * figures come from (the process's, ended threads included, against the
 * calling thread's alone), on real clocks and real signals.
 */
#include "test.h"
#include "base/timeutil.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stop_flag, other_flag, handled;

static void on_stop(int sig)
{
	stop_flag = 1;
	handled++;
}

static void on_other(int sig)
{
	other_flag = 1;
	handled++;
}

/* Each test starts with no flag set and SIGUSR1 back to its default. */
static void reset(void)
{
	stop_flag = other_flag = handled = 0;
	signal(SIGUSR1, SIG_DFL);
}

/* A SIGUSR1 to this process after ms milliseconds, caught by handler. */
static timer_t signal_after(unsigned ms, void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	struct itimerspec its = { .it_value = { ms / 1000, (long)(ms % 1000) * 1000000L } };
	timer_t t;

	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	ck_assert_int_eq(timer_create(CLOCK_MONOTONIC, &sev, &t), 0);
	ck_assert_int_eq(timer_settime(t, 0, &its, NULL), 0);
	return t;
}

START_TEST(deadline_past)
{
	uint64_t t0 = mono_ns();

	ck_assert_int_eq(sleep_until(t0 - NSEC_PER_SEC, NULL), 0);
	ck_assert_int_eq(sleep_until(0, &stop_flag), 0);
	ck_assert_int_eq(sleep_until(t0, NULL), 0);
	/* returned at once: far less than any deadline a loop would have */
	ck_assert_uint_lt(mono_ns() - t0, NSEC_PER_SEC);
}
END_TEST

START_TEST(deadline_kept)
{
	uint64_t t0 = mono_ns(), deadline = t0 + 30 * NSEC_PER_MSEC;

	ck_assert_int_eq(sleep_until(deadline, &stop_flag), 0);
	ck_assert_uint_ge(mono_ns(), deadline);
}
END_TEST

START_TEST(stopped_before)
{
	uint64_t t0 = mono_ns();

	stop_flag = 1;
	ck_assert_int_eq(sleep_until(t0 + 10 * NSEC_PER_SEC, &stop_flag), 1);
	ck_assert_uint_lt(mono_ns() - t0, NSEC_PER_SEC);
}
END_TEST

START_TEST(stopped_by_signal)
{
	uint64_t t0 = mono_ns(), waited;
	timer_t t = signal_after(50, on_stop);

	ck_assert_int_eq(sleep_until(t0 + 10 * NSEC_PER_SEC, &stop_flag), 1);
	waited = mono_ns() - t0;
	timer_delete(t);
	ck_assert_int_eq(stop_flag, 1);
	ck_assert_uint_ge(waited, 40 * NSEC_PER_MSEC);
	ck_assert_uint_lt(waited, 5 * NSEC_PER_SEC);
}
END_TEST

/* A signal that does not set the flag (a pid handed to the recorder) is
 * slept through, with a flag and without one. */
START_TEST(signal_slept_through)
{
	for (int with_flag = 0; with_flag < 2; with_flag++) {
		uint64_t t0 = mono_ns(), deadline = t0 + 200 * NSEC_PER_MSEC;
		timer_t t;

		reset();
		t = signal_after(20, on_other);
		ck_assert_int_eq(sleep_until(deadline, with_flag ? &stop_flag : NULL), 0);
		timer_delete(t);
		ck_assert_int_eq(handled, 1);
		ck_assert_int_eq(other_flag, 1);
		ck_assert_int_eq(stop_flag, 0);
		ck_assert_uint_ge(mono_ns(), deadline);
	}
}
END_TEST

/* What the spin adds to, so that no compiler drops it. */
static volatile unsigned burn_sink;

/* Spins until the calling thread has used ns of CPU time. */
static void burn(uint64_t ns)
{
	uint64_t t0 = thread_cpu_ns();

	while (thread_cpu_ns() - t0 < ns)
		for (int i = 0; i < 1000; i++)
			burn_sink += (unsigned)i;
}

static void *burner(void *arg)
{
	burn(*(const uint64_t *)arg);
	return NULL;
}

START_TEST(cpu_time_this_thread)
{
	uint64_t s0 = self_cpu_ns(), t0 = thread_cpu_ns(), s1, t1;

	ck_assert_uint_gt(t0, 0);
	burn(40 * NSEC_PER_MSEC);
	t1 = thread_cpu_ns();
	s1 = self_cpu_ns();
	ck_assert_uint_ge(t1 - t0, 40 * NSEC_PER_MSEC);
	/* the process's figure counts this thread's work too (to the us) */
	ck_assert_uint_ge(s1 - s0 + 1000, 40 * NSEC_PER_MSEC);
	/* sleeping costs (nearly) nothing */
	sleep_until(mono_ns() + 50 * NSEC_PER_MSEC, NULL);
	ck_assert_uint_lt(thread_cpu_ns() - t1, 10 * NSEC_PER_MSEC);
}
END_TEST

/* Another thread's work, ended before the reading, is in the process's
 * figure and not in the calling thread's. */
START_TEST(cpu_time_other_thread)
{
	uint64_t ns = 60 * NSEC_PER_MSEC, s0 = self_cpu_ns(), t0 = thread_cpu_ns();
	pthread_t th;

	ck_assert_int_eq(pthread_create(&th, NULL, burner, &ns), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_uint_ge(self_cpu_ns() - s0 + 1000, ns);
	ck_assert_uint_lt(thread_cpu_ns() - t0, ns / 2);
}
END_TEST

TEST_SUITE(timeutil_suite)
{
	Suite *s = suite_create("timeutil");
	TCase *sleep = tcase_create("sleep_until"), *cpu = tcase_create("cpu");

	tcase_add_checked_fixture(sleep, reset, reset);
	tcase_add_test(sleep, deadline_past);
	tcase_add_test(sleep, deadline_kept);
	tcase_add_test(sleep, stopped_before);
	tcase_add_test(sleep, stopped_by_signal);
	tcase_add_test(sleep, signal_slept_through);
	suite_add_tcase(s, sleep);
	tcase_add_test(cpu, cpu_time_this_thread);
	tcase_add_test(cpu, cpu_time_other_thread);
	suite_add_tcase(s, cpu);
	return s;
}
