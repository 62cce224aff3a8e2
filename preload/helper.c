/*
 * preload/helper.c — the helper thread: the only place where the preload talks to perf,
 * symbolizes, and writes files while the program runs.
 *
 * It sleeps in poll() on the wake-up pipe (one byte per hit, written by signal handlers)
 * and on OUTDIR/control (requests from `mtinject snapshot|stop`).  Hits that are waiting
 * together are served by ONE snapshot (coalesced, and counted in hits.jsonl); a request
 * that arrives while perf is dumping waits in the ring and gets the next snapshot.
 */
#include "preload/runtime.h"

#include "preload/breakpoint.h"
#include "preload/hitlog.h"
#include "preload/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCH_MAX 64
#define SNAPSHOT_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 5000

static _Atomic int quit;
static int hits_fd = -1;
static int ctl_fd = -1, ctl_keep_fd = -1;
static bool session_reported;
static bool stopped;

static void write_line(const char *buf, size_t len)
{
	int rc;

	if (hits_fd < 0 || (rc = mtj_write_all(hits_fd, buf, len)) == 0)
		return;
	mtj_log(MTJ_LOG_ERROR, "cannot write %s/hits.jsonl: %s", mtj_rt.outdir, strerror(-rc));
	close(hits_fd);
	hits_fd = -1;
}

static void note_session_death(int rc)
{
	if (session_reported)
		return;
	session_reported = true;
	atomic_store(&mtj_rt.session_dead, 1);
	const char *detail = mtj_rt.session ? mtj_session_error(mtj_rt.session) : "";
	mtj_log(MTJ_LOG_ERROR, "perf session lost (%s)%s%s; the program runs on, hits are still recorded in %s/hits.jsonl",
		strerror(-rc), *detail ? ": " : "", detail, mtj_rt.outdir);
}

static void stop_session(void)
{
	if (!mtj_rt.session || stopped)
		return;
	stopped = true;
	int rc = mtj_session_stop(mtj_rt.session, STOP_TIMEOUT_MS);
	if (rc < 0 && rc != -ESRCH)
		mtj_log(MTJ_LOG_ERROR, "stopping perf: %s %s", strerror(-rc), mtj_session_error(mtj_rt.session));
	else
		mtj_log(MTJ_LOG_INFO, "perf stopped");
	atomic_store(&mtj_rt.session_dead, 1);
}

static int take_snapshot(char *file, size_t filelen)
{
	file[0] = '\0';
	if (!mtj_rt.session || atomic_load(&mtj_rt.session_dead))
		return -ENOTCONN;
	int rc = mtj_session_snapshot(mtj_rt.session, SNAPSHOT_TIMEOUT_MS, file, filelen);
	if (rc < 0) {
		atomic_fetch_add(&mtj_rt.snapshot_failures, 1);
		if (!mtj_session_alive(mtj_rt.session))
			note_session_death(rc);
		else
			mtj_log(MTJ_LOG_ERROR, "snapshot failed: %s %s", strerror(-rc), mtj_session_error(mtj_rt.session));
		return rc;
	}
	atomic_fetch_add(&mtj_rt.snapshots_taken, 1);
	if (mtj_rt.cfg.keep)
		mtj_session_prune(mtj_rt.session, mtj_rt.cfg.keep);
	/* hits.jsonl names the file relative to OUTDIR. */
	const char *base = strrchr(file, '/');
	if (base)
		memmove(file, base + 1, strlen(base + 1) + 1);
	mtj_log(MTJ_LOG_INFO, "snapshot %s/%s", mtj_rt.outdir, file);
	return 0;
}

static void outcome_for(const struct mtj_hit *h, struct mtj_hit_outcome *o)
{
	memset(o, 0, sizeof(*o));
	if (h->trigger >= 0 && (size_t)h->trigger < mtj_rt.ntrig) {
		const struct mtj_trigger_rt *t = &mtj_rt.trig[h->trigger];
		o->trigger = t->spec->text;
		o->object = t->loc.object;
		o->symbol = t->loc.symbol;
	}
}

/* Single-shot set-ups end early: once every trigger has used its count and nothing else can
 * ask for a snapshot (no MTINJECT_ON), the flight recorder has no more work. */
