/*
 * preload/decide.h — does this hit take a snapshot?  count/skip/every/min-gap, decided in
 * the signal handler with atomics only (lock-free, async-signal-safe), so that the decision
 * is exact however many threads hit at once.
 */
#ifndef MTJ_PRELOAD_DECIDE_H
#define MTJ_PRELOAD_DECIDE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "preload/config.h"

enum mtj_decision {
	MTJ_SNAP_YES = 0,
	MTJ_SNAP_SKIP,        /* within skip=N */
	MTJ_SNAP_EVERY,       /* not an every=N-th hit */
	MTJ_SNAP_COUNT,       /* count=N already taken */
	MTJ_SNAP_MIN_GAP,     /* coalesced by min-gap */
	MTJ_SNAP_NO_SESSION,  /* MTINJECT_SESSION=none or the session died */
	MTJ_SNAP_SHUTDOWN,    /* the process is exiting */
};

/* A hit the trigger's own options kept from a snapshot: MTINJECT_HITS_MAX bounds how many
 * of those are recorded.  Async-signal-safe. */
static inline bool mtj_decision_by_rule(enum mtj_decision d)
{
	return d == MTJ_SNAP_SKIP || d == MTJ_SNAP_EVERY || d == MTJ_SNAP_COUNT || d == MTJ_SNAP_MIN_GAP;
}

struct mtj_counters {
	_Atomic uint64_t hits;        /* every hit seen */
	_Atomic uint64_t eligible;    /* hits past skip that are every-th */
	_Atomic uint64_t snapshots;   /* snapshots granted */
	_Atomic uint64_t coalesced;   /* refused by min-gap */
	_Atomic uint64_t last_ns;     /* time of the last granted snapshot */
};

/* Decide for one hit at `now_ns`; *nth receives the 1-based hit number. */
enum mtj_decision mtj_decide(struct mtj_counters *c, const struct mtj_trigger_spec *t,
			     uint64_t now_ns, uint64_t *nth);

/* "skip=3", "count=1 reached", ... for hits.jsonl's "why". */
const char *mtj_decision_why(enum mtj_decision d);

#endif
