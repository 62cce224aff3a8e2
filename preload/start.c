/*
 * preload/start.c — bringing mtinject up inside the target and taking it down again.
 *
 * Order matters: resolve every trigger before starting perf (a typo costs nothing), start
 * perf and wait until it records (the first trigger is covered), start the helper thread
 * before arming (it must not inherit the breakpoints), install handlers, then arm.
 * Any failure: one message, the program runs on untraced (MTINJECT_STRICT=1: exit 2 for
 * configuration errors, before main).
 */
#include "preload/start.h"

#include "preload/breakpoint.h"
#include "preload/log.h"
#include "preload/runtime.h"
#include "preload/symcache.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

/* Set in our own environment so exec'd descendants know they are not the traced root. */
#define MTJ_MARKER_ENV "_MTINJECT_ROOT"

struct mtj_runtime mtj_rt = { .wake_rd = -1, .wake_wr = -1 };
static char registry_link[PATH_MAX];
static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int in_dl_hook;

static const char *env_get(const char *name)
{
	return getenv(name);
}

static void config_failed(const char *err)
{
	mtj_log(MTJ_LOG_ERROR, "%s", err);
	if (mtj_rt.cfg.strict) {
		mtj_log(MTJ_LOG_ERROR, "MTINJECT_STRICT=1: exiting with status 2");
		_exit(2);
	}
	mtj_log(MTJ_LOG_ERROR, "the program runs untraced");
}

