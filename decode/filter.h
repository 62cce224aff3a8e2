/*
 * decode/filter.h — `--filter START,STOP`: keep only the time between a call of START and the
 * next call of STOP (any thread), as magic-trace's -filter.
 *
 * The filter sits inside an opened writer, between its nesting checker and its format back
 * end (mtj_filter_attach), so any producer can write through it unchanged.  Inside a region
 * events pass; frames already open when a region starts get a begin at the region's start;
 * frames still open at its end get an end there; outside, nothing is written but the open
 * stacks are followed.  A region whose STOP never comes runs to the end of the trace
 * (magic-trace drops it; a snapshot usually ends before STOP, so we keep it).
 *
 * Where regions come from:
 *  - the begins passing through (sampling: a frame that appears is a call), in the order
 *    they arrive;
 *  - once mtj_filter_observe_branch() has been called, only the input branches, in input
 *    (time) order, before they reach the producer: the PT producer writes a thread's spans
 *    late, so its begins are not in global time order.
 * A name matches a pattern when equal, or equal up to a '(' (C++ parameters) or '@' (symbol
 * version).
 */
#ifndef MTJ_DECODE_FILTER_H
#define MTJ_DECODE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/events.h"
#include "decode/trace.h"

struct mtj_filter;

struct mtj_filter_stats {
	uint64_t regions;      /* START..STOP regions found (an unfinished one counts) */
	uint64_t forwarded;    /* begin/end/instant events written */
	uint64_t dropped;      /* begin/end/instant events outside every region */
};

/* "START,STOP" -> two malloc'd names (free both); -EINVAL with a message in err. */
int mtj_filter_parse_spec(const char *spec, char **start, char **stop, char *err, size_t errlen);

int mtj_filter_new(const char *start, const char *stop, struct mtj_filter **out);
/* Interpose on `w` (opened by mtj_writer_open*); mtj_writer_close(w) closes through it.
 * Free the filter after that close. */
int mtj_filter_attach(struct mtj_filter *f, struct mtj_writer *w);
/* A call (or tail call) of START or STOP in the input opens or closes a region. */
void mtj_filter_observe_branch(struct mtj_filter *f, const struct mtj_branch *b);
void mtj_filter_get_stats(const struct mtj_filter *f, struct mtj_filter_stats *st);
void mtj_filter_free(struct mtj_filter *f);

bool mtj_filter_name_matches(const char *pattern, const char *name);

#endif
