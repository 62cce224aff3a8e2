/*
 * tests/bench/writer-bench.c — trace writer throughput: N synthetic events (nested begin/end
 * over 4 threads, 2000 distinct C++-like names, an instant with 8 args every 1000 events)
 * through each format into a file; prints events/s and bytes/event per format.
 *
 *   writer-bench [EVENTS] [DIR]      (default 1000000 events, DIR /tmp)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decode/trace.h"

#define NNAMES 2000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(enum mtj_format fmt, unsigned long events, char **names, const char *path)
{
	struct mtj_writer w;
	FILE *f = fopen(path, "w");
	unsigned depth[4] = { 0 }, stack[4][24];
	uint64_t ts = 1000000000;
	uint32_t seed = 1;
	struct mtj_arg args[8];
	double t0, t1;
	int rc;

	if (!f)
		return -1;
	for (int i = 0; i < 8; i++)
		args[i] = (struct mtj_arg){ .key = i ? "arg" : "trigger", .type = i ? MTJ_ARG_HEX : MTJ_ARG_STR,
					    .u = 0x7ffd0000 + (uint64_t)i };
	args[0].s = "my_function";
	t0 = now();
	rc = mtj_writer_open(&w, fmt, f);
	mtj_writer_process_name(&w, 4242, "bench");
	for (unsigned t = 0; t < 4; t++)
		mtj_writer_thread_name(&w, 4242, 4243 + t, "worker");
	for (unsigned long i = 0; i < events && !rc; i++) {
		unsigned t = (unsigned)(i / 64) % 4;

		seed = seed * 1664525u + 1013904223u;
		ts += 50 + (seed >> 26);
		if (i % 1000 == 999)
			rc = mtj_writer_instant(&w, 4242, 4243 + t, ts, "hit: my_function", args, 8);
		else if (depth[t] < 24 && (depth[t] < 2 || (seed >> 8) % 2)) {
			unsigned n = (seed >> 12) % NNAMES;

			stack[t][depth[t]++] = n;
			rc = mtj_writer_begin(&w, 4242, 4243 + t, ts, names[n], "/usr/lib/libbench.so.1");
		} else
			rc = mtj_writer_end(&w, 4242, 4243 + t, ts, names[stack[t][--depth[t]]]);
	}
	uint64_t n = w.events;
	if (!rc)
		rc = mtj_writer_close(&w);
	fclose(f);
	t1 = now();
	if (rc) {
		fprintf(stderr, "writer-bench: %s failed: %d\n", mtj_writer_ops_for(fmt)->name, rc);
		return -1;
	}
	FILE *g = fopen(path, "r");
	fseek(g, 0, SEEK_END);
	long size = ftell(g);
	fclose(g);
	printf("%-7s %9llu events %8.3f s %10.0f events/s %6.1f bytes/event %10ld bytes\n",
	       mtj_writer_ops_for(fmt)->name, (unsigned long long)n, t1 - t0, (double)n / (t1 - t0),
	       (double)size / (double)n, size);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long events = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	char *names[NNAMES], path[4096];
	int rc = 0;

	for (int i = 0; i < NNAMES; i++) {
		names[i] = malloc(96);
		snprintf(names[i], 96, "bench::detail::Worker<std::vector<int>>::step_%d(unsigned long)", i);
	}
	for (enum mtj_format fmt = MTJ_FORMAT_JSON; fmt <= MTJ_FORMAT_FOLDED && !rc; fmt++) {
		snprintf(path, sizeof(path), "%s/mtj-writer-bench.%d", dir, (int)getpid());
		rc = run(fmt, events, names, path);
	}
	for (int i = 0; i < NNAMES; i++)
		free(names[i]);
	return rc ? 1 : 0;
}
