/*
 * tests/unit/test_writer_fxt.c — FXT writer round trips through the independent reader in
 * tests/tools/fxt-read.h: record layout of a small trace, more distinct names than the
 * string table holds (LRU re-definition), more threads than the thread table holds, long
 * strings, argument types and the 15-argument limit, kernel objects for names.
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
#include "tests/tools/fxt-read.h"

static char *buf;
static size_t len;
static FILE *f;
static struct mtj_writer w;

/* what the reader saw, one text line per event/object */
static char **lines;
static size_t nlines, caplines;

static void add_line(const char *s)
{
	/* Geometric growth: one realloc per line is quadratic under ASan (every realloc copies). */
	if (nlines == caplines) {
		caplines = caplines ? caplines * 2 : 1024;
		lines = realloc(lines, caplines * sizeof(*lines));
	}
	lines[nlines++] = strdup(s);
}

static void on_event(void *ctx, const struct fxt_ev *ev)
{
	static char s[100000];
	int n;

	(void)ctx;
	n = snprintf(s, sizeof(s), "%llu %u %llu/%llu %s:%s", (unsigned long long)ev->ts, ev->type,
		     (unsigned long long)ev->pid, (unsigned long long)ev->tid, ev->cat, ev->name);
	for (unsigned i = 0; i < ev->nargs; i++) {
		const struct fxt_arg *a = &ev->args[i];

		if (a->type == 6)
			n += snprintf(s + n, sizeof(s) - (size_t)n, " %s=s:%s", a->key, a->s);
		else
			n += snprintf(s + n, sizeof(s) - (size_t)n, " %s=%u:%llx", a->key, a->type,
				      (unsigned long long)a->u);
	}
	add_line(s);
}

static void on_kobj(void *ctx, unsigned type, uint64_t koid, const char *name, uint64_t pid)
{
	char s[256];

	(void)ctx;
	snprintf(s, sizeof(s), "obj%u %llu %s pid=%llu", type, (unsigned long long)koid, name,
		 (unsigned long long)pid);
	add_line(s);
}

static void open_fxt(void)
{
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(mtj_writer_open(&w, MTJ_FORMAT_FXT, f), 0);
}

static void close_and_read(struct fxt_stats *st)
{
	struct fxt_sink sink = { .event = on_event, .kobj = on_kobj };
	char err[256] = "";

	assert_int_equal(mtj_writer_close(&w), 0);
	fclose(f);
	assert_int_equal(w.bytes_hint, len);
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	lines = NULL;
	nlines = caplines = 0;
	if (fxt_read(buf, len, &sink, st, err, sizeof(err)))
		fail_msg("reader: %s", err);
	assert_int_equal(st->ticks_per_second, 1000000000);
}

static void test_small_trace(void **state)
{
	struct fxt_stats st;
	struct mtj_arg a[] = {
		{ .key = "trigger", .type = MTJ_ARG_STR, .s = "foo" },
		{ .key = "ip", .type = MTJ_ARG_HEX, .u = 0x401136 },
		{ .key = "n", .type = MTJ_ARG_U64, .u = 42 },
		{ .key = "d", .type = MTJ_ARG_I64, .i = -5 },
		{ .key = "none", .type = MTJ_ARG_STR, .s = NULL },
		{ .key = "empty", .type = MTJ_ARG_STR, .s = "" },
	};

	(void)state;
	open_fxt();
	assert_int_equal(mtj_writer_process_name(&w, 7, "demo"), 0);
	assert_int_equal(mtj_writer_thread_name(&w, 7, 8, "main"), 0);
	assert_int_equal(mtj_writer_begin(&w, 7, 8, 1000, "main", "/bin/demo"), 0);
	assert_int_equal(mtj_writer_begin(&w, 7, 8, 2000, "foo", NULL), 0);
	assert_int_equal(mtj_writer_instant(&w, 7, 8, 2500, "hit: foo", a, 6), 0);
	assert_int_equal(mtj_writer_end(&w, 7, 8, 3000, "foo"), 0);
	assert_int_equal(mtj_writer_end(&w, 7, 8, 4000, "main"), 0);
	close_and_read(&st);
	/* magic, then provider info/section and initialization */
	uint64_t w0, w1;
	memcpy(&w0, buf, 8);
	memcpy(&w1, buf + 8, 8);
	assert_true(w0 == 0x0016547846040010ull);
	assert_int_equal(w1 & 0xf, 0);                  /* metadata record */
	assert_int_equal((w1 >> 16) & 0xf, 1);          /* provider info */
	assert_int_equal(nlines, 7);
	assert_string_equal(lines[0], "obj1 7 demo pid=7");
	assert_string_equal(lines[1], "obj2 8 main pid=7");
	assert_string_equal(lines[2], "1000 2 7/8 mtinject:main object=s:/bin/demo");
	assert_string_equal(lines[3], "2000 2 7/8 mtinject:foo");
	assert_string_equal(lines[4], "2500 0 7/8 mtinject:hit: foo trigger=s:foo ip=7:401136 n=4:2a "
				      "d=3:fffffffffffffffb none=0:0 empty=s:");
	assert_string_equal(lines[5], "3000 3 7/8 mtinject:foo");
	assert_string_equal(lines[6], "4000 3 7/8 mtinject:main");
	assert_int_equal(st.begins, 2);
	assert_int_equal(st.ends, 2);
	assert_int_equal(st.instants, 1);
	assert_int_equal(st.string_redefs, 0);
	assert_int_equal(st.thread_records, 1);
	assert_int_equal(st.inline_strings, 0);
	free(buf);
}

