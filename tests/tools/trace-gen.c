/*
 * tests/tools/trace-gen — drive the trace writers from a small text script, so integration
 * tests can state an event sequence and check each output format exactly.
 *
 *   trace-gen FORMAT OUT [--no-thread-root] < SCRIPT
 *   trace-gen FORMAT OUT --synthetic EVENTS NAMES THREADS
 *
 * SCRIPT lines (fields separated by spaces; in a field \s is a space, \n \t \\ \xHH as usual):
 *   P pid name                      process name
 *   T pid tid name                  thread name
 *   B pid tid ts_ns name [object]   begin
 *   E pid tid ts_ns name            end
 *   I pid tid ts_ns name [key=value ...]  instant (0x... -> hex arg, digits -> u64, else string)
 *   H path pid                      every hit of a hits.jsonl file (warnings go to stderr)
 *   # comment
 * A call the writer rejects prints "trace-gen: line N: ... rejected: <error>" and exits 1.
 * --synthetic writes EVENTS begin/end events over THREADS threads whose names cycle through
 * NAMES distinct strings (to exercise the FXT string table).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/hits.h"
#include "decode/trace.h"

static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			*d++ = *s;
			continue;
		}
		s++;
		switch (*s) {
		case 's': *d++ = ' '; break;
		case 'n': *d++ = '\n'; break;
		case 't': *d++ = '\t'; break;
		case 'x':
			if (s[1] && s[2]) {
				char hex[3] = { s[1], s[2], 0 };

				*d++ = (char)strtoul(hex, NULL, 16);
				s += 2;
			}
			break;
		default: *d++ = *s;
		}
	}
	*d = '\0';
}

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "trace-gen: warning: %s\n", msg);
}

static int synthetic(struct mtj_writer *w, unsigned long events, unsigned names, unsigned threads)
{
	unsigned depth[1024] = { 0 };
	char name[32];
	uint64_t ts = 1000000;
	uint32_t seed = 12345, k = 0;
	unsigned stack[1024][16];
	int rc = mtj_writer_process_name(w, 100, "synthetic");

	if (threads > 1024)
		threads = 1024;
	for (unsigned t = 0; t < threads && !rc; t++) {
		snprintf(name, sizeof(name), "worker-%u", t);
		rc = mtj_writer_thread_name(w, 100, 1000 + t, name);
	}
	for (unsigned long i = 0; i < events && !rc; i++) {
		unsigned t = (unsigned)(i % threads);

		seed = seed * 1103515245u + 12345u;
		ts += 1 + (seed >> 28);
		if (depth[t] < 16 && (depth[t] == 0 || (seed >> 16) % 3)) {
			unsigned n = k++ % names;

			snprintf(name, sizeof(name), "fn_%u", n);
			stack[t][depth[t]++] = n;
			rc = mtj_writer_begin(w, 100, 1000 + t, ts, name, (n & 1) ? "libsynth.so" : NULL);
		} else {
			snprintf(name, sizeof(name), "fn_%u", stack[t][--depth[t]]);
			rc = mtj_writer_end(w, 100, 1000 + t, ts, name);
		}
	}
	return rc;
}

int main(int argc, char **argv)
{
	enum mtj_format fmt;
	struct mtj_writer w;
	uint32_t flags = 0;
	FILE *out;
	int rc = 0;

	if (argc < 3 || mtj_format_from_name(argv[1], &fmt)) {
		fprintf(stderr, "usage: trace-gen json|fxt|folded OUT [--no-thread-root | --synthetic EVENTS NAMES THREADS]\n");
		return 2;
	}
	if (argc == 4 && strcmp(argv[3], "--no-thread-root") == 0)
		flags = MTJ_WRITER_FOLDED_NO_THREAD_ROOT;
	if (!(out = fopen(argv[2], "w"))) {
		fprintf(stderr, "trace-gen: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	if ((rc = mtj_writer_open_flags(&w, fmt, out, flags))) {
		fprintf(stderr, "trace-gen: open: %s\n", strerror(-rc));
		return 1;
	}
	if (argc == 7 && strcmp(argv[3], "--synthetic") == 0) {
		rc = synthetic(&w, strtoul(argv[4], NULL, 10), (unsigned)strtoul(argv[5], NULL, 10),
			       (unsigned)strtoul(argv[6], NULL, 10));
		if (rc)
			fprintf(stderr, "trace-gen: synthetic: %s\n", strerror(-rc));
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0;

	while (!rc && argc < 7 && getline(&line, &cap, stdin) >= 0) {
		char *f[24];
		int n = 0;

		lineno++;
		for (char *tok = strtok(line, " \t\r\n"); tok && n < 24; tok = strtok(NULL, " \t\r\n")) {
			unescape(tok);
			f[n++] = tok;
		}
		if (n == 0 || f[0][0] == '#')
			continue;
#define U32(i) ((uint32_t)strtoul(f[i], NULL, 10))
#define U64(i) ((uint64_t)strtoull(f[i], NULL, 10))
		if (f[0][0] == 'P' && n == 3)
			rc = mtj_writer_process_name(&w, U32(1), f[2]);
		else if (f[0][0] == 'T' && n == 4)
			rc = mtj_writer_thread_name(&w, U32(1), U32(2), f[3]);
		else if (f[0][0] == 'B' && (n == 5 || n == 6))
			rc = mtj_writer_begin(&w, U32(1), U32(2), U64(3), f[4], n == 6 ? f[5] : NULL);
		else if (f[0][0] == 'E' && n == 5)
			rc = mtj_writer_end(&w, U32(1), U32(2), U64(3), f[4]);
		else if (f[0][0] == 'I' && n >= 5) {
			struct mtj_arg a[19];
			int na = 0;

			for (int i = 5; i < n; i++) {
				char *eq = strchr(f[i], '=');

				if (!eq)
					continue;
				*eq++ = '\0';
				a[na].key = f[i];
				if (eq[0] == '0' && eq[1] == 'x') {
					a[na].type = MTJ_ARG_HEX;
					a[na].u = strtoull(eq, NULL, 16);
				} else if (eq[0] >= '0' && eq[0] <= '9' && eq[strspn(eq, "0123456789")] == '\0') {
					a[na].type = MTJ_ARG_U64;
					a[na].u = strtoull(eq, NULL, 10);
				} else {
					a[na].type = MTJ_ARG_STR;
					a[na].s = eq;
				}
				na++;
			}
			rc = mtj_writer_instant(&w, U32(1), U32(2), U64(3), f[4], a, (size_t)na);
		} else if (f[0][0] == 'H' && n == 3) {
			struct mtj_hits hits = { 0 };
			long nh = mtj_hits_load(f[1], &hits, warn_cb, NULL);

			if (nh < 0) {
				fprintf(stderr, "trace-gen: %s: %s\n", f[1], strerror((int)-nh));
				rc = (int)nh;
			}
			for (size_t i = 0; i < hits.n && !rc; i++)
				rc = mtj_hit_emit(&w, &hits.v[i], U32(2));
			if (nh >= 0)
				fprintf(stderr, "trace-gen: %s: %zu hits, %zu bad lines\n", f[1], hits.n, hits.bad_lines);
			mtj_hits_free(&hits);
		} else {
			fprintf(stderr, "trace-gen: line %zu: cannot parse\n", lineno);
			rc = -EINVAL;
			break;
		}
		if (rc)
			fprintf(stderr, "trace-gen: line %zu: %s rejected: %s\n", lineno, f[0], strerror(-rc));
	}
	free(line);
	int crc = mtj_writer_close(&w);

	if (crc)
		fprintf(stderr, "trace-gen: close: %s\n", strerror(-crc));
	if (fclose(out) && !crc)
		crc = -EIO;
	return rc || crc ? 1 : 0;
}
