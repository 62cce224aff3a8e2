/*
 * control/perf_pipe.c — the bytes of perf's control protocol (--control=fd:/fifo:): a
 * command is "name\n" on the control fd, perf answers "ack\n\0" on the ack fd.
 *
 * Writing to the pipe of a perf that died raises SIGPIPE, which would kill the host
 * program; we may not touch its dispositions, so SIGPIPE is blocked in this thread only,
 * around the write, and one we raised is consumed before the mask is restored.
 */
#include "control/perf.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int write_guarded(int fd, const char *buf, size_t len)
{
	sigset_t pipe_set, old, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	bool was_pending = sigismember(&pending, SIGPIPE);
	ssize_t n;
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	int err = n < 0 ? errno : 0;
	if (err == EPIPE && !was_pending) {
		const struct timespec zero = { 0, 0 };
		sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	return n == (ssize_t)len ? 0 : -EIO;
}

int mtj_ctl_write(int fd, const char *cmd, uint64_t deadline_ns)
{
	char line[64];
	size_t len = strlen(cmd);
	if (len + 1 >= sizeof(line))
		return -EINVAL;
	memcpy(line, cmd, len);
	line[len++] = '\n';
	/* A line this short is written whole once POLLOUT says PIPE_BUF bytes are free, so the
	 * write cannot block even on an fd we share with perf (and may not make O_NONBLOCK). */
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		uint64_t now = mtj_perf_now_ns();
		int left = now >= deadline_ns ? 0 : (int)((deadline_ns - now) / 1000000u) + 1;
		int r = poll(&p, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		if (p.revents & (POLLERR | POLLHUP))
			return -EPIPE;
		break;
	}
	int rc = write_guarded(fd, line, len);
	return rc == -EAGAIN ? -ETIMEDOUT : rc;
}

int mtj_ack_drain(int fd)
{
	char buf[256];
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || !(p.revents & (POLLIN | POLLHUP)))
			return 0;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR))
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)
			return -EPIPE;
	}
}

unsigned mtj_ack_count(const char *data, size_t n)
{
	/* Match "ack\n" over the bytes with NULs taken out (perf sends sizeof("ack\n")). */
	static const char tag[] = "ack\n";
	unsigned count = 0;
	size_t matched = 0;
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\0')
			continue;
		if (data[i] == tag[matched])
			matched++;
		else
			matched = data[i] == tag[0];
		if (matched == sizeof(tag) - 1) {
			count++;
			matched = 0;
		}
	}
	return count;
}
