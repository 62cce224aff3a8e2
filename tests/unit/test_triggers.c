/*
 * tests/unit/test_triggers.c — the MTINJECT_TRIGGER grammar (preload/trigger_spec.c): every
 * location form, every option, C++ names with commas, templates and operators, and the exact
 * message of every error.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "preload/config.h"

static struct mtj_trigger_spec t[MTJ_MAX_TRIGGERS];
static size_t n;
static char err[1024];

static int parse(const char *text)
{
	memset(t, 0xa5, sizeof(t));
	n = 99;
	memset(err, 'X', sizeof(err) - 1);
	err[sizeof(err) - 1] = 0;
	return mtj_triggers_parse(text, t, MTJ_MAX_TRIGGERS, &n, err, sizeof(err));
}

static void ok(const char *text, size_t count)
{
	int rc = parse(text);

	if (rc != 0)
		fail_msg("'%s' rejected: %s", text, err);
	assert_int_equal(n, count);
}

static void bad(const char *text, const char *message)
{
	int rc = parse(text);

	if (rc != -EINVAL)
		fail_msg("'%s': expected -EINVAL, got %d", text, rc);
	assert_string_equal(err, message);
	assert_int_equal(n, 0);
}

static void expect_symbol(size_t i, const char *text, const char *symbol, const char *object)
{
	assert_string_equal(t[i].text, text);
	assert_int_equal(t[i].kind, MTJ_LOC_SYMBOL);
	assert_string_equal(t[i].symbol, symbol);
	assert_string_equal(t[i].object, object);
}

static void expect_options(size_t i, uint64_t count, uint64_t skip, uint64_t every, uint64_t gap)
{
	assert_true(t[i].count == count);
	assert_true(t[i].skip == skip);
	assert_true(t[i].every == every);
	assert_true(t[i].min_gap_ns == gap);
}

/* ---- locations ------------------------------------------------------------------------------ */

static void test_plain_name_has_defaults(void **state)
{
	(void)state;
	ok("foo", 1);
	expect_symbol(0, "foo", "foo", "");
	expect_options(0, 1, 0, 1, 0);
	ok("_Z3fooi", 1);
	expect_symbol(0, "_Z3fooi", "_Z3fooi", "");
	ok("process_item.cold", 1);
	expect_symbol(0, "process_item.cold", "process_item.cold", "");
	ok("f.constprop.0", 1);
	expect_symbol(0, "f.constprop.0", "f.constprop.0", "");
}

static void test_name_at_object(void **state)
{
	(void)state;
	ok("malloc@libc.so.6", 1);
	expect_symbol(0, "malloc@libc.so.6", "malloc", "libc.so.6");
	ok("  foo @ /usr/lib/libfoo.so.1  ", 1);
	expect_symbol(0, "foo @ /usr/lib/libfoo.so.1", "foo", "/usr/lib/libfoo.so.1");
	ok("ns::f(int)@libstdc++.so.6", 1);
	expect_symbol(0, "ns::f(int)@libstdc++.so.6", "ns::f(int)", "libstdc++.so.6");
}

