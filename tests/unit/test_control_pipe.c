/*
 * control/perf_pipe.c: ack recognition, SIGPIPE-safe writes to a dead perf's pipe, bounded
 * writes to a full pipe, draining stale acks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "control/perf.h"

static void ack_count(void **state)
{
	(void)state;
	assert_int_equal(mtj_ack_count("ack\n", 4), 1);
	assert_int_equal(mtj_ack_count("ack\n\0", 5), 1);      /* what perf sends */
	assert_int_equal(mtj_ack_count("ack\n\0ack\n\0", 10), 2);
	assert_int_equal(mtj_ack_count("aack\n", 5), 1);
	assert_int_equal(mtj_ack_count("ack", 3), 0);
	assert_int_equal(mtj_ack_count("nak\n", 4), 0);
	assert_int_equal(mtj_ack_count("a\0ck\n", 5), 1);
	assert_int_equal(mtj_ack_count("", 0), 0);
}

static void write_to_dead_pipe_keeps_us_alive(void **state)
{
	(void)state;
	/* SIGPIPE at its default disposition, as in most programs: it must not fire. */
	signal(SIGPIPE, SIG_DFL);
	int p[2];
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	uint64_t dl = mtj_perf_now_ns() + 100000000u;
	assert_int_equal(mtj_ctl_write(p[1], "ping", dl), -EPIPE);
	sigset_t pending;
	sigpending(&pending);
	assert_false(sigismember(&pending, SIGPIPE));
	/* The thread's mask is as it was. */
	sigset_t mask;
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	assert_false(sigismember(&mask, SIGPIPE));
	close(p[1]);
}

static void write_command_and_full_pipe(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	assert_int_equal(mtj_ctl_write(p[1], "snapshot", mtj_perf_now_ns() + 100000000u), 0);
	char buf[32];
	assert_int_equal(read(p[0], buf, sizeof(buf)), 9);
	assert_memory_equal(buf, "snapshot\n", 9);
	/* Fill the pipe: perf not reading must end in -ETIMEDOUT at the deadline. */
	static char big[1 << 16];
	while (write(p[1], big, sizeof(big)) > 0)
		;
	uint64_t t = mtj_perf_now_ns();
	assert_int_equal(mtj_ctl_write(p[1], "ping", t + 50000000u), -ETIMEDOUT);
	uint64_t took = mtj_perf_now_ns() - t;
	assert_true(took >= 45000000u && took < 500000000u);
	assert_int_equal(mtj_ctl_write(p[1], "a-command-far-too-long-to-be-one-that-perf-understands-at-all-whatever-it-is", t), -EINVAL);
	close(p[0]);
	close(p[1]);
}

static void drain(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	assert_int_equal(write(p[1], "ack\n\0ack\n\0", 10), 10);
	assert_int_equal(mtj_ack_drain(p[0]), 0);
	char c;
	assert_int_equal(read(p[0], &c, 1), -1);
	close(p[1]);
	assert_int_equal(mtj_ack_drain(p[0]), -EPIPE);
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ack_count),
		cmocka_unit_test(write_to_dead_pipe_keeps_us_alive),
		cmocka_unit_test(write_command_and_full_pipe),
		cmocka_unit_test(drain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
