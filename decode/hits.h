/*
 * decode/hits.h — reading hits.jsonl (one JSON object per line, written by the preload at
 * every trigger hit) and turning a hit into an instant event of any trace writer.
 *
 * A line that cannot be used (not JSON, truncated, wrong types, missing tid/time_ns) is
 * reported through the warn callback as "<path>:<line>: <what>" and skipped; the other lines
 * are still read.  Unknown keys are ignored.
 */
#ifndef MTJ_DECODE_HITS_H
#define MTJ_DECODE_HITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/trace.h"

#define MTJ_HIT_NARGS 6

struct mtj_hit {
	char *trigger;          /* trigger spec, NULL for API/exit/crash hits */
	char *reason;           /* "api", "exit", "crash", ... or NULL */
	char *thread;           /* thread name or NULL */
	uint32_t tid, pid;      /* pid 0 when the line has none */
	uint64_t time_ns;       /* CLOCK_MONOTONIC */
	bool has_ip;
	uint64_t ip;
	uint32_t nargs;         /* argument registers present (<= MTJ_HIT_NARGS) */
	uint64_t args[MTJ_HIT_NARGS];
	uint64_t *backtrace;    /* return addresses, innermost first */
	size_t nbacktrace;
	char **frames;          /* symbolized backtrace ("func+0x1a (obj)"), may be absent */
	size_t nframes;
	char *object, *symbol;
	int snapshot;           /* 1 taken, 0 not taken (see why), -1 unknown */
	char *why;
	char *snapshot_file;
	uint64_t coalesced;
	size_t line;            /* line number in the file it came from */
};

struct mtj_hits {
	struct mtj_hit *v;      /* sorted by time_ns (stable: file order among equal times) */
	size_t n, cap;
	size_t bad_lines;       /* lines skipped with a warning */
};

typedef void (*mtj_hits_warn_fn)(void *ctx, const char *msg);

/* Parse one line (without its newline).  Returns 0, -EINVAL with a message in err, or
 * -ENOMEM.  *out is left zeroed on error. */
int mtj_hit_parse(const char *line, size_t len, struct mtj_hit *out, char *err, size_t errlen);
void mtj_hit_free(struct mtj_hit *h);

/* Append every usable hit of the file at path to *hits (zero-initialise it first).
 * Returns the number of hits read, -errno if the file cannot be read (-ENOMEM on memory
 * exhaustion); bad lines are reported through warn (may be NULL) and counted in bad_lines. */
long mtj_hits_load(const char *path, struct mtj_hits *hits, mtj_hits_warn_fn warn, void *ctx);
void mtj_hits_free(struct mtj_hits *hits);

/* Write h as an instant event named "hit: <trigger>" (or "hit: <reason>") on its thread, at
 * its time, with args trigger, reason, ip, arg0..arg5, snapshot, why, object, symbol,
 * backtrace (frames or addresses, innermost first, one per line), snapshot_file, coalesced.
 * pid is used when the hit has none.  Returns what mtj_writer_instant returns. */
int mtj_hit_emit(struct mtj_writer *w, const struct mtj_hit *h, uint32_t pid);

#endif
