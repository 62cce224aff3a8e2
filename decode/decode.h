/*
 * decode/decode.h — the `mtinject decode` driver: which snapshots, into which files, through
 * `perf script --dlfilter mtinject-dlfilter.so`, with the hits of hits.jsonl merged in.
 *
 * An input is an mtinject output directory (perf.data.<timestamp> snapshots, hits.jsonl,
 * perf.log) or a perf.data file.  Each snapshot becomes one trace.  perf runs as a child
 * and resolves symbols while this process builds the trace from the stream it pipes over
 * (decode/dlstream.h): two processes, two cores.
 */
#ifndef MTJ_DECODE_DECODE_H
#define MTJ_DECODE_DECODE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/trace.h"

struct mtj_decode_opts {
	const char *const *inputs;      /* directories or perf.data files */
	size_t ninputs;
	const char *output;             /* -o; NULL = next to the input (see mtj_decode_run) */
	bool format_set;                /* --format given; else from output's extension, else json */
	enum mtj_format format;
	unsigned long snapshot;         /* --snapshot N (1-based, oldest first); 0 = all */
	bool progress;                  /* draw a progress line on stderr (caller checked isatty) */
	const char *dlfilter;           /* path of mtinject-dlfilter.so (required for perf.data) */
	const char *perf;               /* perf executable; NULL = "perf" from PATH */
	void (*warn)(void *arg, const char *msg);   /* non-fatal problems; may be NULL */
	void *warn_arg;

	/* The text / Intel PT front end (decode/perfscript.h) */
	const char *from_perf_script;   /* --from-perf-script FILE ("-" = stdin); NULL = unused */
	const char *filter_start;       /* --filter START,STOP; NULL = unused */
	const char *filter_stop;
};

/* One trace written. */
struct mtj_decode_output {
	char path[PATH_MAX];
	char input[PATH_MAX];           /* the snapshot it came from */
	enum mtj_format format;
	uint64_t samples, events, threads, hits;
	uint64_t bytes;                 /* size of the trace file */
	double seconds;                 /* wall time of this snapshot's decode */
};

/* Errors: the caller maps them to exit statuses. */
enum mtj_decode_err {
	MTJ_DECODE_OK = 0,
	MTJ_DECODE_EFAIL = -1,          /* decoding failed (perf failed, corrupt stream, write error) */
	MTJ_DECODE_EUSAGE = -2,         /* bad option combination, snapshot out of range */
	MTJ_DECODE_ENOINPUT = -3,       /* an input is missing, unreadable or has no snapshots */
};

/*
 * Decode.  Output names when opts->output is NULL: for a directory DIR/trace.<ext>, or
 * DIR/trace-<N>.<ext> per snapshot when several are decoded; for a file FILE.<ext>.  With
 * opts->output and several snapshots: OUT with "-<N>" before its extension (N = position in
 * the list of all snapshots of all inputs).  on_output is called after each trace is
 * complete.  err gets one message naming the file at fault.
 */
/* printf into an error buffer of the decode API (NULL or 0 length: nothing). */
void mtj_decode_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The trace format: --format, else OUT's extension, else (no OUT, or "-") JSON.  An OUT
 * whose extension names no format is a usage error (err filled). */
int mtj_decode_output_format(const struct mtj_decode_opts *opts, enum mtj_format *fmt, char *err,
			     size_t errlen);

int mtj_decode_run(const struct mtj_decode_opts *opts,
		   void (*on_output)(void *arg, const struct mtj_decode_output *o), void *arg,
		   char *err, size_t errlen);

/* Snapshot files of an input in decode order (oldest first), as malloc'd paths in *out
 * (free each and the array).  Returns the count, or MTJ_DECODE_ENOINPUT with err filled. */
int mtj_decode_list_snapshots(const char *input, char ***out, char *err, size_t errlen);

#endif
