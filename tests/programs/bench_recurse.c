/*
 * bench_recurse — a multi-threaded recursive CPU workload with known function names and
 * thread names, for decode tests and benchmarks.
 *
 *   bench_recurse [SECONDS [THREADS]]      (defaults: 1 s, 2 threads)
 *
 * The main thread ("bench-main") runs main_loop(); worker N ("worker-N") runs
 * worker_loop() -> recurse(depth) -> ... -> recurse(0) -> leaf_spin().  recurse() alternates
 * with helper_a()/helper_b() so stacks change shape over time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static double seconds = 1.0;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void leaf_spin(unsigned n);
void helper_a(unsigned n);
void helper_b(unsigned n);
void recurse(unsigned depth, unsigned n);

void leaf_spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i * 7;
}

void helper_a(unsigned n)
{
	leaf_spin(n);
}

void helper_b(unsigned n)
{
	leaf_spin(n * 2);
}

void recurse(unsigned depth, unsigned n)
{
	if (depth == 0) {
		leaf_spin(n);
		return;
	}
	if (depth % 3 == 0)
		helper_a(n / 4);
	recurse(depth - 1, n);
	if (depth % 4 == 1)
		helper_b(n / 4);
}

static void *worker_loop(void *arg)
{
	char name[16];
	double end = now() + seconds;

	snprintf(name, sizeof(name), "worker-%lu", (unsigned long)arg);
	pthread_setname_np(pthread_self(), name);
	for (unsigned i = 0; now() < end; i++)
		recurse(6 + i % 5, 20000);
	return NULL;
}

static void main_loop(void)
{
	double end = now() + seconds;

	while (now() < end)
		helper_b(50000);
}

int main(int argc, char **argv)
{
	unsigned long nthreads = 2;
	pthread_t t[64];

	if (argc > 1)
		seconds = atof(argv[1]);
	if (argc > 2)
		nthreads = strtoul(argv[2], NULL, 10);
	if (nthreads > 64)
		nthreads = 64;
	pthread_setname_np(pthread_self(), "bench-main");
	for (unsigned long i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker_loop, (void *)(i + 1));
	main_loop();
	for (unsigned long i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("done %lu\n", sink ? 1ul : 0ul);
	return 0;
}
