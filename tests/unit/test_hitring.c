/* Unit tests for preload/hitring.c: order, capacity, counted drops, concurrent producers. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload/hitring.h"

static struct mtj_ring ring;

static void test_fifo_order(void **state)
{
	(void)state;
	mtj_ring_init(&ring);
	for (int i = 0; i < 10; i++) {
		uint64_t t;
		struct mtj_hit *h = mtj_ring_claim(&ring, &t);
		assert_non_null(h);
		h->seq = (uint64_t)i;
		mtj_ring_publish(&ring, t);
	}
	struct mtj_hit out;
	for (int i = 0; i < 10; i++) {
		assert_true(mtj_ring_pop(&ring, &out));
		assert_int_equal(out.seq, i);
	}
	assert_false(mtj_ring_pop(&ring, &out));
}

static void test_full_ring_counts_drops(void **state)
{
	(void)state;
	mtj_ring_init(&ring);
	uint64_t t;
	for (int i = 0; i < MTJ_RING_SLOTS; i++) {
		struct mtj_hit *h = mtj_ring_claim(&ring, &t);
		assert_non_null(h);
		mtj_ring_publish(&ring, t);
	}
	assert_null(mtj_ring_claim(&ring, &t));
	assert_null(mtj_ring_claim(&ring, &t));
	assert_int_equal(atomic_load(&ring.dropped), 2);
	struct mtj_hit out;
	assert_true(mtj_ring_pop(&ring, &out));
	assert_non_null(mtj_ring_claim(&ring, &t)); /* a slot came free */
}

static void test_unpublished_slot_blocks_consumer(void **state)
{
	(void)state;
	mtj_ring_init(&ring);
	uint64_t t1, t2;
	struct mtj_hit *a = mtj_ring_claim(&ring, &t1);
	struct mtj_hit *b = mtj_ring_claim(&ring, &t2);
	a->seq = 1;
	b->seq = 2;
	mtj_ring_publish(&ring, t2);
	struct mtj_hit out;
	assert_false(mtj_ring_pop(&ring, &out)); /* slot 1 is still being written */
	mtj_ring_publish(&ring, t1);
	assert_true(mtj_ring_pop(&ring, &out));
	assert_int_equal(out.seq, 1);
	assert_true(mtj_ring_pop(&ring, &out));
	assert_int_equal(out.seq, 2);
}

#define PRODUCERS 4
#define PER_PRODUCER 20000
static void *producer(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg * PER_PRODUCER;
	for (uint64_t i = 0; i < PER_PRODUCER; i++) {
		uint64_t t;
		struct mtj_hit *h;
		while (!(h = mtj_ring_claim(&ring, &t)))
			;
		h->seq = base + i;
		mtj_ring_publish(&ring, t);
	}
	return NULL;
}

static void test_concurrent_producers(void **state)
{
	(void)state;
	mtj_ring_init(&ring);
	pthread_t th[PRODUCERS];
	for (uintptr_t i = 0; i < PRODUCERS; i++)
		pthread_create(&th[i], NULL, producer, (void *)i);
	unsigned char *seen = calloc(PRODUCERS * PER_PRODUCER, 1);
	uint64_t got = 0;
	struct mtj_hit out;
	while (got < PRODUCERS * PER_PRODUCER) {
		if (mtj_ring_pop(&ring, &out)) {
			assert_true(out.seq < PRODUCERS * PER_PRODUCER);
			assert_int_equal(seen[out.seq], 0);
			seen[out.seq] = 1;
			got++;
		}
	}
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(th[i], NULL);
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_order),
		cmocka_unit_test(test_full_ring_counts_drops),
		cmocka_unit_test(test_unpublished_slot_blocks_consumer),
		cmocka_unit_test(test_concurrent_producers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
