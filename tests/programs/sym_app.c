/*
 * sym_app — a PIE program for symbol-resolution tests (tests 5xx, test_symbols).
 *
 * It has static and global functions, two statics that tests rename to one name with
 * `objcopy --redefine-sym` (an executable cannot be linked with two static "init"s from one
 * source file), and a weak one.  With "--dlopen LIB" it loads LIB; with "--wait" it prints
 * "ready" and sleeps until stdin is closed, so a test can inspect it by PID.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int counter;

static int sym_static_worker(int x)
{
	counter += x;
	return counter;
}

static int sym_init_one(void)
{
	return sym_static_worker(1);
}

static int sym_init_two(void)
{
	return sym_static_worker(2) * 2;
}

int sym_global_entry(int x);
int sym_global_entry(int x)
{
	return sym_static_worker(x) + sym_init_one() + sym_init_two();
}

__attribute__((weak)) int sym_weak_fn(void);
__attribute__((weak)) int sym_weak_fn(void)
{
	return 7;
}

int main(int argc, char **argv)
{
	int wait = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dlopen") && i + 1 < argc) {
			if (!dlopen(argv[++i], RTLD_NOW)) {
				fprintf(stderr, "sym_app: %s\n", dlerror());
				return 1;
			}
		} else if (!strcmp(argv[i], "--wait")) {
			wait = 1;
		}
	}
	int r = sym_global_entry(argc) + sym_weak_fn();
	if (wait) {
		char c;
		printf("ready\n");
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
	}
	return r > 1000 ? 1 : 0;
}
