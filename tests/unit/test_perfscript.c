/* Unit tests for decode/perfscript.c: shapes of perf script text -> events. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "decode/perfscript.h"

/* Records every event as one text line, so tests compare strings. */
struct rec {
	char buf[8192];
	size_t len;
	int warns;
	char last_warn[400];
};

static void put(struct rec *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	r->len += (size_t)vsnprintf(r->buf + r->len, sizeof(r->buf) - r->len, fmt, ap);
	va_end(ap);
}

static const char *s_or(const char *s) { return s ? s : "-"; }

static void put_frame(struct rec *r, const struct mtj_frame *f)
{
	put(r, "%llx:%s+%llx:%s", (unsigned long long)f->ip, s_or(f->sym),
	    (unsigned long long)f->symoff, s_or(f->dso));
}

static int on_branch(void *ctx, const struct mtj_branch *b)
{
	struct rec *r = ctx;
	put(r, "B %u/%u %llu [%s] f=%x ", b->pid, b->tid, (unsigned long long)b->time_ns,
	    s_or(b->comm), b->flags);
	put_frame(r, &b->from);
	put(r, " => ");
	put_frame(r, &b->to);
	put(r, "\n");
	return 0;
}

static int on_sample(void *ctx, const struct mtj_sample *s)
{
	struct rec *r = ctx;
	put(r, "S %u/%u %llu [%s] %s", s->pid, s->tid, (unsigned long long)s->time_ns,
	    s_or(s->comm), s_or(s->event));
	for (uint32_t i = 0; i < s->nframes; i++) {
		put(r, " ");
		put_frame(r, &s->frames[i]);
	}
	put(r, "\n");
	return 0;
}

static void on_warn(void *ctx, const char *file, unsigned long line, const char *msg)
{
	struct rec *r = ctx;
	r->warns++;
	snprintf(r->last_warn, sizeof(r->last_warn), "%s:%lu: %s", file, line, msg);
}

static int parse(const char *text, struct rec *r, struct mtj_ps_stats *st, struct mtj_ps_error *err)
{
	memset(r, 0, sizeof(*r));
	struct mtj_ps_callbacks cb = { r, on_sample, on_branch, on_warn };
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	int rc = mtj_perfscript_parse(f, "t.txt", &cb, st, err);
	fclose(f);
	return rc;
}

static void test_time(void **state)
{
	(void)state;
	uint64_t ns;
	assert_int_equal(mtj_ps_parse_time("4.000000100", 11, &ns), 0);
	assert_int_equal(ns, 4000000100ull);
	assert_int_equal(mtj_ps_parse_time("4777.520228", 11, &ns), 0);   /* perf's default µs */
	assert_int_equal(ns, 4777520228000ull);
	assert_int_equal(mtj_ps_parse_time("1.5", 3, &ns), 0);
	assert_int_equal(ns, 1500000000ull);
	assert_int_equal(mtj_ps_parse_time("2419667.6432263891", 18, &ns), 0);  /* truncated */
	assert_int_equal(ns, 2419667643226389ull);
	assert_int_equal(mtj_ps_parse_time("18446744073.709551615", 21, &ns), 0);
	assert_int_equal(ns, UINT64_MAX);
	assert_int_equal(mtj_ps_parse_time("18446744073.709551616", 21, &ns), -ERANGE);
	assert_int_equal(mtj_ps_parse_time("99999999999999999999.1", 22, &ns), -ERANGE);
	assert_int_equal(mtj_ps_parse_time("4.", 2, &ns), -EINVAL);
	assert_int_equal(mtj_ps_parse_time(".5", 2, &ns), -EINVAL);
	assert_int_equal(mtj_ps_parse_time("4.5x", 4, &ns), -EINVAL);
}

static void test_flags(void **state)
{
	(void)state;
	uint32_t f;
	assert_int_equal(mtj_ps_parse_flags("call", &f), 0);
	assert_int_equal(f, MTJ_BR_CALL);
	assert_int_equal(mtj_ps_parse_flags("  tr end  syscall ", &f), 0);
	assert_int_equal(f, MTJ_BR_TR_END | MTJ_BR_SYSCALL);
	assert_int_equal(mtj_ps_parse_flags("tr strt jmp", &f), 0);
	assert_int_equal(f, MTJ_BR_TR_START | MTJ_BR_JUMP);
	assert_int_equal(mtj_ps_parse_flags("hw int", &f), 0);
	assert_int_equal(f, MTJ_BR_INTERRUPT);
	assert_int_equal(mtj_ps_parse_flags("iret (x)", &f), 0);
	assert_int_equal(f, MTJ_BR_IRET);
	assert_int_equal(mtj_ps_parse_flags("tr end  async", &f), 0);
	assert_int_equal(f, MTJ_BR_TR_END | MTJ_BR_ASYNC);
	assert_int_equal(mtj_ps_parse_flags("jcc", &f), 0);
	assert_int_equal(f, MTJ_BR_JUMP);
	assert_int_equal(mtj_ps_parse_flags("frobnicate", &f), -EINVAL);
	assert_int_equal(mtj_ps_parse_flags("strt", &f), -EINVAL);   /* half of "tr strt" */
}

