/*
 * ring_test — a cmocka suite for a small ring buffer, with one bug left in on purpose, that
 * leaves a snapshot of the moments before a test fails.  Two ways:
 *
 *  - a cmocka assertion fails: the test's teardown sees that the test did not reach its
 *    end and calls MTINJECT_SNAPSHOT("<test> failed");
 *  - the code under test hits assert() (from <assert.h>) and aborts: run the suite with
 *    MTINJECT_ON=abort and the preload takes the snapshot before the process dies.
 *
 * Built like any cmocka suite; the same binary runs without the preload (MTINJECT_SNAPSHOT
 * is then a no-op that returns -1).
 *   ./ring_test           all tests; test_wraparound fails (exit status 1)
 *   ./ring_test abort     the test whose code under test aborts (exit status 134)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mtinject.h>

/* ---- the code under test ------------------------------------------------------------- */
#define RING_SIZE 64

struct ring {
	int slots[RING_SIZE];
	unsigned head, tail;   /* head: next write; tail: next read */
};

__attribute__((noinline)) int ring_push(struct ring *r, int v)
{
	if (r->head - r->tail == RING_SIZE)
		return -1;
	r->slots[r->head % RING_SIZE] = v;
	r->head++;
	return 0;
}

__attribute__((noinline)) int ring_pop(struct ring *r, int *v)
{
	if (r->head == r->tail)
		return -1;
	/* The bug: after 1000 reads the index wraps with the wrong modulus. */
	unsigned idx = r->tail < 1000 ? r->tail % RING_SIZE : r->tail % (RING_SIZE - 1);
	*v = r->slots[idx];
	r->tail++;
	return 0;
}

__attribute__((noinline)) int ring_checked_pop(struct ring *r)
{
	int v = 0;
	int rc = ring_pop(r, &v);
	assert(rc == 0 && "pop from an empty ring");
	return v;
}

/* ---- fixtures: a snapshot for every test that does not reach its end ----------------- */
struct fixture {
	struct ring ring;
	const char *name;
	bool passed;
};

#define TEST_BEGIN(state, test_name) \
	struct fixture *fx = *(state);  \
	fx->name = (test_name)
#define TEST_END() fx->passed = true

static int setup(void **state)
{
	static struct fixture fx;
	memset(&fx, 0, sizeof fx);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	if (!fx->passed) {
		char reason[128];
		snprintf(reason, sizeof reason, "%s failed", fx->name);
		/* Queued here; the preload writes it before the process exits. */
		int rc = MTINJECT_SNAPSHOT(reason);
		fprintf(stderr, "%s: MTINJECT_SNAPSHOT returned %d\n", fx->name, rc);
	}
	return 0;
}

/* Keep the ring busy for `ms` milliseconds so the recording has something to show. */
static void churn(struct ring *r, int ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000; i++) {
			int v;
			ring_push(r, i);
			ring_pop(r, &v);
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	memset(r, 0, sizeof *r);
}

/* ---- tests ------------------------------------------------------------------------------ */
static void test_push_pop(void **state)
{
	TEST_BEGIN(state, "test_push_pop");
	int v = 0;
	assert_int_equal(ring_push(&fx->ring, 7), 0);
	assert_int_equal(ring_pop(&fx->ring, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(ring_pop(&fx->ring, &v), -1);
	TEST_END();
}

static void test_full(void **state)
{
	TEST_BEGIN(state, "test_full");
	for (int i = 0; i < RING_SIZE; i++)
		assert_int_equal(ring_push(&fx->ring, i), 0);
	assert_int_equal(ring_push(&fx->ring, 99), -1);
	TEST_END();
}

static void test_wraparound(void **state)
{
	TEST_BEGIN(state, "test_wraparound");
	churn(&fx->ring, 150);
	for (int i = 0; i < 5000; i++) {
		int v = -1;
		assert_int_equal(ring_push(&fx->ring, i), 0);
		assert_int_equal(ring_pop(&fx->ring, &v), 0);
		assert_int_equal(v, i);   /* fails at i == 1000 */
	}
	TEST_END();
}

static void test_drain_too_far(void **state)
{
	TEST_BEGIN(state, "test_drain_too_far");
	churn(&fx->ring, 150);
	ring_push(&fx->ring, 1);
	ring_checked_pop(&fx->ring);
	ring_checked_pop(&fx->ring);   /* assert() -> abort() */
	TEST_END();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_push_pop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wraparound, setup, teardown),
	};
	const struct CMUnitTest aborting[] = {
		cmocka_unit_test_setup_teardown(test_drain_too_far, setup, teardown),
	};
	if (argc > 1 && !strcmp(argv[1], "abort"))
		return cmocka_run_group_tests_name("ring (aborts)", aborting, NULL, NULL);
	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