static int make_outdir(void)
{
	char name[PATH_MAX];
	if (mtj_rt.cfg.output[0])
		snprintf(name, sizeof(name), "%s", mtj_rt.cfg.output);
	else
		snprintf(name, sizeof(name), "mtinject-%s-%d", mtj_rt.program, (int)mtj_rt.pid);
	size_t len = strlen(name);
	while (len > 1 && name[len - 1] == '/')
		name[--len] = '\0';
	if (name[0] == '/') {
		snprintf(mtj_rt.outdir, sizeof(mtj_rt.outdir), "%s", name);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if ((size_t)snprintf(mtj_rt.outdir, sizeof(mtj_rt.outdir), "%s/%s", cwd, name) >= sizeof(mtj_rt.outdir))
			return -ENAMETOOLONG;
	}
	if (mkdir(mtj_rt.outdir, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (access(mtj_rt.outdir, W_OK | X_OK) < 0)
		return -errno;
	return 0;
}

static void registry_add(void)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/tmp/mtinject-%u", (unsigned)getuid());
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return;
	struct stat st;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
		return; /* somebody else's directory: do not register there */
	snprintf(registry_link, sizeof(registry_link), "%s/%d", dir, (int)mtj_rt.pid);
	unlink(registry_link);
	if (symlink(mtj_rt.outdir, registry_link) < 0)
		registry_link[0] = '\0';
}

static void registry_remove(void)
{
	if (registry_link[0])
		unlink(registry_link);
	registry_link[0] = '\0';
}

/* One full unwind now, so that libunwind's lazy set-up does not happen in a handler.  A
 * per-thread cache: the global one takes a lock with signals masked, eight sigprocmask
 * calls per backtrace, a third of the cost of a hit. */
static void prime_unwinder(void)
{
	unw_context_t ctx;
	unw_cursor_t cur;
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	unw_getcontext(&ctx);
	if (unw_init_local(&cur, &ctx) < 0)
		return;
	while (unw_step(&cur) > 0)
		;
}

static int start_session(void)
{
	const struct mtj_config *c = &mtj_rt.cfg;
	if (c->session == MTJ_SESSION_NONE) {
		mtj_rt.hits_only = true;
		mtj_log(MTJ_LOG_INFO, "MTINJECT_SESSION=none: recording hits only");
		return 0;
	}
	int rc = mtj_perf_probe(c->perf[0] ? c->perf : NULL, &mtj_rt.caps);
	if (rc < 0) {
		char hint[512];
		mtj_perf_fix_hint(&mtj_rt.caps, rc, c->backend, hint, sizeof(hint));
		mtj_log(MTJ_LOG_ERROR, "cannot use perf (%s): %s", strerror(-rc), hint);
		return rc;
	}
	char why[256] = "";
	enum mtj_backend backend = mtj_perf_choose_backend(&mtj_rt.caps, c->backend, why, sizeof(why));
	mtj_log(MTJ_LOG_INFO, "backend: %s", why);

	char data[PATH_MAX + 16], log[PATH_MAX + 16];
	snprintf(data, sizeof(data), "%s/perf.data", mtj_rt.outdir);
	snprintf(log, sizeof(log), "%s/perf.log", mtj_rt.outdir);
	if (c->session == MTJ_SESSION_SPAWN) {
		struct mtj_record_opts o;
		memset(&o, 0, sizeof(o));
		o.backend = backend;
		o.pid = mtj_rt.pid;
		o.output = data;
		o.snapshot_size = c->snapshot_size;
		o.sample_freq = c->sample_freq;
		o.callgraph = c->callgraph;
		o.timer_resolution = c->timer_resolution[0] ? c->timer_resolution : NULL;
		o.multi = true;
		o.bpf_events = c->bpf_events;
		o.ctl_fd = o.ack_fd = -1;
		rc = mtj_session_spawn(&mtj_rt.caps, &o, log, c->start_timeout_ms, &mtj_rt.session);
	} else {
		static const char *prefix[] = { [MTJ_SESSION_FIFO] = "fifo:", [MTJ_SESSION_FD] = "fd:",
						[MTJ_SESSION_PID] = "pid:" };
		char spec[300];
		snprintf(spec, sizeof(spec), "%s%s", prefix[c->session], c->session_spec);
		rc = mtj_session_attach(&mtj_rt.caps, spec, backend, NULL, &mtj_rt.session);
	}
	if (rc < 0) {
		const char *detail = mtj_rt.session ? mtj_session_error(mtj_rt.session) : "";
		mtj_log(MTJ_LOG_ERROR, "cannot start the perf session: %s%s%s (log: %s)", strerror(-rc),
			*detail ? ": " : "", detail, log);
		if (mtj_rt.session) {
			mtj_session_free(mtj_rt.session);
			mtj_rt.session = NULL;
		}
		return rc;
	}
	return 0;
}

static int resolve_triggers(void)
{
	mtj_rt.ntrig = mtj_rt.cfg.ntriggers;
	for (size_t i = 0; i < mtj_rt.ntrig; i++) {
		struct mtj_trigger_rt *t = &mtj_rt.trig[i];
		char err[2048];
		t->spec = &mtj_rt.cfg.triggers[i];
		int rc = mtj_resolve_location(t->spec, &t->loc, err, sizeof(err));
		if (rc == -EAGAIN) {
			atomic_store(&t->state, MTJ_TRIG_PENDING);
			mtj_log(MTJ_LOG_INFO, "trigger '%s': %s is not loaded yet; armed when it is", t->spec->text,
				t->spec->object);
			continue;
		}
		if (rc < 0) {
			config_failed(err);
			return rc;
		}
	}
	return 0;
}

static void child_after_fork(void);

static void start_tracing(bool in_fork_child)
{
	int rc;
	if ((rc = make_outdir()) < 0) {
		mtj_log(MTJ_LOG_ERROR, "cannot use output directory %s: %s; the program runs untraced",
			mtj_rt.outdir[0] ? mtj_rt.outdir : mtj_rt.cfg.output, strerror(-rc));
		return;
	}
	if (start_session() < 0) {
		if (mtj_rt.cfg.session != MTJ_SESSION_NONE)
			mtj_log(MTJ_LOG_ERROR, "no snapshots will be taken; hits are still recorded in %s/hits.jsonl",
				mtj_rt.outdir);
		mtj_rt.hits_only = true;
	}
	mtj_ring_init(&mtj_rt.ring);
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		mtj_log(MTJ_LOG_ERROR, "pipe: %s; the program runs untraced", strerror(errno));
		goto fail;
	}
	mtj_rt.wake_rd = mtj_fd_move_high(p[0]);
	mtj_rt.wake_wr = mtj_fd_move_high(p[1]);
	if ((rc = mtj_helper_start()) < 0) {
		mtj_log(MTJ_LOG_ERROR, "cannot start the helper thread: %s; the program runs untraced", strerror(-rc));
		goto fail;
	}
	registry_add();
	/* In a fork child the unwinder is primed already (its caches came along), and the
	 * loader lock it would take may still be held by the fork. */
	if (!in_fork_child)
		prime_unwinder();
	if ((rc = mtj_handlers_install()) < 0) {
		mtj_log(MTJ_LOG_ERROR, "cannot install signal handlers: %s; the program runs untraced", strerror(-rc));
		goto fail;
	}
	atomic_store(&mtj_rt.phase, MTJ_PHASE_ACTIVE);
	for (size_t i = 0; i < mtj_rt.ntrig; i++) {
		char err[1024];
		if (atomic_load(&mtj_rt.trig[i].state) == MTJ_TRIG_PENDING)
			continue;
		if (mtj_arm_trigger(i, err, sizeof(err)) < 0) {
			mtj_log(MTJ_LOG_ERROR, "%s; the program runs untraced", err);
			atomic_store(&mtj_rt.phase, MTJ_PHASE_OFF);
			goto fail;
		}
	}
	mtj_log(MTJ_LOG_INFO, "tracing pid %d into %s", (int)mtj_rt.pid, mtj_rt.outdir);
	return;
fail:
	mtj_helper_shutdown(5000);
	registry_remove();
}

