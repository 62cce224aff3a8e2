/*
 * tests/unit/test_json.c — the JSON escaper (control characters, quotes, UTF-8 validation)
 * and the reader (values, escapes, numbers, errors with offsets, exact decimal scaling).
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

static void check_escape(const char *in, size_t len, const char *want)
{
	char buf[256];
	char *end = mtj_json_escape_into(buf, in, len);

	*end = '\0';
	assert_string_equal(buf, want);
	assert_true((size_t)(end - buf) <= MTJ_JSON_ESCAPED_MAX(len));
}

static void test_escape_ascii_and_controls(void **state)
{
	(void)state;
	check_escape("plain text_123", 14, "plain text_123");
	check_escape("a\"b\\c", 5, "a\\\"b\\\\c");
	check_escape("\n\t\r\b\f", 5, "\\n\\t\\r\\b\\f");
	check_escape("\x01\x1f", 2, "\\u0001\\u001f");
	check_escape("a\0b", 3, "a\\u0000b");
	check_escape("\x7f", 1, "\x7f");
}

static void test_escape_utf8(void **state)
{
	(void)state;
	/* valid 2-, 3- and 4-byte sequences pass through unchanged */
	check_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* invalid: lone continuation, truncated sequence, overlong, surrogate, > U+10FFFF */
	check_escape("\x80", 1, "\\ufffd");
	check_escape("\xc3", 1, "\\ufffd");
	check_escape("\xe2\x82", 2, "\\ufffd\\ufffd");
	check_escape("\xc0\xaf", 2, "\\ufffd\\ufffd");
	check_escape("\xed\xa0\x80", 3, "\\ufffd\\ufffd\\ufffd");
	check_escape("\xf4\x90\x80\x80", 4, "\\ufffd\\ufffd\\ufffd\\ufffd");
	check_escape("ok\xffok", 5, "ok\\ufffdok");
}

static void test_fput_str_long(void **state)
{
	char *big = malloc(5000), *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);

	(void)state;
	memset(big, 'x', 4999);
	big[4999] = '\0';
	big[1000] = '"';
	/* a 3-byte sequence straddling the 170-byte chunk boundary stays intact */
	memcpy(big + 169, "\xe2\x82\xac", 3);
	assert_int_equal(mtj_json_fput_str(f, big), 0);
	fclose(f);
	assert_int_equal(outlen, 4999 + 2 + 1 - 0);
	assert_int_equal(out[0], '"');
	assert_memory_equal(out + 170, "\xe2\x82\xac", 3);
	assert_memory_equal(out + 1001, "\\\"", 2);
	assert_int_equal(out[outlen - 1], '"');

	struct mtj_json v;
	assert_int_equal(mtj_json_parse(out, outlen, NULL, &v, NULL), 0);
	assert_int_equal(v.type, MTJ_JSON_STR);
	assert_string_equal(v.s, big);
	mtj_json_free(&v);
	free(out);
	free(big);
}

static void test_parse_object(void **state)
{
	const char *t = " {\"a\": [1, -2, 3.5, true, false, null, \"x\"], \"b\": {\"c\": \"d\"}, \"e\": {}} tail";
	struct mtj_json v;
	size_t used;

	(void)state;
	assert_int_equal(mtj_json_parse(t, strlen(t), &used, &v, NULL), 0);
	assert_int_equal(used, strlen(t) - 5);
	assert_int_equal(v.type, MTJ_JSON_OBJ);
	assert_int_equal(v.len, 3);
	const struct mtj_json *a = mtj_json_get(&v, "a");
	assert_non_null(a);
	assert_int_equal(a->type, MTJ_JSON_ARR);
	assert_int_equal(a->len, 7);
	assert_true(a->items[0].is_int);
	assert_int_equal(a->items[0].u, 1);
	assert_true(a->items[1].is_int && a->items[1].neg);
	assert_int_equal(a->items[1].u, 2);
	assert_false(a->items[2].is_int);
	assert_true(a->items[2].d == 3.5);
	assert_true(a->items[3].type == MTJ_JSON_BOOL && a->items[3].b);
	assert_true(a->items[4].type == MTJ_JSON_BOOL && !a->items[4].b);
	assert_int_equal(a->items[5].type, MTJ_JSON_NULL);
	assert_string_equal(a->items[6].s, "x");
	assert_string_equal(mtj_json_get(mtj_json_get(&v, "b"), "c")->s, "d");
	assert_int_equal(mtj_json_get(&v, "e")->len, 0);
	assert_null(mtj_json_get(&v, "zz"));
	assert_null(mtj_json_get(a, "a"));
	mtj_json_free(&v);
}

