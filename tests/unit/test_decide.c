/* Unit tests for preload/decide.c: count/skip/every/min-gap, counted exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "preload/decide.h"

static struct mtj_trigger_spec spec(uint64_t count, uint64_t skip, uint64_t every, uint64_t gap)
{
	struct mtj_trigger_spec t;
	memset(&t, 0, sizeof(t));
	t.count = count;
	t.skip = skip;
	t.every = every;
	t.min_gap_ns = gap;
	return t;
}

/* Run n hits 1 ms apart; return a string of decisions: Y, S(kip), E(very), C(ount), G(ap). */
static void run(struct mtj_trigger_spec t, int n, uint64_t step_ns, char *out)
{
	struct mtj_counters c;
	memset(&c, 0, sizeof(c));
	static const char code[] = "YSECGNX";
	for (int i = 0; i < n; i++) {
		uint64_t nth;
		out[i] = code[mtj_decide(&c, &t, 1000000000ull + (uint64_t)i * step_ns, &nth)];
		assert_int_equal(nth, (uint64_t)i + 1);
	}
	out[n] = '\0';
}

static void test_default_single_shot(void **state)
{
	(void)state;
	char d[16];
	run(spec(1, 0, 1, 0), 4, 1000000, d);
	assert_string_equal(d, "YCCC");
}

static void test_count_all(void **state)
{
	(void)state;
	char d[16];
	run(spec(MTJ_COUNT_ALL, 0, 1, 0), 5, 1000000, d);
	assert_string_equal(d, "YYYYY");
}

static void test_skip_then_count(void **state)
{
	(void)state;
	char d[16];
	run(spec(2, 3, 1, 0), 7, 1000000, d);
	assert_string_equal(d, "SSSYYCC");
}

static void test_every(void **state)
{
	(void)state;
	char d[16];
	run(spec(MTJ_COUNT_ALL, 0, 3, 0), 9, 1000000, d);
	assert_string_equal(d, "YEEYEEYEE");
	run(spec(MTJ_COUNT_ALL, 2, 3, 0), 9, 1000000, d);
	assert_string_equal(d, "SSYEEYEEY");
}

static void test_min_gap(void **state)
{
	(void)state;
	char d[16];
	/* hits 1 ms apart, gap 2.5 ms: every third hit passes */
	run(spec(MTJ_COUNT_ALL, 0, 1, 2500000), 9, 1000000, d);
	assert_string_equal(d, "YGGYGGYGG");
	struct mtj_counters c;
	memset(&c, 0, sizeof(c));
	struct mtj_trigger_spec t = spec(MTJ_COUNT_ALL, 0, 1, 2500000);
	uint64_t nth;
	for (int i = 0; i < 9; i++)
		mtj_decide(&c, &t, 1000000000ull + (uint64_t)i * 1000000, &nth);
	assert_int_equal(atomic_load(&c.coalesced), 6);
	assert_int_equal(atomic_load(&c.snapshots), 3);
	assert_int_equal(atomic_load(&c.hits), 9);
}

static void test_why(void **state)
{
	(void)state;
	assert_string_equal(mtj_decision_why(MTJ_SNAP_COUNT), "count reached");
	assert_string_equal(mtj_decision_why(MTJ_SNAP_MIN_GAP), "min-gap");
	assert_string_equal(mtj_decision_why(MTJ_SNAP_YES), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_single_shot), cmocka_unit_test(test_count_all),
		cmocka_unit_test(test_skip_then_count),     cmocka_unit_test(test_every),
		cmocka_unit_test(test_min_gap),             cmocka_unit_test(test_why),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