static bool nothing_left_to_trigger(void)
{
	/* While exiting, triggers are disarmed for shutdown, not because they are used up. */
	if (mtj_rt.cfg.on || mtj_rt.ntrig == 0 || atomic_load(&mtj_rt.phase) != MTJ_PHASE_ACTIVE)
		return false;
	for (size_t i = 0; i < mtj_rt.ntrig; i++) {
		int st = atomic_load(&mtj_rt.trig[i].state);
		if (st != MTJ_TRIG_DONE && st != MTJ_TRIG_FAILED)
			return false;
	}
	return true;
}

/* Serve a batch: one snapshot for every hit in it that asked for one, then the lines. */
static void serve(struct mtj_hit *batch, size_t n)
{
	size_t wanted = 0;
	bool fatal = false;
	uint64_t max_seq = 0;
	for (size_t i = 0; i < n; i++) {
		if (batch[i].decision == MTJ_SNAP_YES)
			wanted++;
		if (batch[i].flags & MTJ_HITF_FATAL)
			fatal = true;
		if (batch[i].seq > max_seq)
			max_seq = batch[i].seq;
	}
	char file[4096] = "";
	int rc = -ENOTCONN;
	if (wanted)
		rc = take_snapshot(file, sizeof(file));
	if (wanted > 1)
		atomic_fetch_add(&mtj_rt.requests_coalesced, wanted - 1);

	/* One write() per batch: the helper must keep up with hits arriving every ~15 us. */
	static char out[256 * 1024];
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		struct mtj_hit_outcome o;
		outcome_for(&batch[i], &o);
		o.no_symbols = mtj_rt.fork_child;
		if (batch[i].decision == MTJ_SNAP_YES) {
			o.snapshot = rc == 0;
			o.why = rc == 0 ? NULL : (rc == -ENOTCONN ? "no perf session" : "snapshot failed");
			o.snapshot_file = rc == 0 ? file : NULL;
			o.coalesced = rc == 0 ? wanted - 1 : 0;
		} else {
			o.why = mtj_decision_why((enum mtj_decision)batch[i].decision);
		}
		if (sizeof(out) - used < MTJ_HITLOG_LINE_MAX) {
			write_line(out, used);
			used = 0;
		}
		used += mtj_hitlog_format(out + used, MTJ_HITLOG_LINE_MAX, mtj_rt.pid, &batch[i], &o);
	}
	write_line(out, used);
	if (fatal || (wanted && nothing_left_to_trigger())) {
		if (!fatal)
			mtj_log(MTJ_LOG_INFO, "every trigger has taken its snapshots: perf stopped, the program runs on untraced");
		stop_session();
	}
	if (max_seq)
		atomic_store(&mtj_rt.done_seq, max_seq);
}

static void drain_ring(void)
{
	static struct mtj_hit batch[BATCH_MAX];
	static bool told;
	for (;;) {
		size_t n = 0;
		while (n < BATCH_MAX && mtj_ring_pop(&mtj_rt.ring, &batch[n]))
			n++;
		if (n == 0)
			break;
		serve(batch, n);
	}
	/* the handler stopped recording hits kept from a snapshot (MTINJECT_HITS_MAX) */
	if (!told && mtj_hits_unwritten()) {
		told = true;
		mtj_log(MTJ_LOG_ERROR, "%s/hits.jsonl holds %llu hits that took no snapshot; further ones "
			"are counted, not written (MTINJECT_HITS_MAX=0 writes all)", mtj_rt.outdir,
			(unsigned long long)mtj_rt.cfg.hits_max);
	}
}

/* `mtinject stop`: disarm everything and end the perf session; the program runs on. */
/* A request from `mtinject snapshot|stop`, as a hit of the process's main thread. */
static void request_hit(struct mtj_hit *h, const char *id, const char *reason)
{
	memset(h, 0, sizeof(*h));
	h->kind = MTJ_HIT_REQUEST;
	h->trigger = -1;
	h->tid = mtj_rt.pid;
	snprintf(h->thread, sizeof(h->thread), "mtinject");
	h->time_ns = mtj_perf_now_ns();
	snprintf(h->request, sizeof(h->request), "%.47s", id);
	snprintf(h->reason, sizeof(h->reason), "%.127s", reason);
}

