/*
 * decode/dlstream.h — the binary record stream from the perf dlfilter (decode/dlfilter.c,
 * running inside `perf script`) to the tool, and the tool's reader of it.
 *
 * Why a stream of our own: perf's text output costs 4x the time of the dlfilter route and
 * changes between perf versions.  The dlfilter resolves each distinct address once and
 * sends each string once; samples then carry small integer ids.
 *
 * Format (version 2).  Only our own dlfilter, from the same build as the tool, writes it, so
 * a reader takes exactly this version.  Integers are unsigned LEB128 varints ("uv"); signed
 * values are zigzag-encoded first ("sv").  Consecutive samples of a thread mostly share their
 * outer frames: a sample sends only the frames that differ (fewer bytes, and neither side
 * touches the shared ones).
 *
 *   header   8 bytes  "MTJDLS2\n"
 *   record   type:u8  len:uv  payload[len]     (a reader skips types it does not know)
 *
 *   'S' string    id:uv len:uv bytes[len]           ids are 1, 2, 3, ... in order; 0 = none
 *   'E' event     id:uv name:uv(string) period_ns:uv  ids 1, 2, ...; period_ns 0 = unknown
 *                                                    (only clock events have one in ns)
 *   'F' frame     id:uv ip:uv sym:uv(string) symoff:uv dso:uv(string) flags:uv
 *                                                    ids 1, 2, ...; flags: MTJ_DLS_FRAME_*
 *   'P' sample    event:uv pid:sv tid:sv dtime:sv comm:uv(string) keep:uv n:uv frame:uv * n
 *                                                    dtime = time - previous sample's time
 *                                                    (first: time - 0).  The chain, innermost
 *                                                    first, is the n frames given followed by
 *                                                    the outermost `keep` frames of the chain
 *                                                    of this tid's previous sample (keep <=
 *                                                    its length; 0 for a tid's first sample)
 *   'Z' end       samples:uv                         last record; its absence = truncation
 *
 * Every id a record references must have been defined by an earlier record.
 */
#ifndef MTJ_DECODE_DLSTREAM_H
#define MTJ_DECODE_DLSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "decode/events.h"

#define MTJ_DLS_MAGIC      "MTJDLS2\n"
#define MTJ_DLS_MAGIC_LEN  8
#define MTJ_DLS_REC_STRING 'S'
#define MTJ_DLS_REC_EVENT  'E'
#define MTJ_DLS_REC_FRAME  'F'
#define MTJ_DLS_REC_SAMPLE 'P'
#define MTJ_DLS_REC_END    'Z'

#define MTJ_DLS_FRAME_KERNEL 1u

/* Limits a writer respects and a reader enforces (a corrupt length must not make the
 * reader allocate gigabytes). */
#define MTJ_DLS_MAX_RECORD  (1u << 20)
#define MTJ_DLS_MAX_FRAMES  4096u
#define MTJ_DLS_MAX_IDS     (1u << 26)

/* ---- reader (tool side) ------------------------------------------------------------------ */

struct mtj_dls_reader;

struct mtj_dls_ops {
	/* A sample; `period_ns` is its event's period (0 when unknown).  Non-zero return stops
	 * reading and is returned by mtj_dls_read(). */
	int (*sample)(void *arg, const struct mtj_sample *s, uint64_t period_ns);
};

/* Where bytes come from: like read(2) (0 = end of data, <0 = -errno). */
typedef ssize_t (*mtj_dls_source)(void *src, void *buf, size_t len);

int mtj_dls_reader_new(struct mtj_dls_reader **out);
void mtj_dls_reader_free(struct mtj_dls_reader *r);

/*
 * Read the whole stream from `source`, calling ops for each sample.
 *   0        clean end ('Z' record seen)
 *   -EPROTO  malformed or truncated stream: mtj_dls_error() says what and at which byte
 *   -errno   the source failed; or a callback's non-zero return
 */
int mtj_dls_read(struct mtj_dls_reader *r, mtj_dls_source source, void *src,
		 const struct mtj_dls_ops *ops, void *arg);

/* ssize_t-returning adapter for a file descriptor (retries EINTR); src is an int *. */
ssize_t mtj_dls_fd_source(void *src, void *buf, size_t len);

const char *mtj_dls_error(const struct mtj_dls_reader *r);
uint64_t mtj_dls_bytes(const struct mtj_dls_reader *r);    /* bytes consumed so far */
uint64_t mtj_dls_samples(const struct mtj_dls_reader *r);  /* samples delivered so far */

/* ---- encoding helpers (header-only so the self-contained dlfilter can share them) -------- */

static inline size_t mtj_dls_put_uv(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline uint64_t mtj_dls_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t mtj_dls_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
