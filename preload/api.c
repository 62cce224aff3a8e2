/* preload/api.c — the public in-process API (include/mtinject.h).  Async-signal-safe. */
#include "mtinject.h"

#include "preload/runtime.h"

#include <errno.h>

int mtinject_snapshot(const char *reason)
{
	int saved = errno;
	if (atomic_load(&mtj_rt.phase) != MTJ_PHASE_ACTIVE)
		return -ENOTCONN;
	int d = mtj_rt.hits_only || atomic_load(&mtj_rt.session_dead) ? MTJ_SNAP_NO_SESSION : MTJ_SNAP_YES;
	uint64_t seq = mtj_hit_record(MTJ_HIT_API, -1, d, 0, NULL, 0, reason ? reason : "mtinject_snapshot()", 0);
	errno = saved;
	return seq ? 0 : -EBUSY;
}

int mtinject_active(void)
{
	return atomic_load(&mtj_rt.phase) == MTJ_PHASE_ACTIVE;
}
