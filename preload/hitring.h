/*
 * preload/hitring.h — hits travel from signal handlers to the helper thread through a
 * bounded lock-free ring (Vyukov's MPMC queue: a sequence number per slot, CAS on head),
 * preallocated, so a handler never allocates, locks or blocks.  A full ring drops the hit
 * and counts it; the count is reported, never silently lost.
 */
#ifndef MTJ_PRELOAD_HITRING_H
#define MTJ_PRELOAD_HITRING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define MTJ_BT_MAX     32
#define MTJ_RING_SLOTS 1024  /* power of two; ~600 KiB, touched only as bursts need it */

enum mtj_hit_kind {
	MTJ_HIT_TRIGGER = 0,  /* a hardware breakpoint */
	MTJ_HIT_API,          /* mtinject_snapshot() */
	MTJ_HIT_CRASH,        /* fatal signal (MTINJECT_ON=crash / abort) */
	MTJ_HIT_EXIT,         /* MTINJECT_ON=exit */
	MTJ_HIT_SIGNAL,       /* MTINJECT_ON=signal:SIG */
	MTJ_HIT_REQUEST,      /* `mtinject snapshot` through OUTDIR/control */
};

enum { MTJ_HITF_FATAL = 1u << 0 };  /* the process dies after this hit: stop perf too */

struct mtj_hit {
	uint64_t seq;             /* global order, for synchronous waiters */
	enum mtj_hit_kind kind;
	int trigger;              /* index into the trigger table, -1 if none */
	int decision;             /* enum mtj_decision */
	int sig;                  /* crash / signal kinds */
	pid_t tid;
	char thread[16];
	uint64_t nth;             /* 1-based hit number of the trigger */
	uint64_t time_ns;         /* CLOCK_MONOTONIC */
	uint64_t ip, sp;
	uint64_t args[6];         /* rdi rsi rdx rcx r8 r9 */
	uint64_t bt[MTJ_BT_MAX];  /* return addresses, innermost first */
	unsigned nbt;
	char reason[128];
	char request[48];         /* id of a `mtinject snapshot` request */
	unsigned flags;           /* MTJ_HITF_* */
};

struct mtj_ring {
	_Atomic uint64_t head;
	_Atomic uint64_t tail;
	_Atomic uint64_t dropped;
	_Atomic uint64_t seq[MTJ_RING_SLOTS];
	struct mtj_hit slot[MTJ_RING_SLOTS];
};

void mtj_ring_init(struct mtj_ring *r);
/* Producer (async-signal-safe): a slot to fill, or NULL when full (counted in dropped). */
struct mtj_hit *mtj_ring_claim(struct mtj_ring *r, uint64_t *ticket);
void mtj_ring_publish(struct mtj_ring *r, uint64_t ticket);
/* Consumer (one thread): copy the next published hit out; false when none is ready. */
bool mtj_ring_pop(struct mtj_ring *r, struct mtj_hit *out);

#endif
