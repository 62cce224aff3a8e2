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
 * Writers may rely on that; mtj_writer_* checks it and returns -EINVAL when it is broken.
 */
#ifndef MTJ_DECODE_TRACE_H
#define MTJ_DECODE_TRACE_H

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
};

/* Format from a name ("json") or from a path's extension (".fxt"); -EINVAL if unknown. */
int mtj_format_from_name(const char *name, enum mtj_format *out);
int mtj_format_from_path(const char *path, enum mtj_format *out);
const struct mtj_writer_ops *mtj_writer_ops_for(enum mtj_format fmt);

/* Open a writer of `fmt` on an already opened stream. */
int mtj_writer_open(struct mtj_writer *w, enum mtj_format fmt, FILE *out);
int mtj_writer_process_name(struct mtj_writer *w, uint32_t pid, const char *name);
int mtj_writer_thread_name(struct mtj_writer *w, uint32_t pid, uint32_t tid, const char *name);
int mtj_writer_begin(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		     const char *name, const char *object);
int mtj_writer_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns, const char *name);
int mtj_writer_instant(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		       const char *name, const struct mtj_arg *args, size_t nargs);
int mtj_writer_close(struct mtj_writer *w);

#endif
