#define _GNU_SOURCE
/*
 * mt_worker — the integration tests' multi-threaded target.  Two named worker threads do
 * recognisable work (parse_input -> checksum_block), then worker-2 calls handle_request(),
 * the usual trigger.  stdout and the exit status (3) are deterministic, so a run under the
 * preload can be compared with a plain run; the tids go to stderr.
 *   mt_worker [busy_ms] [requests]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int busy_ms = 150;
static int requests = 1;
static volatile uint64_t sink;

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t checksum_block(uint64_t seed)
{
	uint64_t h = seed;
	for (int i = 0; i < 20000; i++)
		h = h * 6364136223846793005ull + 1442695040888963407ull;
	return h;
}

uint64_t parse_input(int id)
{
	uint64_t end = now_ms() + (uint64_t)busy_ms, h = (uint64_t)id;
	while (now_ms() < end)
		h ^= checksum_block(h);
	return h;
}

int handle_request(int id, int size)
{
	sink += (uint64_t)id * (uint64_t)size;
	return id + size;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	fprintf(stderr, "%s tid %ld\n", name, (long)syscall(SYS_gettid));
	sink += parse_input(id);
	int r = 0;
	if (id == 2)
		for (int i = 0; i < requests; i++)
			r += handle_request(42 + i, 7);
	return (void *)(intptr_t)r;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		busy_ms = atoi(argv[1]);
	if (argc > 2)
		requests = atoi(argv[2]);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
	long total = 0;
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)(intptr_t)r;
	}
	printf("handled %d requests, result %ld\n", requests, total);
	return 3;
}
