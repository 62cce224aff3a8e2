/*
 * server — stands in for the program a test harness drives: it handles requests, and now
 * and then one takes too long; then on_timeout() is called.  That function is the trigger.
 *   server [requests]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static long elapsed_us(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000000 + (b.tv_nsec - a->tv_nsec) / 1000;
}

/* Busy for `us` microseconds: the work a real server would do, at a steady pace. */
static void spin_us(long us)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed_us(&t0) < us)
		sink++;
}

__attribute__((noinline)) void compress_block(int slow)
{
	spin_us(slow ? 20000 : 300);
}

__attribute__((noinline)) void lookup_index(int id)
{
	spin_us(1500 + (id % 3) * 200);
}

/* Every 30th request takes the long compression path. */
__attribute__((noinline)) void handle_request(int id)
{
	lookup_index(id);
	compress_block(id % 30 == 29);
}

__attribute__((noinline)) void on_timeout(int id, long us)
{
	printf("request %d timed out (%ld us)\n", id, us);
}

int main(int argc, char **argv)
{
	int requests = argc > 1 ? atoi(argv[1]) : 40;
	int slow = 0;
	for (int id = 0; id < requests; id++) {
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		handle_request(id);
		long us = elapsed_us(&t0);
		if (us > 10000 && ++slow == 1)
			on_timeout(id, us);
	}
	printf("%d requests, %d slow\n", requests, slow);
	return 0;
}
