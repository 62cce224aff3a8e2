/*
 * control/perf_session.c — one perf session: started by us (spawn) or by somebody else
 * (attach), asked for snapshots, stopped.
 *
 * How "the snapshot is on disk" is known (measured, see docs/design):
 *   - sampling flight recorder, and PT with --switch-output: SIGUSR2 makes perf dump and
 *     rename the file to perf.data.<timestamp>; ping->ack twice bounds the wait, then the
 *     newest dump name must have changed (the rename happens only once the file is whole).
 *   - PT single: `snapshot`->ack (acked before the data is written), then ping->ack: the
 *     main loop has written the AUX area by then; perf.data is complete after stop.
 * perf dying or hanging at any point turns the session FAILED once, with a sentence in
 * err; every later call returns at once.  All waits end at a deadline; perf is watched
 * through a pidfd (and the ack pipe's EOF) so that its death ends a wait early.
 */
#include "control/perf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum state { S_RUNNING = 0, S_FAILED, S_STOPPED };

struct mtj_session {
	pthread_mutex_t lock;        /* serializes snapshot/stop */
	atomic_bool busy;
	atomic_int state;
	int fail_rc;
	enum mtj_backend backend;
	bool spawned;
	bool switch_output;          /* snapshots are perf.data.<timestamp> files */
	bool control;                /* a control pipe to perf exists */
	bool ping;                   /* perf >= 5.12: ping and stop */
	pid_t pid;                   /* perf; 0 unknown */
	bool reaped;                 /* spawned perf waited for: pid is not ours any more */
	int exit_status;             /* its wait status once reaped */
	int pidfd;                   /* -1 when unavailable */
	int ctl, ack;                /* -1 when none */
	char ctl_fifo[PATH_MAX];     /* attach: opened at the first command if perf was late */
	char output[PATH_MAX];
	char log_path[PATH_MAX];
	char err[PATH_MAX + 1024];
	uint64_t last_dump_ns;
};

