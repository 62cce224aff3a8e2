/*
 * tests/unit/test_writer_checks.c — the producer contract enforced by decode/writer.c:
 * unbalanced or mismatched ends and time going backwards are -EINVAL and write nothing;
 * close() ends the spans still open; format selection by name and by path.
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

struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct mtj_writer w;
};

static void mem_open(struct mem *m, enum mtj_format fmt)
{
	memset(m, 0, sizeof(*m));
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	assert_int_equal(mtj_writer_open(&m->w, fmt, m->f), 0);
}

static void mem_close(struct mem *m)
{
	assert_int_equal(mtj_writer_close(&m->w), 0);
	fclose(m->f);
}

static void test_unbalanced_end(void **state)
{
	struct mem m;

	(void)state;
	for (enum mtj_format fmt = MTJ_FORMAT_JSON; fmt <= MTJ_FORMAT_FOLDED; fmt++) {
		mem_open(&m, fmt);
		assert_int_equal(mtj_writer_end(&m.w, 1, 2, 10, "f"), -EINVAL);
		assert_int_equal(mtj_writer_begin(&m.w, 1, 2, 10, "f", NULL), 0);
		/* the end of another thread does not close this one */
		assert_int_equal(mtj_writer_end(&m.w, 1, 3, 11, "f"), -EINVAL);
		/* an end must name the innermost open begin */
		assert_int_equal(mtj_writer_begin(&m.w, 1, 2, 12, "g", NULL), 0);
		assert_int_equal(mtj_writer_end(&m.w, 1, 2, 13, "f"), -EINVAL);
		assert_int_equal(mtj_writer_end(&m.w, 1, 2, 13, "g"), 0);
		assert_int_equal(mtj_writer_end(&m.w, 1, 2, 14, "f"), 0);
		assert_int_equal(mtj_writer_end(&m.w, 1, 2, 15, "f"), -EINVAL);
		assert_int_equal(m.w.events, 4);
		mem_close(&m);
		free(m.buf);
	}
}

static void test_time_backwards(void **state)
{
	struct mem m;
	struct mtj_arg a = { .key = "k", .type = MTJ_ARG_U64, .u = 1 };

	(void)state;
	mem_open(&m, MTJ_FORMAT_JSON);
	assert_int_equal(mtj_writer_begin(&m.w, 1, 2, 100, "f", NULL), 0);
	fflush(m.f);
	assert_int_equal(mtj_writer_begin(&m.w, 1, 2, 99, "g", NULL), -EINVAL);
	assert_int_equal(mtj_writer_instant(&m.w, 1, 2, 50, "i", &a, 1), -EINVAL);
	assert_int_equal(mtj_writer_end(&m.w, 1, 2, 99, "f"), -EINVAL);
	/* equal times are fine, and another thread has its own clock */
	assert_int_equal(mtj_writer_instant(&m.w, 1, 2, 100, "i", &a, 1), 0);
	assert_int_equal(mtj_writer_begin(&m.w, 1, 3, 5, "h", NULL), 0);
	assert_int_equal(mtj_writer_end(&m.w, 1, 3, 6, "h"), 0);
	assert_int_equal(mtj_writer_end(&m.w, 1, 2, 100, "f"), 0);
	mem_close(&m);
	/* nothing of the rejected calls reached the output */
	assert_null(strstr(m.buf, "\"g\""));
	assert_null(strstr(m.buf, "\"ts\":0.050"));
	assert_null(strstr(m.buf, "\"ts\":0.099"));
	free(m.buf);
}

static void test_bad_arguments(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, MTJ_FORMAT_FXT);
	assert_int_equal(mtj_writer_begin(&m.w, 1, 2, 1, NULL, NULL), -EINVAL);
	assert_int_equal(mtj_writer_instant(&m.w, 1, 2, 1, "x", NULL, 2), -EINVAL);
	assert_int_equal(mtj_writer_thread_name(&m.w, 1, 2, NULL), -EINVAL);
	mem_close(&m);
	free(m.buf);
	assert_int_equal(mtj_writer_begin(NULL, 1, 2, 1, "f", NULL), -EINVAL);
	assert_int_equal(mtj_writer_open(&m.w, (enum mtj_format)7, stdout), -EINVAL);
}

static void test_close_ends_open_spans(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, MTJ_FORMAT_JSON);
	assert_int_equal(mtj_writer_begin(&m.w, 1, 2, 1000, "outer", NULL), 0);
	assert_int_equal(mtj_writer_begin(&m.w, 1, 2, 2000, "inner", NULL), 0);
	assert_int_equal(mtj_writer_instant(&m.w, 1, 2, 3000, "last", NULL, 0), 0);
	mem_close(&m);
	assert_int_equal(m.w.events, 5);
	assert_non_null(strstr(m.buf, "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":3.000},\n"
					"{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":3.000}\n]}"));
	free(m.buf);
}

static void test_format_names(void **state)
{
	enum mtj_format f;

	(void)state;
	assert_int_equal(mtj_format_from_name("json", &f), 0);
	assert_int_equal(f, MTJ_FORMAT_JSON);
	assert_int_equal(mtj_format_from_name("fxt", &f), 0);
	assert_int_equal(f, MTJ_FORMAT_FXT);
	assert_int_equal(mtj_format_from_name("folded", &f), 0);
	assert_int_equal(f, MTJ_FORMAT_FOLDED);
	assert_int_equal(mtj_format_from_name("xml", &f), -EINVAL);
	assert_int_equal(mtj_format_from_path("out/trace.fxt", &f), 0);
	assert_int_equal(f, MTJ_FORMAT_FXT);
	assert_int_equal(mtj_format_from_path("stacks.folded", &f), 0);
	assert_int_equal(f, MTJ_FORMAT_FOLDED);
	assert_int_equal(mtj_format_from_path("a.b/trace.json", &f), 0);
	assert_int_equal(f, MTJ_FORMAT_JSON);
	assert_int_equal(mtj_format_from_path("a.json/trace", &f), -EINVAL);
	assert_int_equal(mtj_format_from_path("trace", &f), -EINVAL);
	assert_string_equal(mtj_writer_ops_for(MTJ_FORMAT_FXT)->name, "fxt");
}

static void test_tables(void **state)
{
	struct mtj_u64map m = { 0 };
	struct mtj_strtab *t = mtj_strtab_new();
	uint32_t v, id, id2;
	char key[32];

	(void)state;
	for (uint32_t i = 0; i < 5000; i++)
		assert_int_equal(mtj_u64map_put(&m, (uint64_t)i * 7919, i), 0);
	for (uint32_t i = 0; i < 5000; i += 2)
		mtj_u64map_del(&m, (uint64_t)i * 7919);
	for (uint32_t i = 0; i < 5000; i++) {
		int found = mtj_u64map_get(&m, (uint64_t)i * 7919, &v);

		assert_int_equal(found, i & 1);
		if (found)
			assert_int_equal(v, i);
	}
	assert_int_equal(m.n, 2500);
	mtj_u64map_free(&m);
	for (int i = 0; i < 3000; i++) {
		snprintf(key, sizeof(key), "name%d", i);
		assert_int_equal(mtj_strtab_intern(t, key, &id), 0);
		assert_int_equal(id, i);
	}
	assert_int_equal(mtj_strtab_intern(t, "name1234", &id2), 0);
	assert_int_equal(id2, 1234);
	assert_string_equal(mtj_strtab_str(t, 2999), "name2999");
	assert_int_equal(mtj_strtab_count(t), 3000);
	mtj_strtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unbalanced_end),
		cmocka_unit_test(test_time_backwards),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_close_ends_open_spans),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