static void test_cxx_names(void **state)
{
	(void)state;
	ok("ns::Class::method(int, char const*),count=3", 1);
	expect_symbol(0, "ns::Class::method(int, char const*),count=3", "ns::Class::method(int, char const*)", "");
	expect_options(0, 3, 0, 1, 0);
	ok("std::map<int, int>::find(int const&) const,every=2", 1);
	expect_symbol(0, "std::map<int, int>::find(int const&) const,every=2",
		      "std::map<int, int>::find(int const&) const", "");
	expect_options(0, 1, 0, 2, 0);
	ok("std::vector<int, std::allocator<int> >::push_back(int const&)", 1);
	assert_string_equal(t[0].symbol, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	ok("::global_fn", 1);
	assert_string_equal(t[0].symbol, "::global_fn");
	ok("A::~A()", 1);
	assert_string_equal(t[0].symbol, "A::~A()");
	ok("f(int (*)(int, int), char[16])", 1);
	assert_string_equal(t[0].symbol, "f(int (*)(int, int), char[16])");
}

static void test_cxx_operators(void **state)
{
	static const char *const names[] = {
		"std::operator<<(std::ostream&, int)", "A::operator<(A const&) const",
		"A::operator>(A const&) const", "A::operator<=>(A const&) const", "A::operator>>=(int)",
		"A::operator->()", "A::operator->*(int)", "A::operator()(int, int)", "A::operator[](unsigned long)",
		"A::operator,(int)", "A::operator+", "operator+(A, A)", "operator new[](unsigned long)",
		"operator delete(void*)", "A::operator bool() const", "A::operator< <int>(int)",
	};
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(text, sizeof(text), "%s,count=2;next", names[i]);
		ok(text, 2);
		assert_string_equal(t[0].symbol, names[i]);
		assert_int_equal(t[0].count, 2);
		assert_string_equal(t[1].symbol, "next");
	}
	/* "operator" inside a longer identifier is an ordinary name. */
	ok("my_operator,count=2", 1);
	assert_string_equal(t[0].symbol, "my_operator");
	ok("operators,count=2", 1);
	assert_string_equal(t[0].symbol, "operators");
}

static void test_address(void **state)
{
	(void)state;
	ok("0x401000", 1);
	assert_int_equal(t[0].kind, MTJ_LOC_ADDR);
	assert_int_equal(t[0].addr, 0x401000);
	assert_string_equal(t[0].symbol, "");
	assert_string_equal(t[0].object, "");
	ok("0XdeadBEEF,skip=3", 1);
	assert_int_equal(t[0].addr, 0xdeadbeef);
	expect_options(0, 1, 3, 1, 0);
	ok("0xffffffffffffffff", 1);
	assert_true(t[0].addr == UINT64_MAX);
}

static void test_object_offset(void **state)
{
	(void)state;
	ok("libfoo.so+0x1a30", 1);
	assert_int_equal(t[0].kind, MTJ_LOC_OFFSET);
	assert_string_equal(t[0].object, "libfoo.so");
	assert_int_equal(t[0].offset, 0x1a30);
	/* The last '+' splits, so object names with '+' work. */
	ok("libstdc++.so.6 + 0x10,count=all", 1);
	assert_string_equal(t[0].object, "libstdc++.so.6");
	assert_int_equal(t[0].offset, 0x10);
	assert_true(t[0].count == MTJ_COUNT_ALL);
	ok("/opt/app/bin/server+0x0", 1);
	assert_string_equal(t[0].object, "/opt/app/bin/server");
	assert_int_equal(t[0].offset, 0);
}

/* ---- options and lists ---------------------------------------------------------------------- */

static void test_options(void **state)
{
	(void)state;
	ok("foo,count=all,skip=2,every=3,min-gap=10ms", 1);
	expect_options(0, MTJ_COUNT_ALL, 2, 3, 10000000);
	ok("foo , count = ALL , min-gap = 0 ", 1);
	expect_options(0, MTJ_COUNT_ALL, 0, 1, 0);
	assert_string_equal(t[0].text, "foo , count = ALL , min-gap = 0");
	ok("foo,count=18446744073709551615,skip=0,every=1,min-gap=2s", 1);
	expect_options(0, UINT64_MAX, 0, 1, 2000000000);
	ok("foo,min-gap=1m", 1);
	assert_true(t[0].min_gap_ns == 60000000000ull);
}

static void test_lists(void **state)
{
	(void)state;
	ok(" a ; b@libb.so,count=2 ;0x1000;libc.so.6+0x20 ", 4);
	expect_symbol(0, "a", "a", "");
	expect_symbol(1, "b@libb.so,count=2", "b", "libb.so");
	assert_int_equal(t[1].count, 2);
	assert_int_equal(t[2].kind, MTJ_LOC_ADDR);
	assert_int_equal(t[3].kind, MTJ_LOC_OFFSET);
	assert_string_equal(t[3].text, "libc.so.6+0x20");
	/* Options belong to their own trigger only. */
	expect_options(0, 1, 0, 1, 0);
	ok("a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p", MTJ_MAX_TRIGGERS);
	assert_string_equal(t[15].symbol, "p");
}

