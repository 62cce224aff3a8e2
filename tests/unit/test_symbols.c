/*
 * test_symbols — symbol resolution against real ELF files: this test binary (a PIE with
 * static functions), libc (.dynsym only, versioned, IFUNCs), the test programs sym_app,
 * sym_cxx and libsym_a.so (build/tests/programs, found next to this binary), and copies
 * of them made here with strip/objcopy (stripped, duplicate static names, truncated).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "preload/elfsyms.h"
#include "preload/symbols.h"
#include "preload/symmatch.h"

/* Kept short of PATH_MAX so paths built from them provably fit. */
static char progdir[1024];   /* build/tests/programs */
static char tmpdir[1024];

__attribute__((noinline, used)) static int symtest_static_target(int x)
{
	return x * 7 + 1;
}

__attribute__((noinline, used, visibility("default"))) int symtest_global_target(int x);
__attribute__((noinline, used, visibility("default"))) int symtest_global_target(int x)
{
	return symtest_static_target(x) + 2;
}

static int dummy_data = 5;

static void prog(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", progdir, name);
}

static struct mtj_trigger_spec sym_spec(const char *symbol, const char *object)
{
	struct mtj_trigger_spec t;
	memset(&t, 0, sizeof t);
	t.kind = MTJ_LOC_SYMBOL;
	snprintf(t.symbol, sizeof t.symbol, "%s", symbol);
	snprintf(t.object, sizeof t.object, "%s", object ? object : "");
	return t;
}

static int resolve(const char *symbol, const char *object, struct mtj_location *loc, char *err,
		   size_t errlen)
{
	struct mtj_trigger_spec t = sym_spec(symbol, object);
	err[0] = '\0';
	return mtj_resolve_location(&t, loc, err, errlen);
}

/* Resolve in a FILE (not loaded), bias 0, as the executable. */
static int resolve_file(const char *file, const char *symbol, struct mtj_location *loc, char *err,
			size_t errlen)
{
	struct mtj_trigger_spec t = sym_spec(symbol, NULL);
	struct mtj_sym_object o = { file, NULL, 0, true };
	err[0] = '\0';
	return mtj_resolve_in_objects(&t, &o, 1, loc, err, errlen);
}

static void *libc_handle(void)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	assert_non_null(h);
	return h;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Run a shell command for a fixture; its failure fails the test. */
static void sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("fixture command failed: %s", cmd);
}

/* First, while the cache is cold: what the preload's constructor pays per trigger. */
static void test_timing(void **state)
{
	(void)state;
	struct mtj_location loc;
	char err[2048];
	uint64_t t0 = now_ns();
	assert_int_equal(resolve("symtest_static_target", NULL, &loc, err, sizeof err), 0);
	uint64_t t1 = now_ns();
	assert_int_equal(resolve("malloc", "libc.so.6", &loc, err, sizeof err), 0);
	uint64_t t2 = now_ns();
	assert_int_equal(resolve("free", "libc.so.6", &loc, err, sizeof err), 0);
	uint64_t t3 = now_ns();
	print_message("resolve, cold cache: main executable %.1f us, libc %.1f us; warm libc %.1f us\n",
		      (t1 - t0) / 1e3, (t2 - t1) / 1e3, (t3 - t2) / 1e3);
}

