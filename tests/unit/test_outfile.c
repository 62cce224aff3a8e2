/*
 * tests/unit/test_outfile.c — a trace file appears whole or not at all: a commit replaces
 * the old file and leaves no temporary behind, an abort leaves the old file exactly as it
 * was, and names that are not regular files are written in place and never deleted.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "decode/outfile.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/mtj-outfile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *dst, size_t len, const char *name)
{
	snprintf(dst, len, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Files in the directory (the temporaries are dot files). */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_commit_creates(void **state)
{
	struct mtj_outfile o;
	char p[128];
	struct stat sb;
	mode_t mask = umask(022);

	(void)state;
	path_of(p, sizeof(p), "trace.json");
	assert_int_equal(mtj_outfile_open(&o, p, 4096), 0);
	assert_string_not_equal(o.tmp, "");
	fputs("new", o.f);
	assert_null(get(p));                  /* nothing under the final name until the commit */
	assert_int_equal(mtj_outfile_commit(&o), 0);
	assert_string_equal(get(p), "new");
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);   /* what fopen would give under umask 022 */
	assert_int_equal(entries(), 1);
	umask(mask);
}

/* An "old" trace under NAME, and a new one being written over it with TEXT so far. */
static void over_old(struct mtj_outfile *o, char *p, size_t len, const char *name, const char *text)
{
	path_of(p, len, name);
	put(p, "old");
	assert_int_equal(mtj_outfile_open(o, p, 0), 0);
	fputs(text, o->f);
	fflush(o->f);
	assert_string_equal(get(p), "old");   /* the old trace is whole while we write */
}

static void test_commit_replaces(void **state)
{
	struct mtj_outfile o;
	char p[128];

	(void)state;
	over_old(&o, p, sizeof(p), "trace.fxt", "newer");
	assert_int_equal(mtj_outfile_commit(&o), 0);
	assert_string_equal(get(p), "newer");
	assert_int_equal(entries(), 1);
}

static void test_abort_keeps_old(void **state)
{
	struct mtj_outfile o;
	char p[128];

	(void)state;
	over_old(&o, p, sizeof(p), "keep.json", "half a tr");
	mtj_outfile_abort(&o);
	assert_string_equal(get(p), "old");
	assert_int_equal(entries(), 1);
	mtj_outfile_abort(&o);                /* twice is harmless */

	path_of(p, sizeof(p), "none.json");   /* and with no old file, nothing at all */
	assert_int_equal(mtj_outfile_open(&o, p, 0), 0);
	mtj_outfile_abort(&o);
	assert_null(get(p));
	assert_int_equal(entries(), 1);
}

static void test_not_regular_in_place(void **state)
{
	struct mtj_outfile o;
	char target[128], link[128];

	(void)state;
	/* a device: written in place, never unlinked (as root, unlink("/dev/null") would work) */
	assert_int_equal(mtj_outfile_open(&o, "/dev/null", 0), 0);
	assert_string_equal(o.tmp, "");
	fputs("x", o.f);
	mtj_outfile_abort(&o);
	assert_int_equal(access("/dev/null", F_OK), 0);
	assert_int_equal(mtj_outfile_open(&o, "/dev/null", 0), 0);
	assert_int_equal(mtj_outfile_commit(&o), 0);
	assert_int_equal(access("/dev/null", F_OK), 0);

	/* a symlink: the file it points to gets the trace, the link stays a link */
	path_of(target, sizeof(target), "real.json");
	path_of(link, sizeof(link), "link.json");
	put(target, "old");
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(mtj_outfile_open(&o, link, 0), 0);
	fputs("through", o.f);
	assert_int_equal(mtj_outfile_commit(&o), 0);
	assert_string_equal(get(target), "through");
	struct stat sb;
	assert_int_equal(lstat(link, &sb), 0);
	assert_true(S_ISLNK(sb.st_mode));
	unlink(link);
	unlink(target);
}

/* Many slots' worth through the writer thread, in pieces of odd sizes: every byte in order. */
static void test_large_in_order(void **state)
{
	struct mtj_outfile o;
	char p[128], piece[7919];
	size_t total = 0, want = 5u << 20;
	uint32_t x = 1;

	(void)state;
	path_of(p, sizeof(p), "big.json");
	assert_int_equal(mtj_outfile_open(&o, p, 1 << 20), 0);
	while (total < want) {
		size_t n = 1 + x % sizeof(piece);

		for (size_t i = 0; i < n; i++)
			piece[i] = (char)((total + i) * 131 % 251);
		assert_int_equal(fwrite(piece, 1, n, o.f), n);
		total += n;
		x = x * 1103515245u + 12345u;
	}
	assert_int_equal(mtj_outfile_commit(&o), 0);

	FILE *f = fopen(p, "r");
	size_t at = 0, n;
	assert_non_null(f);
	while ((n = fread(piece, 1, sizeof(piece), f)) > 0)
		for (size_t i = 0; i < n; i++, at++)
			if (piece[i] != (char)(at * 131 % 251))
				fail_msg("byte %zu differs", at);
	fclose(f);
	assert_int_equal(at, total);
}

/* A write error in the writer thread reaches the caller: at a later write or at the commit. */
static void test_write_error(void **state)
{
	struct mtj_outfile o;
	static char chunk[1 << 20];

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	assert_int_equal(mtj_outfile_open(&o, "/dev/full", 1 << 20), 0);
	for (int i = 0; i < 6; i++)
		(void)fwrite(chunk, 1, sizeof(chunk), o.f);   /* may start failing part way */
	assert_int_equal(mtj_outfile_commit(&o), -ENOSPC);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(access("/dev/full", F_OK), 0);   /* never removed */
}

static void test_errors(void **state)
{
	struct mtj_outfile o;
	char p[128], longp[PATH_MAX + 16];

	(void)state;
	path_of(p, sizeof(p), "no/such/dir/trace.json");
	assert_int_equal(mtj_outfile_open(&o, p, 0), -ENOENT);
	assert_int_equal(errno, ENOENT);
	assert_null(o.f);
	mtj_outfile_abort(&o);                /* harmless after a failed open */
	assert_int_equal(mtj_outfile_commit(&o), -EBADF);

	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	assert_int_equal(mtj_outfile_open(&o, longp, 0), -ENAMETOOLONG);

	/* the final name turned into a directory while we wrote: the commit fails and leaves
	 * neither the temporary nor anything else behind */
	path_of(p, sizeof(p), "becomes-dir");
	assert_int_equal(mtj_outfile_open(&o, p, 0), 0);
	fputs("x", o.f);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(mtj_outfile_commit(&o), -EISDIR);
	assert_int_equal(errno, EISDIR);
	assert_int_equal(entries(), 1);       /* just the directory */
	rmdir(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commit_creates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_keeps_old, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_regular_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
