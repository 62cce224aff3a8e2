/*
 * tests/tools/session-drive.c — drives control/perf.h the way the preload does, for the 2xx
 * integration tests: a worker thread burns CPU in drive_spin_work() while the main thread
 * spawns (or attaches to) a perf session on this very process, takes N snapshots, stops.
 *
 *   session-drive spawn  [options]        perf record -p <self>, started through the API
 *   session-drive attach SPEC [options]   a session somebody else started (fifo:/fd:/pid:)
 * options: --perf PATH  --backend auto|pt|sampling  --out DIR (spawn: DIR/perf.data)
 *          --output PATH (attach)  -n N  --interval MS  --start-timeout MS  --timeout MS
 *          --stop-timeout MS  --multi  --keep K  --callgraph fp|dwarf|lbr  --freq HZ
 *          --size BYTES  --crash (SIGKILL self after the snapshots, no stop)
 *          --pretend-pt (caps say Intel PT exists: with a stand-in perf, tests the PT protocol)
 *          --signal-perf SIG:K (send signal SIG to perf after snapshot K: perf killed or
 *          ending on its own while the session runs)
 * Prints one line per step, e.g.
 *   backend sampling (sampling with cpu-clock ...)
 *   ready rc=0 ms=183 pid=1234
 *   snapshot 1 rc=0 ms=52 req=4975.677192 file=/tmp/x/perf.data.2026120104153317
 *   stop rc=0 ms=91
 * and "error: TEXT" lines for failures.  Exit 0 when every step returned 0.
 */
#include "control/perf.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_bool quit;
static volatile unsigned long sink;

__attribute__((noinline)) static void drive_spin_leaf(void)
{
	for (int i = 0; i < 20000; i++)
		sink += (unsigned long)i;
}

__attribute__((noinline)) static void drive_spin_work(void)
{
	drive_spin_leaf();
}

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&quit))
		drive_spin_work();
	return NULL;
}

