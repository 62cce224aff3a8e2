/*
 * preload/demangle.c — C++ and Rust (legacy) names, without linking libstdc++.
 *
 * The preload and the tool are C: __cxa_demangle is borrowed from the libstdc++ already in
 * the process when there is one, and only loaded when a mangled name actually needs it
 * (a Rust or C++ program without libstdc++ loaded).  Rust "v0" names (_R...) stay mangled.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "preload/symbols.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *n, int *status);

static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;
/* dlopen may run hooks that resolve symbols again, in this thread: they must not wait for
 * the pthread_once in progress (a deadlock); they do without demangling instead. */
static __thread bool in_lookup;

static void find_cxa_demangle(void)
{
	in_lookup = true;
	void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!f) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			h = dlopen("libstdc++.so.6", RTLD_LAZY);
		if (h)
			f = dlsym(h, "__cxa_demangle");
	}
	/* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
	memcpy(&cxa_demangle, &f, sizeof f);
	in_lookup = false;
}

/* Rust legacy names escape what C++ identifiers cannot hold: "$LT$" is '<', "$u20$" ' ',
 * ".." is "::".  Decoded in place (the result is never longer). */
static void rust_unescape(char *s)
{
	static const struct { const char *esc; char c; } tab[] = {
		{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' },
		{ "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' },
	};
	char *w = s;
	for (const char *r = s; *r;) {
		/* a component starting with an escape gets a '_' in front of it */
		if (r[0] == '_' && r[1] == '$' && (r == s || (r - s >= 2 && r[-1] == ':' && r[-2] == ':'))) {
			r++;
			continue;
		}
		if (r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
			continue;
		}
		if (*r == '$') {
			size_t i;
			for (i = 0; i < sizeof tab / sizeof tab[0]; i++)
				if (!strncmp(r, tab[i].esc, strlen(tab[i].esc)))
					break;
			if (i < sizeof tab / sizeof tab[0]) {
				*w++ = tab[i].c;
				r += strlen(tab[i].esc);
				continue;
			}
			if (r[1] == 'u' && isxdigit((unsigned char)r[2]) && isxdigit((unsigned char)r[3]) &&
			    r[4] == '$') {
				char hex[3] = { r[2], r[3], 0 };
				*w++ = (char)strtol(hex, NULL, 16);
				r += 5;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* "a::b::h0123456789abcdef" -> "a::b": the hash only tells crate versions apart. */
static bool strip_rust_hash(char *s)
{
	size_t n = strlen(s);
	if (n < 21 || strncmp(s + n - 19, "::h", 3))
		return false;
	for (size_t i = n - 16; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	s[n - 19] = '\0';
	return true;
}

char *mtj_demangle(const char *name)
{
	if (!name || strncmp(name, "_Z", 2) || in_lookup)
		return NULL;
	pthread_once(&cxa_once, find_cxa_demangle);
	if (!cxa_demangle)
		return NULL;
	int status = -1;
	char *d = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	if (!strncmp(name, "_ZN", 3) && strip_rust_hash(d))
		rust_unescape(d);
	return d;
}
