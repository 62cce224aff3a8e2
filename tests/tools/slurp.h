/* tests/tools/slurp.h — read a whole file into memory (test tools only; aborts on OOM). */
#ifndef MTJ_TESTS_SLURP_H
#define MTJ_TESTS_SLURP_H

#include <stdio.h>
#include <stdlib.h>

static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			if (!(buf = realloc(buf, cap)))
				abort();
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return buf;
}

#endif
