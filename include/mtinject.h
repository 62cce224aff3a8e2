/*
 * mtinject.h — the in-process API of libmtinject.so.
 *
 * A program (or a test harness linked into it) may ask the preloaded library for a snapshot
 * of the moments before "now".  The same binary must also run without the preload, so call
 * the API through the MTINJECT_SNAPSHOT()/MTINJECT_ACTIVE() macros, which use weak
 * references: without libmtinject.so loaded they do nothing and return -1.
 *
 *     #include <mtinject.h>
 *     if (!ok) MTINJECT_SNAPSHOT("checksum mismatch");
 *
 * Link nothing extra; run with LD_PRELOAD=libmtinject.so to make it take effect.
 * See mtinject_snapshot(3).
 */
#ifndef MTINJECT_H
#define MTINJECT_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MTINJECT_API __attribute__((visibility("default")))
#else
#define MTINJECT_API
#endif

/*
 * Request a snapshot now, from the calling thread.  `reason` (may be NULL) is recorded in
 * hits.jsonl and shown on the instant event in the decoded trace.  Returns once the request
 * is queued, not when perf has written it (the recording keeps running meanwhile):
 *   0         the request was queued
 *   -ENOTCONN mtinject is loaded but not tracing (configuration error, perf unavailable,
 *             MTINJECT_SESSION=none records the hit only and also returns 0)
 *   -EBUSY    too many requests in flight: this one was dropped (and counted in the
 *             summary); requests that arrive together are served by one snapshot
 * Safe to call from any thread; async-signal-safe.
 */
MTINJECT_API int mtinject_snapshot(const char *reason);

/* 1 when the library is loaded and its triggers are live (hits are recorded, snapshots
 * taken if a perf session runs), 0 when loaded but inactive (configuration error, after
 * fork with MTINJECT_FOLLOW_FORK=disarm, while exiting). */
MTINJECT_API int mtinject_active(void);

#if defined(__GNUC__)
#pragma weak mtinject_snapshot
#pragma weak mtinject_active
/* No-ops (returning -1) when libmtinject.so is not loaded. */
#define MTINJECT_SNAPSHOT(reason) (mtinject_snapshot ? mtinject_snapshot(reason) : -1)
#define MTINJECT_ACTIVE()         (mtinject_active ? mtinject_active() : -1)
#endif

#ifdef __cplusplus
}
#endif
#endif /* MTINJECT_H */