/* 45,000 distinct names, then the first ones again: they were evicted and come back. */
static void test_many_strings(void **state)
{
	struct fxt_stats st;
	char name[32];
	uint64_t ts = 0;
	const unsigned N = 45000;

	(void)state;
	open_fxt();
	for (unsigned r = 0; r < 2; r++)
		for (unsigned i = 0; i < N; i++) {
			snprintf(name, sizeof(name), "function_%u", i);
			assert_int_equal(mtj_writer_begin(&w, 1, 2, ts++, name, "libx.so"), 0);
			assert_int_equal(mtj_writer_end(&w, 1, 2, ts++, name), 0);
		}
	close_and_read(&st);
	assert_int_equal(nlines, 4 * N);
	for (size_t i = 0; i < nlines; i++) {
		char want[96];
		unsigned fn = (unsigned)((i / 2) % N);

		snprintf(want, sizeof(want), "%zu %u 1/2 mtinject:function_%u%s", i, i % 2 ? 3 : 2, fn,
			 i % 2 ? "" : " object=s:libx.so");
		if (strcmp(lines[i], want))
			fail_msg("event %zu: got \"%s\", want \"%s\"", i, lines[i], want);
	}
	assert_int_equal(st.max_string_index, 32767);
	assert_true(st.string_redefs >= 2 * N - 32767);
	/* a name is defined once per stay in the table, not once per use */
	assert_true(st.string_records <= 2 * N + 10);
	assert_int_equal(st.inline_strings, 0);
	free(buf);
}

static void test_many_threads(void **state)
{
	struct fxt_stats st;
	uint64_t ts = 0;

	(void)state;
	open_fxt();
	for (uint32_t r = 0; r < 3; r++)
		for (uint32_t t = 0; t < 600; t++) {
			assert_int_equal(mtj_writer_begin(&w, 1 + t / 300, 1000 + t, ts, "f", NULL), 0);
			assert_int_equal(mtj_writer_end(&w, 1 + t / 300, 1000 + t, ts + 1, "f"), 0);
			ts += 2;
		}
	close_and_read(&st);
	assert_int_equal(nlines, 3 * 600 * 2);
	for (size_t i = 0; i < nlines; i++) {
		char want[64];
		unsigned t = (unsigned)((i / 2) % 600);

		snprintf(want, sizeof(want), "%zu %u %u/%u mtinject:f", i, i % 2 ? 3 : 2, 1 + t / 300, 1000 + t);
		assert_string_equal(lines[i], want);
	}
	assert_int_equal(st.max_thread_index, 255);
	assert_true(st.thread_redefs > 0);
	free(buf);
}

static void test_long_string_and_args_limit(void **state)
{
	struct fxt_stats st;
	size_t n = 40000;
	char *big = malloc(n + 1);
	struct mtj_arg a[20];
	char keys[20][8];

	(void)state;
	memset(big, 'x', n);
	big[n] = '\0';
	/* a 2-byte sequence across the 32000-byte limit is dropped whole */
	big[31999] = '\xc3';
	big[32000] = '\xa9';
	for (int i = 0; i < 20; i++) {
		snprintf(keys[i], sizeof(keys[i]), "a%d", i);
		a[i] = (struct mtj_arg){ .key = keys[i], .type = MTJ_ARG_U64, .u = (uint64_t)i };
	}
	a[0] = (struct mtj_arg){ .key = "bt", .type = MTJ_ARG_STR, .s = big };
	open_fxt();
	assert_int_equal(mtj_writer_instant(&w, 1, 2, 10, big, a, 20), 0);
	close_and_read(&st);
	assert_int_equal(nlines, 1);
	const char *name = strstr(lines[0], "mtinject:") + 9;
	assert_int_equal(strspn(name, "x"), 31999);
	assert_int_equal(name[31999], ' ');
	assert_non_null(strstr(lines[0], " a14=4:e"));
	assert_null(strstr(lines[0], " a15="));
	assert_int_equal(strlen(strstr(lines[0], " bt=s:") + 6) - strlen(strstr(lines[0], " a1=")), 31999);
	free(big);
	free(buf);
}

static void test_strings_with_nul_free_content(void **state)
{
	struct fxt_stats st;
	/* lengths 0..17 exercise the zero padding of the last word */
	char name[32];

	(void)state;
	open_fxt();
	for (int i = 1; i <= 17; i++) {
		memset(name, 'a' + i, (size_t)i);
		name[i] = '\0';
		assert_int_equal(mtj_writer_instant(&w, 1, 2, (uint64_t)i, name, NULL, 0), 0);
	}
	close_and_read(&st);
	assert_int_equal(nlines, 17);
	assert_string_equal(lines[16], "17 0 1/2 mtinject:rrrrrrrrrrrrrrrrr");
	assert_int_equal(len % 8, 0);
	free(buf);
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	lines = NULL;
	nlines = caplines = 0;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_small_trace, teardown),
		cmocka_unit_test_teardown(test_many_strings, teardown),
		cmocka_unit_test_teardown(test_many_threads, teardown),
		cmocka_unit_test_teardown(test_long_string_and_args_limit, teardown),
		cmocka_unit_test_teardown(test_strings_with_nul_free_content, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
