/*
 * libsym_a.so — a shared object for symbol-resolution tests: a global, a static and a weak
 * function.  Loaded with dlopen by test_symbols and by sym_app.
 */
static int helper_state;

static int libsym_static_helper(int x)
{
	helper_state += x;
	return helper_state * 3;
}

int libsym_parse(const char *s);
int libsym_parse(const char *s)
{
	int n = 0;
	while (s && *s)
		n += *s++;
	return libsym_static_helper(n);
}

__attribute__((weak)) int libsym_weak_hook(int x);
__attribute__((weak)) int libsym_weak_hook(int x)
{
	return x + 1;
}
