/*
 * tests/unit/test_writer_json.c — Chrome JSON writer: exact text for a small sequence, the
 * timestamp formatting (ns kept with three decimals), escaping of names and args, strings
 * longer than the staging chunk, and a round trip of many events through the JSON reader.
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

#include "decode/json.h"
#include "decode/trace.h"

static char *buf;
static size_t len;
static FILE *f;
static struct mtj_writer w;

static void open_json(void)
{
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(mtj_writer_open(&w, MTJ_FORMAT_JSON, f), 0);
}

static void close_json(void)
{
	assert_int_equal(mtj_writer_close(&w), 0);
	fclose(f);
}

static void test_exact_output(void **state)
{
	struct mtj_arg a[] = {
		{ .key = "trigger", .type = MTJ_ARG_STR, .s = "foo" },
		{ .key = "ip", .type = MTJ_ARG_HEX, .u = 0x401136 },
		{ .key = "n", .type = MTJ_ARG_U64, .u = 18446744073709551615ull },
		{ .key = "d", .type = MTJ_ARG_I64, .i = -5 },
		{ .key = "z", .type = MTJ_ARG_HEX, .u = 0 },
		{ .key = "s", .type = MTJ_ARG_STR, .s = NULL },
	};

	(void)state;
	open_json();
	assert_int_equal(mtj_writer_process_name(&w, 7, "demo"), 0);
	assert_int_equal(mtj_writer_thread_name(&w, 7, 8, "main"), 0);
	assert_int_equal(mtj_writer_begin(&w, 7, 8, 1234567891, "main", "/bin/demo"), 0);
	assert_int_equal(mtj_writer_begin(&w, 7, 8, 1234567999, "foo", NULL), 0);
	assert_int_equal(mtj_writer_instant(&w, 7, 8, 1234568000, "hit: foo", a, 6), 0);
	assert_int_equal(mtj_writer_end(&w, 7, 8, 1234568001, "foo"), 0);
	assert_int_equal(mtj_writer_end(&w, 7, 8, 1234569000, "main"), 0);
	close_json();
	assert_string_equal(buf,
		"{\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":7,\"name\":\"process_name\",\"args\":{\"name\":\"demo\"}},\n"
		"{\"ph\":\"M\",\"pid\":7,\"tid\":8,\"name\":\"thread_name\",\"args\":{\"name\":\"main\"}},\n"
		"{\"ph\":\"B\",\"pid\":7,\"tid\":8,\"ts\":1234567.891,\"name\":\"main\",\"args\":{\"object\":\"/bin/demo\"}},\n"
		"{\"ph\":\"B\",\"pid\":7,\"tid\":8,\"ts\":1234567.999,\"name\":\"foo\"},\n"
		"{\"ph\":\"i\",\"pid\":7,\"tid\":8,\"ts\":1234568.000,\"s\":\"t\",\"name\":\"hit: foo\",\"args\":"
		"{\"trigger\":\"foo\",\"ip\":\"0x401136\",\"n\":18446744073709551615,\"d\":-5,\"z\":\"0x0\",\"s\":null}},\n"
		"{\"ph\":\"E\",\"pid\":7,\"tid\":8,\"ts\":1234568.001},\n"
		"{\"ph\":\"E\",\"pid\":7,\"tid\":8,\"ts\":1234569.000}\n"
		"]}\n");
	assert_int_equal(w.events, 5);
	assert_int_equal(w.bytes_hint, len);
	free(buf);
}

static void test_timestamps(void **state)
{
	static const struct { uint64_t ns; const char *txt; } cases[] = {
		{ 0, "\"ts\":0.000" }, { 7, "\"ts\":0.007" }, { 999, "\"ts\":0.999" },
		{ 1000, "\"ts\":1.000" }, { 1010, "\"ts\":1.010" },
		{ 18446744073709551615ull, "\"ts\":18446744073709551.615" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		open_json();
		assert_int_equal(mtj_writer_instant(&w, 1, 1, cases[i].ns, "x", NULL, 0), 0);
		close_json();
		if (!strstr(buf, cases[i].txt))
			fail_msg("%llu ns: %s not in %s", (unsigned long long)cases[i].ns, cases[i].txt, buf);
		free(buf);
	}
}

/* In one writer, so each time is formatted from the previous one's text where it can be:
 * every step size, 10 ms boundaries and digit-count changes give printf's digits. */
static void test_timestamps_sequence(void **state)
{
	uint64_t ns = 0, x = 12345;
	char want[48];
	int64_t got;
	size_t n = 0;

	(void)state;
	open_json();
	for (int i = 0; i < 6000; i++) {
		static const uint64_t steps[] = { 0, 1, 999, 1000, 9999000, 10000000, 123456789 };

		if (i == 3000)
			ns = 99999999999990ull;   /* 99999999.999990 µs: about to gain a digit */
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ns += i % 3 ? steps[(x >> 33) % 7] : (x >> 40);
		assert_int_equal(mtj_writer_instant(&w, 1, 1, ns, "x", NULL, 0), 0);
		n++;
	}
	close_json();
	struct mtj_json v;
	assert_int_equal(mtj_json_parse(buf, len, NULL, &v, NULL), 0);
	const struct mtj_json *ev = mtj_json_get(&v, "traceEvents");
	assert_int_equal(ev->len, n);
	/* replay the same sequence and compare the text of each time */
	ns = 0;
	x = 12345;
	char *p = buf;
	for (int i = 0; i < 6000; i++) {
		static const uint64_t steps[] = { 0, 1, 999, 1000, 9999000, 10000000, 123456789 };

		if (i == 3000)
			ns = 99999999999990ull;
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ns += i % 3 ? steps[(x >> 33) % 7] : (x >> 40);
		snprintf(want, sizeof(want), "\"ts\":%llu.%03llu,", (unsigned long long)(ns / 1000),
			 (unsigned long long)(ns % 1000));
		p = strstr(p, "\"ts\":");
		assert_non_null(p);
		if (strncmp(p, want, strlen(want)))
			fail_msg("event %d: %.30s, want %s", i, p, want);
		p++;
		assert_int_equal(mtj_json_num_scaled(mtj_json_get(&ev->items[i], "ts"), 3, &got), 0);
		assert_int_equal((uint64_t)got, ns);
	}
	mtj_json_free(&v);
	free(buf);
}