static void test_static_and_global_in_main(void **state)
{
	(void)state;
	struct mtj_location loc;
	char err[2048], exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(resolve("symtest_static_target", NULL, &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, (uint64_t)(uintptr_t)symtest_static_target);
	assert_string_equal(loc.symbol, "symtest_static_target");
	assert_string_equal(loc.object, exe);
	assert_true(loc.size > 0);
	assert_int_equal(resolve("symtest_global_target", NULL, &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, (uint64_t)(uintptr_t)symtest_global_target);
	/* the executable by its file name, as "object" */
	const char *base = strrchr(exe, '/') + 1;
	assert_int_equal(resolve("symtest_static_target", base, &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, (uint64_t)(uintptr_t)symtest_static_target);
}

static void test_libc_dynsym_versions_ifunc(void **state)
{
	(void)state;
	void *h = libc_handle();
	struct mtj_location loc;
	char err[2048];
	assert_int_equal(resolve("malloc", "libc.so.6", &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, (uint64_t)(uintptr_t)dlsym(h, "malloc"));
	assert_string_equal(loc.symbol, "malloc");
	/* "libc.so" names libc.so.6 too; a path names it */
	assert_int_equal(resolve("malloc", "libc.so", &loc, err, sizeof err), 0);
	Dl_info info;
	assert_true(dladdr(dlsym(h, "malloc"), &info));
	assert_int_equal(resolve("malloc", info.dli_fname, &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, (uint64_t)(uintptr_t)dlsym(h, "malloc"));
	/* two versions at two addresses: the default one (realpath@@GLIBC_2.3) */
	assert_int_equal(resolve("realpath", "libc.so.6", &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, (uint64_t)(uintptr_t)dlsym(h, "realpath"));
	/* an IFUNC: the implementation the resolver picks, as the dynamic linker did */
	assert_int_equal(resolve("strlen", "libc.so.6", &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, (uint64_t)(uintptr_t)dlsym(h, "strlen"));
	assert_non_null(strstr(loc.symbol, "strlen"));
	/* not in the executable: the message says where it is */
	assert_int_equal(resolve("getpid", NULL, &loc, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "use 'getpid@libc.so.6'"));
	dlclose(h);
}

static void test_shared_object(void **state)
{
	(void)state;
	char lib[PATH_MAX], err[2048];
	struct mtj_location loc;
	prog(lib, sizeof lib, "libsym_a.so");
	assert_int_equal(resolve("libsym_parse", "libsym_a.so", &loc, err, sizeof err), -EAGAIN);
	assert_string_equal(err, "libsym_a.so is not loaded (yet): the trigger is armed when it is dlopen'ed");
	void *h = dlopen(lib, RTLD_NOW);
	assert_non_null(h);
	uint64_t parse = (uint64_t)(uintptr_t)dlsym(h, "libsym_parse");
	assert_int_equal(resolve("libsym_parse", "libsym_a.so", &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, parse);
	assert_int_equal(resolve("libsym_parse", lib, &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, parse);
	/* a static function of the library, then back to its name */
	assert_int_equal(resolve("libsym_static_helper", "libsym_a.so", &loc, err, sizeof err), 0);
	char sym[256], obj[PATH_MAX];
	assert_int_equal(mtj_symbolize_self(loc.addr + 3, sym, sizeof sym, obj, sizeof obj), 0);
	assert_string_equal(sym, "libsym_static_helper+0x3");
	assert_non_null(strstr(obj, "libsym_a.so"));
	/* file offset: the library's own program headers convert it */
	struct mtj_elf *e;
	assert_int_equal(mtj_elf_open(lib, NULL, &e), 0);
	assert_int_equal(mtj_elf_read_syms(e), 0);
	size_t idx;
	assert_int_equal(mtj_match(e, "libsym_parse", &idx, 1), 1);
	uint64_t off;
	assert_int_equal(mtj_elf_vaddr_to_offset(e, e->syms[idx].value, &off), 0);
	mtj_elf_free(e);
	struct mtj_trigger_spec t = sym_spec("", "libsym_a.so");
	t.kind = MTJ_LOC_OFFSET;
	t.offset = off;
	assert_int_equal(mtj_resolve_location(&t, &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, parse);
	assert_string_equal(loc.symbol, "libsym_parse");
	/* per object, as on dlopen */
	struct dl_find { const char *want; uint64_t bias; char path[PATH_MAX]; } f = { "libsym_a.so", 0, "" };
	Dl_info info;
	assert_true(dladdr((void *)(uintptr_t)parse, &info));
	snprintf(f.path, sizeof f.path, "%s", info.dli_fname);
	struct link_map *lm;
	assert_int_equal(dlinfo(h, RTLD_DI_LINKMAP, &lm), 0);
	f.bias = lm->l_addr;
	t = sym_spec("libsym_parse", "libsym_a.so");
	assert_int_equal(mtj_resolve_in_object(&t, f.path, f.bias, &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, parse);
	assert_int_equal(mtj_resolve_in_object(&t, "/lib/x86_64-linux-gnu/libc.so.6", 0x1000, &loc, err, sizeof err), -EAGAIN);
	dlclose(h);
}

static void test_soname(void **state)
{
	(void)state;
	/* A copy of libm under another file name: only its DT_SONAME says libm.so.6. */
	char copy[1100];
	snprintf(copy, sizeof copy, "%s/libmcopy.so", tmpdir);
	sh("cp \"$(ldconfig -p | grep -m1 'libm.so.6 (libc6,x86-64)' | sed 's/.*=> //')\" %s", copy);
	assert_true(mtj_object_matches(copy, "libm.so.6"));
	assert_true(mtj_object_matches(copy, "libmcopy.so"));
	assert_true(mtj_object_matches(copy, copy));
	assert_false(mtj_object_matches(copy, "libc.so.6"));
	assert_false(mtj_object_matches(copy, "libm.so.7"));
}

static void test_cxx_names(void **state)
{
	(void)state;
	char cxx[PATH_MAX], err[2048];
	struct mtj_location loc, loc2;
	prog(cxx, sizeof cxx, "sym_cxx");
	assert_int_equal(resolve_file(cxx, "_ZN2ns5Class6methodEi", &loc, err, sizeof err), 0);
	assert_int_equal(resolve_file(cxx, "ns::Class::method(int)", &loc2, err, sizeof err), 0);
	assert_int_equal(loc.addr, loc2.addr);
	assert_string_equal(loc2.symbol, "_ZN2ns5Class6methodEi");
	assert_int_equal(resolve_file(cxx, "ns::Class::method( int )", &loc2, err, sizeof err), 0);
	assert_int_equal(loc.addr, loc2.addr);
	assert_int_equal(resolve_file(cxx, "ns::Class::method(double)", &loc2, err, sizeof err), 0);
	assert_string_equal(loc2.symbol, "_ZN2ns5Class6methodEd");
	assert_int_equal(resolve_file(cxx, "ns::Class::single", &loc2, err, sizeof err), 0);
	assert_string_equal(loc2.symbol, "_ZNK2ns5Class6singleEPKcm");
	assert_int_equal(resolve_file(cxx, "ns::Class::single(char const*, unsigned long) const", &loc2, err, sizeof err), 0);
	assert_string_equal(loc2.symbol, "_ZNK2ns5Class6singleEPKcm");
	assert_int_equal(resolve_file(cxx, "ns::twice<int>", &loc2, err, sizeof err), 0);
	assert_string_equal(loc2.symbol, "_ZN2ns5twiceIiEET_S1_");
	assert_int_equal(resolve_file(cxx, "ns::Class::operator<", &loc2, err, sizeof err), 0);
	assert_string_equal(loc2.symbol, "_ZNK2ns5ClassltERKS0_");
	assert_int_equal(resolve_file(cxx, "hidden_helper", &loc2, err, sizeof err), 0);
	assert_string_equal(loc2.symbol, "_ZN12_GLOBAL__N_113hidden_helperEi");
	/* overloads without a parameter list: both listed */
	assert_int_equal(resolve_file(cxx, "ns::Class::method", &loc2, err, sizeof err), -EEXIST);
	assert_non_null(strstr(err, "'ns::Class::method' is ambiguous: 2 functions match: "));
	assert_non_null(strstr(err, "ns::Class::method(int) (global) at 0x"));
	assert_non_null(strstr(err, "ns::Class::method(double) (global) at 0x"));
	assert_non_null(strstr(err, "[sym_cxx+0x"));
	/* a typo in a method name */
	assert_int_equal(resolve_file(cxx, "ns::Class::methd", &loc2, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "did you mean 'ns::Class::method'"));
}

static void test_demangle(void **state)
{
	(void)state;
	char *d = mtj_demangle("_ZN2ns5Class6methodEi");
	assert_string_equal(d, "ns::Class::method(int)");
	free(d);
	d = mtj_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
	assert_string_equal(d, "core::fmt::write");
	free(d);
	d = mtj_demangle("_ZN60_$LT$alloc..string..String$u20$as$u20$core..fmt..Display$GT$3fmt17h0123456789abcdefE");
	assert_string_equal(d, "<alloc::string::String as core::fmt::Display>::fmt");
	free(d);
	assert_null(mtj_demangle("_RNvCs1234_7mycrate3foo"));   /* Rust v0: left mangled */
	assert_null(mtj_demangle("main"));
	assert_null(mtj_demangle("_Znot a name"));
	char out[128];
	mtj_demangled_noargs("void ns::f<int>(int) const", out, sizeof out);
	assert_string_equal(out, "ns::f<int>");
	mtj_demangled_noargs("ns::Class::operator()(int)", out, sizeof out);
	assert_string_equal(out, "ns::Class::operator()");
	mtj_demangled_noargs("operator new(unsigned long)", out, sizeof out);
	assert_string_equal(out, "operator new");
	mtj_demangled_noargs("foo[abi:cxx11](int) [clone .cold]", out, sizeof out);
	assert_string_equal(out, "foo");
}

static void test_ambiguous_and_suggestions(void **state)
{
	(void)state;
	char app[PATH_MAX], dupes[1100], err[4096];
	struct mtj_location one, two, loc;
	prog(app, sizeof app, "sym_app");
	snprintf(dupes, sizeof dupes, "%s/sym_dupes", tmpdir);
	/* two static functions named "init" in one executable */
	sh("objcopy --redefine-sym sym_init_one=init %s %s.tmp && "
	   "objcopy --redefine-sym sym_init_two=init %s.tmp %s", app, dupes, dupes, dupes);
	assert_int_equal(resolve_file(app, "sym_init_one", &one, err, sizeof err), 0);
	assert_int_equal(resolve_file(app, "sym_init_two", &two, err, sizeof err), 0);
	assert_int_equal(resolve_file(dupes, "init", &loc, err, sizeof err), -EEXIST);
	char want[4 * PATH_MAX];
	snprintf(want, sizeof want, "'init' is ambiguous: 2 functions match: init (static, sym_app.c) at 0x%" PRIx64
		 " in %s [sym_dupes+0x%" PRIx64 "]; init (static, sym_app.c) at 0x%" PRIx64 " in %s [sym_dupes+0x%" PRIx64
		 "]; name one with object+0xOFFSET", one.addr, dupes, one.addr, two.addr, dupes, two.addr);
	assert_string_equal(err, want);
	/* the offered spelling resolves */
	struct mtj_trigger_spec t = sym_spec("", "sym_dupes");
	t.kind = MTJ_LOC_OFFSET;
	t.offset = two.addr;   /* text: file offset == address in this PIE */
	struct mtj_sym_object o = { dupes, NULL, 0, true };
	assert_int_equal(mtj_resolve_in_objects(&t, &o, 1, &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, two.addr);
	assert_string_equal(loc.symbol, "init");
	/* no such name */
	assert_int_equal(resolve_file(app, "sym_init", &loc, err, sizeof err), -ENOENT);
	snprintf(want, sizeof want, "no function 'sym_init' in %s (did you mean 'sym_init_one', 'sym_init_two', '_init'?)", app);
	assert_string_equal(err, want);
	assert_int_equal(resolve_file(app, "sym_static_workr", &loc, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "(did you mean 'sym_static_worker'?)"));
	/* aliases at one address are one function */
	void *h = libc_handle();
	assert_int_equal(resolve("__libc_malloc", "libc.so.6", &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, (uint64_t)(uintptr_t)dlsym(h, "malloc"));
	dlclose(h);
}

struct collect { int n; bool parse, helper, main_fn; };

static int collect_cb(const struct mtj_symbol *s, void *arg)
{
	struct collect *c = arg;
	c->n++;
	c->parse |= !strcmp(s->name, "libsym_parse") && !s->is_local;
	c->helper |= !strcmp(s->name, "libsym_static_helper") && s->is_local;
	c->main_fn |= !strcmp(s->name, "main");
	return 0;
}

static void test_stripped_and_bad_files(void **state)
{
	(void)state;
	char lib[PATH_MAX], app[PATH_MAX], path[2 * PATH_MAX];
	prog(lib, sizeof lib, "libsym_a.so");
	prog(app, sizeof app, "sym_app");
	struct collect c = { 0 };
	assert_int_equal(mtj_symbols_foreach(lib, collect_cb, &c), 0);
	assert_true(c.parse && c.helper);
	/* stripped library: .dynsym still has the exported functions, not the static one */
	snprintf(path, sizeof path, "%s/libsym_stripped.so", tmpdir);
	sh("strip -o %s %s", path, lib);
	memset(&c, 0, sizeof c);
	assert_int_equal(mtj_symbols_foreach(path, collect_cb, &c), 0);
	assert_true(c.parse);
	assert_false(c.helper);
	/* stripped executable: its .dynsym defines no function */
	snprintf(path, sizeof path, "%s/sym_app_stripped", tmpdir);
	sh("strip -o %s %s", path, app);
	assert_int_equal(mtj_symbols_foreach(path, collect_cb, &c), -ENODATA);
	assert_string_equal(mtj_symbols_strerror(-ENODATA), "stripped: no .symtab or .dynsym");
	struct mtj_location loc;
	char err[1024];
	assert_int_equal(resolve_file(path, "main", &loc, err, sizeof err), -ENOENT);
	snprintf(path, sizeof path, "cannot look up 'main': %s/sym_app_stripped: stripped: no .symtab or .dynsym", tmpdir);
	assert_string_equal(err, path);
	/* not ELF, missing */
	snprintf(path, sizeof path, "%s/notelf", tmpdir);
	sh("echo 'just text' > %s", path);
	assert_int_equal(mtj_symbols_foreach(path, collect_cb, &c), -ENOEXEC);
	assert_string_equal(mtj_symbols_strerror(-ENOEXEC), "not an ELF file");
	assert_int_equal(mtj_symbols_foreach("/nonexistent/file", collect_cb, &c), -ENOENT);
}

/* Truncated and corrupted copies of a real ELF: errors, never crashes (run under ASan). */
static void test_truncated_and_corrupt(void **state)
{
	(void)state;
	char app[PATH_MAX], path[PATH_MAX + 32];
	prog(app, sizeof app, "sym_app");
	FILE *f = fopen(app, "rb");
	assert_non_null(f);
	static unsigned char buf[1 << 20];
	size_t size = fread(buf, 1, sizeof buf, f);
	fclose(f);
	assert_true(size > 1024 && size < sizeof buf);
	snprintf(path, sizeof path, "%s/cut", tmpdir);
	int ok = 0, failed = 0;
	for (size_t len = 0; len <= size; len = len == size ? size + 1 : len < 256 ? len + 1 : len + 97 > size ? size : len + 97) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, buf, len), (ssize_t)len);
		close(fd);
		struct collect c = { 0 };
		int rc = mtj_symbols_foreach(path, collect_cb, &c);
		rc == 0 ? ok++ : failed++;
		if (len < 64)
			assert_true(rc == -ENOEXEC || rc == -EBADMSG);
	}
	/* bytes flipped all over the headers and tables (fixed seed: reproducible) */
	unsigned seed = 12345;
	for (int round = 0; round < 300; round++) {
		static unsigned char mut[1 << 20];
		memcpy(mut, buf, size);
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245 + 12345;
			size_t pos = (seed >> 8) % (round & 1 ? size : 4096);
			mut[pos] ^= (unsigned char)(seed >> 3);
		}
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, mut, size), (ssize_t)size);
		close(fd);
		struct collect c = { 0 };
		mtj_symbols_foreach(path, collect_cb, &c);
		struct mtj_location loc;
		char err[1024];
		resolve_file(path, "sym_init", &loc, err, sizeof err);
	}
	print_message("truncated copies: %d read, %d refused\n", ok, failed);
	assert_true(failed > 0 && ok > 0);
}

static void test_addresses_and_symbolize(void **state)
{
	(void)state;
	char sym[256], obj[PATH_MAX], exe[1024], err[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	uint64_t a = (uint64_t)(uintptr_t)symtest_static_target;
	assert_int_equal(mtj_symbolize_self(a + 0x5, sym, sizeof sym, obj, sizeof obj), 0);
	assert_string_equal(sym, "symtest_static_target+0x5");
	assert_string_equal(obj, exe);
	void *h = libc_handle();
	assert_int_equal(mtj_symbolize_self((uint64_t)(uintptr_t)dlsym(h, "malloc"), sym, sizeof sym, obj, sizeof obj), 0);
	assert_string_equal(sym, "malloc+0x0");
	dlclose(h);
	int local = 0;
	assert_int_equal(mtj_symbolize_self((uint64_t)(uintptr_t)&local, sym, sizeof sym, obj, sizeof obj), -ENOENT);
	/* absolute addresses */
	struct mtj_trigger_spec t = sym_spec("", NULL);
	struct mtj_location loc;
	t.kind = MTJ_LOC_ADDR;
	t.addr = a;
	assert_int_equal(mtj_resolve_location(&t, &loc, err, sizeof err), 0);
	assert_int_equal(loc.addr, a);
	assert_string_equal(loc.symbol, "symtest_static_target+0x0");
	assert_string_equal(loc.object, exe);
	t.addr = (uint64_t)(uintptr_t)&local;
	assert_int_equal(mtj_resolve_location(&t, &loc, err, sizeof err), -EINVAL);
	snprintf(obj, sizeof obj, "0x%" PRIx64 " is not inside any loaded object", t.addr);
	assert_string_equal(err, obj);
	t.addr = (uint64_t)(uintptr_t)&dummy_data;
	assert_int_equal(mtj_resolve_location(&t, &loc, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "but not in executable code"));
	/* offsets outside code or the file */
	t = sym_spec("", strrchr(exe, '/') + 1);
	t.kind = MTJ_LOC_OFFSET;
	t.offset = 0x10;
	assert_int_equal(mtj_resolve_location(&t, &loc, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "is not in executable code"));
	t.offset = 0x7fffffff;
	assert_int_equal(mtj_resolve_location(&t, &loc, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "is not inside a loadable segment of"));
}

/* PT_LOAD conversion where file offset and address differ (the data segment). */
static void test_offset_conversion(void **state)
{
	(void)state;
	char app[PATH_MAX];
	prog(app, sizeof app, "sym_app");
	struct mtj_elf *e;
	assert_int_equal(mtj_elf_open(app, NULL, &e), 0);
	bool checked = false;
	for (size_t i = 0; i < e->nloads; i++) {
		const struct mtj_elf_load *l = &e->loads[i];
		if (l->vaddr == l->offset || !l->filesz)
			continue;
		uint64_t v, off;
		bool exec;
		assert_int_equal(mtj_elf_offset_to_vaddr(e, l->offset + 4, &v, &exec), 0);
		assert_int_equal(v, l->vaddr + 4);
		assert_int_equal(exec, (l->flags & PF_X) != 0);
		assert_int_equal(mtj_elf_vaddr_to_offset(e, l->vaddr + 4, &off), 0);
		assert_int_equal(off, l->offset + 4);
		checked = true;
	}
	assert_true(checked);
	assert_true(e->is_exec);
	mtj_elf_free(e);
}

int main(int argc, char **argv)
{
	(void)argc;
	char self[PATH_MAX];
	if (!realpath(argv[0], self) || strlen(self) > 900)
		return 1;
	*strrchr(self, '/') = '\0';
	snprintf(progdir, sizeof progdir, "%s/../programs", self);
	snprintf(tmpdir, sizeof tmpdir, "/tmp/mtj-test-symbols.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_static_and_global_in_main),
		cmocka_unit_test(test_libc_dynsym_versions_ifunc),
		cmocka_unit_test(test_shared_object),
		cmocka_unit_test(test_soname),
		cmocka_unit_test(test_cxx_names),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_ambiguous_and_suggestions),
		cmocka_unit_test(test_stripped_and_bad_files),
		cmocka_unit_test(test_truncated_and_corrupt),
		cmocka_unit_test(test_addresses_and_symbolize),
		cmocka_unit_test(test_offset_conversion),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
