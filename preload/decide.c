/* preload/decide.c — see decide.h. */
#include "preload/decide.h"

enum mtj_decision mtj_decide(struct mtj_counters *c, const struct mtj_trigger_spec *t,
			     uint64_t now_ns, uint64_t *nth)
{
	uint64_t n = atomic_fetch_add(&c->hits, 1) + 1;
	*nth = n;
	if (n <= t->skip)
		return MTJ_SNAP_SKIP;
	uint64_t every = t->every ? t->every : 1;
	if ((n - t->skip - 1) % every != 0)
		return MTJ_SNAP_EVERY;
	atomic_fetch_add(&c->eligible, 1);
	if (t->min_gap_ns) {
		uint64_t last = atomic_load(&c->last_ns);
		for (;;) {
			if (last && now_ns - last < t->min_gap_ns) {
				atomic_fetch_add(&c->coalesced, 1);
				return MTJ_SNAP_MIN_GAP;
			}
			if (atomic_compare_exchange_weak(&c->last_ns, &last, now_ns ? now_ns : 1))
				break;
		}
	}
	/* Claim a snapshot slot; give it back if count is exhausted. */
	uint64_t taken = atomic_fetch_add(&c->snapshots, 1);
	if (t->count != MTJ_COUNT_ALL && taken >= t->count) {
		atomic_fetch_sub(&c->snapshots, 1);
		return MTJ_SNAP_COUNT;
	}
	if (!t->min_gap_ns)
		atomic_store(&c->last_ns, now_ns);
	return MTJ_SNAP_YES;
}

const char *mtj_decision_why(enum mtj_decision d)
{
	switch (d) {
	case MTJ_SNAP_YES: return "";
	case MTJ_SNAP_SKIP: return "skip";
	case MTJ_SNAP_EVERY: return "every";
	case MTJ_SNAP_COUNT: return "count reached";
	case MTJ_SNAP_MIN_GAP: return "min-gap";
	case MTJ_SNAP_NO_SESSION: return "no perf session";
	case MTJ_SNAP_SHUTDOWN: return "exiting";
	}
	return "?";
}
