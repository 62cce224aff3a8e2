/* Unit tests for decode/ptstack.c beyond the golden scenarios: deep stacks, many threads,
 * writer errors, and a randomized property: whatever branches come in, the output keeps the
 * writer contract (decode/writer.c rejects any nesting or time violation with -EINVAL). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "decode/ptstack.h"

static struct mtj_branch br(uint32_t tid, uint64_t t, uint32_t flags, uint64_t fip,
			    const char *fsym, uint64_t fo, uint64_t tip, const char *tsym, uint64_t to)
{
	struct mtj_branch b;
	memset(&b, 0, sizeof(b));
	b.pid = 1;
	b.tid = tid;
	b.time_ns = t;
	b.flags = flags;
	b.from = (struct mtj_frame){ fip, fsym, fo, NULL };
	b.to = (struct mtj_frame){ tip, tsym, to, NULL };
	return b;
}

static FILE *devnull(void)
{
	FILE *f = fopen("/dev/null", "w");
	assert_non_null(f);
	return f;
}

/* 100000 nested self-calls and their returns: one frame per call, all closed. */
static void test_deep_recursion(void **state)
{
	(void)state;
	FILE *out = devnull();
	struct mtj_writer w;
	struct mtj_ptstack *p;
	assert_int_equal(mtj_writer_open(&w, MTJ_FORMAT_JSON, out), 0);
	assert_int_equal(mtj_ptstack_new(&w, NULL, &p), 0);
	const int depth = 100000;
	uint64_t t = 1000;
	for (int i = 0; i < depth; i++) {
		struct mtj_branch b = br(5, t++, MTJ_BR_CALL, 0x1010, "rec", 0x10, 0x1000, "rec", 0);
		assert_int_equal(mtj_ptstack_add(p, &b), 0);
	}
	for (int i = 0; i < depth; i++) {
		struct mtj_branch b = br(5, t++, MTJ_BR_RETURN, 0x1030, "rec", 0x30, 0x1015, "rec", 0x15);
		assert_int_equal(mtj_ptstack_add(p, &b), 0);
	}
	assert_int_equal(mtj_ptstack_finish(p), 0);
	struct mtj_ptstack_stats st;
	mtj_ptstack_get_stats(p, &st);
	assert_int_equal(st.calls, depth);
	assert_int_equal(st.returns, depth);
	assert_int_equal(st.nonlocal + st.switched + st.resyncs, 0);
	/* one inferred outer "rec" + depth calls, each begun and ended */
	assert_int_equal(w.events, 2 * (depth + 1));
	assert_int_equal(mtj_writer_close(&w), 0);
	mtj_ptstack_free(p);
	fclose(out);
}

/* Threads interleaved branch by branch stay separate. */
static void test_many_threads(void **state)
{
	(void)state;
	FILE *out = devnull();
	struct mtj_writer w;
	struct mtj_ptstack *p;
	assert_int_equal(mtj_writer_open(&w, MTJ_FORMAT_FXT, out), 0);
	assert_int_equal(mtj_ptstack_new(&w, NULL, &p), 0);
	for (int round = 0; round < 10; round++)
		for (uint32_t tid = 1; tid <= 500; tid++) {
			uint64_t t = 1000 + (uint64_t)round * 10;
			struct mtj_branch c = br(tid, t, MTJ_BR_CALL, 0x1010, "main", 0x10, 0x2000, "f", 0);
			struct mtj_branch r = br(tid, t + 5, MTJ_BR_RETURN, 0x2010, "f", 0x10, 0x1015, "main", 0x15);
			assert_int_equal(mtj_ptstack_add(p, &c), 0);
			assert_int_equal(mtj_ptstack_add(p, &r), 0);
		}
	assert_int_equal(mtj_ptstack_finish(p), 0);
	struct mtj_ptstack_stats st;
	mtj_ptstack_get_stats(p, &st);
	assert_int_equal(st.threads, 500);
	assert_int_equal(st.inferred, 500);
	assert_int_equal(w.events, 500 * (2 + 10 * 2));
	assert_int_equal(mtj_writer_close(&w), 0);
	mtj_ptstack_free(p);
	fclose(out);
}