/* The lines magic-trace's tests carry, and the -F shape it asks for (with dso). */
static void test_pt_lines(void **state)
{
	(void)state;
	struct rec r;
	struct mtj_ps_stats st;
	const char *in =
		"1342964/1342964 2419667.643226389:   tr strt                             0 [unknown] =>           401032 _start+0x0\n"
		"1342964/1342964 2419667.643235265:   call                           401043 _start+0x11 =>           401048 _start_c+0x0\n"
		"1342964/1342964 2419667.643237813:   tr end  syscall                401b2c __set_thread_area+0xd =>                0 [unknown]\n"
		"  demo 7/8 [003] 5.000000001:          1   branches:u:   jcc  4011a0 f+0x10 (/bin/demo) =>   4011b0 f+0x20 (/bin/demo)\n"
		"Web Content 7/9 5.000000002:   return (x)  401200 std::vector<int, std::allocator<int> >::push_back(int const&)+0x1f (/usr/lib/x86_64-linux-gnu/libstdc++.so.6) => 4011a5 main+0x5 (/bin/demo)  IPC: 0.50 (1/2)\n";
	assert_int_equal(parse(in, &r, &st, NULL), 0);
	assert_string_equal(r.buf,
		"B 1342964/1342964 2419667643226389 [-] f=80 0:-+0:- => 401032:_start+0:-\n"
		"B 1342964/1342964 2419667643235265 [-] f=1 401043:_start+11:- => 401048:_start_c+0:-\n"
		"B 1342964/1342964 2419667643237813 [-] f=108 401b2c:__set_thread_area+d:- => 0:-+0:-\n"
		"B 7/8 5000000001 [demo] f=4 4011a0:f+10:/bin/demo => 4011b0:f+20:/bin/demo\n"
		"B 7/9 5000000002 [Web Content] f=2 401200:std::vector<int, std::allocator<int> >::push_back(int const&)+1f:/usr/lib/x86_64-linux-gnu/libstdc++.so.6 => 4011a5:main+5:/bin/demo\n");
	assert_int_equal(st.branches, 5);
	assert_int_equal(st.warnings, 0);
}

/* perf 6.1's default `perf script` for a -g recording, and the -F/-G shapes. */
static void test_samples(void **state)
{
	(void)state;
	struct rec r;
	struct mtj_ps_stats st;
	const char *in =
		"sh  5218  4777.520889:     250000 cpu-clock: \n"
		"\tffffffff8134c548 vm_get_page_prot+0x18 ([kernel.kallsyms])\n"
		"\t           fdc47 __brk+0x7 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		"\n"
		" 5218/5219   4777.524159: cpu-clock:u: \n"
		"\t            9d18 [unknown] (/usr/bin/dash)\n"
		"\t            1469e handle_amd+0x7e (/lib/ld.so)\n"
		"  dl-get-cpu-features.c:327\n"
		"\t               0 [unknown] ([unknown])\n"
		"              sh  5218/5218   4777.600000: cpu-clock:      7efd82a3b69e handle_amd+0x7e (/lib/ld.so)\n"
		"825432/825432 339457.445933440: cycles:u: \n"
		"\t    7f5c0c875c60 _dl_open+0x0 (/usr/lib64/ld-2.28.so)\n";
	assert_int_equal(parse(in, &r, &st, NULL), 0);
	assert_string_equal(r.buf,
		"S 5218/5218 4777520889000 [sh] cpu-clock ffffffff8134c548:vm_get_page_prot+18:[kernel.kallsyms] fdc47:__brk+7:/usr/lib/x86_64-linux-gnu/libc.so.6\n"
		"S 5218/5219 4777524159000 [-] cpu-clock:u 9d18:-+0:/usr/bin/dash 1469e:handle_amd+7e:/lib/ld.so 0:-+0:-\n"
		"S 5218/5218 4777600000000 [sh] cpu-clock 7efd82a3b69e:handle_amd+7e:/lib/ld.so\n"
		"S 825432/825432 339457445933440 [-] cycles:u 7f5c0c875c60:_dl_open+0:/usr/lib64/ld-2.28.so\n");
	assert_int_equal(st.samples, 4);
	assert_int_equal(st.warnings, 0);
}