static uint64_t cpu_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double ms_since(uint64_t t0)
{
	return (double)(mtj_perf_now_ns() - t0) / 1e6;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static enum mtj_backend parse_backend(const char *s)
{
	if (strcmp(s, "pt") == 0)
		return MTJ_BACKEND_PT;
	if (strcmp(s, "sampling") == 0)
		return MTJ_BACKEND_SAMPLING;
	return MTJ_BACKEND_AUTO;
}

static enum mtj_callgraph parse_callgraph(const char *s)
{
	if (strcmp(s, "dwarf") == 0)
		return MTJ_CALLGRAPH_DWARF;
	if (strcmp(s, "lbr") == 0)
		return MTJ_CALLGRAPH_LBR;
	return MTJ_CALLGRAPH_FP;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "spawn") != 0 && strcmp(argv[1], "attach") != 0)) {
		fprintf(stderr, "usage: session-drive spawn|attach [SPEC] [options]\n");
		return 2;
	}
	bool spawn = strcmp(argv[1], "spawn") == 0;
	int ai = 2;
	const char *spec = NULL;
	if (!spawn) {
		if (argc < 3)
			return 2;
		spec = argv[ai++];
	}
	const char *perf = NULL, *out = ".", *output = NULL;
	int n = 1, interval = 100, start_timeout = 5000, timeout = 5000, stop_timeout = 5000;
	unsigned keep = 0;
	bool crash = false, pretend_pt = false;
	int perf_sig = 0, perf_sig_after = -1;
	struct mtj_record_opts o = { .ctl_fd = -1, .ack_fd = -1 };
	o.backend = MTJ_BACKEND_AUTO;
	for (; ai < argc; ai++) {
		const char *a = argv[ai], *v = ai + 1 < argc ? argv[ai + 1] : "";
		bool used = true;
		if (strcmp(a, "--perf") == 0)
			perf = v;
		else if (strcmp(a, "--backend") == 0)
			o.backend = parse_backend(v);
		else if (strcmp(a, "--out") == 0)
			out = v;
		else if (strcmp(a, "--output") == 0)
			output = v;
		else if (strcmp(a, "-n") == 0)
			n = atoi(v);
		else if (strcmp(a, "--interval") == 0)
			interval = atoi(v);
		else if (strcmp(a, "--start-timeout") == 0)
			start_timeout = atoi(v);
		else if (strcmp(a, "--timeout") == 0)
			timeout = atoi(v);
		else if (strcmp(a, "--stop-timeout") == 0)
			stop_timeout = atoi(v);
		else if (strcmp(a, "--keep") == 0)
			keep = (unsigned)atoi(v);
		else if (strcmp(a, "--callgraph") == 0)
			o.callgraph = parse_callgraph(v);
		else if (strcmp(a, "--freq") == 0)
			o.sample_freq = (unsigned)atoi(v);
		else if (strcmp(a, "--signal-perf") == 0)
			sscanf(v, "%d:%d", &perf_sig, &perf_sig_after);
		else if (strcmp(a, "--size") == 0)
			o.snapshot_size = strtoull(v, NULL, 0);
		else {
			used = false;
			if (strcmp(a, "--multi") == 0)
				o.multi = true;
			else if (strcmp(a, "--crash") == 0)
				crash = true;
			else if (strcmp(a, "--pretend-pt") == 0)
				pretend_pt = true;
			else {
				fprintf(stderr, "session-drive: unknown option %s\n", a);
				return 2;
			}
		}
		if (used)
			ai++;
	}

	struct mtj_perf_caps caps;
	int rc = mtj_perf_probe(perf, &caps);
	printf("probe rc=%d perf=%s version=%d.%d.%d ping_stop=%d\n", rc, caps.path, caps.major, caps.minor,
	       caps.patch, caps.ping_stop);
	if (rc < 0) {
		printf("error: %s\n", mtj_perf_last_error());
		return 1;
	}
	if (pretend_pt)
		caps.intel_pt = true;
	char why[256];
	enum mtj_backend b = mtj_perf_choose_backend(&caps, o.backend, why, sizeof(why));
	printf("backend %s (%s)\n", b == MTJ_BACKEND_PT ? "pt" : "sampling", why);
	fflush(stdout);

	pthread_t th;
	pthread_create(&th, NULL, worker, NULL);
	sleep_ms(20);

	struct mtj_session *s = NULL;
	uint64_t t0 = mtj_perf_now_ns();
	char data[4096], log[4096];
	if (spawn) {
		snprintf(data, sizeof(data), "%s/perf.data", out);
		snprintf(log, sizeof(log), "%s/perf.log", out);
		o.pid = getpid();
		o.output = data;
		rc = mtj_session_spawn(&caps, &o, log, start_timeout, &s);
		printf("ready rc=%d ms=%.1f pid=%d\n", rc, ms_since(t0), s ? (int)mtj_session_perf_pid(s) : 0);
	} else {
		rc = mtj_session_attach(&caps, spec, o.backend, output, &s);
		printf("attach rc=%d pid=%d output=%s\n", rc, s ? (int)mtj_session_perf_pid(s) : 0,
		       s ? mtj_session_output(s) : "");
	}
	int failures = 0;
	if (rc < 0) {
		printf("error: %s\n", mtj_perf_last_error());
		failures++;
	}
	clockid_t worker_cpu;
	bool have_cpu = pthread_getcpuclockid(th, &worker_cpu) == 0;
	for (int i = 1; s && i <= n; i++) {
		/* Request once the worker really ran for a third of the last interval: on a loaded
		 * machine wall time alone does not guarantee samples before the request. */
		for (int tries = 0; tries < 20; tries++) {
			uint64_t c0 = have_cpu ? cpu_ns(worker_cpu) : 0;
			sleep_ms(interval);
			if (!have_cpu || cpu_ns(worker_cpu) - c0 >= (uint64_t)interval * 1000000u / 3)
				break;
		}
		struct timespec req;
		clock_gettime(CLOCK_MONOTONIC, &req);
		char file[4096];
		uint64_t t1 = mtj_perf_now_ns();
		rc = mtj_session_snapshot(s, timeout, file, sizeof(file));
		printf("snapshot %d rc=%d ms=%.1f req=%ld.%06ld file=%s\n", i, rc, ms_since(t1), (long)req.tv_sec,
		       req.tv_nsec / 1000, file);
		if (rc < 0) {
			printf("error: %s\n", mtj_session_error(s));
			failures++;
			if (!mtj_session_alive(s))
				break;
		} else if (keep) {
			mtj_session_prune(s, keep);
		}
		if (i == perf_sig_after) {
			kill(mtj_session_perf_pid(s), perf_sig);
			printf("signalled perf with %d\n", perf_sig);
			sleep_ms(300);
		}
		fflush(stdout);
	}
	fflush(stdout);
	if (crash) {
		/* As if the program died abruptly: no stop, no cleanup. */
		raise(SIGKILL);
	}
	if (s) {
		uint64_t t2 = mtj_perf_now_ns();
		rc = mtj_session_stop(s, stop_timeout);
		printf("stop rc=%d ms=%.1f alive=%d\n", rc, ms_since(t2), mtj_session_alive(s));
		if (rc < 0) {
			printf("error: %s\n", mtj_session_error(s));
			failures++;
		}
		mtj_session_free(s);
	}
	atomic_store(&quit, true);
	pthread_join(th, NULL);
	return failures ? 1 : 0;
}