/* `mtinject stop`: disarm everything and end the perf session; the program runs on. */
static void do_stop(const char *id)
{
	for (size_t i = 0; i < mtj_rt.ntrig; i++)
		mtj_disarm_trigger(i, MTJ_TRIG_DONE);
	stop_session();
	struct mtj_hit h;
	request_hit(&h, id, "mtinject stop");
	struct mtj_hit_outcome o = { .snapshot = 0 };
	static char line[4096];
	size_t len = mtj_hitlog_format(line, sizeof(line) - 32, mtj_rt.pid, &h, &o);
	/* The same record plus "stopped":true, which `mtinject stop` waits for. */
	if (len >= 2 && line[len - 2] == '}') {
		len -= 2;
		len += (size_t)snprintf(line + len, sizeof(line) - len, ",\"stopped\":true}\n");
	}
	write_line(line, len);
}

static void handle_command(char *cmd)
{
	char *save = NULL;
	char *verb = strtok_r(cmd, " ", &save);
	char *id = strtok_r(NULL, " ", &save);
	char *rest = save && *save ? save : NULL;
	if (!verb || !id) {
		mtj_log(MTJ_LOG_ERROR, "%s/control: ignored malformed command", mtj_rt.outdir);
		return;
	}
	if (strcmp(verb, "stop") == 0) {
		do_stop(id);
	} else if (strcmp(verb, "snapshot") == 0) {
		struct mtj_hit h;
		request_hit(&h, id, rest ? rest : "mtinject snapshot");
		h.decision = (mtj_rt.hits_only || atomic_load(&mtj_rt.session_dead)) ? MTJ_SNAP_NO_SESSION : MTJ_SNAP_YES;
		serve(&h, 1);
	} else {
		mtj_log(MTJ_LOG_ERROR, "%s/control: unknown command '%s' (valid: snapshot, stop)", mtj_rt.outdir, verb);
	}
}

static void read_control(void)
{
	static char buf[4096];
	static size_t have;
	for (;;) {
		ssize_t n = read(ctl_fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		char *nl;
		while ((nl = memchr(buf, '\n', have))) {
			*nl = '\0';
			handle_command(buf);
			size_t used = (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have - used);
			have -= used;
		}
		if (have == sizeof(buf) - 1)
			have = 0; /* an overlong line: drop it */
	}
}

/* A thread that blocks SIGTRAP keeps our breakpoint's signal pending forever: say so once. */
static void check_blocked_sigtrap(void)
{
	static pid_t reported[64];
	static size_t nreported;
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[300], text[4096];
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (n <= 0)
			continue;
		text[n] = '\0';
		const char *pnd = strstr(text, "\nSigPnd:");
		const char *blk = strstr(text, "\nSigBlk:");
		if (!pnd || !blk)
			continue;
		unsigned long long p = strtoull(pnd + 8, NULL, 16), b = strtoull(blk + 8, NULL, 16);
		unsigned long long bit = 1ull << (SIGTRAP - 1);
		if (!(p & b & bit))
			continue;
		pid_t tid = (pid_t)atoi(e->d_name);
		bool seen = false;
		for (size_t i = 0; i < nreported; i++)
			seen |= reported[i] == tid;
		if (seen || nreported == sizeof(reported) / sizeof(reported[0]))
			continue;
		reported[nreported++] = tid;
		const char *name = strstr(text, "Name:");
		char tname[32] = "?";
		if (name)
			sscanf(name + 5, " %31s", tname);
		mtj_log(MTJ_LOG_ERROR, "thread %d (%s) hit a trigger while blocking SIGTRAP; its hits cannot be seen",
			(int)tid, tname);
	}
	closedir(d);
}

static _Atomic int helper_done;

static void close_files(void)
{
	if (ctl_fd >= 0) {
		char path[PATH_MAX + 32];
		snprintf(path, sizeof(path), "%s/control", mtj_rt.outdir);
		unlink(path);
		close(ctl_fd);
		close(ctl_keep_fd);
		ctl_fd = ctl_keep_fd = -1;
	}
	if (hits_fd >= 0) {
		close(hits_fd);
		hits_fd = -1;
	}
}

