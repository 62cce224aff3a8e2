/* libtrig_early.so — linked into trig_early; its constructor starts a thread BEFORE the
 * preload's constructor runs (library constructors run first), and that thread calls
 * early_work() later, when the trigger is armed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

static volatile uint64_t sink;
static pthread_t early;

int early_work(int x)
{
	sink += (uint64_t)x;
	return x;
}

static void *early_body(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "early");
	usleep(300 * 1000);
	early_work(5);
	return NULL;
}

__attribute__((constructor)) static void start_early(void)
{
	pthread_create(&early, NULL, early_body, NULL);
}

void join_early(void)
{
	pthread_join(early, NULL);
}
