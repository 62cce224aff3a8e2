/*
 * control/perf_caps.c: version parsing, version-derived capabilities, the AUTO backend
 * decision, the fix-it message, and probing real and missing executables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "control/perf.h"

static void parse_versions(void **state)
{
	(void)state;
	int a, b, c;
	assert_int_equal(mtj_perf_parse_version("perf version 6.1.187", &a, &b, &c), 0);
	assert_int_equal(a, 6);
	assert_int_equal(b, 1);
	assert_int_equal(c, 187);
	assert_int_equal(mtj_perf_parse_version("perf version 5.10.0-rc3.g1234\n", &a, &b, &c), 0);
	assert_int_equal(a, 5);
	assert_int_equal(b, 10);
	assert_int_equal(c, 0);
	assert_int_equal(mtj_perf_parse_version("perf version 5.4.gabc123", &a, &b, &c), 0);
	assert_int_equal(b, 4);
	assert_int_equal(c, 0);
	assert_int_equal(mtj_perf_parse_version("perf version 6.8", &a, &b, &c), 0);
	assert_int_equal(a * 100 + b, 608);
	const char *bad[] = { "", "garbage", "perf version", "perf version x.y", "perf version 6",
			      "perf version 6.", "perf version 6.1x", "Perf Version 6.1.0", "perf version 99999999.1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(mtj_perf_parse_version(bad[i], &a, &b, &c), -EINVAL);
	assert_int_equal(mtj_perf_parse_version(NULL, &a, &b, &c), -EINVAL);
}

static void caps_by_version(void **state)
{
	(void)state;
	static const struct {
		int major, minor;
		bool fd, fifo, ping, dlf;
	} rows[] = {
		{ 4, 19, 0, 0, 0, 0 }, { 5, 8, 0, 0, 0, 0 }, { 5, 9, 1, 0, 0, 0 }, { 5, 10, 1, 1, 0, 0 },
		{ 5, 11, 1, 1, 0, 0 }, { 5, 12, 1, 1, 1, 0 }, { 5, 14, 1, 1, 1, 1 }, { 6, 1, 1, 1, 1, 1 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct mtj_perf_caps c;
		memset(&c, 0, sizeof(c));
		c.major = rows[i].major;
		c.minor = rows[i].minor;
		mtj_perf_caps_from_version(&c);
		assert_int_equal(c.control_fd, rows[i].fd);
		assert_int_equal(c.control_fifo, rows[i].fifo);
		assert_int_equal(c.ping_stop, rows[i].ping);
		assert_int_equal(c.dlfilter, rows[i].dlf);
	}
}

static void choose_backend(void **state)
{
	(void)state;
	struct mtj_perf_caps c;
	memset(&c, 0, sizeof(c));
	char why[256];
	assert_int_equal(mtj_perf_choose_backend(&c, MTJ_BACKEND_AUTO, why, sizeof(why)), MTJ_BACKEND_SAMPLING);
	assert_string_equal(why, "sampling with cpu-clock (no hardware PMU): no Intel PT here "
				 "(/sys/bus/event_source/devices/intel_pt missing)");
	c.hw_pmu = true;
	mtj_perf_choose_backend(&c, MTJ_BACKEND_AUTO, why, sizeof(why));
	assert_non_null(strstr(why, "sampling with cycles"));
	c.intel_pt = true;
	assert_int_equal(mtj_perf_choose_backend(&c, MTJ_BACKEND_AUTO, why, sizeof(why)), MTJ_BACKEND_PT);
	assert_string_equal(why, "Intel PT: /sys/bus/event_source/devices/intel_pt exists");
	assert_int_equal(mtj_perf_choose_backend(&c, MTJ_BACKEND_SAMPLING, why, sizeof(why)), MTJ_BACKEND_SAMPLING);
	c.intel_pt = false;
	assert_int_equal(mtj_perf_choose_backend(&c, MTJ_BACKEND_PT, why, sizeof(why)), MTJ_BACKEND_PT);
	assert_non_null(strstr(why, "does not exist"));
}

static void fix_hints(void **state)
{
	(void)state;
	struct mtj_perf_caps c;
	memset(&c, 0, sizeof(c));
	char buf[2048];
	/* perf missing */
	assert_int_equal(mtj_perf_fix_hint(&c, -ENOENT, MTJ_BACKEND_SAMPLING, buf, sizeof(buf)), MTJ_HINT_FATAL);
	assert_non_null(strstr(buf, "apt-get install linux-perf"));
	assert_non_null(strstr(buf, "MTINJECT_PERF="));
	/* paranoid too high for a normal user */
	strcpy(c.path, "/usr/bin/perf");
	c.major = 6;
	c.minor = 1;
	mtj_perf_caps_from_version(&c);
	c.hw_pmu = true;
	c.paranoid = 3;
	assert_int_equal(mtj_perf_fix_hint(&c, 0, MTJ_BACKEND_SAMPLING, buf, sizeof(buf)), MTJ_HINT_FATAL);
	assert_non_null(strstr(buf, "perf_event_paranoid is 3"));
	assert_non_null(strstr(buf, "sudo sysctl kernel.perf_event_paranoid=1"));
	/* root: nothing to fix */
	c.privileged = true;
	assert_int_equal(mtj_perf_fix_hint(&c, 0, MTJ_BACKEND_SAMPLING, buf, sizeof(buf)), MTJ_HINT_NONE);
	assert_string_equal(buf, "");
	/* PT asked on a machine without it */
	assert_int_equal(mtj_perf_fix_hint(&c, 0, MTJ_BACKEND_PT, buf, sizeof(buf)), MTJ_HINT_FATAL);
	assert_non_null(strstr(buf, "MTINJECT_BACKEND=sampling"));
	/* old perf and no PMU: works, less well */
	c.minor = 1;
	c.major = 5;
	mtj_perf_caps_from_version(&c);
	c.hw_pmu = false;
	assert_int_equal(mtj_perf_fix_hint(&c, 0, MTJ_BACKEND_SAMPLING, buf, sizeof(buf)), MTJ_HINT_WARN);
	assert_non_null(strstr(buf, "older than 5.12"));
	assert_non_null(strstr(buf, "\nno hardware PMU"));
	assert_int_equal(buf[strlen(buf) - 1] != '\n', 1);
	/* a tiny buffer is still terminated */
	char tiny[8];
	assert_int_equal(mtj_perf_fix_hint(&c, 0, MTJ_BACKEND_SAMPLING, tiny, sizeof(tiny)), MTJ_HINT_WARN);
	assert_true(strlen(tiny) < sizeof(tiny));
}

