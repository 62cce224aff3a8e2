/*
 * preload/arm.c — turning resolved trigger locations into breakpoint events in every thread.
 *
 * The calling thread's event is inherited by every thread it creates later.  Threads that
 * already exist (started by a library constructor before ours, or running when a trigger is
 * armed after dlopen) get an event of their own (pid = tid), also inherited.  The helper
 * thread is never armed.  Not signal context; called from the constructor, or from
 * dlopen()/dlclose() wrappers.
 */
#include "preload/runtime.h"

#include "preload/breakpoint.h"
#include "preload/log.h"

#include <dirent.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void add_fd(struct mtj_trigger_rt *t, int fd)
{
	fd = mtj_fd_move_high(fd);  /* the handler ioctls these: keep them out of the program's way */
	int n = atomic_load(&t->nfds);
	if (n >= MTJ_MAX_BP_FDS) {
		close(fd);
		return;
	}
	t->fds[n] = fd;
	atomic_store(&t->nfds, n + 1);
}

static bool have_tid(const pid_t *tids, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

static const char *bp_error(int rc)
{
	switch (rc) {
	case -ENOSPC: return "no free hardware breakpoint slot (x86 has 4 per thread; a debugger or another tool may hold some)";
	case -EACCES:
	case -EPERM: return "not permitted to open hardware breakpoints (perf_event_paranoid too high? try: sysctl kernel.perf_event_paranoid=1)";
	case -EINVAL: return "the kernel refused the breakpoint (needs Linux >= 5.13 for sigtrap events)";
	case -ENOENT:
	case -ENODEV: return "this kernel or machine has no hardware breakpoints";
	default: return strerror(-rc);
	}
}

int mtj_arm_trigger(size_t idx, char *err, size_t errlen)
{
	struct mtj_trigger_rt *t = &mtj_rt.trig[idx];
	uint64_t cookie = MTJ_COOKIE(idx);
	pid_t self = (pid_t)syscall(SYS_gettid);
	pid_t helper = atomic_load(&mtj_rt.helper_tid);
	pid_t done[MTJ_MAX_BP_FDS];
	size_t ndone = 0;

	int fd = mtj_bp_open(t->loc.addr, self == helper ? (pid_t)getpid() : 0, cookie);
	if (fd < 0) {
		snprintf(err, errlen, "trigger '%s' at 0x%llx: %s", t->spec->text,
			 (unsigned long long)t->loc.addr, bp_error(fd));
		atomic_store(&t->state, MTJ_TRIG_FAILED);
		return fd;
	}
	add_fd(t, fd);
	done[ndone++] = self == helper ? (pid_t)getpid() : self;
	if (helper)
		done[ndone++] = helper;

	/* Threads that exist now; loop until a pass finds none new (threads may be starting). */
	for (int pass = 0; pass < 5; pass++) {
		bool added = false;
		DIR *d = opendir("/proc/self/task");
		if (!d)
			break;
		struct dirent *e;
		while ((e = readdir(d)) && ndone < MTJ_MAX_BP_FDS) {
			if (e->d_name[0] == '.')
				continue;
			pid_t tid = (pid_t)atoi(e->d_name);
			if (have_tid(done, ndone, tid))
				continue;
			done[ndone++] = tid;
			int tfd = mtj_bp_open(t->loc.addr, tid, cookie);
			if (tfd >= 0) {
				add_fd(t, tfd);
				added = true;
			} else if (tfd != -ESRCH) {
				mtj_log(MTJ_LOG_ERROR, "trigger '%s': cannot arm thread %d: %s", t->spec->text,
					(int)tid, bp_error(tfd));
			}
		}
		closedir(d);
		if (!added)
			break;
	}
	atomic_store(&t->state, MTJ_TRIG_ARMED);
	mtj_log(MTJ_LOG_INFO, "armed '%s' at 0x%llx (%s%s%s) in %d thread group(s)", t->spec->text,
		(unsigned long long)t->loc.addr, t->loc.symbol[0] ? t->loc.symbol : "address",
		t->loc.object[0] ? " in " : "", t->loc.object, atomic_load(&t->nfds));
	return 0;
}

void mtj_disarm_trigger(size_t idx, enum mtj_trigger_state why)
{
	struct mtj_trigger_rt *t = &mtj_rt.trig[idx];
	int n = atomic_load(&t->nfds);
	for (int i = 0; i < n; i++)
		mtj_bp_disable(t->fds[i]);
	atomic_store(&t->state, why);
	if (why == MTJ_TRIG_UNLOADED) {
		/* Disabled events still hold a debug register: release them so the trigger can be
		 * armed again when the object comes back.  A handler racing with this at worst
		 * gets EBADF from its disable ioctl. */
		atomic_store(&t->nfds, 0);
		for (int i = 0; i < n; i++)
			close(t->fds[i]);
	}
}

static int object_loaded_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	const char *path = arg;
	return strcmp(info->dlpi_name, path) == 0;
}

static bool object_loaded(const char *path)
{
	return dl_iterate_phdr(object_loaded_cb, (void *)(uintptr_t)path) != 0;
}

void mtj_rearm_after_dl_change(void)
{
	if (atomic_load(&mtj_rt.phase) != MTJ_PHASE_ACTIVE)
		return;
	for (size_t i = 0; i < mtj_rt.ntrig; i++) {
		struct mtj_trigger_rt *t = &mtj_rt.trig[i];
		int st = atomic_load(&t->state);
		char err[1024];
		if (st == MTJ_TRIG_PENDING || st == MTJ_TRIG_UNLOADED) {
			int rc = mtj_resolve_location(t->spec, &t->loc, err, sizeof(err));
			if (rc == -EAGAIN)
				continue;
			if (rc < 0) {
				mtj_log(MTJ_LOG_ERROR, "%s", err);
				atomic_store(&t->state, MTJ_TRIG_FAILED);
				continue;
			}
			if (mtj_arm_trigger(i, err, sizeof(err)) < 0)
				mtj_log(MTJ_LOG_ERROR, "%s", err);
		} else if (st == MTJ_TRIG_ARMED && t->spec->object[0] && t->loc.object[0] &&
			   !object_loaded(t->loc.object)) {
			mtj_disarm_trigger(i, MTJ_TRIG_UNLOADED);
			mtj_log(MTJ_LOG_INFO, "disarmed '%s': %s was unloaded", t->spec->text, t->loc.object);
		}
	}
}
