/*
 * decode/perfscript.h — reader of `perf script` text (from this or another machine).
 *
 * Two shapes are understood, in one file or mixed:
 *   - Intel PT branch lines (`perf script --itrace=bep -F pid,tid,time,flags,ip,addr,sym,symoff,dso`):
 *       "  comm 12/13 [001] 4.000000100:  1 branches:u:  call  4011a0 f+0x10 (/bin/x) =>  401200 g+0x0 (/bin/x)"
 *     plus perf's " instruction trace error type ... " lines;
 *   - samples with call chains (perf's default output for `perf record -g`, or -F with ip,sym):
 *       "comm 12/13 4.000000: 250000 cpu-clock:u:"  then "\t  ip sym+off (dso)" frame lines,
 *     or the one-line form (`-G`, or no call graph) with the frame on the header line.
 * Fields are found by their shape, not their column, so extra columns of other perf versions do
 * not break parsing.  Times ("S.frac", 1–9 decimals) become nanoseconds exactly.
 *
 * Error policy: input that is not perf script text at all (no event in its first lines, binary
 * data, a perf.data file) is an error naming the file and line.  Garbage lines inside a valid
 * file, events that go back in time for their thread (clamped), unknown branch flag words and
 * trace errors are counted and the first few are passed to the warn callback with file:line.
 * Per line the reader allocates nothing (buffers are reused and only grow).
 */
#ifndef MTJ_DECODE_PERFSCRIPT_H
#define MTJ_DECODE_PERFSCRIPT_H

#include <stdint.h>
#include <stdio.h>

#include "decode/events.h"

struct mtj_ps_callbacks {
	void *ctx;
	/* Either may be NULL (events of that kind are then only counted).  A negative return
	 * stops parsing and is returned by mtj_perfscript_parse(). */
	int (*on_sample)(void *ctx, const struct mtj_sample *s);
	int (*on_branch)(void *ctx, const struct mtj_branch *b);
	/* Called for the first MTJ_PS_MAX_WARN_REPORTS warnings; may be NULL. */
	void (*warn)(void *ctx, const char *file, unsigned long line, const char *msg);
};

#define MTJ_PS_MAX_WARN_REPORTS 10

struct mtj_ps_stats {
	unsigned long lines;
	unsigned long samples;
	unsigned long branches;
	unsigned long trace_errors;   /* " instruction trace error" lines (also passed on as branches) */
	unsigned long skipped;        /* unrecognised lines inside a valid file */
	unsigned long reordered;      /* events earlier than their thread's previous one (clamped) */
	unsigned long unknown_flags;  /* branch lines with a flag word we do not know (dropped) */
	unsigned long warnings;       /* total of the above that were warned about */
};

struct mtj_ps_error {
	unsigned long line;           /* 0 when not about a line */
	char msg[256];
};

/*
 * Read `in` to the end.  `name` is used in messages ("-" shows as "<stdin>").
 * Returns 0, a negative value returned by a callback, -EINVAL for input that is not perf
 * script text (err filled), -ENOMEM or -EIO.  `stats` and `err` may be NULL.
 */
int mtj_perfscript_parse(FILE *in, const char *name, const struct mtj_ps_callbacks *cb,
			 struct mtj_ps_stats *stats, struct mtj_ps_error *err);

/* Parse "SECONDS.FRACTION" (1..9+ decimals, extra decimals truncated) into ns; -EINVAL/-ERANGE. */
int mtj_ps_parse_time(const char *s, size_t len, uint64_t *ns);

/* Branch flag words as perf prints them ("tr end  syscall", "hw int", "jcc"...) -> MTJ_BR_*.
 * Returns 0, or -EINVAL when a word is unknown (flags then holds what was recognised). */
int mtj_ps_parse_flags(const char *s, uint32_t *flags);

#endif
