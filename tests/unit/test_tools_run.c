/* Unit tests for tools/run_env.c: the environment `mtinject run` gives its command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/run_env.h"

static void test_env_copy_set_get(void **state)
{
	(void)state;
	char *base[] = { "PATH=/bin", "HOME=/root", "EMPTY=", NULL };
	struct mtj_env e;
	assert_int_equal(mtj_env_init(&e, base), 0);
	assert_string_equal(mtj_env_get(&e, "PATH"), "/bin");
	assert_string_equal(mtj_env_get(&e, "EMPTY"), "");
	assert_null(mtj_env_get(&e, "PAT"));
	assert_null(mtj_env_get(&e, "NOPE"));
	assert_int_equal(mtj_env_set(&e, "PATH", "/usr/bin"), 0);
	assert_string_equal(mtj_env_get(&e, "PATH"), "/usr/bin");
	assert_int_equal(e.n, 3);
	/* Growth past the initial capacity keeps the list NULL-terminated. */
	char name[16];
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "V%d", i);
		assert_int_equal(mtj_env_set(&e, name, "x"), 0);
	}
	assert_int_equal(e.n, 43);
	assert_null(e.vars[e.n]);
	assert_string_equal(mtj_env_get(&e, "V39"), "x");
	assert_int_equal(mtj_env_set(&e, "", "x"), -EINVAL);
	assert_int_equal(mtj_env_set(&e, "A=B", "x"), -EINVAL);
	mtj_env_free(&e);
	assert_null(e.vars);
}

static void test_env_put(void **state)
{
	(void)state;
	struct mtj_env e;
	assert_int_equal(mtj_env_init(&e, NULL), 0);
	assert_int_equal(mtj_env_put(&e, "MTINJECT_LOG=debug"), 0);
	assert_int_equal(mtj_env_put(&e, "X=a=b"), 0);
	assert_string_equal(mtj_env_get(&e, "MTINJECT_LOG"), "debug");
	assert_string_equal(mtj_env_get(&e, "X"), "a=b");
	assert_int_equal(mtj_env_put(&e, "noequals"), -EINVAL);
	assert_int_equal(mtj_env_put(&e, "=value"), -EINVAL);
	mtj_env_free(&e);
}

static void test_preload_fresh_and_append(void **state)
{
	(void)state;
	struct mtj_env e;
	assert_int_equal(mtj_env_init(&e, NULL), 0);
	assert_int_equal(mtj_env_add_preload(&e, "/b/libmtinject.so"), 0);
	assert_string_equal(mtj_env_get(&e, "LD_PRELOAD"), "/b/libmtinject.so");
	mtj_env_free(&e);

	char *base[] = { "LD_PRELOAD=/usr/lib/libasan.so.8 libfoo.so", NULL };
	assert_int_equal(mtj_env_init(&e, base), 0);
	assert_int_equal(mtj_env_add_preload(&e, "/b/libmtinject.so"), 0);
	assert_string_equal(mtj_env_get(&e, "LD_PRELOAD"), "/usr/lib/libasan.so.8 libfoo.so:/b/libmtinject.so");
	/* Twice is once. */
	assert_int_equal(mtj_env_add_preload(&e, "/b/libmtinject.so"), 0);
	assert_string_equal(mtj_env_get(&e, "LD_PRELOAD"), "/usr/lib/libasan.so.8 libfoo.so:/b/libmtinject.so");
	mtj_env_free(&e);
}

static void test_preload_already_there_by_name(void **state)
{
	(void)state;
	char *base[] = { "LD_PRELOAD=/opt/mtj/lib/libmtinject.so:libx.so", NULL };
	struct mtj_env e;
	assert_int_equal(mtj_env_init(&e, base), 0);
	assert_int_equal(mtj_env_add_preload(&e, "/b/libmtinject.so"), 0);
	assert_string_equal(mtj_env_get(&e, "LD_PRELOAD"), "/opt/mtj/lib/libmtinject.so:libx.so");
	assert_int_equal(mtj_env_add_preload(&e, "/a b/libmtinject.so"), -EINVAL);
	assert_int_equal(mtj_env_add_preload(&e, "/a:b/libmtinject.so"), -EINVAL);
	mtj_env_free(&e);
}

static void test_triggers_join(void **state)
{
	(void)state;
	char out[256];
	char *one[] = { "main_loop" };
	assert_int_equal(mtj_triggers_join(one, 1, false, out, sizeof out), 0);
	assert_string_equal(out, "main_loop");

	char *two[] = { "a", "b@libc.so.6,skip=2" };
	assert_int_equal(mtj_triggers_join(two, 2, false, out, sizeof out), 0);
	assert_string_equal(out, "a;b@libc.so.6,skip=2");
	assert_int_equal(mtj_triggers_join(two, 2, true, out, sizeof out), 0);
	assert_string_equal(out, "a,count=all;b@libc.so.6,skip=2,count=all");

	/* A -t that holds several triggers, one with its own count, empty pieces dropped. */
	char *packed[] = { "x,count=3;;y", "foo(int, char)" };
	assert_int_equal(mtj_triggers_join(packed, 2, true, out, sizeof out), 0);
	assert_string_equal(out, "x,count=3;y,count=all;foo(int, char),count=all");
	char *spaced[] = { "x, count=2" };
	assert_int_equal(mtj_triggers_join(spaced, 1, true, out, sizeof out), 0);
	assert_string_equal(out, "x, count=2");

	char small[8];
	assert_int_equal(mtj_triggers_join(two, 2, true, small, sizeof small), -ENOSPC);
}

static void test_default_output(void **state)
{
	(void)state;
	char out[64];
	assert_int_equal(mtj_run_default_output("/home/u", "./build/server", 4242, out, sizeof out), 0);
	assert_string_equal(out, "/home/u/mtinject-server-4242");
	assert_int_equal(mtj_run_default_output("/", "ls", 7, out, sizeof out), 0);
	assert_string_equal(out, "/mtinject-ls-7");
	char tiny[10];
	assert_int_equal(mtj_run_default_output("/home/u", "server", 1, tiny, sizeof tiny), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_copy_set_get),
		cmocka_unit_test(test_env_put),
		cmocka_unit_test(test_preload_fresh_and_append),
		cmocka_unit_test(test_preload_already_there_by_name),
		cmocka_unit_test(test_triggers_join),
		cmocka_unit_test(test_default_output),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
