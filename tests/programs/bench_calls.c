/*
 * bench_calls — the target of tests/bench/preload.sh.  It times its own phases with
 * CLOCK_MONOTONIC, so the preload's start-up and exit (perf start and stop) are not in them.
 *
 *   bench_calls [-p] [-s] CALLS THREADS ROUNDTRIPS
 *
 * loop phase: THREADS threads each call hot_fn() CALLS times (timed from before the first
 *   pthread_create to the last join, so the cost of inheriting breakpoints is included).
 * pingpong phase: two threads pass a byte back and forth through two pipes ROUNDTRIPS
 *   times, both pinned to one cpu: every hop is a blocking read and a switch from one
 *   (armed) thread to the other, 2 per round trip.  Unpinned, the time depends mostly on
 *   whether the scheduler puts them on one cpu or two (wake-ups across cpus), from run to run.
 * -p  time every hot_fn() call of the first thread and print the median and tail, so a
 *     per-hit cost can be read without the time that hits spend waiting for each other.
 * -s  arm our own hardware breakpoint on hot_fn() with an empty SIGTRAP handler (the
 *     design's "breakpoint + SIGTRAP handler" figure, measured in the same run as the
 *     preload's per-hit cost).  Only without the preload: it would be our SIGTRAP otherwise.
 * never_called() is never called: a trigger on it is armed but never hit.
 *
 * Output, one line:  loop_s=F pingpong_s=F hwm_kb=N [call_p50_us=F call_p90_us=F ...]
 * hwm_kb is VmHWM read at the end of main (threads joined), i.e. the peak RSS so far.
 */
#define _GNU_SOURCE
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static unsigned long calls;
/* Each loop thread's result, a cache line apart: a shared accumulator would make the loop
 * measure cache-line ping-pong between the cpus, which depends on how threads happen to
 * be scheduled, not on the preload. */
static struct { volatile uint64_t v; char pad[56]; } result[64];
static double *call_us;   /* -p: one duration per call of thread 0 */

uint64_t hot_fn(uint64_t x);
void never_called(void);

/* A few ns of work, so a loop of it is not all call overhead; it touches no shared memory. */
uint64_t hot_fn(uint64_t x)
{
	for (int i = 0; i < 8; i++)
		x ^= (x << 13) ^ (x >> 7) ^ (x << 17);
	return x;
}

void never_called(void)
{
	sink = 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *loop_thread(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	uint64_t acc = 0;
	if (id == 0 && call_us) {
		for (unsigned long i = 0; i < calls; i++) {
			double t0 = now();
			acc += hot_fn(i);
			call_us[i] = (now() - t0) * 1e6;
		}
	} else {
		for (unsigned long i = 0; i < calls; i++)
			acc += hot_fn(i + id);
	}
	result[id].v = acc;
	return NULL;
}

static int ping[2], pong[2];
static unsigned long roundtrips;

static void *pong_thread(void *arg)
{
	(void)arg;
	char c;
	for (unsigned long i = 0; i < roundtrips; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static double pingpong(void)
{
	pthread_t t;
	char c = 'x';
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	/* The pong thread inherits the main thread's affinity. */
	if (sched_setaffinity(0, sizeof(one), &one) < 0 || pipe(ping) < 0 || pipe(pong) < 0 || pthread_create(&t, NULL, pong_thread, NULL)) {
		perror("bench_calls: pingpong setup");
		exit(1);
	}
	double t0 = now();
	for (unsigned long i = 0; i < roundtrips; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("bench_calls: pingpong");
			exit(1);
		}
	double t1 = now();
	pthread_join(t, NULL);
	return t1 - t0;
}

static void empty_sigtrap(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

/* Same attributes as the preload's breakpoints (design.md), with a do-nothing handler. */
static void arm_self(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = empty_sigtrap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGTRAP, &sa, NULL);

	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = (uintptr_t)hot_fn;
	a.bp_len = sizeof(long);
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = 1;
	a.inherit_thread = 1;
	a.remove_on_exec = 1;
	a.sigtrap = 1;
	a.sig_data = 0x6d746a;
	if (syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) < 0) {
		perror("bench_calls: perf_event_open (breakpoint)");
		exit(1);
	}
}

static long vm_hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_calls [-p] [-s] CALLS THREADS ROUNDTRIPS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int opt, per_call = 0, self_bp = 0;
	while ((opt = getopt(argc, argv, "ps")) != -1) {
		if (opt == 'p')
			per_call = 1;
		else if (opt == 's')
			self_bp = 1;
		else
			usage();
	}
	if (argc - optind != 3)
		usage();
	calls = strtoul(argv[optind], NULL, 10);
	unsigned long nthreads = strtoul(argv[optind + 1], NULL, 10);
	roundtrips = strtoul(argv[optind + 2], NULL, 10);
	if (nthreads < 1 || nthreads > 64)
		usage();
	if (per_call && !(call_us = calloc(calls ? calls : 1, sizeof(*call_us)))) {
		perror("bench_calls: calloc");
		return 1;
	}
	if (self_bp)
		arm_self();

	pthread_t t[64];
	double t0 = now();
	for (uintptr_t i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, loop_thread, (void *)i)) {
			perror("bench_calls: pthread_create");
			return 1;
		}
	for (unsigned long i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	double loop_s = now() - t0;
	double pp_s = roundtrips ? pingpong() : 0;

	printf("loop_s=%.6f pingpong_s=%.6f hwm_kb=%ld", loop_s, pp_s, vm_hwm_kb());
	if (call_us && calls) {
		qsort(call_us, calls, sizeof(*call_us), cmp_double);
		printf(" call_p10_us=%.3f call_p50_us=%.3f call_p90_us=%.3f call_p99_us=%.3f call_max_us=%.3f",
		       call_us[calls / 10], call_us[calls / 2], call_us[calls * 9 / 10],
		       call_us[calls * 99 / 100], call_us[calls - 1]);
	}
	printf("\n");
	free(call_us);
	return 0;
}