void mtj_start(void)
{
	int saved = errno;
	char err[2048] = "";
	const char *marker = env_get(MTJ_MARKER_ENV);
	extern char **environ;
	int rc = mtj_config_load(&mtj_rt.cfg, env_get, environ, err, sizeof(err));
	if (marker && !(rc == 0 && mtj_rt.cfg.follow_exec))
		goto out; /* an exec'd descendant stays dormant */
	/* Even after an error the configuration holds valid log settings: use them to report. */
	if (mtj_rt.cfg.log_file[0]) {
		int fd = open(mtj_rt.cfg.log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (fd < 0)
			mtj_log(MTJ_LOG_ERROR, "MTINJECT_LOG_FILE: cannot open '%s': %s; logging to stderr",
				mtj_rt.cfg.log_file, strerror(errno));
		else
			mtj_log_setup(mtj_rt.cfg.log_level, mtj_fd_move_high(fd));
	} else {
		mtj_log_setup(mtj_rt.cfg.log_level, 2);
	}
	/* Descendants that exec with our LD_PRELOAD stay quiet, whatever happens here. */
	char pidbuf[32];
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)getpid());
	setenv(MTJ_MARKER_ENV, pidbuf, 1);
	if (rc < 0) {
		config_failed(err);
		goto out;
	}
	mtj_rt.pid = getpid();
	snprintf(mtj_rt.program, sizeof(mtj_rt.program), "%s", program_invocation_short_name);
	if (resolve_triggers() < 0)
		goto out;
	pthread_atfork(mtj_symcache_lock, mtj_symcache_unlock, child_after_fork);
	start_tracing(false);
out:
	errno = saved;
}

void mtj_finish(void)
{
	if (atomic_load(&mtj_rt.phase) != MTJ_PHASE_ACTIVE)
		return;
	int saved = errno;
	if (mtj_rt.cfg.on & MTJ_ON_EXIT) {
		int d = mtj_rt.hits_only || atomic_load(&mtj_rt.session_dead) ? MTJ_SNAP_NO_SESSION : MTJ_SNAP_YES;
		uint64_t seq = mtj_hit_record(MTJ_HIT_EXIT, -1, d, 0, NULL, 0, "exit", 0);
		if (!mtj_hit_wait(seq, MTJ_FATAL_WAIT_MS))
			mtj_log(MTJ_LOG_ERROR, "timed out waiting for the exit snapshot");
	}
	atomic_store(&mtj_rt.phase, MTJ_PHASE_EXITING);
	for (size_t i = 0; i < mtj_rt.ntrig; i++)
		mtj_disarm_trigger(i, MTJ_TRIG_DONE);
	mtj_helper_shutdown(15000);
	registry_remove();
	uint64_t dropped = atomic_load(&mtj_rt.ring.dropped);
	uint64_t hits = 0, gap = 0;
	for (size_t i = 0; i < mtj_rt.ntrig; i++) {
		hits += atomic_load(&mtj_rt.trig[i].c.hits);
		gap += atomic_load(&mtj_rt.trig[i].c.coalesced);
	}
	mtj_log(MTJ_LOG_INFO,
		"done: %llu trigger hits, %llu snapshots (%llu requests served by a shared snapshot, %llu held back by min-gap), %llu failed; in %s",
		(unsigned long long)hits, (unsigned long long)atomic_load(&mtj_rt.snapshots_taken),
		(unsigned long long)atomic_load(&mtj_rt.requests_coalesced), (unsigned long long)gap,
		(unsigned long long)atomic_load(&mtj_rt.snapshot_failures), mtj_rt.outdir);
	if (dropped)
		mtj_log(MTJ_LOG_ERROR, "%llu hits arrived faster than they could be recorded and were dropped (counted, not written)",
			(unsigned long long)dropped);
	if (mtj_hits_unwritten())
		mtj_log(MTJ_LOG_INFO, "%llu hits that took no snapshot were counted, not written to hits.jsonl (MTINJECT_HITS_MAX=%llu)",
			(unsigned long long)mtj_hits_unwritten(),
			(unsigned long long)mtj_rt.cfg.hits_max);
	errno = saved;
}

/*
 * After fork(), in the child: the breakpoints and the helper thread did not come along.
 * MTINJECT_FOLLOW_FORK=disarm (default): the child runs untraced (the parent's perf session,
 * which follows children, still samples it).  =trace: the child starts its own tracing, with
 * its own output directory and perf session.
 */
