/*
 * tests/tools/fxt-check — validate a Fuchsia trace written by mtinject and dump it as text.
 *
 *   fxt-check FILE            parse every record; exit 0 and print a summary if valid
 *   fxt-check FILE --dump     also print one line per event / kernel object:
 *                               process PID NAME
 *                               thread PID TID NAME
 *                               TS_NS PH PID TID NAME [key=value ...]   (PH: B E I)
 *   fxt-check FILE --stats    print counters as "key value" lines
 * Exit 1 with "fxt-check: FILE: <problem>" when the trace is invalid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tools/fxt-read.h"
#include "tests/tools/slurp.h"

static void print_escaped(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	}
}

static void dump_event(void *ctx, const struct fxt_ev *ev)
{
	static const char ph[] = { 'I', 'C', 'B', 'E', 'X' };
	uint64_t tps = *(uint64_t *)ctx;

	printf("%llu %c %llu %llu ", (unsigned long long)(ev->ts * (1000000000ull / tps)),
	       ev->type < sizeof(ph) ? ph[ev->type] : '?', (unsigned long long)ev->pid,
	       (unsigned long long)ev->tid);
	print_escaped(ev->name);
	for (unsigned i = 0; i < ev->nargs; i++) {
		const struct fxt_arg *a = &ev->args[i];

		printf(" %s=", a->key);
		if (a->type == 6)
			print_escaped(a->s);
		else if (a->type == 7)
			printf("0x%llx", (unsigned long long)a->u);
		else if (a->type == 3)
			printf("%lld", (long long)a->u);
		else if (a->type == 0)
			printf("null");
		else
			printf("%llu", (unsigned long long)a->u);
	}
	putchar('\n');
}

static void dump_kobj(void *ctx, unsigned type, uint64_t koid, const char *name, uint64_t pid)
{
	(void)ctx;
	if (type == 1)
		printf("process %llu %s\n", (unsigned long long)koid, name);
	else if (type == 2)
		printf("thread %llu %llu %s\n", (unsigned long long)pid, (unsigned long long)koid, name);
}

int main(int argc, char **argv)
{
	int dump = 0, stats = 0;
	const char *path = NULL;
	struct fxt_stats st;
	char err[256];
	size_t len;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dump") == 0)
			dump = 1;
		else if (strcmp(argv[i], "--stats") == 0)
			stats = 1;
		else if (!path && argv[i][0] != '-')
			path = argv[i];
		else {
			fprintf(stderr, "usage: fxt-check FILE [--dump] [--stats]\n");
			return 2;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: fxt-check FILE [--dump] [--stats]\n");
		return 2;
	}
	void *data = slurp(path, &len);

	if (!data) {
		fprintf(stderr, "fxt-check: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* ticks are converted with the file's own rate; we write 1e9 so the dump shows ns */
	uint64_t tps = 1000000000ull;
	struct fxt_sink sink = { .ctx = &tps, .event = dump_event, .kobj = dump_kobj };
	int rc = fxt_read(data, len, dump ? &sink : NULL, &st, err, sizeof(err));

	free(data);
	if (rc) {
		fflush(stdout);
		fprintf(stderr, "fxt-check: %s: %s\n", path, err);
		return 1;
	}
	if (st.ticks_per_second != 1000000000ull) {
		fprintf(stderr, "fxt-check: %s: %llu ticks per second, 1000000000 expected\n", path,
			(unsigned long long)st.ticks_per_second);
		return 1;
	}
	if (stats) {
		printf("records %llu\nstring_records %llu\nstring_redefs %llu\nmax_string_index %u\n"
		       "thread_records %llu\nthread_redefs %llu\nmax_thread_index %u\nevents %llu\n"
		       "begins %llu\nends %llu\ninstants %llu\nkernel_objects %llu\ninline_strings %llu\n",
		       (unsigned long long)st.records, (unsigned long long)st.string_records,
		       (unsigned long long)st.string_redefs, st.max_string_index,
		       (unsigned long long)st.thread_records, (unsigned long long)st.thread_redefs,
		       st.max_thread_index, (unsigned long long)st.events, (unsigned long long)st.begins,
		       (unsigned long long)st.ends, (unsigned long long)st.instants,
		       (unsigned long long)st.kobjs, (unsigned long long)st.inline_strings);
	} else if (!dump)
		printf("ok: %llu events (%llu begin, %llu end, %llu instant), %llu string records "
		       "(%llu re-definitions), %llu thread records\n",
		       (unsigned long long)st.events, (unsigned long long)st.begins,
		       (unsigned long long)st.ends, (unsigned long long)st.instants,
		       (unsigned long long)st.string_records, (unsigned long long)st.string_redefs,
		       (unsigned long long)st.thread_records);
	return 0;
}