static void test_max_is_the_callers(void **state)
{
	struct mtj_trigger_spec two[2];
	size_t got = 7;

	(void)state;
	assert_int_equal(mtj_triggers_parse("a;b", two, 2, &got, err, sizeof(err)), 0);
	assert_int_equal(got, 2);
	assert_int_equal(mtj_triggers_parse("a;b;c", two, 2, &got, err, sizeof(err)), -EINVAL);
	assert_int_equal(got, 0);
	assert_string_equal(err, "trigger 3 'c': too many triggers (valid: at most 2)");
	assert_int_equal(mtj_triggers_parse("a;;b", two, 2, &got, NULL, 0), -EINVAL);
}

/* ---- every error ---------------------------------------------------------------------------- */

static void test_empty_triggers(void **state)
{
	(void)state;
	bad("", "trigger 1 is empty (valid: triggers separated by ';', e.g. 'foo;bar@libbar.so')");
	bad("a;;b", "trigger 2 is empty (valid: triggers separated by ';', e.g. 'foo;bar@libbar.so')");
	bad("a; ;b", "trigger 2 is empty (valid: triggers separated by ';', e.g. 'foo;bar@libbar.so')");
	bad("a;", "trigger 2 is empty (valid: triggers separated by ';', e.g. 'foo;bar@libbar.so')");
	bad(";a", "trigger 1 is empty (valid: triggers separated by ';', e.g. 'foo;bar@libbar.so')");
}

static void test_too_many(void **state)
{
	(void)state;
	bad("a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q", "trigger 17 'q': too many triggers (valid: at most 16)");
}

static void test_missing_location(void **state)
{
	(void)state;
	bad(",count=2", "trigger 1 ',count=2': missing location before the options (valid: name, name@object, "
		    "0xADDR, object+0xOFF)");
	bad("a; ,skip=1", "trigger 2 ',skip=1': missing location before the options (valid: name, name@object, "
		      "0xADDR, object+0xOFF)");
}

static void test_bad_names(void **state)
{
	(void)state;
	bad("foo bar", "trigger 1 'foo bar': 'foo bar' is not a function name (valid: name, name@object, 0xADDR, "
		       "object+0xOFF)");
	bad("1foo", "trigger 1 '1foo': '1foo' is not a function name (valid: name, name@object, 0xADDR, "
		    "object+0xOFF)");
	bad("4198400", "trigger 1 '4198400': '4198400' is not a function name (valid: name, name@object, 0xADDR, "
		       "object+0xOFF)");
	bad("foo-bar", "trigger 1 'foo-bar': 'foo-bar' is not a function name (valid: name, name@object, 0xADDR, "
		       "object+0xOFF)");
	bad("ns::f(\"x\")", "trigger 1 'ns::f(\"x\")': 'ns::f(\"x\")' is not a function name (valid: name, "
			    "name@object, 0xADDR, object+0xOFF)");
	bad("a;b c", "trigger 2 'b c': 'b c' is not a function name (valid: name, name@object, 0xADDR, "
		     "object+0xOFF)");
}

static void test_unbalanced_brackets(void **state)
{
	static const char *const texts[] = { "foo(int", "foo>", "std::map<int, int::find", "f(int]", "f)(" };
	char want[256];

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		snprintf(want, sizeof(want),
			 "trigger 1 '%s': unbalanced brackets (valid: every '(', '<' and '[' closed in order, as "
			 "in 'ns::f<int>(int, char*)')", texts[i]);
		bad(texts[i], want);
	}
}

static void test_at_errors(void **state)
{
	(void)state;
	bad("foo@", "trigger 1 'foo@': 'foo@' has an empty object after '@' (valid: name@object, e.g. foo@libbar.so)");
	bad("foo@ ,count=2", "trigger 1 'foo@ ,count=2': 'foo@' has an empty object after '@' (valid: name@object, "
			     "e.g. foo@libbar.so)");
	bad("@libc.so.6", "trigger 1 '@libc.so.6': '@libc.so.6' has no function name before '@' (valid: "
			  "name@object, e.g. foo@libbar.so)");
}

