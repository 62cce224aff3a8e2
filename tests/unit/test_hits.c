/*
 * tests/unit/test_hits.c — hits.jsonl: every documented key, unknown keys ignored, each kind
 * of bad line rejected with a message naming the problem, file loading that reports
 * "<path>:<line>: ..." and keeps the good lines (sorted by time), and a hit as an instant
 * event in the JSON writer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "decode/hits.h"
#include "decode/json.h"

static const char full_line[] =
	"{\"trigger\": \"foo\", \"tid\": 123, \"thread\": \"worker\", \"time_ns\": 123456789012, "
	"\"ip\": \"0x401136\", \"args\": [\"0x1\", \"0x2\", \"0x3\", \"0x4\", \"0x5\", \"0xffffffffffffffff\"], "
	"\"backtrace\": [\"0x401136\", \"0x401200\"], \"frames\": [\"foo+0x0 (demo)\", \"main+0x1a (demo)\"], "
	"\"object\": \"/usr/bin/demo\", \"symbol\": \"foo\", \"snapshot\": false, \"why\": \"min-gap\", "
	"\"snapshot_file\": \"perf.data.2026\", \"coalesced\": 3, \"pid\": 99, "
	"\"future_key\": {\"nested\": [1, 2]}}";

static void test_parse_full(void **state)
{
	struct mtj_hit h;
	char err[256];

	(void)state;
	assert_int_equal(mtj_hit_parse(full_line, strlen(full_line), &h, err, sizeof(err)), 0);
	assert_string_equal(h.trigger, "foo");
	assert_null(h.reason);
	assert_string_equal(h.thread, "worker");
	assert_int_equal(h.tid, 123);
	assert_int_equal(h.pid, 99);
	assert_true(h.time_ns == 123456789012ull);
	assert_true(h.has_ip);
	assert_int_equal(h.ip, 0x401136);
	assert_int_equal(h.nargs, 6);
	assert_int_equal(h.args[0], 1);
	assert_true(h.args[5] == UINT64_MAX);
	assert_int_equal(h.nbacktrace, 2);
	assert_int_equal(h.backtrace[1], 0x401200);
	assert_int_equal(h.nframes, 2);
	assert_string_equal(h.frames[1], "main+0x1a (demo)");
	assert_string_equal(h.object, "/usr/bin/demo");
	assert_string_equal(h.symbol, "foo");
	assert_int_equal(h.snapshot, 0);
	assert_string_equal(h.why, "min-gap");
	assert_string_equal(h.snapshot_file, "perf.data.2026");
	assert_int_equal(h.coalesced, 3);
	mtj_hit_free(&h);
}

static void test_parse_minimal(void **state)
{
	const char *l = "{\"reason\":\"exit\",\"tid\":5,\"time_ns\":7}";
	struct mtj_hit h;
	char err[256];

	(void)state;
	assert_int_equal(mtj_hit_parse(l, strlen(l), &h, err, sizeof(err)), 0);
	assert_string_equal(h.reason, "exit");
	assert_null(h.trigger);
	assert_false(h.has_ip);
	assert_int_equal(h.snapshot, -1);
	assert_int_equal(h.nargs, 0);
	assert_int_equal(h.pid, 0);
	mtj_hit_free(&h);
}

static void bad(const char *line, const char *msg_part)
{
	struct mtj_hit h;
	char err[256] = "";

	assert_int_equal(mtj_hit_parse(line, strlen(line), &h, err, sizeof(err)), -EINVAL);
	if (!strstr(err, msg_part))
		fail_msg("for %s: \"%s\" does not contain \"%s\"", line, err, msg_part);
	assert_null(h.trigger);
	assert_null(h.backtrace);
}

static void test_parse_bad(void **state)
{
	(void)state;
	bad("{\"tid\":1", "not valid JSON: truncated object at column 9");
	bad("hello", "not valid JSON");
	bad("[1,2]", "a JSON object expected, got a array");
	bad("{\"tid\":1,\"time_ns\":2} x", "unexpected text after the JSON object at column 23");
	bad("{\"time_ns\":2}", "missing \"tid\"");
	bad("{\"tid\":1}", "missing \"time_ns\"");
	bad("{\"tid\":\"1\",\"time_ns\":2}", "\"tid\" must be an integer");
	bad("{\"tid\":-1,\"time_ns\":2}", "\"tid\" must be an integer");
	bad("{\"tid\":4294967296,\"time_ns\":2}", "\"tid\" must be an integer in 0..4294967295");
	bad("{\"tid\":1,\"time_ns\":2.5}", "\"time_ns\" must be an integer");
	bad("{\"tid\":1,\"time_ns\":2,\"trigger\":7}", "\"trigger\" must be a string, not a number");
	bad("{\"tid\":1,\"time_ns\":2,\"ip\":\"401136\"}", "\"ip\" must be an address");
	bad("{\"tid\":1,\"time_ns\":2,\"args\":\"0x1\"}", "\"args\" must be an array, not a string");
	bad("{\"tid\":1,\"time_ns\":2,\"args\":[\"0x1\",\"zz\"]}", "\"args\"[1] must be an address");
	bad("{\"tid\":1,\"time_ns\":2,\"args\":[\"0x1\",\"0x1\",\"0x1\",\"0x1\",\"0x1\",\"0x1\",\"0x1\"]}",
	    "\"args\" has 7 items, at most 6 expected");
	bad("{\"tid\":1,\"time_ns\":2,\"backtrace\":[\"0x1\", \"0x12345678901234567\"]}", "\"backtrace\"[1]");
	bad("{\"tid\":1,\"time_ns\":2,\"backtrace\":[\"0x1\"],\"frames\":[\"a\",3]}", "\"frames\"[1] must be a string");
	bad("{\"tid\":1,\"time_ns\":2,\"snapshot\":\"yes\"}", "\"snapshot\" must be true or false, not a string");
}

struct warns {
	char msg[8][512];
	int n;
};

static void collect(void *ctx, const char *msg)
{
	struct warns *w = ctx;

	if (w->n < 8)
		snprintf(w->msg[w->n++], sizeof(w->msg[0]), "%s", msg);
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/mtj-test-hits-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct mtj_hits hits = { 0 };
	struct warns wr = { .n = 0 };
	char want[600];

	(void)state;
	fprintf(f, "{\"trigger\":\"late\",\"tid\":1,\"time_ns\":300}\n");
	fprintf(f, "this is not json\n");
	fprintf(f, "{\"trigger\":\"early\",\"tid\":2,\"time_ns\":100,\"extra\":null}\n");
	fprintf(f, "{\"trigger\":\"x\",\"tid\":\"two\",\"time_ns\":100}\n");
	fprintf(f, "   \n");
	fprintf(f, "{\"trigger\":\"same-time\",\"tid\":3,\"time_ns\":300}\n");
	fprintf(f, "{\"trigger\":\"cut\",\"tid\":1,\"ti");
	fclose(f);
	assert_int_equal(mtj_hits_load(path, &hits, collect, &wr), 3);
	assert_int_equal(hits.n, 3);
	assert_int_equal(hits.bad_lines, 3);
	assert_string_equal(hits.v[0].trigger, "early");
	assert_string_equal(hits.v[1].trigger, "late");
	assert_string_equal(hits.v[2].trigger, "same-time");
	assert_int_equal(hits.v[2].line, 6);
	assert_int_equal(wr.n, 3);
	snprintf(want, sizeof(want), "%s:2: not valid JSON: unexpected character 't' at column 1", path);
	assert_string_equal(wr.msg[0], want);
	snprintf(want, sizeof(want), "%s:4: \"tid\" must be an integer in 0..4294967295", path);
	assert_string_equal(wr.msg[1], want);
	snprintf(want, sizeof(want), "%s:7: not valid JSON: unterminated string at column 29 "
		 "(last line has no newline: truncated file?)", path);
	assert_string_equal(wr.msg[2], want);
	mtj_hits_free(&hits);
	unlink(path);
	assert_int_equal(mtj_hits_load("/nonexistent/hits.jsonl", &hits, NULL, NULL), -ENOENT);
}

static void test_emit_json(void **state)
{
	struct mtj_hit h;
	struct mtj_writer w;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(mtj_hit_parse(full_line, strlen(full_line), &h, err, sizeof(err)), 0);
	assert_int_equal(mtj_writer_open(&w, MTJ_FORMAT_JSON, f), 0);
	assert_int_equal(mtj_hit_emit(&w, &h, 1), 0);
	h.pid = 0;
	h.time_ns++;
	assert_int_equal(mtj_hit_emit(&w, &h, 42), 0);
	h.time_ns = 0;  /* before the thread's last event: the writer refuses it */
	assert_int_equal(mtj_hit_emit(&w, &h, 42), -EINVAL);
	assert_int_equal(mtj_writer_close(&w), 0);
	fclose(f);
	assert_non_null(strstr(buf,
		"{\"ph\":\"i\",\"pid\":99,\"tid\":123,\"ts\":123456789.012,\"s\":\"t\",\"name\":\"hit: foo\","
		"\"args\":{\"trigger\":\"foo\",\"ip\":\"0x401136\",\"arg0\":\"0x1\",\"arg1\":\"0x2\","
		"\"arg2\":\"0x3\",\"arg3\":\"0x4\",\"arg4\":\"0x5\",\"arg5\":\"0xffffffffffffffff\","
		"\"snapshot\":\"false\",\"why\":\"min-gap\",\"object\":\"/usr/bin/demo\",\"symbol\":\"foo\","
		"\"backtrace\":\"foo+0x0 (demo)\\nmain+0x1a (demo)\",\"snapshot_file\":\"perf.data.2026\","
		"\"coalesced\":3}}"));
	assert_non_null(strstr(buf, "{\"ph\":\"i\",\"pid\":42,\"tid\":123,\"ts\":123456789.013,"));
	/* without symbolized frames the addresses are the backtrace */
	for (size_t i = 0; i < h.nframes; i++)
		free(h.frames[i]);
	free(h.frames);
	h.frames = NULL;
	h.nframes = 0;
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(mtj_writer_open(&w, MTJ_FORMAT_JSON, f), 0);
	assert_int_equal(mtj_hit_emit(&w, &h, 42), 0);
	assert_int_equal(mtj_writer_close(&w), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"backtrace\":\"0x401136\\n0x401200\""));
	free(buf);
	mtj_hit_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_parse_minimal),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_emit_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
