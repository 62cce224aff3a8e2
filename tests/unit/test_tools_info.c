/* Unit tests for tools/cmd_info.c: the verdict and the JSON on made-up machines, and the
 * breakpoint-slot probe on this one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cmd_info.h"

/* A machine where everything is in place (perf 6.1 with a PMU, root). */
static void good_machine(struct mtj_info *in)
{
	memset(in, 0, sizeof *in);
	snprintf(in->kernel, sizeof in->kernel, "Linux 6.18 (x86_64)");
	snprintf(in->caps.path, sizeof in->caps.path, "/usr/bin/perf");
	in->caps.major = 6;
	in->caps.minor = 1;
	mtj_perf_caps_from_version(&in->caps);
	in->caps.hw_pmu = true;
	in->caps.paranoid = 2;
	in->caps.privileged = true;
	in->backend = MTJ_BACKEND_SAMPLING;
	in->bp_slots = 4;
	in->bp_errno = ENOSPC;
	in->sigtrap = true;
	in->sampling = true;
	snprintf(in->library, sizeof in->library, "/b/libmtinject.so");
	snprintf(in->dlfilter, sizeof in->dlfilter, "/b/mtinject-dlfilter.so");
	snprintf(in->lib_searched[0], PATH_MAX, "/b/libmtinject.so");
	in->nlib_searched = 1;
}

static size_t fatal_count(const struct mtj_info *in)
{
	size_t n = 0;
	for (size_t i = 0; i < in->nproblems; i++)
		n += in->problems[i].fatal;
	return n;
}

static const char *problem_with(const struct mtj_info *in, const char *text)
{
	for (size_t i = 0; i < in->nproblems; i++)
		if (strstr(in->problems[i].text, text))
			return in->problems[i].text;
	return NULL;
}

static void test_good_machine(void **state)
{
	(void)state;
	static struct mtj_info in;
	good_machine(&in);
	mtj_info_judge(&in);
	assert_true(in.can_trace);
	assert_int_equal(fatal_count(&in), 0);
}

static void test_missing_library_is_fatal(void **state)
{
	(void)state;
	static struct mtj_info in;
	good_machine(&in);
	in.library[0] = '\0';
	mtj_info_judge(&in);
	assert_false(in.can_trace);
	assert_non_null(problem_with(&in, "libmtinject.so not found"));
	assert_non_null(problem_with(&in, "make install"));
}

static void test_missing_dlfilter_is_a_warning(void **state)
{
	(void)state;
	static struct mtj_info in;
	good_machine(&in);
	in.dlfilter[0] = '\0';
	mtj_info_judge(&in);
	assert_true(in.can_trace);
	assert_int_equal(in.nproblems, 1);
	assert_false(in.problems[0].fatal);
	assert_non_null(strstr(in.problems[0].text, "mtinject-dlfilter.so not found"));
}

static void test_breakpoints_refused(void **state)
{
	(void)state;
	static struct mtj_info in;
	good_machine(&in);
	in.bp_slots = 0;
	in.bp_errno = EACCES;
	in.sigtrap = false;
	mtj_info_judge(&in);
	assert_false(in.can_trace);
	const char *p = problem_with(&in, "hardware breakpoints");
	assert_non_null(p);
	assert_non_null(strstr(p, "refused (Permission denied)"));
	assert_non_null(strstr(p, "perf_event_paranoid"));

	good_machine(&in);
	in.bp_slots = 0;
	in.bp_errno = EINVAL;
	mtj_info_judge(&in);
	assert_non_null(problem_with(&in, "synchronous SIGTRAP"));

	good_machine(&in);
	in.bp_slots = 0;
	in.bp_errno = ENODEV;
	mtj_info_judge(&in);
	assert_non_null(problem_with(&in, "CONFIG_HAVE_HW_BREAKPOINT"));
}

static void test_config_error_and_no_perf(void **state)
{
	(void)state;
	static struct mtj_info in;
	good_machine(&in);
	snprintf(in.config_error, sizeof in.config_error, "MTINJECT_BACKEND: 'ptt' is not a backend");
	mtj_info_judge(&in);
	assert_false(in.can_trace);
	assert_non_null(problem_with(&in, "MTINJECT_BACKEND: 'ptt'"));

	good_machine(&in);
	in.perf_rc = -ENOENT;
	in.caps.path[0] = '\0';
	mtj_info_judge(&in);
	assert_false(in.can_trace);
	assert_non_null(problem_with(&in, "perf"));
}

static char *render_json(const struct mtj_info *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	mtj_info_print_json(in, f);
	fclose(f);
	return buf;
}

static void test_json(void **state)
{
	(void)state;
	static struct mtj_info in;
	good_machine(&in);
	in.dlfilter[0] = '\0';
	snprintf(in.backend_why, sizeof in.backend_why, "no \"PT\" here");
	mtj_info_judge(&in);
	char *j = render_json(&in);
	assert_int_equal(j[0], '{');
	assert_non_null(strstr(j, "\"perf\":{\"path\":\"/usr/bin/perf\",\"version\":\"6.1.0\",\"control_fd\":true,"
				  "\"control_fifo\":true,\"ping_stop\":true,\"dlfilter\":true}"));
	assert_non_null(strstr(j, "\"hw_breakpoints\":4,\"hw_breakpoints_error\":null,\"sigtrap\":true"));
	assert_non_null(strstr(j, "\"backend\":{\"asked\":\"auto\",\"chosen\":\"sampling\",\"why\":\"no \\\"PT\\\" here\"}"));
	assert_non_null(strstr(j, "\"library\":\"/b/libmtinject.so\",\"library_searched\":[\"/b/libmtinject.so\"]"));
	assert_non_null(strstr(j, "\"dlfilter\":null,\"dlfilter_searched\":[]"));
	assert_non_null(strstr(j, "\"problems\":[{\"fatal\":false,\"text\":\"mtinject-dlfilter.so not found"));
	assert_non_null(strstr(j, "\"can_trace\":true}\n"));
	assert_ptr_equal(strchr(j, '\n'), j + strlen(j) - 1);  /* one line */
	free(j);

	in.perf_rc = -ENOENT;
	in.bp_slots = 0;
	in.bp_errno = EACCES;
	mtj_info_judge(&in);
	j = render_json(&in);
	assert_non_null(strstr(j, "\"perf\":null"));
	assert_non_null(strstr(j, "\"hw_breakpoints\":0,\"hw_breakpoints_error\":\"Permission denied\""));
	assert_non_null(strstr(j, "\"can_trace\":false}"));
	free(j);
}

/* This machine (and every x86 one) has 4 debug registers for a thread. */
static void test_probe_breakpoints_here(void **state)
{
	(void)state;
	int err = 0;
	bool sigtrap = false;
	int n = mtj_info_probe_breakpoints(&err, &sigtrap);
	assert_int_equal(n, 4);
	assert_int_equal(err, ENOSPC);
	assert_true(sigtrap);
	/* The probe gave every slot back. */
	assert_int_equal(mtj_info_probe_breakpoints(&err, &sigtrap), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_machine),
		cmocka_unit_test(test_missing_library_is_fatal),
		cmocka_unit_test(test_missing_dlfilter_is_a_warning),
		cmocka_unit_test(test_breakpoints_refused),
		cmocka_unit_test(test_config_error_and_no_perf),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_probe_breakpoints_here),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
