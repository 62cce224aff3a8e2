/*
 * decode/events.h — what the input front ends (the dlfilter stream, `perf script` text)
 * hand to reconstruction.  Strings are borrowed: valid only during the callback.
 */
#ifndef MTJ_DECODE_EVENTS_H
#define MTJ_DECODE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct mtj_frame {
	uint64_t ip;
	const char *sym;     /* raw (possibly mangled) symbol, NULL when unknown */
	uint64_t symoff;
	const char *dso;     /* object path or name, NULL when unknown */
};

/* A sample with its call chain (sampling backend). frames[0] is the innermost. */
struct mtj_sample {
	uint32_t pid, tid;
	uint64_t time_ns;
	const char *comm;    /* thread name, may be NULL */
	const char *event;   /* "cpu-clock", ... may be NULL */
	uint32_t nframes;
	const struct mtj_frame *frames;
	/* How many outermost frames are, address for address, those of this thread's previous
	 * sample (the dlfilter stream says so); 0 = not known.  Consumers may skip comparing
	 * them. */
	uint32_t kept;
};

/* Branch flags (Intel PT, as `perf script -F flags` / PERF_DLFILTER_FLAG_*). */
enum {
	MTJ_BR_CALL      = 1u << 0,
	MTJ_BR_RETURN    = 1u << 1,
	MTJ_BR_JUMP      = 1u << 2,  /* plain or conditional jump */
	MTJ_BR_SYSCALL   = 1u << 3,
	MTJ_BR_SYSRET    = 1u << 4,
	MTJ_BR_INTERRUPT = 1u << 5,  /* hw interrupt / async */
	MTJ_BR_IRET      = 1u << 6,
	MTJ_BR_TR_START  = 1u << 7,  /* trace begins ("tr strt") */
	MTJ_BR_TR_END    = 1u << 8,  /* trace ends ("tr end") */
	MTJ_BR_ERROR     = 1u << 9,  /* decoder error / overflow */
	MTJ_BR_ASYNC     = 1u << 10,
};

/* A branch (PT backend): control went from `from` to `to` at `time_ns`. */
struct mtj_branch {
	uint32_t pid, tid;
	uint64_t time_ns;
	const char *comm;
	uint32_t flags;      /* MTJ_BR_* */
	struct mtj_frame from, to;
};

#endif
