/*
 * control/perf_exec.c — starting perf as a clean child of somebody else's program.
 *
 * The preload spawns perf from inside the traced process, so perf must not inherit what the
 * process carries: LD_PRELOAD and MTINJECT_* (perf would trace itself), open fds (perf
 * would keep the program's sockets and pipes alive), blocked or handled signals, and the
 * process group (the terminal's Ctrl-C would kill perf before we stop it).  posix_spawn
 * does all of it with nothing running between fork and exec.
 */
#include "control/perf.h"

/* mtj_fd_move_high: above what ordinary programs use, below the usual 1024 soft limit. */
#define MTJ_FD_HIGH 900

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

uint64_t mtj_perf_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool untraced_env(const char *e)
{
	return strncmp(e, "LD_PRELOAD=", 11) != 0 && strncmp(e, "MTINJECT_", 9) != 0;
}

/* The environment perf gets: ours minus what would make perf trace itself. */
static char **perf_env(void)
{
	size_t n = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	char **env = malloc((n + 1) * sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (untraced_env(environ[i]))
			env[k++] = environ[i];
	env[k] = NULL;
	return env;
}

int mtj_perf_which(const char *name, char *out, size_t len)
{
	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (access(name, X_OK) != 0)
			return -errno;
		if ((size_t)snprintf(out, len, "%s", name) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	/* PATH as perf's exec would see it (the same block we hand to perf). */
	const char *path = NULL;
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
	while (*path) {
		size_t dl = strcspn(path, ":");
		char cand[4096];
		int n = dl ? snprintf(cand, sizeof(cand), "%.*s/%s", (int)dl, path, name)
			   : snprintf(cand, sizeof(cand), "./%s", name);
		if (n > 0 && (size_t)n < sizeof(cand) && access(cand, X_OK) == 0) {
			if ((size_t)snprintf(out, len, "%s", cand) >= len)
				return -ENAMETOOLONG;
			return 0;
		}
		path += dl;
		if (*path == ':')
			path++;
	}
	return -ENOENT;
}

/* A copy of fd at 10 or above, so that the dup2s onto 0..4 in the child cannot clobber a
 * source that happens to sit there. */
static int high_dup(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, 10);
}

int mtj_perf_exec(const char *path, char *const argv[], int out_fd, int ctl_fd, int ack_fd,
		  pid_t *pid)
{
	int src[4] = { -1, -1, -1, -1 }; /* stdin, stdout/err, ctl, ack */
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0)
		return -errno;
	bool control = ctl_fd >= 0 && ack_fd >= 0;
	src[0] = high_dup(devnull);
	src[1] = high_dup(out_fd >= 0 ? out_fd : devnull);
	if (control) {
		src[2] = high_dup(ctl_fd);
		src[3] = high_dup(ack_fd);
	}
	close(devnull);
	int rc = 0;
	char **env = perf_env();
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	if (src[0] < 0 || src[1] < 0 || (control && (src[2] < 0 || src[3] < 0)) || !env) {
		rc = env ? -EMFILE : -ENOMEM;
		goto out_fds;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, src[0], 0);
	posix_spawn_file_actions_adddup2(&fa, src[1], 1);
	posix_spawn_file_actions_adddup2(&fa, src[1], 2);
	if (control) {
		posix_spawn_file_actions_adddup2(&fa, src[2], 3);
		posix_spawn_file_actions_adddup2(&fa, src[3], 4);
	}
	/* Fds the program left without O_CLOEXEC must not reach perf. */
	posix_spawn_file_actions_addclosefrom_np(&fa, control ? 5 : 3);

	posix_spawnattr_init(&attr);
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	rc = -posix_spawn(pid, path, &fa, &attr, argv, env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
out_fds:
	free(env);
	for (int i = 0; i < 4; i++)
		if (src[i] >= 0)
			close(src[i]);
	return rc;
}

int mtj_perf_wait_pid(pid_t pid, int pidfd, uint64_t deadline_ns, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno == ECHILD)
			return -ECHILD;
		uint64_t now = mtj_perf_now_ns();
		if (now >= deadline_ns)
			return -ETIMEDOUT;
		uint64_t left_ms = (deadline_ns - now) / 1000000u + 1;
		if (pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };
			poll(&p, 1, (int)(left_ms < 1000 ? left_ms : 1000));
		} else {
			/* No pidfd (Linux < 5.3): look again every 5 ms. */
			struct timespec ts = { 0, (long)(left_ms < 5 ? left_ms : 5) * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
}

void mtj_perf_describe_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(status));
		snprintf(buf, len, "was killed by signal %d (SIG%s)", WTERMSIG(status), abbrev ? abbrev : "?");
	} else
		snprintf(buf, len, "ended (wait status 0x%x)", status);
}

int mtj_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int mtj_fd_move_high(int fd)
{
	if (fd < 0 || fd >= MTJ_FD_HIGH)
		return fd;
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, MTJ_FD_HIGH);
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}