static void probe_missing_and_mute(void **state)
{
	(void)state;
	struct mtj_perf_caps c;
	assert_int_equal(mtj_perf_probe("/nonexistent/perf", &c), -ENOENT);
	assert_string_equal(c.path, "");
	assert_non_null(strstr(mtj_perf_last_error(), "/nonexistent/perf not found"));
	assert_int_equal(mtj_perf_probe("no-such-perf-anywhere", &c), -ENOENT);
	/* /bin/true says nothing: not a perf */
	assert_int_equal(mtj_perf_probe("/bin/true", &c), -EIO);
	assert_non_null(strstr(mtj_perf_last_error(), "not 'perf version X.Y'"));
}

static void probe_real_perf_cached(void **state)
{
	(void)state;
	struct mtj_perf_caps c1, c2;
	if (access("/usr/bin/perf", X_OK) != 0)
		skip();
	assert_int_equal(mtj_perf_probe("/usr/bin/perf", &c1), 0);
	assert_true(c1.major >= 4);
	assert_string_equal(c1.path, "/usr/bin/perf");
	uint64_t t = mtj_perf_now_ns();
	assert_int_equal(mtj_perf_probe("/usr/bin/perf", &c2), 0);
	/* cached: no perf run (which takes milliseconds) */
	assert_true(mtj_perf_now_ns() - t < 2000000u);
	assert_int_equal(c1.major * 1000 + c1.minor, c2.major * 1000 + c2.minor);
	assert_int_equal(c2.privileged, geteuid() == 0 || c2.privileged);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_versions),
		cmocka_unit_test(caps_by_version),
		cmocka_unit_test(choose_backend),
		cmocka_unit_test(fix_hints),
		cmocka_unit_test(probe_missing_and_mute),
		cmocka_unit_test(probe_real_perf_cached),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