static void test_parse_string_escapes(void **state)
{
	const char *t = "\"q\\\" b\\\\ s\\/ \\n\\t \\u00e9 \\u20ac \\ud83d\\ude00 \\ud800x\"";
	struct mtj_json v;

	(void)state;
	assert_int_equal(mtj_json_parse(t, strlen(t), NULL, &v, NULL), 0);
	assert_string_equal(v.s, "q\" b\\ s/ \n\t \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbdx");
	mtj_json_free(&v);
}

static void test_parse_numbers(void **state)
{
	struct mtj_json v;
	int64_t ns;

	(void)state;
	assert_int_equal(mtj_json_parse("18446744073709551615", 20, NULL, &v, NULL), 0);
	assert_true(v.is_int);
	assert_true(v.u == UINT64_MAX);
	mtj_json_free(&v);
	assert_int_equal(mtj_json_parse("18446744073709551616", 20, NULL, &v, NULL), 0);
	assert_false(v.is_int);
	mtj_json_free(&v);
	assert_int_equal(mtj_json_parse("123456789.123", 13, NULL, &v, NULL), 0);
	assert_int_equal(mtj_json_num_scaled(&v, 3, &ns), 0);
	assert_true(ns == 123456789123LL);
	mtj_json_free(&v);
	assert_int_equal(mtj_json_parse("-1.5", 4, NULL, &v, NULL), 0);
	assert_int_equal(mtj_json_num_scaled(&v, 3, &ns), 0);
	assert_true(ns == -1500);
	mtj_json_free(&v);
	assert_int_equal(mtj_json_parse("1.2345", 6, NULL, &v, NULL), 0);
	assert_int_equal(mtj_json_num_scaled(&v, 3, &ns), -EINVAL);
	mtj_json_free(&v);
	assert_int_equal(mtj_json_parse("7", 1, NULL, &v, NULL), 0);
	assert_int_equal(mtj_json_num_scaled(&v, 3, &ns), 0);
	assert_true(ns == 7000);
	mtj_json_free(&v);
	assert_int_equal(mtj_json_parse("1e3", 3, NULL, &v, NULL), 0);
	assert_true(v.d == 1000.0);
	assert_false(v.is_int);
	mtj_json_free(&v);
}

static void check_error(const char *t, size_t offset, const char *msg_part)
{
	struct mtj_json v;
	struct mtj_json_err err = { 0 };

	assert_int_equal(mtj_json_parse(t, strlen(t), NULL, &v, &err), -EINVAL);
	assert_int_equal(v.type, MTJ_JSON_NULL);
	if (!strstr(err.msg, msg_part))
		fail_msg("error for %s: \"%s\" does not contain \"%s\"", t, err.msg, msg_part);
	assert_int_equal(err.offset, offset);
}

static void test_parse_errors(void **state)
{
	(void)state;
	check_error("{\"a\": 1", 7, "truncated object");
	check_error("{\"a\": [1, 2}", 11, "',' or ']' expected");
	check_error("{\"a\" 1}", 5, "':' expected");
	check_error("{a: 1}", 1, "object key expected");
	check_error("[tru]", 1, "unexpected character");
	check_error("\"abc", 4, "unterminated string");
	check_error("\"a\x01\"", 2, "control character");
	check_error("\"\\q\"", 1, "bad escape");
	check_error("-", 1, "bad number");
	check_error("1.", 2, "digit expected");
	check_error("", 0, "value expected");
	char deep[200];
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	check_error(deep, 65, "nested too deeply");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_ascii_and_controls),
		cmocka_unit_test(test_escape_utf8),
		cmocka_unit_test(test_fput_str_long),
		cmocka_unit_test(test_parse_object),
		cmocka_unit_test(test_parse_string_escapes),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_parse_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