static void test_address_errors(void **state)
{
	(void)state;
	bad("0xzz", "trigger 1 '0xzz': '0xzz' is not a hex address (valid: 0x followed by 1 to 16 hex digits, "
		    "e.g. 0x401136)");
	bad("0x", "trigger 1 '0x': '0x' is not a hex address (valid: 0x followed by 1 to 16 hex digits, e.g. "
		  "0x401136)");
	bad("0x10000000000000000", "trigger 1 '0x10000000000000000': '0x10000000000000000' is not a hex address "
				   "(valid: 0x followed by 1 to 16 hex digits, e.g. 0x401136)");
	bad("0x40 1000", "trigger 1 '0x40 1000': '0x40 1000' is not a hex address (valid: 0x followed by 1 to 16 "
			 "hex digits, e.g. 0x401136)");
	bad("0x0", "trigger 1 '0x0': '0x0' is address zero (valid: the address of an instruction, e.g. 0x401136)");
}

static void test_offset_errors(void **state)
{
	(void)state;
	bad("libfoo.so+12", "trigger 1 'libfoo.so+12': offset '12' is not hex (valid: object+0xOFF, e.g. "
			    "libfoo.so+0x1a30)");
	bad("libfoo.so+", "trigger 1 'libfoo.so+': offset '' is not hex (valid: object+0xOFF, e.g. "
			  "libfoo.so+0x1a30)");
	bad("libfoo.so+0xg", "trigger 1 'libfoo.so+0xg': offset '0xg' is not hex (valid: object+0xOFF, e.g. "
			     "libfoo.so+0x1a30)");
	bad(" + 0x10", "trigger 1 '+ 0x10': '+ 0x10' has no object before '+' (valid: object+0xOFF, e.g. "
		       "libfoo.so+0x1a30)");
}

static void test_option_errors(void **state)
{
	(void)state;
	bad("foo,cuont=2", "trigger 1 'foo,cuont=2': unknown option 'cuont' (did you mean 'count'? valid: count, "
			   "skip, every, min-gap)");
	bad("foo,min_gap=1s", "trigger 1 'foo,min_gap=1s': unknown option 'min_gap' (did you mean 'min-gap'? "
			      "valid: count, skip, every, min-gap)");
	bad("foo,times=2", "trigger 1 'foo,times=2': unknown option 'times' (valid: count, skip, every, min-gap)");
	bad("foo,bogus", "trigger 1 'foo,bogus': unknown option 'bogus' (valid: count, skip, every, min-gap)");
	bad("foo,=2", "trigger 1 'foo,=2': unknown option '' (valid: count, skip, every, min-gap)");
	bad("foo,count", "trigger 1 'foo,count': option 'count' has no value (valid: count=N with N >= 1, or "
			 "count=all)");
	bad("foo,skip", "trigger 1 'foo,skip': option 'skip' has no value (valid: skip=N with N >= 0)");
	bad("foo,every", "trigger 1 'foo,every': option 'every' has no value (valid: every=N with N >= 1)");
	bad("foo,min-gap", "trigger 1 'foo,min-gap': option 'min-gap' has no value (valid: min-gap=DURATION: 0, "
			   "or an integer with a unit ns, us, ms, s or m, e.g. 250ms)");
	bad("foo,count=1,count=2", "trigger 1 'foo,count=1,count=2': option 'count' is given twice (valid: each "
				   "option once)");
	bad("foo,skip=1,every=2,skip=1", "trigger 1 'foo,skip=1,every=2,skip=1': option 'skip' is given twice "
					 "(valid: each option once)");
	bad("foo,,count=1", "trigger 1 'foo,,count=1': empty option (valid: count=N|all, skip=N, every=N, "
			    "min-gap=DURATION)");
	bad("foo,", "trigger 1 'foo,': empty option (valid: count=N|all, skip=N, every=N, min-gap=DURATION)");
}

