/*
 * control/perf_caps.c — what the installed perf and this machine can do: `perf --version`
 * (run once per executable, cached), Intel PT, a hardware PMU, perf_event_paranoid,
 * privileges; which backend AUTO means here and why; and the one message that tells a user
 * what to run when perf cannot record.
 */
#include "control/perf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PT_SYSFS "/sys/bus/event_source/devices/intel_pt"

static __thread char last_error[1024];

const char *mtj_perf_last_error(void)
{
	return last_error;
}

void mtj_perf_set_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

static bool read_number(const char **p, int *out)
{
	if (**p < '0' || **p > '9')
		return false;
	char *end;
	long n = strtol(*p, &end, 10);
	if (n > 100000)
		return false;
	*out = (int)n;
	*p = end;
	return true;
}

int mtj_perf_parse_version(const char *text, int *major, int *minor, int *patch)
{
	static const char prefix[] = "perf version ";
	if (!text || strncmp(text, prefix, sizeof(prefix) - 1) != 0)
		return -EINVAL;
	const char *p = text + sizeof(prefix) - 1;
	int ma, mi, pa = 0;
	if (!read_number(&p, &ma) || *p++ != '.' || !read_number(&p, &mi))
		return -EINVAL;
	/* The patch level is optional: git builds say "5.4.gabc", release candidates
	 * "5.10.0-rc3.g1234", distributions "6.1.187". */
	if (*p == '.' && p[1] >= '0' && p[1] <= '9') {
		p++;
		read_number(&p, &pa);
	}
	if (*p && !strchr(".-+~_ \n", *p))
		return -EINVAL;
	*major = ma;
	*minor = mi;
	*patch = pa;
	return 0;
}

void mtj_perf_caps_from_version(struct mtj_perf_caps *caps)
{
	int v = caps->major * 1000 + caps->minor;
	caps->control_fd = v >= 5009;
	caps->control_fifo = v >= 5010;
	caps->ping_stop = v >= 5012;
	caps->dlfilter = v >= 5014;
}

/* ---- system facts ---------------------------------------------------------------------- */

static int read_paranoid(void)
{
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 2; /* the kernel default */
	char buf[32];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 2;
	buf[n] = '\0';
	return atoi(buf);
}

static bool has_perf_privilege(void)
{
	if (geteuid() == 0)
		return true;
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	const int perfmon = 38; /* CAP_PERFMON, missing from older headers */
	bool admin = data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32));
	bool pm = data[perfmon / 32].effective & (1u << (perfmon % 32));
	return admin || pm;
}

