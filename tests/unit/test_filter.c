/* Unit tests for decode/filter.c: spec parsing, name matching, regions from begins, open
 * frames cut at region edges, regions from observed branches. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "decode/filter.h"

static void test_parse_spec(void **state)
{
	(void)state;
	char *a, *b, err[160];
	assert_int_equal(mtj_filter_parse_spec("handle,done", &a, &b, err, sizeof(err)), 0);
	assert_string_equal(a, "handle");
	assert_string_equal(b, "done");
	free(a);
	free(b);
	assert_int_equal(mtj_filter_parse_spec("handle", &a, &b, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--filter wants START,STOP (two function names), got 'handle'");
	assert_int_equal(mtj_filter_parse_spec(",x", &a, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(mtj_filter_parse_spec("x,", &a, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(mtj_filter_parse_spec("a,b,c", &a, &b, err, sizeof(err)), -EINVAL);
}

static void test_name_matches(void **state)
{
	(void)state;
	assert_true(mtj_filter_name_matches("f", "f"));
	assert_true(mtj_filter_name_matches("ns::f", "ns::f(int, char const*)"));
	assert_true(mtj_filter_name_matches("malloc", "malloc@@GLIBC_2.2.5"));
	assert_false(mtj_filter_name_matches("f", "foo"));
	assert_false(mtj_filter_name_matches("foo", "f"));
	assert_false(mtj_filter_name_matches("f", NULL));
}

/* JSON is one event per line: count lines with a given phase between two markers. */
static char *run_json(void (*produce)(struct mtj_writer *w, struct mtj_filter *f),
		      struct mtj_filter_stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct mtj_writer w;
	struct mtj_filter *f;
	assert_int_equal(mtj_writer_open(&w, MTJ_FORMAT_JSON, out), 0);
	assert_int_equal(mtj_filter_new("start", "stop", &f), 0);
	assert_int_equal(mtj_filter_attach(f, &w), 0);
	produce(&w, f);
	assert_int_equal(mtj_writer_close(&w), 0);
	mtj_filter_get_stats(f, st);
	mtj_filter_free(f);
	fclose(out);
	return buf;
}

static int count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void produce_sampling_like(struct mtj_writer *w, struct mtj_filter *f)
{
	(void)f;
	/* thread 1: main [0..100], start [20..40], x [50..60], stop [70..80] */
	assert_int_equal(mtj_writer_begin(w, 1, 1, 0, "main", NULL), 0);
	assert_int_equal(mtj_writer_begin(w, 1, 1, 10, "before", NULL), 0);
	assert_int_equal(mtj_writer_end(w, 1, 1, 15, "before"), 0);
	assert_int_equal(mtj_writer_begin(w, 1, 1, 20, "start", NULL), 0);
	assert_int_equal(mtj_writer_end(w, 1, 1, 40, "start"), 0);
	assert_int_equal(mtj_writer_begin(w, 1, 1, 50, "x", NULL), 0);
	assert_int_equal(mtj_writer_instant(w, 1, 1, 55, "hit", NULL, 0), 0);
	assert_int_equal(mtj_writer_end(w, 1, 1, 60, "x"), 0);
	assert_int_equal(mtj_writer_begin(w, 1, 1, 70, "stop", NULL), 0);
	assert_int_equal(mtj_writer_end(w, 1, 1, 80, "stop"), 0);
	assert_int_equal(mtj_writer_begin(w, 1, 1, 90, "after", NULL), 0);
	assert_int_equal(mtj_writer_end(w, 1, 1, 95, "after"), 0);
	assert_int_equal(mtj_writer_end(w, 1, 1, 100, "main"), 0);
	/* thread 2 runs through the region without events inside it */
	assert_int_equal(mtj_writer_begin(w, 1, 2, 5, "loop", NULL), 0);
	assert_int_equal(mtj_writer_end(w, 1, 2, 99, "loop"), 0);
}

static void test_regions_from_begins(void **state)
{
	(void)state;
	struct mtj_filter_stats st;
	char *json = run_json(produce_sampling_like, &st);
	assert_int_equal(st.regions, 1);
	/* kept: main (cut to 20..70), start, x, hit; thread 2's loop cut to 20..70 */
	assert_int_equal(count(json, "\"before\""), 0);
	assert_int_equal(count(json, "\"after\""), 0);
	assert_int_equal(count(json, "\"stop\""), 0);
	assert_int_equal(count(json, "\"main\""), 1);
	assert_int_equal(count(json, "\"start\""), 1);
	assert_int_equal(count(json, "\"x\""), 1);
	assert_int_equal(count(json, "\"hit\""), 1);
	assert_int_equal(count(json, "\"loop\""), 1);
	assert_int_equal(count(json, "\"ph\":\"B\""), 4);
	assert_int_equal(count(json, "\"ph\":\"E\""), 4);
	assert_int_equal(count(json, "\"ts\":0.020"), 3);   /* main, start, loop begin at 20 ns */
	assert_int_equal(count(json, "\"ts\":0.070"), 2);   /* main and loop end at 70 ns */
	assert_int_equal(st.forwarded, 9);
	free(json);
}

static void produce_unfinished(struct mtj_writer *w, struct mtj_filter *f)
{
	struct mtj_branch b;
	memset(&b, 0, sizeof(b));
	b.flags = MTJ_BR_CALL;
	b.time_ns = 30;
	b.to.sym = "start";
	mtj_filter_observe_branch(f, &b);
	assert_int_equal(mtj_writer_begin(w, 1, 1, 10, "early", NULL), 0);
	assert_int_equal(mtj_writer_end(w, 1, 1, 20, "early"), 0);
	assert_int_equal(mtj_writer_begin(w, 1, 1, 30, "start", NULL), 0);
	assert_int_equal(mtj_writer_begin(w, 1, 1, 40, "late", NULL), 0);
	/* left open: mtj_writer_close ends them, through the filter */
}

static void test_regions_from_branches_unfinished(void **state)
{
	(void)state;
	struct mtj_filter_stats st;
	char *json = run_json(produce_unfinished, &st);
	assert_int_equal(st.regions, 1);
	assert_int_equal(count(json, "\"early\""), 0);
	assert_int_equal(count(json, "\"start\""), 1);
	assert_int_equal(count(json, "\"late\""), 1);
	assert_int_equal(count(json, "\"ph\":\"E\""), 2);
	free(json);
}

static void produce_nothing_matches(struct mtj_writer *w, struct mtj_filter *f)
{
	(void)f;
	assert_int_equal(mtj_writer_begin(w, 1, 1, 10, "main", NULL), 0);
	assert_int_equal(mtj_writer_end(w, 1, 1, 20, "main"), 0);
}

static void test_no_region(void **state)
{
	(void)state;
	struct mtj_filter_stats st;
	char *json = run_json(produce_nothing_matches, &st);
	assert_int_equal(st.regions, 0);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(count(json, "\"main\""), 0);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_spec),
		cmocka_unit_test(test_name_matches),
		cmocka_unit_test(test_regions_from_begins),
		cmocka_unit_test(test_regions_from_branches_unfinished),
		cmocka_unit_test(test_no_region),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
