/*
 * decode/trace.h — the trace model between reconstruction and the writers.
 *
 * Producers (sampling reconstruction, PT reconstruction, hits) describe per-thread call
 * stacks over time as begin/end pairs plus instant events; a writer turns that stream into
 * one output format.  Writers are a table of callbacks (struct mtj_writer_ops), so adding a
 * format touches one file.  All times are CLOCK_MONOTONIC nanoseconds (perf runs with
 * --clockid=CLOCK_MONOTONIC, the preload stamps hits with the same clock).
 *
 * Contract for producers: per thread, begin/end strictly nest (every end closes the most
 * recent open begin of that thread) and timestamps never go backwards within a thread.
 * Writers may rely on that; mtj_writer_* checks it and returns -EINVAL when it is broken
 * (an end whose name differs from the open begin's name is also -EINVAL; nothing is written
 * for a rejected call).  mtj_writer_close() ends the spans still open at each thread's last
 * timestamp, innermost first, so every output is balanced even when a snapshot cuts calls.
 * Strings passed in are borrowed for the duration of the call only.
 */
#ifndef MTJ_DECODE_TRACE_H
#define MTJ_DECODE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum mtj_format { MTJ_FORMAT_JSON = 0, MTJ_FORMAT_FXT, MTJ_FORMAT_FOLDED };

enum mtj_arg_type { MTJ_ARG_STR = 0, MTJ_ARG_U64, MTJ_ARG_I64, MTJ_ARG_HEX };

struct mtj_arg {
	const char *key;
	enum mtj_arg_type type;
	union {
		const char *s;
		uint64_t u;
		int64_t i;
	};
};

struct mtj_writer;

struct mtj_writer_ops {
	const char *name;  /* "json", "fxt", "folded" */
	const char *ext;   /* ".json", ".fxt", ".folded" */
	/* Allocate private state into w->priv and write any header.  */
	int (*open)(struct mtj_writer *w);
	int (*process_name)(struct mtj_writer *w, uint32_t pid, const char *name);
	int (*thread_name)(struct mtj_writer *w, uint32_t pid, uint32_t tid, const char *name);
	/* name: demangled function name; object: file name of the object, may be NULL */
	int (*begin)(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		     const char *name, const char *object);
	int (*end)(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns, const char *name);
	int (*instant)(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		       const char *name, const struct mtj_arg *args, size_t nargs);
	/* Flush the trailer, free priv.  Must not close w->out. */
	int (*close)(struct mtj_writer *w);
};

struct mtj_writer {
	const struct mtj_writer_ops *ops;
	FILE *out;
	void *priv;
	uint64_t events;        /* begin+end+instant written */
	uint64_t bytes_hint;    /* for statistics; maintained by writers that know it */
	uint32_t flags;         /* MTJ_WRITER_* given to mtj_writer_open_flags() */
	void *core;             /* writer.c's nesting/time checker state */
	/* True only while writer.c runs a back end's begin/end: the name and object it passes
	 * are the writer's own copies, unchanged until mtj_writer_close(), so the back end may
	 * recognise a repeated name by its pointer alone.  A back end called in any other way
	 * (by a wrapping writer) sees false and compares strings. */
	bool own_names;
};

/* Folded stacks: no "comm-tid" root frame (by default each stack starts with the thread). */
#define MTJ_WRITER_FOLDED_NO_THREAD_ROOT (1u << 0)

/* Format from a name ("json") or from a path's extension (".fxt"); -EINVAL if unknown. */
int mtj_format_from_name(const char *name, enum mtj_format *out);
int mtj_format_from_path(const char *path, enum mtj_format *out);
const struct mtj_writer_ops *mtj_writer_ops_for(enum mtj_format fmt);

