/* Unit tests for tools/ctl_proto.c: request lines, hits.jsonl answers, target lookup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/ctl_proto.h"

static void test_line(void **state)
{
	(void)state;
	char buf[MTJ_CTL_LINE_MAX + 1];
	assert_int_equal(mtj_ctl_line(MTJ_CTL_SNAPSHOT, "12-1", "queue stuck", buf, sizeof buf), 26);
	assert_string_equal(buf, "snapshot 12-1 queue stuck\n");
	assert_int_equal(mtj_ctl_line(MTJ_CTL_SNAPSHOT, "12-2", NULL, buf, sizeof buf), 21);
	assert_string_equal(buf, "snapshot 12-2 manual\n");
	assert_int_equal(mtj_ctl_line(MTJ_CTL_SNAPSHOT, "12-3", "", buf, sizeof buf), 21);
	assert_string_equal(buf, "snapshot 12-3 manual\n");
	assert_int_equal(mtj_ctl_line(MTJ_CTL_STOP, "12-4", "ignored", buf, sizeof buf), 10);
	assert_string_equal(buf, "stop 12-4\n");
}

static void test_line_rejects(void **state)
{
	(void)state;
	char buf[MTJ_CTL_LINE_MAX + 1];
	assert_int_equal(mtj_ctl_line(MTJ_CTL_SNAPSHOT, "", "r", buf, sizeof buf), -EINVAL);
	assert_int_equal(mtj_ctl_line(MTJ_CTL_SNAPSHOT, "a b", "r", buf, sizeof buf), -EINVAL);
	assert_int_equal(mtj_ctl_line(MTJ_CTL_SNAPSHOT, "id", "two\nlines", buf, sizeof buf), -EINVAL);
	char small[12];
	assert_int_equal(mtj_ctl_line(MTJ_CTL_SNAPSHOT, "id", "long reason", small, sizeof small), -ENOSPC);
	/* Longer than one atomic pipe write. */
	char *big = malloc(MTJ_CTL_LINE_MAX + 1);
	char *huge = malloc(2 * MTJ_CTL_LINE_MAX);
	memset(big, 'x', MTJ_CTL_LINE_MAX);
	big[MTJ_CTL_LINE_MAX] = '\0';
	assert_int_equal(mtj_ctl_line(MTJ_CTL_SNAPSHOT, "id", big, huge, 2 * MTJ_CTL_LINE_MAX), -ENOSPC);
	free(big);
	free(huge);
}

static void test_jsonl_fields(void **state)
{
	(void)state;
	const char *line = "{\"kind\":\"request\",\"request\":\"7-1\", \"snapshot\" : true,"
			   "\"reason\":\"fake \\\"request\\\":\\\"7-1\\\" \\u00e9\\/\","
			   "\"snapshot_file\":\"/tmp/o/perf.data.2024\"}";
	char s[128];
	bool b = false;
	assert_int_equal(mtj_jsonl_string(line, "request", s, sizeof s), 0);
	assert_string_equal(s, "7-1");
	assert_int_equal(mtj_jsonl_bool(line, "snapshot", &b), 0);
	assert_true(b);
	assert_int_equal(mtj_jsonl_string(line, "reason", s, sizeof s), 0);
	assert_string_equal(s, "fake \"request\":\"7-1\" \xc3\xa9/");
	assert_int_equal(mtj_jsonl_string(line, "snapshot_file", s, sizeof s), 0);
	assert_string_equal(s, "/tmp/o/perf.data.2024");
	assert_int_equal(mtj_jsonl_string(line, "why", s, sizeof s), -ENOENT);
	assert_int_equal(mtj_jsonl_string(line, "snapshot", s, sizeof s), -EINVAL);
	assert_int_equal(mtj_jsonl_bool(line, "kind", &b), -EINVAL);
	char tiny[4];
	assert_int_equal(mtj_jsonl_string(line, "snapshot_file", tiny, sizeof tiny), -ENOSPC);
	/* A key that only appears inside a string value is not a member. */
	assert_int_equal(mtj_jsonl_string("{\"a\":\"x,\\\"why\\\":\\\"no\\\"\"}", "why", s, sizeof s), -ENOENT);
	assert_int_equal(mtj_jsonl_string("{\"a\":\"unterminated", "a", s, sizeof s), -EINVAL);
}

static void test_match_and_done(void **state)
{
	(void)state;
	struct mtj_ctl_reply r;
	memset(&r, 0, sizeof r);
	assert_false(mtj_ctl_match_line("{\"kind\":\"breakpoint\",\"snapshot\":true}", "9-1", &r));
	assert_false(mtj_ctl_match_line("{\"request\":\"9-10\",\"snapshot\":true}", "9-1", &r));
	assert_false(r.matched);
	assert_false(mtj_ctl_reply_done(MTJ_CTL_SNAPSHOT, &r));

	/* The preload's line, written once the snapshot is on disk. */
	assert_true(mtj_ctl_match_line("{\"kind\":\"request\",\"pid\":12,\"reason\":\"manual\",\"request\":\"9-1\","
				       "\"snapshot\":true,\"snapshot_file\":\"perf.data.2024120112000012\"}", "9-1", &r));
	assert_true(mtj_ctl_reply_done(MTJ_CTL_SNAPSHOT, &r));
	assert_true(r.has_file);
	assert_string_equal(r.file, "perf.data.2024120112000012");

	/* A session that cannot know the file name: taken, no file. */
	memset(&r, 0, sizeof r);
	assert_true(mtj_ctl_match_line("{\"request\":\"9-4\",\"snapshot\":true}", "9-4", &r));
	assert_true(mtj_ctl_reply_done(MTJ_CTL_SNAPSHOT, &r));
	assert_false(r.has_file);

	memset(&r, 0, sizeof r);
	assert_true(mtj_ctl_match_line("{\"request\":\"9-2\",\"snapshot\":false,\"why\":\"no perf session\"}", "9-2", &r));
	assert_true(mtj_ctl_reply_done(MTJ_CTL_SNAPSHOT, &r));
	assert_false(r.snapshot);
	assert_string_equal(r.why, "no perf session");

	memset(&r, 0, sizeof r);
	assert_true(mtj_ctl_match_line("{\"kind\":\"request\",\"request\":\"9-3\",\"stopped\":true}", "9-3", &r));
	assert_false(mtj_ctl_reply_done(MTJ_CTL_SNAPSHOT, &r));
	assert_true(mtj_ctl_reply_done(MTJ_CTL_STOP, &r));
	assert_true(r.stopped);
}