static void *helper_main(void *arg)
{
	(void)arg;
	atomic_store(&mtj_rt.helper_tid, (pid_t)syscall(SYS_gettid));
	uint64_t last_check = 0;
	while (!atomic_load(&quit)) {
		struct pollfd p[2] = { { mtj_rt.wake_rd, POLLIN, 0 }, { ctl_fd, POLLIN, 0 } };
		int rc = poll(p, ctl_fd >= 0 ? 2 : 1, 250);
		if (rc > 0 && (p[0].revents & POLLNVAL)) {
			/* The program closed our descriptors (a daemon's close-everything): nothing we
			 * write can be trusted to land in our own files any more. */
			mtj_log(MTJ_LOG_ERROR, "the program closed mtinject's file descriptors; tracing stops");
			atomic_store(&mtj_rt.phase, MTJ_PHASE_OFF);
			for (size_t i = 0; i < mtj_rt.ntrig; i++)
				mtj_disarm_trigger(i, MTJ_TRIG_DONE);
			break;
		}
		if (ctl_fd >= 0 && rc > 0 && (p[1].revents & POLLNVAL))
			ctl_fd = ctl_keep_fd = -1;
		if (rc > 0 && (p[0].revents & POLLIN)) {
			char sink[256];
			while (read(mtj_rt.wake_rd, sink, sizeof(sink)) > 0)
				;
		}
		drain_ring();
		if (rc > 0 && ctl_fd >= 0 && (p[1].revents & POLLIN))
			read_control();
		uint64_t now = mtj_perf_now_ns();
		if (now - last_check > 1000000000ull) {
			last_check = now;
			if (mtj_rt.session && !stopped && !atomic_load(&mtj_rt.session_dead) &&
			    !mtj_session_alive(mtj_rt.session))
				note_session_death(-EPIPE);
			if (mtj_rt.ntrig)
				check_blocked_sigtrap();
		}
	}
	/* Shutting down: what is queued is written, perf is stopped, files are closed. */
	drain_ring();
	stop_session();
	close_files();
	atomic_store(&helper_done, 1);
	return NULL;
}

int mtj_helper_start(void)
{
	char path[PATH_MAX + 32];
	atomic_store(&quit, 0);
	atomic_store(&helper_done, 0);
	stopped = false;
	session_reported = false;
	snprintf(path, sizeof(path), "%s/hits.jsonl", mtj_rt.outdir);
	hits_fd = mtj_fd_move_high(open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
	if (hits_fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/control", mtj_rt.outdir);
	unlink(path);
	if (mkfifo(path, 0600) == 0) {
		ctl_fd = mtj_fd_move_high(open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
		/* Keep a writer open so poll() does not report EOF after each client. */
		ctl_keep_fd = mtj_fd_move_high(open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC));
	}
	if (ctl_fd < 0)
		mtj_log(MTJ_LOG_INFO, "no control FIFO at %s: %s", path, strerror(errno));

	sigset_t all, old;
	sigfillset(&all);
	/* Faults stay deliverable; everything the program expects goes to its own threads. */
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&mtj_rt.helper, NULL, helper_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close_files();
		return -rc;
	}
	mtj_rt.helper_running = true;
	pthread_setname_np(mtj_rt.helper, "mtinject");
	/* The helper must exist (and be excluded) before breakpoints are armed. */
	for (int i = 0; i < 1000 && !atomic_load(&mtj_rt.helper_tid); i++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

bool mtj_helper_finish_async(int timeout_ms)
{
	if (!mtj_rt.helper_running)
		return true;
	if ((pid_t)syscall(SYS_gettid) == atomic_load(&mtj_rt.helper_tid))
		return false;   /* the helper itself is dying: nobody is left to wait for */
	atomic_store(&quit, 1);
	ssize_t w = write(mtj_rt.wake_wr, "q", 1);
	(void)w;
	struct timespec step = { 0, 2 * 1000 * 1000 };
	for (int waited = 0; waited < timeout_ms; waited += 2) {
		if (atomic_load(&helper_done))
			return true;
		nanosleep(&step, NULL);
	}
	return false;
}

void mtj_helper_shutdown(int timeout_ms)
{
	if (!mtj_rt.helper_running) {
		stop_session();
		close_files();
		return;
	}
	if (mtj_helper_finish_async(timeout_ms))
		pthread_join(mtj_rt.helper, NULL);
	else
		mtj_log(MTJ_LOG_ERROR, "helper thread did not finish in %d ms", timeout_ms);
	mtj_rt.helper_running = false;
}
