/*
 * demo — a tiny "server": worker threads handle requests; now and then one is slow because
 * it takes a long path through the cache.  When a request blows its budget the server calls
 * report_slow_request(), which is where `make demo` puts its trigger: the snapshot shows
 * what the worker was doing in the milliseconds before.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static volatile uint64_t sink;

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void spin_us(uint64_t us)
{
	uint64_t end = now_us() + us;
	while (now_us() < end)
		sink++;
}

void parse_request(int id) { spin_us(300 + (uint64_t)(id % 7) * 40); }
void lookup_cache(int id) { spin_us(200); sink += (uint64_t)id; }
void rebuild_cache_entry(int id) { spin_us(25000); sink += (uint64_t)id; }
void render_response(int id) { spin_us(400); sink ^= (uint64_t)id; }

void report_slow_request(int id, uint64_t took_us)
{
	sink += (uint64_t)id + took_us;
}

static void handle_request(int id)
{
	uint64_t start = now_us();
	parse_request(id);
	lookup_cache(id);
	if (id % 150 == 149)
		rebuild_cache_entry(id);   /* the rare slow path */
	render_response(id);
	uint64_t took = now_us() - start;
	if (took > 10000)
		report_slow_request(id, took);
}

static void *worker(void *arg)
{
	int first = (int)(intptr_t)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker-%d", first);
	pthread_setname_np(pthread_self(), name);
	for (int id = first; id < 400; id += 2)
		handle_request(id);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("served 400 requests\n");
	return 0;
}