static void test_escaping(void **state)
{
	const char *name = "operator\"\"_x<\\>\n\t\x01 caf\xc3\xa9 \xff";
	struct mtj_arg a = { .key = "k\"ey", .type = MTJ_ARG_STR, .s = "v\na\\l" };

	(void)state;
	open_json();
	assert_int_equal(mtj_writer_thread_name(&w, 1, 2, "th\"read"), 0);
	assert_int_equal(mtj_writer_begin(&w, 1, 2, 5, name, "/p a/t\"h"), 0);
	assert_int_equal(mtj_writer_instant(&w, 1, 2, 6, name, &a, 1), 0);
	close_json();
	assert_non_null(strstr(buf, "\"name\":\"operator\\\"\\\"_x<\\\\>\\n\\t\\u0001 caf\xc3\xa9 \\ufffd\""));
	assert_non_null(strstr(buf, "\"args\":{\"k\\\"ey\":\"v\\na\\\\l\"}"));
	assert_non_null(strstr(buf, "\"object\":\"/p a/t\\\"h\""));

	/* and the reader gets the original strings back (invalid UTF-8 as U+FFFD) */
	struct mtj_json v;
	assert_int_equal(mtj_json_parse(buf, len, NULL, &v, NULL), 0);
	const struct mtj_json *ev = mtj_json_get(&v, "traceEvents");
	assert_int_equal(ev->len, 4);
	assert_string_equal(mtj_json_get(&ev->items[1], "name")->s,
			    "operator\"\"_x<\\>\n\t\x01 caf\xc3\xa9 \xef\xbf\xbd");
	assert_string_equal(mtj_json_get(mtj_json_get(&ev->items[0], "args"), "name")->s, "th\"read");
	mtj_json_free(&v);
	free(buf);
}

static void test_long_strings(void **state)
{
	size_t n = 3 * 1024 * 1024;     /* larger than the staging buffer */
	char *big = malloc(n + 1);

	(void)state;
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	big[n - 1] = '"';
	big[n] = '\0';
	open_json();
	assert_int_equal(mtj_writer_begin(&w, 1, 2, 5, big, NULL), 0);
	close_json();
	struct mtj_json v;
	assert_int_equal(mtj_json_parse(buf, len, NULL, &v, NULL), 0);
	const struct mtj_json *ev = mtj_json_get(&v, "traceEvents");
	assert_int_equal(ev->len, 2);
	assert_string_equal(mtj_json_get(&ev->items[0], "name")->s, big);
	mtj_json_free(&v);
	free(buf);
	free(big);
}

static void test_round_trip_many(void **state)
{
	char name[32], object[32];
	int64_t ts;

	(void)state;
	open_json();
	for (int i = 0; i < 20000; i++) {
		/* the same two buffers with new contents each time: a cache keyed by pointer must
		 * not be fooled (objects vary independently of names) */
		snprintf(name, sizeof(name), "fn%d", i % 100);
		snprintf(object, sizeof(object), "lib%d.so", i % 7);
		assert_int_equal(mtj_writer_begin(&w, 1, 10 + i % 3, (uint64_t)i * 2, name,
						  i % 5 ? object : NULL), 0);
		assert_int_equal(mtj_writer_end(&w, 1, 10 + i % 3, (uint64_t)i * 2 + 1, name), 0);
	}
	close_json();
	struct mtj_json v;
	assert_int_equal(mtj_json_parse(buf, len, NULL, &v, NULL), 0);
	const struct mtj_json *ev = mtj_json_get(&v, "traceEvents");
	assert_int_equal(ev->len, 40000);
	for (size_t i = 0; i < ev->len; i++) {
		assert_int_equal(mtj_json_num_scaled(mtj_json_get(&ev->items[i], "ts"), 3, &ts), 0);
		assert_int_equal(ts, (int64_t)i);
		assert_string_equal(mtj_json_get(&ev->items[i], "ph")->s, i % 2 ? "E" : "B");
		assert_int_equal(mtj_json_get(&ev->items[i], "tid")->u, 10 + (i / 2) % 3);
		if (i % 2)
			continue;
		snprintf(name, sizeof(name), "fn%zu", (i / 2) % 100);
		assert_string_equal(mtj_json_get(&ev->items[i], "name")->s, name);
		const struct mtj_json *args = mtj_json_get(&ev->items[i], "args");
		if ((i / 2) % 5 == 0) {
			assert_null(args);
			continue;
		}
		snprintf(object, sizeof(object), "lib%zu.so", (i / 2) % 7);
		assert_string_equal(mtj_json_get(args, "object")->s, object);
	}
	snprintf(name, sizeof(name), "fn%d", 19999 % 100);
	assert_string_equal(mtj_json_get(&ev->items[39998], "name")->s, name);
	mtj_json_free(&v);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_output),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_timestamps_sequence),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_long_strings),
		cmocka_unit_test(test_round_trip_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