static void test_trace_error(void **state)
{
	(void)state;
	struct rec r;
	struct mtj_ps_stats st;
	const char *in =
		"7/7 4.000000100:   call   401000 f+0x0 => 402000 g+0x0\n"
		" instruction trace error type 1 time 4.000000200 cpu 2 pid 7 tid 7 ip 0x402010 code 6: Trace doesn't match instruction\n"
		" instruction trace error type 1 cpu 2 pid 7 tid 7 ip 0x402010 code 6: no time\n"
		" instruction trace error type 1 cpu 2 pid -1 tid -1 ip 0 code 7: lost\n";
	assert_int_equal(parse(in, &r, &st, NULL), 0);
	assert_string_equal(r.buf,
		"B 7/7 4000000100 [-] f=1 401000:f+0:- => 402000:g+0:-\n"
		"B 7/7 4000000200 [-] f=200 402010:-+0:- => 0:Trace doesn't match instruction+0:-\n"
		"B 7/7 4000000200 [-] f=200 402010:-+0:- => 0:no time+0:-\n");
	assert_int_equal(st.trace_errors, 3);
	assert_int_equal(st.warnings, 3);
	assert_string_equal(r.last_warn, "t.txt:4: perf reported a trace error for no thread: 'lost'");
}

static void test_not_perf_script(void **state)
{
	(void)state;
	struct rec r;
	struct mtj_ps_error err;
	char big[8192] = "";
	for (int i = 0; i < 70; i++)
		strcat(big, "Lorem ipsum dolor sit amet\n");
	assert_int_equal(parse(big, &r, NULL, &err), -EINVAL);
	assert_int_equal(err.line, 1);
	assert_string_equal(err.msg, "not `perf script` output (no event in the first 64 lines): "
			    "'Lorem ipsum dolor sit amet'");
	assert_int_equal(parse("hello\nworld\n", &r, NULL, &err), -EINVAL);
	assert_string_equal(err.msg, "not `perf script` output: 'hello'");
	assert_int_equal(parse("", &r, NULL, &err), -EINVAL);
	assert_string_equal(err.msg, "no perf script events (empty input)");
	static const char pd[] = "PERFILE2\0\0\0\0\x68\0\0\0\n";
	FILE *f = fmemopen((void *)pd, sizeof(pd) - 1, "r");
	struct mtj_ps_callbacks cb = { &r, on_sample, on_branch, on_warn };
	assert_int_equal(mtj_perfscript_parse(f, "perf.data", &cb, NULL, &err), -EINVAL);
	fclose(f);
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.msg, "perf.data file"));
}

static void test_garbage_inside(void **state)
{
	(void)state;
	struct rec r;
	struct mtj_ps_stats st;
	const char *in =
		"# perf script header comment\n"
		"Warning: something\n"
		"7/7 4.000000100:   call   401000 f+0x0 => 402000 g+0x0\n"
		"%%% garbage %%%\n"
		"\tdeadbeef stray frame\n"
		"7/7 4.000000300:   frobnicate   402000 g+0x0 => 401005 f+0x5\n"
		"7/7 4.000000050:   return   402000 g+0x0 => 401005 f+0x5\n"
		"7/7 4.000000400:   401000 f+0x0 => 402000 g+0x0\n";
	struct mtj_ps_error err;
	/* a branch line without flags is an error with its line: the trace would be wrong */
	assert_int_equal(parse(in, &r, &st, &err), -EINVAL);
	assert_int_equal(err.line, 8);
	assert_non_null(strstr(err.msg, "without a branch type"));
	assert_int_equal(st.skipped, 3);
	assert_int_equal(st.unknown_flags, 1);
	assert_int_equal(st.reordered, 1);
	assert_string_equal(r.buf,
		"B 7/7 4000000100 [-] f=1 401000:f+0:- => 402000:g+0:-\n"
		"B 7/7 4000000100 [-] f=2 402000:g+0:- => 401005:f+5:-\n");
	assert_int_equal(r.warns, 5);
}

static int stop_cb(void *ctx, const struct mtj_branch *b)
{
	(void)ctx;
	(void)b;
	return -ECANCELED;
}

static void test_callback_stops(void **state)
{
	(void)state;
	struct mtj_ps_callbacks cb = { NULL, NULL, stop_cb, NULL };
	const char *in = "7/7 4.000000100:   call   401000 f+0x0 => 402000 g+0x0\n";
	FILE *f = fmemopen((void *)in, strlen(in), "r");
	assert_int_equal(mtj_perfscript_parse(f, "-", &cb, NULL, NULL), -ECANCELED);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_pt_lines),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_trace_error),
		cmocka_unit_test(test_not_perf_script),
		cmocka_unit_test(test_garbage_inside),
		cmocka_unit_test(test_callback_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