static int pidfd_of(pid_t pid)
{
	if (pid <= 0)
		return -1;
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

static uint64_t deadline_after(int ms)
{
	return mtj_perf_now_ns() + (uint64_t)(ms > 0 ? ms : 0) * 1000000u;
}

static void sleep_until(uint64_t t)
{
	uint64_t now = mtj_perf_now_ns();
	if (now >= t)
		return;
	struct timespec ts = { (time_t)((t - now) / 1000000000u), (long)((t - now) % 1000000000u) };
	nanosleep(&ts, NULL);
}

static const char *log_note(const struct mtj_session *s)
{
	return s->spawned && s->log_path[0] ? s->log_path : NULL;
}

/* Mark the session failed (the first failure's text is kept: it is the cause). */
static int fail(struct mtj_session *s, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct mtj_session *s, int rc, const char *fmt, ...)
{
	if (atomic_load(&s->state) != S_RUNNING)
		return s->fail_rc ? s->fail_rc : rc;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	const char *log = log_note(s);
	if (log && n > 0 && (size_t)n < sizeof(s->err))
		snprintf(s->err + n, sizeof(s->err) - (size_t)n, "; see %s", log);
	s->fail_rc = rc;
	atomic_store(&s->state, S_FAILED);
	return rc;
}

static void set_reaped(struct mtj_session *s, int status)
{
	s->reaped = true;
	s->exit_status = status;
}

/* Has perf gone?  Reaps a spawned perf; describes how it ended into `how`. */
static bool perf_gone(struct mtj_session *s, char *how, size_t len)
{
	snprintf(how, len, "is gone");
	if (s->reaped) {
		if (s->exit_status >= 0)
			mtj_perf_describe_status(s->exit_status, how, len);
		return true;
	}
	if (s->pid <= 0)
		return false;
	if (s->spawned) {
		int status;
		pid_t r = waitpid(s->pid, &status, WNOHANG);
		if (r == s->pid) {
			set_reaped(s, status);
			mtj_perf_describe_status(status, how, len);
			return true;
		}
		if (r == 0)
			return false;
		/* ECHILD: the host reaped it (SIGCHLD handler, SIG_IGN) — the pidfd still knows. */
	}
	bool gone;
	if (s->pidfd >= 0) {
		struct pollfd p = { .fd = s->pidfd, .events = POLLIN };
		gone = poll(&p, 1, 0) == 1;
	} else
		gone = kill(s->pid, 0) != 0 && errno == ESRCH;
	if (gone && s->spawned)
		set_reaped(s, -1);
	return gone;
}

static int died(struct mtj_session *s, const char *while_doing)
{
	char how[96];
	/* The ack pipe closes a moment before the exit status exists: wait for it briefly. */
	if (s->spawned && !s->reaped && s->pid > 0) {
		int status;
		if (mtj_perf_wait_pid(s->pid, s->pidfd, deadline_after(200), &status) == 0)
			set_reaped(s, status);
	}
	perf_gone(s, how, sizeof(how));
	return fail(s, -EPIPE, "perf (pid %d) %s %s", s->pid, how, while_doing);
}

/* Open an attached session's control fifo if perf has started reading it. */
static int ensure_ctl(struct mtj_session *s)
{
	if (s->ctl >= 0 || !s->ctl_fifo[0])
		return s->ctl >= 0 ? 0 : -ENOTCONN;
	s->ctl = open(s->ctl_fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	return s->ctl >= 0 ? 0 : -errno;
}

/* Wait for one ack; perf's exit (pidfd, ack EOF) ends the wait early. */
static int wait_ack(struct mtj_session *s, const char *cmd, uint64_t deadline)
{
	char what[96];
	snprintf(what, sizeof(what), "before acknowledging '%s'", cmd);
	for (;;) {
		struct pollfd p[2] = { { .fd = s->ack, .events = POLLIN }, { .fd = s->pidfd, .events = POLLIN } };
		nfds_t np = s->pidfd >= 0 ? 2 : 1;
		uint64_t now = mtj_perf_now_ns();
		if (now >= deadline)
			return fail(s, -ETIMEDOUT, "perf (pid %d) did not acknowledge '%s' in time", s->pid, cmd);
		uint64_t left = (deadline - now) / 1000000u + 1;
		/* Without a pidfd, look at the pid every 20 ms. */
		int slice = (int)(np == 2 || left < 20 ? left : 20);
		int r = poll(p, np, slice);
		if (r < 0 && errno != EINTR)
			return fail(s, -errno, "poll on perf's ack fd: %s", strerror(errno));
		if (r > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			char buf[128];
			ssize_t n = read(s->ack, buf, sizeof(buf));
			if (n == 0)
				return died(s, what);
			if (n > 0 && mtj_ack_count(buf, (size_t)n) > 0)
				return 0;
			if (n < 0 && errno != EINTR && errno != EAGAIN)
				return died(s, what);
			continue;
		}
		char how[96];
		if ((r > 0 && np == 2 && (p[1].revents & POLLIN)) || (np == 1 && perf_gone(s, how, sizeof(how))))
			return died(s, what);
	}
}

/* Send one command and wait for its ack. */
static int command(struct mtj_session *s, const char *cmd, uint64_t deadline)
{
	int rc = ensure_ctl(s);
	if (rc < 0)
		return fail(s, rc == -ENXIO ? -EPIPE : rc, "nobody reads perf's control fifo %s (%s)",
			    s->ctl_fifo, strerror(-rc));
	/* However the death shows (ack EOF now, control EPIPE, or EOF while waiting), it is
	 * reported the same way: one message whatever the timing. */
	char what[96];
	snprintf(what, sizeof(what), "before acknowledging '%s'", cmd);
	if (mtj_ack_drain(s->ack) == -EPIPE)
		return died(s, what);
	rc = mtj_ctl_write(s->ctl, cmd, deadline);
	if (rc == -EPIPE)
		return died(s, what);
	if (rc == -ETIMEDOUT)
		return fail(s, rc, "perf (pid %d) does not read its control pipe", s->pid);
	if (rc < 0)
		return fail(s, rc, "writing '%s' to perf: %s", cmd, strerror(-rc));
	return wait_ack(s, cmd, deadline);
}

static int send_signal(struct mtj_session *s, int sig)
{
	if (s->reaped)
		return died(s, "before the signal");
	if (s->pid <= 0)
		return -ENOTCONN;
	if (kill(s->pid, sig) != 0)
		return errno == ESRCH ? died(s, "before the signal") : fail(s, -errno, "kill(%d): %s", s->pid, strerror(errno));
	return 0;
}

static struct mtj_session *session_new(void)
{
	struct mtj_session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->ctl = s->ack = s->pidfd = -1;
	return s;
}

static void close_fds(struct mtj_session *s)
{
	int *fds[] = { &s->ctl, &s->ack, &s->pidfd };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* ---- spawn --------------------------------------------------------------------------------- */

/* Our ends of the two pipes: ctl write end, ack read end (non-blocking, close-on-exec). */
static int make_pipes(int ours[2], int perfs[2])
{
	int c[2], a[2];
	if (pipe2(c, O_CLOEXEC) != 0)
		return -errno;
	if (pipe2(a, O_CLOEXEC) != 0) {
		int e = errno;
		close(c[0]);
		close(c[1]);
		return -e;
	}
	fcntl(c[1], F_SETFL, O_NONBLOCK);
	fcntl(a[0], F_SETFL, O_NONBLOCK);
	ours[0] = c[1];
	ours[1] = a[0];
	perfs[0] = c[0];
	perfs[1] = a[1];
	return 0;
}

/* Kill a spawned perf for good (bounded) and reap it. */
static void kill_and_reap(struct mtj_session *s)
{
	if (!s->spawned || s->reaped || s->pid <= 0)
		return;
	int status;
	static const int sigs[] = { SIGTERM, SIGKILL };
	for (size_t i = 0; i < 2; i++) {
		kill(s->pid, sigs[i]);
		int rc = mtj_perf_wait_pid(s->pid, s->pidfd, deadline_after(1000), &status);
		if (rc != -ETIMEDOUT) {
			set_reaped(s, rc == 0 ? status : -1);
			return;
		}
	}
}

int mtj_session_spawn(const struct mtj_perf_caps *caps, const struct mtj_record_opts *o,
		      const char *log_path, int start_timeout_ms, struct mtj_session **out)
{
	*out = NULL;
	mtj_perf_set_error("%s", "");
	struct mtj_session *s = session_new();
	if (!s)
		return -ENOMEM;
	struct mtj_record_opts ro = *o;
	char why[256];
	ro.backend = mtj_perf_choose_backend(caps, o->backend, why, sizeof(why));
	s->backend = ro.backend;
	s->spawned = true;
	s->switch_output = ro.backend == MTJ_BACKEND_SAMPLING || ro.multi;
	s->control = caps->control_fd;
	s->ping = caps->ping_stop;
	snprintf(s->output, sizeof(s->output), "%s", o->output ? o->output : "");
	snprintf(s->log_path, sizeof(s->log_path), "%s", log_path ? log_path : "");

	int perfs[2] = { -1, -1 }, ours[2] = { -1, -1 }, logfd = -1, rc;
	ro.ctl_fd = ro.ack_fd = -1;
	ro.ctl_fifo = ro.ack_fifo = NULL;
	if (s->control) {
		if ((rc = make_pipes(ours, perfs)) < 0)
			goto fail;
		s->ctl = mtj_fd_move_high(ours[0]);
		s->ack = mtj_fd_move_high(ours[1]);
		ro.ctl_fd = 3; /* where mtj_perf_exec puts them in perf */
		ro.ack_fd = 4;
	}
	char *argv[64], buf[8192];
	rc = mtj_perf_record_argv(caps, &ro, argv, 64, buf, sizeof(buf));
	if (rc < 0) {
		mtj_perf_set_error("cannot build the perf command line (%s): %s", strerror(-rc), why);
		goto fail;
	}
	if (log_path && *log_path) {
		logfd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (logfd < 0) {
			rc = -errno;
			mtj_perf_set_error("cannot create %s: %s", log_path, strerror(errno));
			goto fail;
		}
	}
	rc = mtj_perf_exec(caps->path, argv, logfd, perfs[0], perfs[1], &s->pid);
	if (logfd >= 0)
		close(logfd);
	for (int i = 0; i < 2; i++)
		if (perfs[i] >= 0)
			close(perfs[i]);
	if (rc < 0) {
		mtj_perf_set_error("cannot start %s: %s", caps->path, strerror(-rc));
		goto fail;
	}
	s->pidfd = mtj_fd_move_high(pidfd_of(s->pid));

	if (start_timeout_ms > 0) {
		uint64_t deadline = deadline_after(start_timeout_ms);
		if (s->control) {
			/* perf serves the control pipe only from its main loop, after the events are
			 * enabled: the first ack means recording.  `enable` is harmless when already
			 * enabled and answered since 5.9, before ping existed. */
			rc = command(s, s->ping ? "ping" : "enable", deadline);
		} else {
			sleep_until(mtj_perf_now_ns() + (uint64_t)(start_timeout_ms < 500 ? start_timeout_ms : 500) * 1000000u);
			char how[96];
			rc = perf_gone(s, how, sizeof(how)) ? died(s, "while starting") : 0;
		}
		if (rc < 0) {
			mtj_perf_set_error("%s", s->err);
			kill_and_reap(s);
			goto fail;
		}
	}
	*out = s;
	return 0;
fail:
	close_fds(s);
	free(s);
	return rc;
}

/* ---- attach -------------------------------------------------------------------------------- */

static int parse_pid(const char *t, pid_t *pid)
{
	if (strcmp(t, "parent") == 0) {
		*pid = getppid();
		return 0;
	}
	char *end;
	long v = strtol(t, &end, 10);
	if (end == t || *end || v <= 0 || v > INT_MAX)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

/* What the external perf writes, from /proc/PID: -o and --switch-output. */
static void discover_output(struct mtj_session *s, bool *known_switch)
{
	char path[64], cwd[PATH_MAX];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", s->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	static __thread char cmd[16384];
	ssize_t n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/cwd", s->pid);
	ssize_t cl = readlink(path, cwd, sizeof(cwd) - 1);
	if (n <= 0 || cl <= 0)
		return;
	cmd[n] = '\0';
	cwd[cl] = '\0';
	char *argv[512];
	int argc = 0;
	for (char *p = cmd; p < cmd + n && argc < 511; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	bool sw;
	char found[PATH_MAX];
	if (mtj_perf_output_from_argv(argc, argv, cwd, found, sizeof(found), &sw) == 0) {
		if (!s->output[0])
			snprintf(s->output, sizeof(s->output), "%s", found);
		s->switch_output = sw;
		*known_switch = true;
	}
}

int mtj_session_attach(const struct mtj_perf_caps *caps, const char *spec, enum mtj_backend backend,
		       const char *output, struct mtj_session **out)
{
	*out = NULL;
	mtj_perf_set_error("%s", "");
	char copy[1024];
	if (!spec || (size_t)snprintf(copy, sizeof(copy), "%s", spec) >= sizeof(copy))
		return -EINVAL;
	struct mtj_session *s = session_new();
	if (!s)
		return -ENOMEM;
	char why[256];
	s->backend = mtj_perf_choose_backend(caps, backend, why, sizeof(why));
	s->ping = caps->ping_stop;
	snprintf(s->output, sizeof(s->output), "%s", output ? output : "");
	int rc = -EINVAL;

	/* kind:A,B[,pid:X] */
	char *fields[4] = { NULL };
	int nf = 0;
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (nf == 4)
			goto bad;
		fields[nf++] = t;
	}
	char *colon = nf ? strchr(fields[0], ':') : NULL;
	if (!colon)
		goto bad;
	*colon = '\0';
	const char *kind = fields[0], *first = colon + 1;
	const char *pidtext = NULL;
	if (strcmp(kind, "pid") == 0) {
		if (nf != 1)
			goto bad;
		pidtext = first;
	} else if (strcmp(kind, "fifo") == 0 || strcmp(kind, "fd") == 0) {
		if (nf < 2 || nf > 3 || !*first || !*fields[1])
			goto bad;
		if (nf == 3) {
			if (strncmp(fields[2], "pid:", 4) != 0)
				goto bad;
			pidtext = fields[2] + 4;
		}
		s->control = true;
		if (kind[1] == 'i') { /* fifo */
			snprintf(s->ctl_fifo, sizeof(s->ctl_fifo), "%s", first);
			s->ack = open(fields[1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			if (s->ack < 0) {
				rc = -errno;
				mtj_perf_set_error("cannot open perf's ack fifo %s: %s", fields[1], strerror(errno));
				goto fail;
			}
			rc = ensure_ctl(s);
			if (rc < 0 && rc != -ENXIO) { /* ENXIO: perf not reading yet, retried later */
				mtj_perf_set_error("cannot open perf's control fifo %s: %s", first, strerror(-rc));
				goto fail;
			}
		} else {
			char *e1, *e2;
			long c = strtol(first, &e1, 10), a = strtol(fields[1], &e2, 10);
			if (*e1 || *e2 || c < 0 || a < 0 || c > INT_MAX || a > INT_MAX)
				goto bad;
			/* Our own copies, so closing them never closes the program's. */
			s->ctl = fcntl((int)c, F_DUPFD_CLOEXEC, 3);
			s->ack = fcntl((int)a, F_DUPFD_CLOEXEC, 3);
			if (s->ctl < 0 || s->ack < 0) {
				rc = -EBADF;
				mtj_perf_set_error("perf control fds %ld,%ld are not open in this process", c, a);
				goto fail;
			}
		}
	} else
		goto bad;
	if (pidtext && parse_pid(pidtext, &s->pid) < 0)
		goto bad;
	s->pidfd = mtj_fd_move_high(pidfd_of(s->pid));
	/* Without the command line we assume what a flight recorder needs. */
	s->switch_output = s->backend == MTJ_BACKEND_SAMPLING;
	bool known = false;
	if (s->pid > 0)
		discover_output(s, &known);
	if (s->backend == MTJ_BACKEND_SAMPLING && s->pid <= 0) {
		rc = -EINVAL;
		mtj_perf_set_error("session '%s': the sampling backend dumps on SIGUSR2, so perf's pid is needed "
				   "(add ,pid:PID or ,pid:parent)", spec);
		goto fail;
	}
	if (s->backend == MTJ_BACKEND_SAMPLING && known && !s->switch_output) {
		rc = -EINVAL;
		mtj_perf_set_error("perf (pid %d) was not started with --switch-output=signal: SIGUSR2 would "
				   "not make it dump", s->pid);
		goto fail;
	}
	if (s->switch_output && s->pid <= 0) {
		rc = -EINVAL;
		mtj_perf_set_error("session '%s': switch-output snapshots need perf's pid (add ,pid:PID)", spec);
		goto fail;
	}
	if (!s->control && s->pid <= 0)
		goto bad;
	*out = s;
	return 0;
bad:
	rc = -EINVAL;
	mtj_perf_set_error("bad session '%s' (valid: fifo:CTL,ACK[,pid:PID|pid:parent], "
			   "fd:CTL,ACK[,pid:PID|pid:parent], pid:PID, pid:parent)", spec);
fail:
	close_fds(s);
	free(s);
	return rc;
}

/* ---- snapshot ------------------------------------------------------------------------------ */

static int lock_until(struct mtj_session *s, uint64_t deadline)
{
	struct timespec ts = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };
	return pthread_mutex_clocklock(&s->lock, CLOCK_MONOTONIC, &ts) == 0 ? 0 : -EBUSY;
}

/* The new perf.data.<timestamp> after `before`, waited for until the deadline. */
static int wait_new_dump(struct mtj_session *s, const char *before, uint64_t deadline, char *file, size_t len)
{
	for (;;) {
		char now_newest[PATH_MAX];
		int r = mtj_perf_newest_dump(s->output, now_newest, sizeof(now_newest));
		if (r < 0)
			return fail(s, r, "cannot list the directory of %s: %s", s->output, strerror(-r));
		if (r == 1 && strcmp(now_newest, before) != 0) {
			snprintf(file, len, "%s", now_newest);
			return 0;
		}
		char how[96];
		if (perf_gone(s, how, sizeof(how)))
			return died(s, "during the dump");
		if (mtj_perf_now_ns() >= deadline)
			return fail(s, -ETIMEDOUT, "perf (pid %d) wrote no new %s.<timestamp> in time", s->pid, s->output);
		sleep_until(mtj_perf_now_ns() + 5000000u);
	}
}

static int snapshot_locked(struct mtj_session *s, uint64_t deadline, char *file, size_t len)
{
	if (atomic_load(&s->state) == S_STOPPED)
		return -ESRCH;
	if (atomic_load(&s->state) == S_FAILED)
		return s->fail_rc;
	int rc;
	if (!s->switch_output) {
		/* PT single: the AUX area goes into perf.data itself. */
		if (s->control) {
			if ((rc = command(s, "snapshot", deadline)) < 0)
				return rc;
			if (s->ping && (rc = command(s, "ping", deadline)) < 0)
				return rc;
		} else if ((rc = send_signal(s, SIGUSR2)) < 0)
			return rc;
		snprintf(file, len, "%s", s->output);
		return 0;
	}
	sleep_until(s->last_dump_ns + (uint64_t)MTJ_DUMP_GAP_MS * 1000000u);
	char before[PATH_MAX] = "";
	if (s->output[0] && (rc = mtj_perf_newest_dump(s->output, before, sizeof(before))) < 0)
		return fail(s, rc, "cannot list the directory of %s: %s", s->output, strerror(-rc));
	if ((rc = send_signal(s, SIGUSR2)) < 0)
		return rc;
	/* One ping can be answered in the loop iteration that has not started the dump yet;
	 * the second is answered after it (25 of 25 runs). */
	if (s->control && s->ping)
		for (int i = 0; i < 2; i++)
			if ((rc = command(s, "ping", deadline)) < 0)
				return rc;
	if (s->output[0])
		rc = wait_new_dump(s, before, deadline, file, len);
	s->last_dump_ns = mtj_perf_now_ns();
	return rc;
}

int mtj_session_snapshot(struct mtj_session *s, int timeout_ms, char *file, size_t filelen)
{
	if (filelen)
		file[0] = '\0';
	uint64_t deadline = deadline_after(timeout_ms);
	if (lock_until(s, deadline) < 0)
		return -EBUSY;
	atomic_store(&s->busy, true);
	int rc = snapshot_locked(s, deadline, file, filelen);
	atomic_store(&s->busy, false);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

bool mtj_session_busy(const struct mtj_session *s)
{
	return atomic_load(&s->busy);
}

/* ---- stop ---------------------------------------------------------------------------------- */

/* Remove what a stopped switch-output perf leaves that nobody asked for: dumps newer than
 * `newest_before` (the one written at exit) and a partial perf.data (perf killed). */
static void remove_leftovers(struct mtj_session *s, const char *newest_before)
{
	char newest[PATH_MAX];
	while (mtj_perf_newest_dump(s->output, newest, sizeof(newest)) == 1 && strcmp(newest, newest_before) != 0)
		if (unlink(newest) != 0)
			break;
	unlink(s->output);
}

static int stop_spawned(struct mtj_session *s, uint64_t deadline)
{
	char newest_before[PATH_MAX] = "";
	if (s->switch_output && s->output[0])
		mtj_perf_newest_dump(s->output, newest_before, sizeof(newest_before));
	int rc = 0;
	if (atomic_load(&s->state) == S_RUNNING) {
		if (s->switch_output)
			sleep_until(s->last_dump_ns + (uint64_t)MTJ_DUMP_GAP_MS * 1000000u);
		if (s->control && s->ping)
			command(s, "stop", deadline);
		else
			send_signal(s, SIGINT);
		/* perf may exit before we read the ack of `stop`: that is success, not death. */
		if (atomic_load(&s->state) == S_FAILED && s->fail_rc == -EPIPE) {
			s->err[0] = '\0';
			s->fail_rc = 0;
		}
	} else {
		rc = s->fail_rc == -EPIPE ? -ESRCH : s->fail_rc;
		/* It stopped answering once already: asking again would only wait. */
		kill_and_reap(s);
	}
	if (!s->reaped && s->pid > 0) {
		int status;
		int w = mtj_perf_wait_pid(s->pid, s->pidfd, deadline, &status);
		if (w == -ETIMEDOUT) {
			atomic_store(&s->state, S_RUNNING);
			fail(s, -ETIMEDOUT, "perf (pid %d) did not exit in time after stop: killed", s->pid);
			kill_and_reap(s);
			rc = -ETIMEDOUT;
		} else
			set_reaped(s, w == 0 ? status : -1);
	}
	/* perf re-raises SIGINT after a clean shutdown by signal. */
	bool by_signal = !(s->control && s->ping);
	if (rc == 0 && s->exit_status > 0 &&
	    !(by_signal && WIFSIGNALED(s->exit_status) && WTERMSIG(s->exit_status) == SIGINT)) {
		char how[96];
		mtj_perf_describe_status(s->exit_status, how, sizeof(how));
		atomic_store(&s->state, S_RUNNING);
		rc = fail(s, -EIO, "perf (pid %d) %s after stop", s->pid, how);
	}
	if (s->switch_output && s->output[0])
		remove_leftovers(s, newest_before);
	return rc;
}

int mtj_session_stop(struct mtj_session *s, int timeout_ms)
{
	uint64_t deadline = deadline_after(timeout_ms);
	if (lock_until(s, deadline) < 0)
		return -EBUSY;
	int rc = 0;
	if (atomic_load(&s->state) != S_STOPPED) {
		if (s->spawned)
			rc = stop_spawned(s, deadline);
		close_fds(s);
		atomic_store(&s->state, S_STOPPED);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void mtj_session_free(struct mtj_session *s)
{
	if (!s)
		return;
	mtj_session_stop(s, 2000);
	/* A perf that could not even be killed stays a zombie until it can be reaped. */
	close_fds(s);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void mtj_session_forget(struct mtj_session *s)
{
	if (!s)
		return;
	/* The parent's threads may have held the lock at fork: do not touch it. */
	close_fds(s);
	free(s);
}

/* ---- queries ------------------------------------------------------------------------------- */

bool mtj_session_alive(struct mtj_session *s)
{
	if (atomic_load(&s->state) != S_RUNNING)
		return false;
	if (s->pid == 0)
		return true; /* fifo without pid: only a command can tell */
	if (pthread_mutex_trylock(&s->lock) != 0)
		return true; /* a snapshot or stop is running and will tell */
	char how[96];
	if (atomic_load(&s->state) == S_RUNNING && perf_gone(s, how, sizeof(how)))
		died(s, "while recording");
	pthread_mutex_unlock(&s->lock);
	return atomic_load(&s->state) == S_RUNNING;
}

pid_t mtj_session_perf_pid(const struct mtj_session *s)
{
	return s->pid;
}

enum mtj_backend mtj_session_backend(const struct mtj_session *s)
{
	return s->backend;
}

const char *mtj_session_output(const struct mtj_session *s)
{
	return s->output;
}

const char *mtj_session_error(const struct mtj_session *s)
{
	return s->err;
}

int mtj_session_prune(struct mtj_session *s, unsigned keep)
{
	if (!s->output[0])
		return -ENOENT;
	return mtj_perf_prune(s->output, keep);
}