/* In VMs without a virtual PMU the hardware events do not exist (ENOENT/EOPNOTSUPP). */
static bool has_hw_pmu(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* ---- `perf --version`, cached per executable -------------------------------------------- */

static struct {
	pthread_mutex_t lock;
	bool valid;
	char path[4096];
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	int major, minor, patch;
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int run_version(const char *path, char *out, size_t len)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -errno;
	char *argv[] = { (char *)path, (char *)"--version", NULL };
	pid_t pid;
	int rc = mtj_perf_exec(path, argv, pfd[1], -1, -1, &pid);
	close(pfd[1]);
	if (rc < 0) {
		close(pfd[0]);
		mtj_perf_set_error("cannot run %s: %s", path, strerror(-rc));
		return rc;
	}
	uint64_t deadline = mtj_perf_now_ns() + (uint64_t)MTJ_PROBE_TIMEOUT_MS * 1000000u;
	size_t used = 0;
	rc = -EIO;
	for (;;) {
		uint64_t now = mtj_perf_now_ns();
		if (now >= deadline)
			break;
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int pr = poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			break;
		ssize_t n = read(pfd[0], out + used, len - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (used += (size_t)n) >= len - 1) {
			rc = 0;
			break;
		}
	}
	out[used] = '\0';
	close(pfd[0]);
	int status;
	if (mtj_perf_wait_pid(pid, -1, deadline, &status) == -ETIMEDOUT) {
		kill(pid, SIGKILL);
		mtj_perf_wait_pid(pid, -1, mtj_perf_now_ns() + 1000000000u, &status);
		mtj_perf_set_error("%s --version did not answer within %d ms", path, MTJ_PROBE_TIMEOUT_MS);
		return -EIO;
	}
	if (rc < 0)
		mtj_perf_set_error("%s --version did not answer within %d ms", path, MTJ_PROBE_TIMEOUT_MS);
	return rc;
}

static int probe_version(struct mtj_perf_caps *caps)
{
	struct stat st;
	if (stat(caps->path, &st) != 0)
		return -errno;
	pthread_mutex_lock(&cache.lock);
	if (cache.valid && strcmp(cache.path, caps->path) == 0 && cache.dev == st.st_dev &&
	    cache.ino == st.st_ino && cache.mtime.tv_sec == st.st_mtim.tv_sec &&
	    cache.mtime.tv_nsec == st.st_mtim.tv_nsec) {
		caps->major = cache.major;
		caps->minor = cache.minor;
		caps->patch = cache.patch;
		pthread_mutex_unlock(&cache.lock);
		return 0;
	}
	char out[512];
	int rc = run_version(caps->path, out, sizeof(out));
	if (rc == 0 && mtj_perf_parse_version(out, &caps->major, &caps->minor, &caps->patch) != 0) {
		out[strcspn(out, "\n")] = '\0';
		mtj_perf_set_error("%s --version said '%.100s', not 'perf version X.Y'", caps->path, out);
		rc = -EIO;
	}
	if (rc == 0) {
		cache.valid = true;
		snprintf(cache.path, sizeof(cache.path), "%s", caps->path);
		cache.dev = st.st_dev;
		cache.ino = st.st_ino;
		cache.mtime = st.st_mtim;
		cache.major = caps->major;
		cache.minor = caps->minor;
		cache.patch = caps->patch;
	}
	pthread_mutex_unlock(&cache.lock);
	return rc;
}

int mtj_perf_probe(const char *perf_override, struct mtj_perf_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	struct stat st;
	caps->intel_pt = stat(PT_SYSFS, &st) == 0;
	caps->paranoid = read_paranoid();
	caps->privileged = has_perf_privilege();
	caps->hw_pmu = has_hw_pmu();

	const char *name = perf_override && *perf_override ? perf_override : "perf";
	int rc = mtj_perf_which(name, caps->path, sizeof(caps->path));
	if (rc < 0) {
		caps->path[0] = '\0';
		mtj_perf_set_error("%s not found%s", name, strchr(name, '/') ? "" : " on PATH");
		return rc;
	}
	rc = probe_version(caps);
	if (rc < 0)
		return rc;
	mtj_perf_caps_from_version(caps);
	return 0;
}

/* ---- decisions and advice ---------------------------------------------------------------- */

enum mtj_backend mtj_perf_choose_backend(const struct mtj_perf_caps *caps, enum mtj_backend asked,
					 char *why, size_t whylen)
{
	const char *event = caps->hw_pmu ? "cycles" : "cpu-clock (no hardware PMU)";
	switch (asked) {
	case MTJ_BACKEND_PT:
		snprintf(why, whylen, caps->intel_pt ? "Intel PT: asked for (MTINJECT_BACKEND=pt)"
			 : "Intel PT: asked for (MTINJECT_BACKEND=pt), but " PT_SYSFS " does not exist");
		return MTJ_BACKEND_PT;
	case MTJ_BACKEND_SAMPLING:
		snprintf(why, whylen, "sampling with %s: asked for (MTINJECT_BACKEND=sampling)", event);
		return MTJ_BACKEND_SAMPLING;
	case MTJ_BACKEND_AUTO:
		break;
	}
	if (caps->intel_pt) {
		snprintf(why, whylen, "Intel PT: " PT_SYSFS " exists");
		return MTJ_BACKEND_PT;
	}
	snprintf(why, whylen, "sampling with %s: no Intel PT here (" PT_SYSFS " missing)", event);
	return MTJ_BACKEND_SAMPLING;
}

uint64_t mtj_perf_default_snapshot_size(const struct mtj_perf_caps *caps)
{
	/* perf_event_mlock_kb (516 KiB by default) binds everybody else. */
	return caps->privileged || caps->paranoid < 0 ? MTJ_SNAPSHOT_SIZE_PRIVILEGED
						      : MTJ_SNAPSHOT_SIZE_UNPRIVILEGED;
}

static void hint(char *buf, size_t len, enum mtj_hint *worst, enum mtj_hint level, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void hint(char *buf, size_t len, enum mtj_hint *worst, enum mtj_hint level, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 1 < len) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(buf + used, len - used, fmt, ap);
		va_end(ap);
		used += n > 0 ? (size_t)n : 0;
		if (used + 1 < len) {
			buf[used] = '\n';
			buf[used + 1] = '\0';
		}
	}
	if (level > *worst)
		*worst = level;
}