static void child_after_fork(void)
{
	int saved = errno;
	mtj_symcache_atfork_child();
	if (atomic_load(&mtj_rt.phase) != MTJ_PHASE_ACTIVE)
		return;
	atomic_store(&mtj_rt.phase, MTJ_PHASE_OFF);
	if (mtj_rt.session)
		mtj_session_forget(mtj_rt.session);
	mtj_rt.session = NULL;
	mtj_rt.helper_running = false;
	atomic_store(&mtj_rt.helper_tid, 0);
	close(mtj_rt.wake_rd);
	close(mtj_rt.wake_wr);
	mtj_rt.wake_rd = mtj_rt.wake_wr = -1;
	registry_link[0] = '\0';
	if (mtj_rt.cfg.follow_fork == MTJ_FORK_TRACE) {
		static struct mtj_config cfg;
		static struct mtj_location locs[MTJ_HW_BREAKPOINTS];
		int states[MTJ_HW_BREAKPOINTS];
		cfg = mtj_rt.cfg;
		for (size_t i = 0; i < mtj_rt.ntrig; i++) {
			locs[i] = mtj_rt.trig[i].loc;
			states[i] = atomic_load(&mtj_rt.trig[i].state);
		}
		memset(&mtj_rt, 0, sizeof(mtj_rt));
		mtj_rt.cfg = cfg;
		mtj_rt.wake_rd = mtj_rt.wake_wr = -1;
		mtj_rt.cfg.output[0] = '\0';   /* a directory of its own */
		mtj_rt.pid = getpid();
		mtj_rt.fork_child = true;
		snprintf(mtj_rt.program, sizeof(mtj_rt.program), "%s", program_invocation_short_name);
		/* Same address space layout as the parent: the resolved locations still hold. */
		mtj_rt.ntrig = cfg.ntriggers;
		for (size_t i = 0; i < mtj_rt.ntrig; i++) {
			mtj_rt.trig[i].spec = &mtj_rt.cfg.triggers[i];
			mtj_rt.trig[i].loc = locs[i];
			atomic_store(&mtj_rt.trig[i].state, states[i] == MTJ_TRIG_PENDING ? MTJ_TRIG_PENDING : MTJ_TRIG_RESOLVED);
		}
		start_tracing(true);
	}
	errno = saved;
}

/*
 * _exit()/_Exit() skip destructors, so a program (or a fork child) that leaves that way would
 * leave perf running and queued hits unwritten; exec*() (exec.c) replaces the recorded image.
 * Both may happen in a signal handler or after vfork(): here we only record (the exit
 * snapshot, for _exit), disable the breakpoints and let the helper thread stop perf, waiting
 * for it with nanosleep (bounded).
 */
void mtj_quiesce(const char *why)
{
	if (atomic_load(&mtj_rt.phase) != MTJ_PHASE_ACTIVE)
		return;
	int saved = errno;
	if ((mtj_rt.cfg.on & MTJ_ON_EXIT) && why[0] == '_') {
		int d = mtj_rt.hits_only || atomic_load(&mtj_rt.session_dead) ? MTJ_SNAP_NO_SESSION : MTJ_SNAP_YES;
		uint64_t seq = mtj_hit_record(MTJ_HIT_EXIT, -1, d, 0, NULL, 0, why, 0);
		mtj_hit_wait(seq, MTJ_FATAL_WAIT_MS);
	}
	atomic_store(&mtj_rt.phase, MTJ_PHASE_EXITING);
	for (size_t i = 0; i < mtj_rt.ntrig; i++)
		mtj_disarm_trigger(i, MTJ_TRIG_DONE);
	if (!mtj_helper_finish_async(MTJ_FATAL_WAIT_MS))
		mtj_log_sigsafe(MTJ_LOG_ERROR, "perf was not stopped in time before ", why, -1);
	registry_remove();
	errno = saved;
}

typedef void (*exit_fn)(int);

__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
	mtj_quiesce("_exit");
	exit_fn real = (exit_fn)dlsym(RTLD_NEXT, "_exit");
	if (real)
		real(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status)
{
	_exit(status);
}

/* dlopen()/dlclose() wrappers: arm triggers of objects that appear, disarm those that go. */
typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);

static void dl_changed(void)
{
	mtj_symcache_invalidate();
	if (in_dl_hook || atomic_load(&mtj_rt.phase) != MTJ_PHASE_ACTIVE)
		return;
	in_dl_hook = 1;
	pthread_mutex_lock(&dl_lock);
	mtj_rearm_after_dl_change();
	pthread_mutex_unlock(&dl_lock);
	in_dl_hook = 0;
}

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	static dlopen_fn real;
	if (!real)
		real = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
	void *h = real(file, mode);
	if (h) {
		int saved = errno;
		dl_changed();
		errno = saved;
	}
	return h;
}

__attribute__((visibility("default"))) int dlclose(void *handle)
{
	static dlclose_fn real;
	if (!real)
		real = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
	int rc = real(handle);
	int saved = errno;
	dl_changed();
	errno = saved;
	return rc;
}
