/*
 * preload/hitlog.h — one JSON object per line in OUTDIR/hits.jsonl (helper thread only).
 * The format is documented in libmtinject(7) and read back by decode/hits.c.
 */
#ifndef MTJ_PRELOAD_HITLOG_H
#define MTJ_PRELOAD_HITLOG_H

#include <stddef.h>
#include <stdint.h>

#include "preload/hitring.h"

struct mtj_hit_outcome {
	const char *trigger;        /* spec text, NULL for non-trigger hits */
	const char *object;         /* resolved object of the trigger */
	const char *symbol;         /* resolved symbol of the trigger */
	int snapshot;               /* 1 taken, 0 not */
	const char *why;            /* when not */
	const char *snapshot_file;  /* file name inside OUTDIR, or NULL */
	uint64_t coalesced;         /* other requests served by the same snapshot */
	int no_symbols;             /* leave "frames" out (see runtime.h: fork_child) */
};

/* The longest line mtj_hitlog_format() writes. */
#define MTJ_HITLOG_LINE_MAX 16384

/* Format one line (with '\n') into buf; returns its length, truncating frames if needed. */
size_t mtj_hitlog_format(char *buf, size_t cap, pid_t pid, const struct mtj_hit *h,
			 const struct mtj_hit_outcome *o);

/* Append `s` JSON-escaped (without quotes); returns the new offset (clamped to cap). */
size_t mtj_json_escape(char *buf, size_t off, size_t cap, const char *s);

#endif
