/*
 * preload/breakpoint.h — hardware execution breakpoints through perf_event_open.
 *
 * One event per (trigger, thread that existed when it was armed), opened with
 * inherit + inherit_thread so every thread created later gets it too, sigtrap so the kernel
 * sends SIGTRAP synchronously to the thread that hit it (si_code TRAP_PERF) with our cookie
 * in si_perf_data, and remove_on_exec (required by sigtrap).  Single-shot is
 * PERF_EVENT_IOC_DISABLE from the handler (never IOC_REFRESH: see design.md).
 */
#ifndef MTJ_PRELOAD_BREAKPOINT_H
#define MTJ_PRELOAD_BREAKPOINT_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* Our cookies carry this tag in the upper 32 bits; the low bits are the trigger index. */
#define MTJ_COOKIE_TAG  0x6d746a21ull   /* "mtj!" */
#define MTJ_COOKIE(idx) ((MTJ_COOKIE_TAG << 32) | (uint64_t)(idx))
#define MTJ_COOKIE_IS_OURS(c) (((c) >> 32) == MTJ_COOKIE_TAG)
#define MTJ_COOKIE_INDEX(c) ((unsigned)((c) & 0xffffffffu))

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

/* Open an execution breakpoint on `addr` for thread `tid` (0 = calling thread).
 * Returns an fd (close-on-exec) or -errno: -ENOSPC when the thread has no free debug
 * register, -EACCES/-EPERM when not allowed, -EINVAL on a kernel without sigtrap. */
int mtj_bp_open(uint64_t addr, pid_t tid, uint64_t cookie);

/* Async-signal-safe. */
int mtj_bp_disable(int fd);
int mtj_bp_enable(int fd);

/* si_perf_data of a SIGTRAP (glibc 2.36 does not name the field).  Async-signal-safe. */
static inline uint64_t mtj_si_perf_data(const siginfo_t *si)
{
	/* kernel layout: si_addr, then a union whose _perf member starts with _data */
	return *(const uint64_t *)(const void *)((const char *)&si->si_addr + sizeof(void *));
}

#endif