/* Open a writer of `fmt` on an already opened stream. */
int mtj_writer_open(struct mtj_writer *w, enum mtj_format fmt, FILE *out);
int mtj_writer_open_flags(struct mtj_writer *w, enum mtj_format fmt, FILE *out, uint32_t flags);
int mtj_writer_process_name(struct mtj_writer *w, uint32_t pid, const char *name);
int mtj_writer_thread_name(struct mtj_writer *w, uint32_t pid, uint32_t tid, const char *name);
int mtj_writer_begin(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		     const char *name, const char *object);
int mtj_writer_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns, const char *name);
int mtj_writer_instant(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		       const char *name, const struct mtj_arg *args, size_t nargs);
int mtj_writer_close(struct mtj_writer *w);

/* The writer's own copy of s, valid until mtj_writer_close() (NULL: out of memory; s itself
 * for a writer without a checker).  Producers that pass these copies to begin/end spare the
 * writer and the back end comparing the same strings on every call. */
const char *mtj_writer_intern(struct mtj_writer *w, const char *s);

/*
 * Output details (what tests and viewers can rely on):
 * - json: {"traceEvents":[ one event per line ]}; ts in µs with exactly 3 decimals (ns exact);
 *   B carries args {"object": ...} when known; E has no name; instants are "ph":"i","s":"t";
 *   process_name/thread_name are "M" events; MTJ_ARG_HEX values are strings "0x...".
 * - fxt: magic, provider info/section, initialization (1e9 ticks/s: ticks == ns), then
 *   string/thread records as needed.  String refs are an LRU over indices 1..32767 and thread
 *   refs an LRU over 1..255: when full, the least recently used index is re-defined by a new
 *   string/thread record, so any number of distinct names works.  Strings longer than 32000
 *   bytes are cut (at a UTF-8 boundary).  Category "mtinject"; at most 15 args per event
 *   (the format's limit; the rest are dropped).
 * - folded: "root;caller;callee <µs>" lines sorted, root = "<thread name>-<tid>" unless
 *   MTJ_WRITER_FOLDED_NO_THREAD_ROOT; the count is the time spent in that exact stack
 *   (rounded to µs, zero lines omitted); an instant adds a leaf frame "<name>" with count 1.
 *   ';' in names becomes ':', newlines become spaces.
 */

/* The format back ends (decode/writer_<name>.c). */
extern const struct mtj_writer_ops mtj_writer_json_ops;
extern const struct mtj_writer_ops mtj_writer_fxt_ops;
extern const struct mtj_writer_ops mtj_writer_folded_ops;

/* ---- tables shared by the writers (decode/writer_tables.c) ---- */

uint64_t mtj_hash_bytes(const void *p, size_t len);

/* Open-addressing map from a 64-bit key to a 32-bit value; zero-initialise to use. */
struct mtj_u64map {
	uint64_t *keys;
	uint32_t *vals;         /* value + 1; 0 marks an empty slot */
	uint32_t cap, n;
};
int mtj_u64map_put(struct mtj_u64map *m, uint64_t key, uint32_t val);   /* 0 or -ENOMEM */
int mtj_u64map_get(const struct mtj_u64map *m, uint64_t key, uint32_t *val); /* 1 found, 0 not */
void mtj_u64map_del(struct mtj_u64map *m, uint64_t key);
void mtj_u64map_free(struct mtj_u64map *m);

/* A string interner (ids are dense, from 0; strings are copied). */
struct mtj_strtab;
struct mtj_strtab *mtj_strtab_new(void);
void mtj_strtab_free(struct mtj_strtab *t);
/* Id of s (added if new); -ENOMEM. */
int mtj_strtab_intern(struct mtj_strtab *t, const char *s, uint32_t *id);
/* The same for a string the caller guarantees to stay unchanged at this address while t
 * lives: repeated calls with the pointer then skip comparing the string. */
int mtj_strtab_intern_fixed(struct mtj_strtab *t, const char *s, uint32_t *id);
const char *mtj_strtab_str(const struct mtj_strtab *t, uint32_t id);
uint32_t mtj_strtab_count(const struct mtj_strtab *t);

#endif
