/*
 * decode/sampling.h — samples with call chains -> begin/end spans per thread.
 *
 * A sample says "at time t thread T was in main > f > g".  Consecutive samples of a thread
 * that share outer frames (matched by position from the outermost, so recursion is kept)
 * keep those spans open.  A frame that disappears ends, and a frame that appears begins, at
 * the midpoint between the two samples that bracket the change.  When a thread was not
 * sampled for more than 3 sampling periods it was not running: its spans end one period
 * after its last sample and nothing is invented across the gap.
 *
 * Memory is per thread (its open stack) plus one entry per distinct function, independent
 * of the number of samples.  Events go straight to the writer.
 */
#ifndef MTJ_DECODE_SAMPLING_H
#define MTJ_DECODE_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/events.h"
#include "decode/trace.h"

#define MTJ_SAMPLING_GAP_PERIODS 3

struct mtj_sampling;

struct mtj_sampling_opts {
	/* The front end guarantees that frame strings stay valid for the whole decode and that
	 * equal strings have equal pointers (the dlstream reader's string table): frames are
	 * then compared by pointer.  Otherwise strings are compared and copied. */
	bool interned;
};

struct mtj_sampling_stats {
	uint64_t samples, threads, spans, instants, dropped_instants;
	uint64_t first_ns, last_ns;   /* first/last sample time (0 when no sample) */
	uint64_t period_ns;           /* the period used last (given or estimated) */
};

int mtj_sampling_new(struct mtj_writer *w, const struct mtj_sampling_opts *opts,
		     struct mtj_sampling **out);
void mtj_sampling_free(struct mtj_sampling *s);

/* One sample; samples of a thread must come in time order (earlier ones are clamped).
 * period_ns: the sampling period of its event in ns, 0 = unknown (estimated from the data). */
int mtj_sampling_add(struct mtj_sampling *s, const struct mtj_sample *smp, uint64_t period_ns);

/* Writes an instant event at ts_ns on (pid, tid) to w; returns what mtj_writer_* returns.
 * pid is the thread's process as known from the samples (the one given to
 * mtj_sampling_instant() when the thread was not sampled). */
typedef int (*mtj_sampling_emit_fn)(void *ctx, struct mtj_writer *w, uint32_t pid, uint32_t tid,
				    uint64_t ts_ns);

/*
 * An instant event (a hit) on a thread: `emit(ctx, ...)` is called when that thread's
 * timeline reaches ts_ns, so it lands in time order among the thread's spans (writers need
 * per-thread time order).  Queue instants before adding samples; ctx must live until
 * mtj_sampling_finish().  Threads are identified by tid; pid may be 0 when unknown.
 * only_if_covered: drop it unless it lies within the samples' time range
 * [first sample, last sample + one period] (for hits not tied to a snapshot file).
 */
int mtj_sampling_instant(struct mtj_sampling *s, uint32_t pid, uint32_t tid, uint64_t ts_ns,
			 mtj_sampling_emit_fn emit, void *ctx, bool only_if_covered);

/* End every open span, write queued instants and process names.  The writer stays open. */
int mtj_sampling_finish(struct mtj_sampling *s);

void mtj_sampling_get_stats(const struct mtj_sampling *s, struct mtj_sampling_stats *st);

#endif
