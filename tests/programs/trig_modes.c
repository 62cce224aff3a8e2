/*
 * trig_modes — one target program for the trigger-engine tests; the first argument picks
 * what it does.  Every mode prints a deterministic summary on stdout and exits with a
 * deterministic status, so a run under the preload can be compared with a plain run.
 * Trigger targets: target_fn (global), static_target (static), nested_target.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mtinject.h"

static volatile uint64_t sink;
static volatile int traps;

int target_fn(int x)
{
	sink += (uint64_t)x;
	return x + 1;
}

static int static_target(int x)
{
	sink ^= (uint64_t)x;
	return x * 2;
}

static void spin_ms(int ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void *thread_body(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "%s", (const char *)arg);
	pthread_setname_np(pthread_self(), name);
	spin_ms(5);
	target_fn(1);
	return NULL;
}

static int clone_body(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "%s", (const char *)arg);
	syscall(SYS_prctl, 15 /* PR_SET_NAME */, name, 0, 0, 0);
	target_fn(2);
	return 0;
}

static int mode_threads(void)
{
	pthread_t t;
	pthread_create(&t, NULL, thread_body, "pthread");
	pthread_join(t, NULL);

	/* a raw clone() thread that glibc knows nothing about */
	size_t sz = 256 * 1024;
	char *stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile pid_t ctid = 1;
	pid_t tid = clone(clone_body, stack + sz,
			  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
				  CLONE_CHILD_CLEARTID,
			  "rawclone", NULL, NULL, &ctid);
	if (tid < 0)
		return 1;
	while (ctid != 0)
		sched_yield();
	munmap(stack, sz);

	/* a pool: four threads created by a thread */
	pthread_t pool[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&pool[i], NULL, thread_body, "pool");
	for (int i = 0; i < 4; i++)
		pthread_join(pool[i], NULL);
	printf("threads done\n");
	return 0;
}

static int mode_loop(int n, int gap_us)
{
	for (int i = 0; i < n; i++) {
		target_fn(i);
		if (gap_us)
			usleep((useconds_t)gap_us);
	}
	printf("loop %d done\n", n);
	return 0;
}

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

/* own SIGTRAP handler installed before (at start of main) or after the trigger fires */
static int mode_own_sigtrap(void)
{
	signal(SIGTRAP, on_trap);
	target_fn(1);
	raise(SIGTRAP);
	__asm__ volatile("int3");
	target_fn(2);
	struct sigaction sa;
	sigaction(SIGTRAP, NULL, &sa);
	printf("own handler: traps=%d handler_kept=%d\n", traps, sa.sa_handler == on_trap);
	return traps == 2 ? 0 : 1;
}

static sigjmp_buf recover;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(recover, 1);
}

/* A program that handles its own SIGSEGV (installed after the preload's) and recovers. */
static int mode_own_segv(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	spin_ms(30);
	if (sigsetjmp(recover, 1) == 0)
		*(volatile int *)(uintptr_t)8 = 1;
	printf("recovered from SIGSEGV\n");
	return 0;
}

/* A daemon's start-up: close every descriptor above stderr, then open files of its own,
 * which get the low numbers; everything written there must be exactly what it wrote. */
static int mode_closefrom(void)
{
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	char path[] = "/tmp/trig_modes.XXXXXX";
	int fd = mkstemp(path);
	const char *text = "only the program writes here\n";
	for (int i = 0; i < 5; i++) {
		target_fn(i);
		if (write(fd, text, strlen(text)) < 0)
			return 1;
	}
	spin_ms(300);
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	unlink(path);
	int intact = n == (ssize_t)(5 * strlen(text));
	for (int i = 0; intact && i < 5; i++)
		intact = !memcmp(buf + (size_t)i * strlen(text), text, strlen(text));
	printf("file intact: %d\n", intact);
	return intact ? 0 : 1;
}

static void *blocked_body(void *arg)
{
	(void)arg;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	target_fn(7);
	spin_ms(1500); /* long enough for the helper's periodic check */
	return NULL;
}

static int mode_blocked(void)
{
	pthread_t t;
	pthread_create(&t, NULL, blocked_body, NULL);
	pthread_join(t, NULL);
	printf("blocked thread finished\n");
	return 0;
}

static int mode_fork(void)
{
	target_fn(1);
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		spin_ms(20);
		target_fn(2);
		printf("child active=%d\n", MTINJECT_ACTIVE() == 1);
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(p, &st, 0);
	printf("parent done, child status %d\n", WEXITSTATUS(st));
	return 0;
}

static int mode_api(void)
{
	spin_ms(50);
	int rc = MTINJECT_SNAPSHOT("checksum mismatch");
	printf("api called\n");
	fprintf(stderr, "mtinject_snapshot returned %d\n", rc);
	spin_ms(50);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loop";
	if (!strcmp(mode, "threads"))
		return mode_threads();
	if (!strcmp(mode, "loop"))
		return mode_loop(argc > 2 ? atoi(argv[2]) : 10, argc > 3 ? atoi(argv[3]) : 0);
	if (!strcmp(mode, "static")) {
		spin_ms(30);
		printf("static %d\n", static_target(21));
		return 0;
	}
	if (!strcmp(mode, "segv")) {
		spin_ms(50);
		printf("about to crash\n");
		fflush(stdout);
		*(volatile int *)(uintptr_t)8 = 1;
		return 0;
	}
	if (!strcmp(mode, "abort")) {
		spin_ms(50);
		printf("about to fail an assertion\n");
		fflush(stdout);
		assert(sink == 0 && "checksum");
		return 0;
	}
	if (!strcmp(mode, "exit")) {
		spin_ms(50);
		printf("exiting 5\n");
		return 5;
	}
	if (!strcmp(mode, "_exit")) {
		spin_ms(50);
		printf("leaving through _exit(4)\n");
		fflush(stdout);
		_exit(4);
	}
	if (!strcmp(mode, "exec")) {
		spin_ms(50);
		target_fn(3);
		printf("exec sleep\n");
		fflush(stdout);
		execlp("sleep", "sleep", argc > 2 ? argv[2] : "1", (char *)NULL);
		return 127;
	}
	if (!strcmp(mode, "usr1")) {
		spin_ms(30);
		kill(getpid(), SIGUSR1);
		spin_ms(30);
		printf("survived SIGUSR1\n");
		return 0;
	}
	if (!strcmp(mode, "closefrom"))
		return mode_closefrom();
	if (!strcmp(mode, "own-segv"))
		return mode_own_segv();
	if (!strcmp(mode, "own-sigtrap"))
		return mode_own_sigtrap();
	if (!strcmp(mode, "blocked"))
		return mode_blocked();
	if (!strcmp(mode, "fork"))
		return mode_fork();
	if (!strcmp(mode, "api"))
		return mode_api();
	fprintf(stderr, "unknown mode %s\n", mode);
	return 64;
}
