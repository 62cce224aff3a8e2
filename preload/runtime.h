/*
 * preload/runtime.h — the preload's state and its three execution contexts:
 *
 *   constructor (main.c)  parse config, resolve triggers, start perf, start the helper
 *                         thread, arm breakpoints — allowed to allocate and block (bounded).
 *   signal handlers       (handler.c) record a hit into the ring, decide, wake the helper;
 *                         async-signal-safe only.  Fatal-signal handlers additionally wait
 *                         (bounded, with nanosleep) until the helper has written the snapshot.
 *   helper thread         (helper.c) drains the ring, symbolizes, writes hits.jsonl, talks to
 *                         perf (snapshot, stop), serves OUTDIR/control.
 *
 * Lock order: none needed: handlers touch only atomics and ring slots; everything that
 * needs a lock (symbol caches, perf session) is used by the helper thread alone, or by the
 * constructor/destructor while the helper is not running.
 */
#ifndef MTJ_PRELOAD_RUNTIME_H
#define MTJ_PRELOAD_RUNTIME_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "control/perf.h"
#include "preload/config.h"
#include "preload/decide.h"
#include "preload/hitring.h"
#include "preload/symbols.h"

#define MTJ_MAX_BP_FDS 256
/* How long a dying thread waits for its snapshot: a dump takes 70-180 ms, stop ~300 ms. */
#define MTJ_FATAL_WAIT_MS 5000

enum mtj_trigger_state {
	MTJ_TRIG_RESOLVED = 0,  /* address known, not armed yet */
	MTJ_TRIG_PENDING,       /* object not loaded yet: armed on dlopen */
	MTJ_TRIG_ARMED,
	MTJ_TRIG_DONE,          /* count reached: disabled */
	MTJ_TRIG_UNLOADED,      /* its object was dlclose'd */
	MTJ_TRIG_FAILED,
};

struct mtj_trigger_rt {
	const struct mtj_trigger_spec *spec;
	struct mtj_location loc;
	_Atomic int state;
	int fds[MTJ_MAX_BP_FDS];
	_Atomic int nfds;
	struct mtj_counters c;
};

enum mtj_phase { MTJ_PHASE_OFF = 0, MTJ_PHASE_ACTIVE, MTJ_PHASE_EXITING };

struct mtj_runtime {
	struct mtj_config cfg;
	char outdir[PATH_MAX];
	char program[256];
	_Atomic int phase;
	bool hits_only;                     /* MTINJECT_SESSION=none, or perf unavailable */
	/* Tracing in a fork child (MTINJECT_FOLLOW_FORK=trace): glibc can leave the loader's
	 * write lock held there, so nothing may call dl_iterate_phdr: backtraces come from
	 * frame pointers and hits.jsonl carries raw addresses only. */
	bool fork_child;
	struct mtj_trigger_rt trig[MTJ_HW_BREAKPOINTS];
	size_t ntrig;
	struct mtj_ring ring;
	int wake_rd, wake_wr;               /* handler -> helper: one byte per hit */
	_Atomic uint64_t next_seq;          /* hit sequence numbers */
	_Atomic uint64_t done_seq;          /* highest seq the helper has fully handled */
	_Atomic pid_t helper_tid;
	pthread_t helper;
	bool helper_running;
	struct mtj_perf_caps caps;
	struct mtj_session *session;        /* owned by the helper thread once it runs */
	_Atomic int session_dead;
	_Atomic uint64_t snapshots_taken, snapshot_failures, requests_coalesced;
	/* hits kept from a snapshot by the trigger's options, counted while MTINJECT_HITS_MAX
	 * is not 0; those beyond it are not recorded (mtj_hits_unwritten()) */
	_Atomic uint64_t quiet_hits;
	pid_t pid;
};

extern struct mtj_runtime mtj_rt;

/* Hits counted but not recorded because of MTINJECT_HITS_MAX. */
static inline uint64_t mtj_hits_unwritten(void)
{
	uint64_t n = atomic_load(&mtj_rt.quiet_hits);

	return mtj_rt.cfg.hits_max && n > mtj_rt.cfg.hits_max ? n - mtj_rt.cfg.hits_max : 0;
}

/* handler.c */
int mtj_handlers_install(void);
/* Record a hit of `kind` from the current context (ucontext may be NULL) and wake the helper.
 * Async-signal-safe.  Returns the hit's seq, or 0 when it could not be recorded. */
uint64_t mtj_hit_record(enum mtj_hit_kind kind, int trigger, int decision, uint64_t nth,
			const void *ucontext, int sig, const char *reason, unsigned flags);
/* Wait until the helper handled hit `seq` (bounded; async-signal-safe). */
bool mtj_hit_wait(uint64_t seq, int timeout_ms);

/* helper.c */
int mtj_helper_start(void);
/* Ask the helper to finish: write what is queued, stop perf (bounded), join (bounded). */
void mtj_helper_shutdown(int timeout_ms);
/* The same without joining, for _exit() (which may be called from a signal handler): ask
 * and wait (nanosleep, bounded) until the helper has stopped perf.  True if it did. */
bool mtj_helper_finish_async(int timeout_ms);

/* arm.c */
int mtj_arm_trigger(size_t idx, char *err, size_t errlen);
void mtj_disarm_trigger(size_t idx, enum mtj_trigger_state why);
/* After dlopen/dlclose: arm pending triggers whose object appeared, disarm unloaded ones. */
void mtj_rearm_after_dl_change(void);

#endif
