/*
 * tests/unit/test_sampling.c — samples -> spans: shared outer frames stay open, changes
 * happen at midpoints, gaps close spans one period after the last sample, recursion is kept,
 * instants land in time order, thread/process names follow comm.
 *
 * Runs the real JSON writer into memory and reduces each event line to "PH tid ts name".
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

#include "decode/sampling.h"

struct fx {
	char *mem;
	size_t len;
	FILE *f;
	struct mtj_writer w;
	struct mtj_sampling *s;
	char out[1 << 17];
};

static void start(struct fx *x, bool interned)
{
	struct mtj_sampling_opts o = { .interned = interned };

	memset(x, 0, sizeof(*x));
	x->f = open_memstream(&x->mem, &x->len);
	assert_non_null(x->f);
	assert_int_equal(mtj_writer_open(&x->w, MTJ_FORMAT_JSON, x->f), 0);
	assert_int_equal(mtj_sampling_new(&x->w, &o, &x->s), 0);
}

/* Copy the value of "key": in line (string or number) into dst. */
static void field(const char *line, const char *key, char *dst, size_t len)
{
	const char *p = strstr(line, key);
	size_t n;

	dst[0] = 0;
	if (!p)
		return;
	p += strlen(key);
	if (*p == '"')
		p++;
	n = strcspn(p, "\",}");
	snprintf(dst, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* Finish and reduce the JSON to one "PH tid ts name" line per event. */
static const char *finish(struct fx *x)
{
	char *line, *save = NULL;
	size_t used = 0;

	assert_int_equal(mtj_sampling_finish(x->s), 0);
	assert_int_equal(mtj_writer_close(&x->w), 0);
	fclose(x->f);
	for (line = strtok_r(x->mem, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char ph[8], tid[16], ts[32], name[128];

		field(line, "\"ph\":", ph, sizeof(ph));
		if (!ph[0])
			continue;
		field(line, "\"tid\":", tid, sizeof(tid));
		field(line, "\"ts\":", ts, sizeof(ts));
		if (ph[0] == 'M')
			field(line, "\"args\":{\"name\":", name, sizeof(name));
		else
			field(line, "\"name\":", name, sizeof(name));
		used += (size_t)snprintf(x->out + used, sizeof(x->out) - used, "%s %s %s %s\n", ph,
					 tid[0] ? tid : "-", ts[0] ? ts : "-", name[0] ? name : "-");
		assert_true(used < sizeof(x->out));
	}
	mtj_sampling_free(x->s);
	free(x->mem);
	return x->out;
}

/* A sample on pid 1: "a>b>c" outermost first.  Names point into a local buffer, so only
 * for non-interned samplers. */
static void sample(struct fx *x, uint32_t tid, uint64_t t, const char *stack, uint64_t period)
{
	char buf[256], *names[64], *save = NULL;
	struct mtj_frame fr[64];
	uint32_t n = 0;
	struct mtj_sample s = { .pid = 1, .tid = tid, .time_ns = t, .comm = tid == 1 ? "prog" : "worker" };

	snprintf(buf, sizeof(buf), "%s", stack);
	for (char *p = strtok_r(buf, ">", &save); p; p = strtok_r(NULL, ">", &save))
		names[n++] = p;
	for (uint32_t i = 0; i < n; i++)
		fr[i] = (struct mtj_frame){ .ip = 0x1000 + i, .sym = names[n - 1 - i], .dso = "/bin/prog" };
	s.nframes = n;
	s.frames = fr;
	assert_int_equal(mtj_sampling_add(x->s, &s, period), 0);
}

static void test_midpoints(void **state)
{
	struct fx x;
	(void)state;

	start(&x, false);
	sample(&x, 1, 1000000, "main>a>b", 1000000);
	sample(&x, 1, 2000000, "main>a>c", 1000000);
	sample(&x, 1, 3000000, "main>d", 1000000);
	assert_string_equal(finish(&x),
			    "M 1 - prog\n"
			    "M - - prog\n"
			    "B 1 1000.000 main\n"
			    "B 1 1000.000 a\n"
			    "B 1 1000.000 b\n"
			    "E 1 1500.000 -\n"
			    "B 1 1500.000 c\n"
			    "E 1 2500.000 -\n"
			    "E 1 2500.000 -\n"
			    "B 1 2500.000 d\n"
			    "E 1 4000.000 -\n"
			    "E 1 4000.000 -\n");
}

static void test_gap_closes_spans(void **state)
{
	struct fx x;
	(void)state;

	start(&x, false);
	sample(&x, 2, 1000, "main>a", 100);
	sample(&x, 2, 1100, "main>a", 100);
	/* 900 ns > 3 periods: the thread was off-CPU; nothing may span the gap. */
	sample(&x, 2, 2000, "main>a", 100);
	assert_string_equal(finish(&x),
			    "M 2 - worker\n"
			    "B 2 1.000 main\n"
			    "B 2 1.000 a\n"
			    "E 2 1.200 -\n"
			    "E 2 1.200 -\n"
			    "B 2 2.000 main\n"
			    "B 2 2.000 a\n"
			    "E 2 2.100 -\n"
			    "E 2 2.100 -\n"
			    "M - - worker\n");
}

static void test_recursion_by_position(void **state)
{
	struct fx x;
	(void)state;

	start(&x, false);
	sample(&x, 2, 1000, "f>f>f", 1000);
	sample(&x, 2, 2000, "f>f", 1000);
	sample(&x, 2, 3000, "f>g>f", 1000);
	assert_string_equal(finish(&x),
			    "M 2 - worker\n"
			    "B 2 1.000 f\n"
			    "B 2 1.000 f\n"
			    "B 2 1.000 f\n"
			    "E 2 1.500 -\n"
			    "E 2 2.500 -\n"
			    "B 2 2.500 g\n"
			    "B 2 2.500 f\n"
			    "E 2 4.000 -\n"
			    "E 2 4.000 -\n"
			    "E 2 4.000 -\n"
			    "M - - worker\n");
}

static int emit_hit(void *ctx, struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts)
{
	return mtj_writer_instant(w, pid, tid, ts, ctx, NULL, 0);
}

static void test_instants_in_order(void **state)
{
	struct fx x;
	(void)state;

	start(&x, false);
	assert_int_equal(mtj_sampling_instant(x.s, 0, 2, 1250, emit_hit, "hit1", false), 0);
	assert_int_equal(mtj_sampling_instant(x.s, 0, 2, 500, emit_hit, "early", false), 0);
	assert_int_equal(mtj_sampling_instant(x.s, 0, 2, 100, emit_hit, "uncovered", true), 0);
	assert_int_equal(mtj_sampling_instant(x.s, 0, 2, 2900, emit_hit, "covered", true), 0);
	assert_int_equal(mtj_sampling_instant(x.s, 0, 2, 9000, emit_hit, "late", true), 0);
	assert_int_equal(mtj_sampling_instant(x.s, 7, 9, 1600, emit_hit, "other", false), 0);
	sample(&x, 2, 1000, "main>a", 1000);
	sample(&x, 2, 2000, "main>b", 1000);
	assert_string_equal(finish(&x),
			    "M 2 - worker\n"
			    "i 2 0.500 early\n"
			    "B 2 1.000 main\n"
			    "B 2 1.000 a\n"
			    "i 2 1.250 hit1\n"
			    "E 2 1.500 -\n"
			    "B 2 1.500 b\n"
			    "i 9 1.600 other\n"       /* threads are finished in table order */
			    "i 2 2.900 covered\n"
			    "E 2 3.000 -\n"
			    "E 2 3.000 -\n"
			    "M - - worker\n");
}

static void test_names_and_rename(void **state)
{
	struct fx x;
	struct mtj_frame fr = { .sym = "main", .dso = "/bin/prog" };
	struct mtj_sample s = { .pid = 5, .tid = 5, .time_ns = 1000, .comm = "prog", .nframes = 1, .frames = &fr };
	(void)state;

	start(&x, true);   /* literals: stable, equal pointers */
	assert_int_equal(mtj_sampling_add(x.s, &s, 1000), 0);
	s.time_ns = 2000;
	s.comm = "renamed";
	assert_int_equal(mtj_sampling_add(x.s, &s, 1000), 0);
	s.tid = 6;
	s.comm = "helper";
	assert_int_equal(mtj_sampling_add(x.s, &s, 1000), 0);
	assert_string_equal(finish(&x),
			    "M 5 - prog\n"
			    "M - - prog\n"
			    "B 5 1.000 main\n"
			    "M 5 - renamed\n"
			    "M 6 - helper\n"
			    "B 6 2.000 main\n"
			    "E 6 3.000 -\n"
			    "E 5 3.000 -\n");
}

/* Borrowed strings: the front end reuses its buffers, the spans must keep their names. */
static void test_borrowed_strings(void **state)
{
	struct fx x;
	char sym[32], dso[32];
	struct mtj_frame fr = { .sym = sym, .dso = dso };
	struct mtj_sample s = { .pid = 1, .tid = 3, .nframes = 1, .frames = &fr };
	(void)state;

	start(&x, false);
	strcpy(sym, "first");
	strcpy(dso, "/lib/x.so");
	s.time_ns = 1000;
	assert_int_equal(mtj_sampling_add(x.s, &s, 1000), 0);
	strcpy(sym, "second");
	s.time_ns = 2000;
	assert_int_equal(mtj_sampling_add(x.s, &s, 1000), 0);
	strcpy(sym, "junk");
	assert_string_equal(finish(&x),
			    "B 3 1.000 first\n"
			    "E 3 1.500 -\n"
			    "B 3 1.500 second\n"
			    "E 3 3.000 -\n");
}

/* Unknown period: learnt from the data (median delta), so a gap is still found. */
static void test_estimated_period(void **state)
{
	struct fx x;
	struct mtj_sampling_stats st;
	(void)state;

	start(&x, false);
	for (int i = 0; i < 10; i++)
		sample(&x, 2, 1000 + 100 * (uint64_t)i, "main", 0);
	sample(&x, 2, 5000, "main", 0);
	sample(&x, 2, 4000, "main>late", 0);   /* goes back in time: clamped to 5000 */
	mtj_sampling_get_stats(x.s, &st);
	assert_int_equal(st.period_ns, 100);
	assert_int_equal(st.samples, 12);
	assert_string_equal(finish(&x),
			    "M 2 - worker\n"
			    "B 2 1.000 main\n"
			    "E 2 2.000 -\n"
			    "B 2 5.000 main\n"
			    "B 2 5.000 late\n"
			    "E 2 5.100 -\n"
			    "E 2 5.100 -\n"
			    "M - - worker\n");
}

/*
 * The stream's "kept" count (outer frames identical to the thread's previous sample) is a
 * shortcut only: random chains on two threads, with gaps, recursion and frames of one
 * function at several addresses, give the same trace with it as without it.
 */
static void run_random(struct fx *x, bool with_kept)
{
	static const char *const syms[] = { "main", "a", "b", "c", "recurse" };
	struct mtj_frame prev[2][16], fr[16];
	uint32_t prevn[2] = { 0, 0 }, x32 = 7;
	uint64_t t = 1000000;

	start(x, true);
	for (int i = 0; i < 400; i++) {
		uint32_t tid = 1 + (x32 >> 7) % 2, n = 1 + (x32 >> 11) % 12, kept = 0;
		struct mtj_sample smp = { .pid = 1, .tid = tid, .comm = "prog" };
		struct mtj_frame *pv = prev[tid - 1];

		x32 = x32 * 1103515245u + 12345u;
		/* outermost first into fr[n - 1 - k]: often the previous chain's outer part */
		for (uint32_t k = 0; k < n; k++) {
			uint32_t r = (x32 >> (k % 16)) & 7;

			if (k < prevn[tid - 1] && r < 6)
				fr[n - 1 - k] = pv[prevn[tid - 1] - 1 - k];
			else
				fr[n - 1 - k] = (struct mtj_frame){ .ip = 0x1000 + 16 * (r % 3) + k % 5,
					.sym = syms[(k + r) % 5], .dso = "/bin/prog" };
		}
		while (kept < n && kept < prevn[tid - 1] &&
		       fr[n - 1 - kept].ip == pv[prevn[tid - 1] - 1 - kept].ip &&
		       fr[n - 1 - kept].sym == pv[prevn[tid - 1] - 1 - kept].sym)
			kept++;
		t += (x32 >> 20) % 5 == 0 ? 9000000 : 1000000;   /* now and then a gap */
		smp.time_ns = t;
		smp.nframes = n;
		smp.frames = fr;
		smp.kept = with_kept ? kept : 0;
		assert_int_equal(mtj_sampling_add(x->s, &smp, 1000000), 0);
		memcpy(pv, fr, n * sizeof(*fr));
		prevn[tid - 1] = n;
	}
}

static void test_kept_is_a_shortcut(void **state)
{
	static struct fx a, b;
	(void)state;

	run_random(&a, false);
	run_random(&b, true);
	assert_string_equal(finish(&a), finish(&b));
	assert_true(strlen(a.out) > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_midpoints),
		cmocka_unit_test(test_gap_closes_spans),
		cmocka_unit_test(test_recursion_by_position),
		cmocka_unit_test(test_instants_in_order),
		cmocka_unit_test(test_names_and_rename),
		cmocka_unit_test(test_borrowed_strings),
		cmocka_unit_test(test_estimated_period),
		cmocka_unit_test(test_kept_is_a_shortcut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