/* Random branch soup: the reconstruction must never break nesting or time order. */
static void test_random_keeps_contract(void **state)
{
	(void)state;
	static const char *const syms[] = { "a", "b", "c", "d", NULL };
	static const uint32_t kinds[] = {
		MTJ_BR_CALL, MTJ_BR_RETURN, MTJ_BR_JUMP, MTJ_BR_SYSCALL, MTJ_BR_SYSRET,
		MTJ_BR_INTERRUPT, MTJ_BR_IRET, MTJ_BR_TR_START, MTJ_BR_TR_END,
		MTJ_BR_TR_END | MTJ_BR_SYSCALL, MTJ_BR_TR_END | MTJ_BR_CALL,
		MTJ_BR_TR_END | MTJ_BR_RETURN, MTJ_BR_TR_START | MTJ_BR_TR_END, MTJ_BR_ERROR,
		MTJ_BR_ASYNC, 0,
	};
	unsigned seed = 12345;
	for (int run = 0; run < 200; run++) {
		FILE *out = devnull();
		struct mtj_writer w;
		struct mtj_ptstack *p;
		struct mtj_ptstack_opts o = { .max_buffered = (size_t)(run % 7) + 1 };
		assert_int_equal(mtj_writer_open(&w, MTJ_FORMAT_JSON, out), 0);
		assert_int_equal(mtj_ptstack_new(&w, run % 2 ? &o : NULL, &p), 0);
		uint64_t t = 100;
		for (int i = 0; i < 2000; i++) {
			uint32_t tid = 1 + (uint32_t)(rand_r(&seed) % 3);
			t += (uint64_t)(rand_r(&seed) % 3);       /* many equal timestamps */
			uint64_t tt = rand_r(&seed) % 50 ? t : t - 2;   /* some go back */
			const char *fs = syms[rand_r(&seed) % 5], *ts = syms[rand_r(&seed) % 5];
			uint64_t fip = rand_r(&seed) % 4 ? 0x1000 + (uint64_t)(rand_r(&seed) % 64) : 0;
			uint64_t tip = rand_r(&seed) % 4 ? 0x1000 + (uint64_t)(rand_r(&seed) % 64) : 0;
			struct mtj_branch b = br(tid, tt, kinds[rand_r(&seed) % 16], fip, fs,
						 (uint64_t)(rand_r(&seed) % 3), tip, ts,
						 (uint64_t)(rand_r(&seed) % 3));
			assert_int_equal(mtj_ptstack_add(p, &b), 0);
		}
		assert_int_equal(mtj_ptstack_finish(p), 0);
		assert_int_equal(mtj_writer_close(&w), 0);
		mtj_ptstack_free(p);
		fclose(out);
	}
}

/* A closed writer makes every event fail: the error comes back, nothing crashes. */
static void test_writer_error_propagates(void **state)
{
	(void)state;
	FILE *out = devnull();
	struct mtj_writer w;
	struct mtj_ptstack *p;
	assert_int_equal(mtj_writer_open(&w, MTJ_FORMAT_JSON, out), 0);
	assert_int_equal(mtj_ptstack_new(&w, NULL, &p), 0);
	struct mtj_branch c = br(1, 10, MTJ_BR_CALL, 0x1010, "main", 0x10, 0x2000, "f", 0);
	assert_int_equal(mtj_ptstack_add(p, &c), 0);
	assert_int_equal(mtj_writer_close(&w), 0);   /* ops gone: writes now fail */
	assert_int_equal(mtj_ptstack_finish(p), -EINVAL);
	mtj_ptstack_free(p);
	fclose(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deep_recursion),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_random_keeps_contract),
		cmocka_unit_test(test_writer_error_propagates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