static void test_option_value_errors(void **state)
{
	(void)state;
	bad("foo,count=x", "trigger 1 'foo,count=x': count: 'x' is not a number (valid: count=N with N >= 1, or "
			   "count=all)");
	bad("foo,count=", "trigger 1 'foo,count=': count: '' is not a number (valid: count=N with N >= 1, or "
			  "count=all)");
	bad("foo,count=-1", "trigger 1 'foo,count=-1': count: '-1' is not a number (valid: count=N with N >= 1, or "
			    "count=all)");
	bad("foo,count=0", "trigger 1 'foo,count=0': count: '0' is out of range (valid: count=N with N >= 1, or "
			   "count=all)");
	bad("foo,count=18446744073709551616", "trigger 1 'foo,count=18446744073709551616': count: "
					      "'18446744073709551616' is too large (valid: count=N with N >= 1, or "
					      "count=all)");
	bad("foo,skip=all", "trigger 1 'foo,skip=all': skip: 'all' is not a number (valid: skip=N with N >= 0)");
	bad("foo,skip=99999999999999999999", "trigger 1 'foo,skip=99999999999999999999': skip: "
					     "'99999999999999999999' is too large (valid: skip=N with N >= 0)");
	bad("foo,every=0", "trigger 1 'foo,every=0': every: '0' is out of range (valid: every=N with N >= 1)");
	bad("foo,every=2x", "trigger 1 'foo,every=2x': every: '2x' is not a number (valid: every=N with N >= 1)");
	bad("foo,min-gap=5", "trigger 1 'foo,min-gap=5': min-gap: '5' has no unit (valid: min-gap=DURATION: 0, or "
			     "an integer with a unit ns, us, ms, s or m, e.g. 250ms)");
	bad("foo,min-gap=5x", "trigger 1 'foo,min-gap=5x': min-gap: '5x' is not a duration (valid: "
			      "min-gap=DURATION: 0, or an integer with a unit ns, us, ms, s or m, e.g. 250ms)");
	bad("foo,min-gap=99999999999999999999m", "trigger 1 'foo,min-gap=99999999999999999999m': min-gap: "
						 "'99999999999999999999m' is too large (valid: min-gap=DURATION: 0, "
						 "or an integer with a unit ns, us, ms, s or m, e.g. 250ms)");
}

static void test_length_limits(void **state)
{
	char text[1024], want[1200];

	(void)state;
	/* A whole trigger longer than text[] is named by its first 40 characters. */
	memset(text, 'a', 600);
	text[600] = 0;
	snprintf(want, sizeof(want), "trigger 1 '%.40s': the trigger is 600 characters long (valid: at most 511)", text);
	bad(text, want);
	memset(text, 'a', 400);
	text[400] = 0;
	snprintf(want, sizeof(want), "trigger 1 '%s': the function name is 400 characters long (valid: at most 383)",
		 text);
	bad(text, want);
	snprintf(text, sizeof(text), "f@%0300d", 0);
	snprintf(want, sizeof(want), "trigger 1 '%s': the object name is 300 characters long (valid: at most 255)",
		 text);
	bad(text, want);
	snprintf(text, sizeof(text), "%0300d+0x10", 0);
	snprintf(want, sizeof(want), "trigger 1 '%s': the object name is 300 characters long (valid: at most 255)",
		 text);
	bad(text, want);
	/* Exactly at the limits is fine. */
	memset(text, 'b', 383);
	text[383] = 0;
	ok(text, 1);
	assert_int_equal(strlen(t[0].symbol), 383);
}

static void test_first_error_wins(void **state)
{
	(void)state;
	bad("good;bad,count=0;;", "trigger 2 'bad,count=0': count: '0' is out of range (valid: count=N with N >= 1, "
				  "or count=all)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_name_has_defaults),
		cmocka_unit_test(test_name_at_object),
		cmocka_unit_test(test_cxx_names),
		cmocka_unit_test(test_cxx_operators),
		cmocka_unit_test(test_address),
		cmocka_unit_test(test_object_offset),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_max_is_the_callers),
		cmocka_unit_test(test_empty_triggers),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_missing_location),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_unbalanced_brackets),
		cmocka_unit_test(test_at_errors),
		cmocka_unit_test(test_address_errors),
		cmocka_unit_test(test_offset_errors),
		cmocka_unit_test(test_option_errors),
		cmocka_unit_test(test_option_value_errors),
		cmocka_unit_test(test_length_limits),
		cmocka_unit_test(test_first_error_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
