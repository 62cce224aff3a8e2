/*
 * decode/ptstack.h — Intel PT branches -> per-thread call stacks -> begin/end spans.
 *
 * Rules (each pinned by a scenario in tests/golden/pt/):
 * - call pushes the target; return pops and checks the return address against the call site
 *   (within 16 bytes after the call instruction).
 * - A jump to the entry (symoff 0) of another function is a tail call: the frame is replaced
 *   and keeps its call site, so the eventual return still matches.  Jumps inside a function
 *   change nothing.
 * - Non-local transfers (longjmp, C++ exception landing pads, swapcontext) are recognised by
 *   matching the destination against the live stack (call site first, then function name)
 *   and popping to that frame at once, never stair-stepping.  A return to a place that is on
 *   no live frame (a context switched to for the first time) pops the returning frame and
 *   pushes the destination.  Self-recursion keeps one frame per call.
 * - "tr end" pushes "[untraced]" ("[syscall]" for "tr end syscall") until the next "tr strt".
 *   With kernel tracing, syscall/sysret and interrupt/iret bracket "[syscall]"/"[interrupt]"
 *   frames, and sysret/iret pop everything down to their bracket.
 * - A trace error writes an instant "[trace error]" and closes every open frame of the thread
 *   at that time; the stack starts afresh after it.
 * - Returning out of frames the trace never saw begin gives them an inferred start: the
 *   thread's first event (or its last reset), as magic-trace does.
 * - Several calls at one timestamp share the time to the next timestamp evenly; returns take
 *   no time.
 * Output per thread is buffered from its last reset so inferred starts can be placed first;
 * past opts.max_buffered events the buffer is written out and later inferred starts begin no
 * earlier than that point (counted in stats.truncated_inferred).
 */
#ifndef MTJ_DECODE_PTSTACK_H
#define MTJ_DECODE_PTSTACK_H

#include <stddef.h>
#include <stdint.h>

#include "decode/events.h"
#include "decode/trace.h"

struct mtj_ptstack;

struct mtj_ptstack_opts {
	size_t max_buffered;   /* events buffered per thread before a forced write; 0 = 1<<20 */
};

struct mtj_ptstack_stats {
	uint64_t branches, threads;
	uint64_t calls, returns, tail_calls;
	uint64_t inferred;             /* frames given an inferred start */
	uint64_t nonlocal;             /* longjmp / unwind / stack switches popped to a live frame */
	uint64_t switched;             /* returns to a place on no live frame */
	uint64_t resyncs;              /* source address not in the top frame: stack corrected */
	uint64_t untraced, syscalls, interrupts;
	uint64_t trace_errors;
	uint64_t reordered;            /* branches earlier than their thread's last (clamped) */
	uint64_t ignored;              /* branches with no effect we could give them */
	uint64_t truncated_inferred;
};

int mtj_ptstack_new(struct mtj_writer *w, const struct mtj_ptstack_opts *opts,
		    struct mtj_ptstack **out);
/* Branches of one thread must come in time order (earlier ones are clamped and counted). */
int mtj_ptstack_add(struct mtj_ptstack *p, const struct mtj_branch *b);
/* Close every open frame at its thread's last time and write everything out. */
int mtj_ptstack_finish(struct mtj_ptstack *p);
void mtj_ptstack_get_stats(const struct mtj_ptstack *p, struct mtj_ptstack_stats *st);
void mtj_ptstack_free(struct mtj_ptstack *p);

#endif