static char tmpdir[64];

static int setup_tmp(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_tools_ctl.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd);
}

static void test_resolve(void **state)
{
	(void)state;
	char reg[128], out[256], link[256], outdir[128], cwd[256];
	pid_t pid;
	snprintf(reg, sizeof reg, "%s/reg", tmpdir);
	snprintf(outdir, sizeof outdir, "%s/out", tmpdir);
	assert_int_equal(mkdir(reg, 0700), 0);
	assert_int_equal(mkdir(outdir, 0700), 0);

	/* A live PID (ours) registered. */
	snprintf(link, sizeof link, "%s/%d", reg, (int)getpid());
	assert_int_equal(symlink(outdir, link), 0);
	char me[16];
	snprintf(me, sizeof me, "%d", (int)getpid());
	assert_int_equal(mtj_ctl_resolve(me, reg, out, sizeof out, &pid), 0);
	assert_string_equal(out, outdir);
	assert_int_equal(pid, getpid());

	/* A dead PID still registered. */
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	snprintf(link, sizeof link, "%s/%d", reg, (int)dead);
	assert_int_equal(symlink(outdir, link), 0);
	snprintf(me, sizeof me, "%d", (int)dead);
	assert_int_equal(mtj_ctl_resolve(me, reg, out, sizeof out, &pid), -ESRCH);

	/* Not registered; a DIR; a file; nothing. */
	assert_int_equal(mtj_ctl_resolve("999999999", reg, out, sizeof out, &pid), -ENOENT);
	assert_int_equal(mtj_ctl_resolve(outdir, reg, out, sizeof out, &pid), 0);
	assert_string_equal(out, outdir);
	assert_int_equal(pid, 0);
	assert_int_equal(mtj_ctl_resolve("/etc/passwd", reg, out, sizeof out, &pid), -ENOTDIR);
	assert_int_equal(mtj_ctl_resolve("/nonexistent/dir", reg, out, sizeof out, &pid), -ENOENT);

	/* A relative DIR, even one named like a number, comes back absolute. */
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(tmpdir), 0);
	assert_int_equal(mkdir("4242", 0700), 0);
	assert_int_equal(mtj_ctl_resolve("4242", reg, out, sizeof out, &pid), 0);
	char want[256];
	snprintf(want, sizeof want, "%s/4242", tmpdir);
	assert_string_equal(out, want);
	assert_int_equal(chdir(cwd), 0);
}

static void write_file(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_wait(void **state)
{
	(void)state;
	char dir[128], hits[160];
	struct mtj_ctl_reply r;
	snprintf(dir, sizeof dir, "%s/w", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(hits, sizeof hits, "%s/hits.jsonl", dir);

	/* An old answer with the same id before `offset` is not ours. */
	const char *old = "{\"request\":\"5-1\",\"snapshot\":false,\"why\":\"old\"}\n";
	write_file(hits, old, "w");
	off_t off = (off_t)strlen(old);
	assert_int_equal(mtj_ctl_wait(dir, off, MTJ_CTL_SNAPSHOT, "5-1", 100, &r), -ETIMEDOUT);
	assert_false(r.matched);

	/* Half a line is not an answer yet. */
	write_file(hits, "{\"request\":\"5-1\",\"snapshot\":true,\"snapshot_file\":\"/x/perf.data.1\"}", "a");
	assert_int_equal(mtj_ctl_wait(dir, off, MTJ_CTL_SNAPSHOT, "5-1", 100, &r), -ETIMEDOUT);

	/* The rest of it arrives while we wait. */
	pid_t child = fork();
	if (child == 0) {
		usleep(100 * 1000);
		FILE *f = fopen(hits, "a");
		fputs("\n", f);
		fclose(f);
		_exit(0);
	}
	assert_int_equal(mtj_ctl_wait(dir, off, MTJ_CTL_SNAPSHOT, "5-1", 5000, &r), 0);
	waitpid(child, NULL, 0);
	assert_true(r.snapshot);
	assert_string_equal(r.file, "/x/perf.data.1");

	/* No hits.jsonl at all: a timeout, not an error. */
	assert_int_equal(mtj_ctl_wait(tmpdir, 0, MTJ_CTL_STOP, "5-2", 50, &r), -ETIMEDOUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_line_rejects),
		cmocka_unit_test(test_jsonl_fields),
		cmocka_unit_test(test_match_and_done),
		cmocka_unit_test_setup_teardown(test_resolve, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_wait, setup_tmp, teardown_tmp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
