/* Unit tests for tools/common.c: suggestions, file lookup order, JSON strings, exit codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/config.h"
#include "tools/common.h"

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(mtj_edit_distance("run", "run"), 0);
	assert_int_equal(mtj_edit_distance("rn", "run"), 1);
	assert_int_equal(mtj_edit_distance("decdoe", "decode"), 1);
	assert_int_equal(mtj_edit_distance("", "info"), 4);
	assert_int_equal(mtj_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(mtj_edit_distance("rnu", "run"), 1);
}

static void test_closest(void **state)
{
	(void)state;
	const char *cmds[] = { "run", "decode", "symbols", "info", "snapshot", "stop", "help" };
	size_t n = sizeof cmds / sizeof cmds[0];
	assert_string_equal(mtj_closest("rnu", cmds, n), "run");
	assert_string_equal(mtj_closest("decod", cmds, n), "decode");
	assert_string_equal(mtj_closest("snap", cmds, n), "snapshot");
	assert_string_equal(mtj_closest("symbol", cmds, n), "symbols");
	assert_string_equal(mtj_closest("stp", cmds, n), "stop");
	assert_null(mtj_closest("frobnicate", cmds, n));
	assert_null(mtj_closest("x", cmds, n));
}

static void test_candidates_build_tree(void **state)
{
	(void)state;
	char c[MTJ_TOOL_MAX_CANDIDATES][PATH_MAX];
	size_t n = mtj_tool_candidates(MTJ_FILE_LIBRARY, "/src/build", "/usr/local/lib/mtinject", c,
				       MTJ_TOOL_MAX_CANDIDATES);
	assert_int_equal(n, 3);
	assert_string_equal(c[0], "/src/build/libmtinject.so");
	assert_string_equal(c[1], "/src/lib/libmtinject.so");
	assert_string_equal(c[2], "/usr/local/lib/libmtinject.so");

	n = mtj_tool_candidates(MTJ_FILE_DLFILTER, "/src/build", "/usr/local/lib/mtinject", c,
				MTJ_TOOL_MAX_CANDIDATES);
	assert_int_equal(n, 3);
	assert_string_equal(c[0], "/src/build/mtinject-dlfilter.so");
	assert_string_equal(c[1], "/src/lib/mtinject/mtinject-dlfilter.so");
	assert_string_equal(c[2], "/usr/local/lib/mtinject/mtinject-dlfilter.so");
}

static void test_candidates_installed_dedup(void **state)
{
	(void)state;
	char c[MTJ_TOOL_MAX_CANDIDATES][PATH_MAX];
	/* Installed in the configured prefix: bin/../lib is the configured libdir. */
	size_t n = mtj_tool_candidates(MTJ_FILE_LIBRARY, "/usr/local/bin", "/usr/local/lib/mtinject", c,
				       MTJ_TOOL_MAX_CANDIDATES);
	assert_int_equal(n, 2);
	assert_string_equal(c[0], "/usr/local/bin/libmtinject.so");
	assert_string_equal(c[1], "/usr/local/lib/libmtinject.so");
	/* A tool in / (odd, but no "//"). */
	n = mtj_tool_candidates(MTJ_FILE_LIBRARY, "/", "", c, MTJ_TOOL_MAX_CANDIDATES);
	assert_int_equal(n, 2);
	assert_string_equal(c[0], "/libmtinject.so");
	assert_string_equal(c[1], "/lib/libmtinject.so");
}

static void test_selfdir_and_lookup(void **state)
{
	(void)state;
	const char *dir = mtj_tool_selfdir();
	assert_true(dir[0] == '/');
	/* The unit test lives in BUILD/tests/unit; the library is not next to it, so the
	 * lookup answers NULL or an absolute, existing path. */
	const char *lib = mtj_tool_libpath();
	if (lib) {
		assert_true(lib[0] == '/');
		assert_int_equal(access(lib, R_OK), 0);
	}
}

static void test_json_string(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	mtj_json_string(f, "a\"b\\c\nd\te\x01");
	fclose(f);
	assert_string_equal(buf, "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
	free(buf);
}

static void test_exit_help_lists_codes(void **state)
{
	(void)state;
	assert_non_null(strstr(mtj_tool_exit_help, "  2    usage"));
	assert_non_null(strstr(mtj_tool_exit_help, "  3    "));
	assert_non_null(strstr(mtj_tool_exit_help, "  127  run"));
	assert_int_equal(MTJ_EXIT_NOCMD, 127);
	assert_int_equal(MTJ_EXIT_NOEXEC, 126);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_candidates_build_tree),
		cmocka_unit_test(test_candidates_installed_dedup),
		cmocka_unit_test(test_selfdir_and_lookup),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_exit_help_lists_codes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