enum mtj_hint mtj_perf_fix_hint(const struct mtj_perf_caps *caps, int probe_rc,
				enum mtj_backend backend, char *buf, size_t len)
{
	enum mtj_hint worst = MTJ_HINT_NONE;
	if (len == 0)
		return MTJ_HINT_NONE;
	buf[0] = '\0';
	if (probe_rc == -ENOENT || !caps->path[0])
		hint(buf, len, &worst, MTJ_HINT_FATAL,
		     "perf is not installed: run `sudo apt-get install linux-perf` (Debian; Ubuntu: "
		     "linux-tools-$(uname -r), Fedora: `sudo dnf install perf`), or set MTINJECT_PERF=/path/to/perf");
	else if (probe_rc < 0)
		hint(buf, len, &worst, MTJ_HINT_FATAL,
		     "%s does not work (%s): check `%s --version`, or set MTINJECT_PERF=/path/to/perf",
		     caps->path, *last_error ? last_error : strerror(-probe_rc), caps->path);
	/* Level 3 (a Debian/Android patch) forbids perf_event_open to unprivileged users;
	 * recording one's own processes in user space works up to 2. */
	if (!caps->privileged && caps->paranoid > 2)
		hint(buf, len, &worst, MTJ_HINT_FATAL,
		     "perf_event_paranoid is %d: perf cannot record as this user; run: sudo sysctl "
		     "kernel.perf_event_paranoid=1 (or run as root, or give perf CAP_PERFMON)", caps->paranoid);
	if (backend == MTJ_BACKEND_PT && !caps->intel_pt)
		hint(buf, len, &worst, MTJ_HINT_FATAL,
		     "no Intel PT on this CPU or VM (/sys/bus/event_source/devices/intel_pt missing): "
		     "use MTINJECT_BACKEND=sampling (or auto)");
	if (caps->path[0] && probe_rc == 0 && !caps->ping_stop)
		hint(buf, len, &worst, MTJ_HINT_WARN,
		     "perf %d.%d is older than 5.12 (no control-pipe ping/stop): snapshots are requested "
		     "with SIGUSR2 and their completion is guessed; install perf >= 5.12 for reliable snapshots",
		     caps->major, caps->minor);
	if (backend == MTJ_BACKEND_SAMPLING && !caps->hw_pmu)
		hint(buf, len, &worst, MTJ_HINT_WARN,
		     "no hardware PMU (usual in VMs): sampling uses cpu-clock; enable the virtual PMU "
		     "(e.g. QEMU -cpu host,pmu=on) for cycles");
	if (!caps->privileged && caps->paranoid >= 0)
		hint(buf, len, &worst, MTJ_HINT_WARN,
		     "not privileged: the snapshot ring defaults to 256 KiB (4 MiB needs root or "
		     "`sudo sysctl kernel.perf_event_paranoid=-1`)");
	if (*buf && buf[strlen(buf) - 1] == '\n')
		buf[strlen(buf) - 1] = '\0';
	return worst;
}
