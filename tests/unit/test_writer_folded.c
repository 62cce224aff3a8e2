/*
 * tests/unit/test_writer_folded.c — folded stacks: exact output for a small sequence (time
 * per exact stack in µs, rounded; thread root frames; hits as count-1 leaves; reserved
 * characters), merging across threads without the root, and memory bounded by distinct
 * stacks (many repetitions of the same stacks give the same number of lines).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/trace.h"

static char *buf;
static size_t len;
static FILE *f;
static struct mtj_writer w;

static void open_folded(uint32_t flags)
{
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(mtj_writer_open_flags(&w, MTJ_FORMAT_FOLDED, f, flags), 0);
}

static void close_folded(void)
{
	assert_int_equal(mtj_writer_close(&w), 0);
	fclose(f);
}

/* main [0,10ms) calls a [1,4ms) which calls b [2,3ms); main calls a again [5,6.0004ms);
 * thread 3 runs work [0, 2.5005ms); a hit on thread 2 inside b. */
static void sequence(void)
{
	assert_int_equal(mtj_writer_process_name(&w, 1, "demo"), 0);
	assert_int_equal(mtj_writer_thread_name(&w, 1, 2, "main"), 0);
	assert_int_equal(mtj_writer_begin(&w, 1, 2, 0, "main", NULL), 0);
	assert_int_equal(mtj_writer_begin(&w, 1, 3, 0, "work", NULL), 0);
	assert_int_equal(mtj_writer_begin(&w, 1, 2, 1000000, "a", "liba.so"), 0);
	assert_int_equal(mtj_writer_begin(&w, 1, 2, 2000000, "b;c\nd", NULL), 0);
	assert_int_equal(mtj_writer_instant(&w, 1, 2, 2500000, "hit: b", NULL, 0), 0);
	assert_int_equal(mtj_writer_end(&w, 1, 2, 3000000, "b;c\nd"), 0);
	assert_int_equal(mtj_writer_end(&w, 1, 2, 4000000, "a"), 0);
	assert_int_equal(mtj_writer_begin(&w, 1, 2, 5000000, "a", "liba.so"), 0);
	assert_int_equal(mtj_writer_end(&w, 1, 2, 6000400, "a"), 0);
	assert_int_equal(mtj_writer_end(&w, 1, 3, 2500500, "work"), 0);
	assert_int_equal(mtj_writer_end(&w, 1, 2, 10000000, "main"), 0);
}

static void test_exact(void **state)
{
	(void)state;
	open_folded(0);
	sequence();
	close_folded();
	assert_string_equal(buf,
		"main-2;main 6000\n"
		"main-2;main;a 3000\n"
		"main-2;main;a;b:c d 1000\n"
		"main-2;main;a;b:c d;hit: b 1\n"
		"thread-3;work 2501\n");
	assert_int_equal(w.bytes_hint, len);
	free(buf);
}

static void test_no_thread_root_merges(void **state)
{
	(void)state;
	open_folded(MTJ_WRITER_FOLDED_NO_THREAD_ROOT);
	for (uint32_t t = 10; t < 13; t++) {
		assert_int_equal(mtj_writer_begin(&w, 1, t, 0, "main", NULL), 0);
		assert_int_equal(mtj_writer_begin(&w, 1, t, 400, "f", NULL), 0);
		assert_int_equal(mtj_writer_end(&w, 1, t, 900, "f"), 0);
		assert_int_equal(mtj_writer_end(&w, 1, t, 1000, "main"), 0);
	}
	close_folded();
	/* 3 x 500ns in main and 3 x 500ns in f: summed before rounding */
	assert_string_equal(buf, "main 2\nmain;f 2\n");
	free(buf);
}

static void test_bounded_by_distinct_stacks(void **state)
{
	uint64_t ts = 0;

	(void)state;
	open_folded(0);
	assert_int_equal(mtj_writer_thread_name(&w, 1, 2, "t"), 0);
	for (int i = 0; i < 100000; i++) {
		assert_int_equal(mtj_writer_begin(&w, 1, 2, ts, "x", NULL), 0);
		assert_int_equal(mtj_writer_begin(&w, 1, 2, ts + 1000, i % 2 ? "y" : "z", NULL), 0);
		assert_int_equal(mtj_writer_end(&w, 1, 2, ts + 2000, i % 2 ? "y" : "z"), 0);
		assert_int_equal(mtj_writer_end(&w, 1, 2, ts + 3000, "x"), 0);
		ts += 4000;
	}
	close_folded();
	assert_string_equal(buf, "t-2;x 200000\nt-2;x;y 50000\nt-2;x;z 50000\n");
	free(buf);
}

static void test_empty(void **state)
{
	(void)state;
	open_folded(0);
	close_folded();
	assert_int_equal(len, 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_no_thread_root_merges),
		cmocka_unit_test(test_bounded_by_distinct_stacks),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
