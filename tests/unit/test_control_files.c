/*
 * control/perf_files.c: finding the newest perf.data.<timestamp>, pruning to the newest N,
 * and reading an external perf's output from its argv.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control/perf.h"

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mtj-files-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void touch(const char *name)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static bool exists(const char *name)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static void newest_and_prune(void **state)
{
	(void)state;
	char out[512], name[600], want[600];
	snprintf(out, sizeof(out), "%s/perf.data", dir);
	assert_int_equal(mtj_perf_newest_dump(out, name, sizeof(name)), 0);
	assert_string_equal(name, "");
	/* Not dumps: the live file, other bases, non-digit suffixes. */
	touch("perf.data");
	touch("perf.data.old");
	touch("perf.data.2026120104145318.x");
	touch("other.data.2026120104145399");
	assert_int_equal(mtj_perf_newest_dump(out, name, sizeof(name)), 0);
	const char *stamps[] = { "2026120104145318", "2026120104145358", "2026120104150001",
				 "2026120104145400", "2026120104150100" };
	for (size_t i = 0; i < 5; i++) {
		char n[64];
		snprintf(n, sizeof(n), "perf.data.%s", stamps[i]);
		touch(n);
	}
	assert_int_equal(mtj_perf_newest_dump(out, name, sizeof(name)), 1);
	snprintf(want, sizeof(want), "%s/perf.data.2026120104150100", dir);
	assert_string_equal(name, want);
	/* A directory means base perf.data in it. */
	assert_int_equal(mtj_perf_newest_dump(dir, name, sizeof(name)), 1);
	assert_string_equal(name, want);

	assert_int_equal(mtj_perf_prune(out, 0), 0); /* 0 = keep all */
	assert_int_equal(mtj_perf_prune(out, 10), 0);
	assert_int_equal(mtj_perf_prune(dir, 2), 3);
	assert_false(exists("perf.data.2026120104145318"));
	assert_false(exists("perf.data.2026120104145358"));
	assert_false(exists("perf.data.2026120104145400"));
	assert_true(exists("perf.data.2026120104150001"));
	assert_true(exists("perf.data.2026120104150100"));
	/* What is not a dump survives. */
	assert_true(exists("perf.data"));
	assert_true(exists("perf.data.old"));
	assert_true(exists("other.data.2026120104145399"));
	assert_int_equal(mtj_perf_prune(out, 1), 1);
	assert_true(exists("perf.data.2026120104150100"));
	assert_true(mtj_perf_prune("/nonexistent/dir/perf.data", 1) < 0);
}

static void output_from_argv(void **state)
{
	(void)state;
	char out[256];
	bool sw;
	char *a1[] = { "perf", "record", "-e", "cpu-clock:u", "--switch-output=signal", "-o", "x/p.data", "--", "app", "-o", "no", NULL };
	assert_int_equal(mtj_perf_output_from_argv(11, a1, "/w", out, sizeof(out), &sw), 0);
	assert_string_equal(out, "/w/x/p.data");
	assert_true(sw);
	char *a2[] = { "/usr/bin/perf", "--no-pager", "record", "--output=/abs/o.data", NULL };
	assert_int_equal(mtj_perf_output_from_argv(4, a2, "/w", out, sizeof(out), &sw), 0);
	assert_string_equal(out, "/abs/o.data");
	assert_false(sw);
	char *a3[] = { "perf", "record", "-p", "12", NULL };
	assert_int_equal(mtj_perf_output_from_argv(4, a3, "/w", out, sizeof(out), &sw), 0);
	assert_string_equal(out, "/w/perf.data");
	char *a4[] = { "perf", "record", "-oq.data", NULL };
	assert_int_equal(mtj_perf_output_from_argv(3, a4, "/w", out, sizeof(out), &sw), 0);
	assert_string_equal(out, "/w/q.data");
	char *a5[] = { "perf", "report", "-o", "x", NULL };
	assert_int_equal(mtj_perf_output_from_argv(4, a5, "/w", out, sizeof(out), &sw), -EINVAL);
	char *a6[] = { "sleep", "10", NULL };
	assert_int_equal(mtj_perf_output_from_argv(2, a6, "/w", out, sizeof(out), &sw), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(newest_and_prune, setup, teardown),
		cmocka_unit_test(output_from_argv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
