/*
 * decode/dlstream.c — reader of the dlfilter's binary stream (format in decode/dlstream.h).
 *
 * The stream comes from another process through a pipe, so every length and id is checked
 * before use: a corrupt or truncated stream ends in -EPROTO and a message with the byte
 * offset, never in a crash or a silently shortened trace.  Memory is bounded by the number of
 * distinct strings and frames and by each thread's last chain, not by the number of samples.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/dlstream.h"

#define BUF_SIZE   (2 * MTJ_DLS_MAX_RECORD)
/* Reads take at most this much (more only for a record that needs it) and consumed bytes are
 * dropped before the next read, so only the front of the buffer is ever touched: memory
 * stays flat however long the stream is. */
#define READ_CHUNK (64u * 1024)

struct dls_event {
	uint32_t name;
	uint64_t period_ns;
};

/* A thread's last chain, innermost first, kept at the END of f[0..cap): its outermost `keep`
 * frames are where the next sample's chain ends too, so shared frames are never copied. */
struct dls_thread {
	uint64_t key;             /* tid + 1; 0 = empty slot */
	uint32_t n, cap;
	struct mtj_frame *f;
};

struct mtj_dls_reader {
	uint8_t *buf;
	size_t start, end;        /* unread bytes are buf[start..end) */
	uint64_t base;            /* stream offset of buf[0] */
	bool eof;

	char **strs;              /* strs[id], id 1..nstrs */
	uint32_t nstrs, cap_strs;
	struct mtj_frame *frames; /* frames[id], strings resolved when defined: samples copy them */
	uint32_t nframes, cap_frames;
	struct dls_event *events; /* events[id] */
	uint32_t nevents, cap_events;

	struct dls_thread *thr;   /* by tid, open addressing */
	uint32_t nthr, cap_thr;
	struct dls_thread *last;  /* the thread of the previous sample */
	uint64_t time, samples;
	char err[256];
};

struct cursor {
	const uint8_t *p, *end;
};

int mtj_dls_reader_new(struct mtj_dls_reader **out)
{
	struct mtj_dls_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->buf = malloc(BUF_SIZE);
	if (!r->buf) {
		mtj_dls_reader_free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

void mtj_dls_reader_free(struct mtj_dls_reader *r)
{
	if (!r)
		return;
	for (uint32_t i = 1; i <= r->nstrs; i++)
		free(r->strs[i]);
	free(r->strs);
	free(r->frames);
	free(r->events);
	for (uint32_t i = 0; i < r->cap_thr; i++)
		free(r->thr[i].f);
	free(r->thr);
	free(r->buf);
	free(r);
}

const char *mtj_dls_error(const struct mtj_dls_reader *r)
{
	return r->err;
}

uint64_t mtj_dls_bytes(const struct mtj_dls_reader *r)
{
	return r->base + r->start;
}

uint64_t mtj_dls_samples(const struct mtj_dls_reader *r)
{
	return r->samples;
}

ssize_t mtj_dls_fd_source(void *src, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(*(int *)src, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static int fail(struct mtj_dls_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct mtj_dls_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* Make at least `need` unread bytes available; fewer only at the end of the data.
 * Returns the number available or -errno. */
static ssize_t fill(struct mtj_dls_reader *r, size_t need, mtj_dls_source source, void *src)
{
	while (r->end - r->start < need && !r->eof) {
		size_t want = need - (r->end - r->start);
		ssize_t n;

		if (r->start) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->base += r->start;
			r->end -= r->start;
			r->start = 0;
		}
		if (want < READ_CHUNK)
			want = READ_CHUNK;
		if (want > BUF_SIZE - r->end)
			want = BUF_SIZE - r->end;
		n = source(src, r->buf + r->end, want);
		if (n < 0) {
			snprintf(r->err, sizeof(r->err), "reading the stream: %s", strerror((int)-n));
			return n;
		}
		if (n == 0)
			r->eof = true;
		r->end += (size_t)n;
	}
	return (ssize_t)(r->end - r->start);
}

static bool get_uv_long(struct cursor *c, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0; c->p < c->end && shift < 64; shift += 7) {
		uint8_t b = *c->p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* Inline for the common cases: most ids and fields fit one byte; pids, tids and time deltas
 * take two or three (decoded without a bounds check per byte when the record has room). */
static inline bool get_uv(struct cursor *c, uint64_t *v)
{
	const uint8_t *p = c->p;

	if (p < c->end && *p < 0x80) {
		*v = *p;
		c->p = p + 1;
		return true;
	}
	if (c->end - p >= 3) {
		if (!(p[1] & 0x80)) {
			*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
			c->p = p + 2;
			return true;
		}
		if (!(p[2] & 0x80)) {
			*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
			c->p = p + 3;
			return true;
		}
	}
	return get_uv_long(c, v);
}

/* A varint that must be an id in 0..max (0 allowed only when zero_ok). */
static inline bool get_ref(struct cursor *c, uint32_t max, bool zero_ok, uint32_t *id)
{
	uint64_t v;

	if (!get_uv(c, &v) || v > max || (!zero_ok && v == 0))
		return false;
	*id = (uint32_t)v;
	return true;
}

/* Make room for id `id` in a table of `size`-byte entries indexed from 1. */
static int grow(void **tab, uint32_t *cap, uint32_t id, size_t size)
{
	uint32_t ncap;
	void *t;

	if (id < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 1024;
	t = realloc(*tab, (size_t)ncap * size);
	if (!t)
		return -ENOMEM;
	*tab = t;
	*cap = ncap;
	return 0;
}

static int rec_string(struct mtj_dls_reader *r, struct cursor *c, uint64_t at)
{
	uint64_t id, len;
	char *s;

	if (!get_uv(c, &id) || !get_uv(c, &len) || len > (uint64_t)(c->end - c->p))
		return fail(r, "malformed string record at byte %llu", (unsigned long long)at);
	if (id != (uint64_t)r->nstrs + 1 || id >= MTJ_DLS_MAX_IDS)
		return fail(r, "string id %llu out of sequence at byte %llu", (unsigned long long)id,
			    (unsigned long long)at);
	if (grow((void **)&r->strs, &r->cap_strs, (uint32_t)id, sizeof(*r->strs)) < 0 ||
	    !(s = malloc(len + 1)))
		return -ENOMEM;
	memcpy(s, c->p, len);
	s[len] = 0;
	r->strs[++r->nstrs] = s;
	return 0;
}

static int rec_event(struct mtj_dls_reader *r, struct cursor *c, uint64_t at)
{
	uint64_t id, period;
	uint32_t name;

	if (!get_uv(c, &id) || !get_ref(c, r->nstrs, true, &name) || !get_uv(c, &period))
		return fail(r, "malformed event record at byte %llu", (unsigned long long)at);
	if (id != (uint64_t)r->nevents + 1 || id >= MTJ_DLS_MAX_IDS)
		return fail(r, "event id %llu out of sequence at byte %llu", (unsigned long long)id,
			    (unsigned long long)at);
	if (grow((void **)&r->events, &r->cap_events, (uint32_t)id, sizeof(*r->events)) < 0)
		return -ENOMEM;
	r->events[++r->nevents] = (struct dls_event){ .name = name, .period_ns = period };
	return 0;
}

static const char *str(const struct mtj_dls_reader *r, uint32_t id)
{
	return id ? r->strs[id] : NULL;
}

static int rec_frame(struct mtj_dls_reader *r, struct cursor *c, uint64_t at)
{
	struct mtj_frame f;
	uint64_t id, flags;
	uint32_t sym, dso;

	if (!get_uv(c, &id) || !get_uv(c, &f.ip) || !get_ref(c, r->nstrs, true, &sym) ||
	    !get_uv(c, &f.symoff) || !get_ref(c, r->nstrs, true, &dso) || !get_uv(c, &flags))
		return fail(r, "malformed frame record at byte %llu", (unsigned long long)at);
	f.sym = str(r, sym);
	f.dso = str(r, dso);
	if (id != (uint64_t)r->nframes + 1 || id >= MTJ_DLS_MAX_IDS)
		return fail(r, "frame id %llu out of sequence at byte %llu", (unsigned long long)id,
			    (unsigned long long)at);
	if (grow((void **)&r->frames, &r->cap_frames, (uint32_t)id, sizeof(*r->frames)) < 0)
		return -ENOMEM;
	r->frames[++r->nframes] = f;
	return 0;
}

/* Spreads tids (often consecutive) over the thread table. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	return x ^ (x >> 33);
}

static int thr_grow(struct mtj_dls_reader *r)
{
	uint32_t cap = r->cap_thr ? r->cap_thr * 2 : 64;
	struct dls_thread *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->cap_thr; i++) {
		uint32_t j;

		if (!r->thr[i].key)
			continue;
		for (j = (uint32_t)mix(r->thr[i].key) & (cap - 1); t[j].key; j = (j + 1) & (cap - 1))
			;
		t[j] = r->thr[i];
	}
	free(r->thr);
	r->thr = t;
	r->cap_thr = cap;
	r->last = NULL;
	return 0;
}

static struct dls_thread *thr_get(struct mtj_dls_reader *r, uint32_t tid)
{
	uint64_t key = (uint64_t)tid + 1;
	uint32_t j;

	if (r->last && r->last->key == key)
		return r->last;
	if (r->nthr * 2 >= r->cap_thr && thr_grow(r) < 0)
		return NULL;
	for (j = (uint32_t)mix(key) & (r->cap_thr - 1); r->thr[j].key; j = (j + 1) & (r->cap_thr - 1))
		if (r->thr[j].key == key)
			return r->last = &r->thr[j];
	r->thr[j].key = key;
	r->nthr++;
	return r->last = &r->thr[j];
}

/* Room for a chain of `total` frames whose outermost `keep` are the thread's current ones. */
static int thr_reserve(struct dls_thread *t, uint32_t keep, uint32_t total)
{
	uint32_t cap;
	struct mtj_frame *f;

	if (total <= t->cap)
		return 0;
	cap = t->cap ? t->cap * 2 : 64;
	if (cap < total)
		cap = total;
	if (!(f = malloc((size_t)cap * sizeof(*f))))
		return -ENOMEM;
	if (keep)
		memcpy(f + cap - keep, t->f + t->cap - keep, keep * sizeof(*f));
	free(t->f);
	t->f = f;
	t->cap = cap;
	return 0;
}

static int rec_sample(struct mtj_dls_reader *r, struct cursor *c, uint64_t at,
		      const struct mtj_dls_ops *ops, void *arg)
{
	struct mtj_sample s;
	struct dls_thread *t;
	struct mtj_frame *f;
	uint32_t ev, comm;
	uint64_t pid, tid, dtime, keep, n;

	if (!get_ref(c, r->nevents, false, &ev) || !get_uv(c, &pid) || !get_uv(c, &tid) ||
	    !get_uv(c, &dtime) || !get_ref(c, r->nstrs, true, &comm) || !get_uv(c, &keep) ||
	    !get_uv(c, &n) || n > MTJ_DLS_MAX_FRAMES || keep > MTJ_DLS_MAX_FRAMES - n)
		return fail(r, "malformed sample record at byte %llu", (unsigned long long)at);
	s.tid = (uint32_t)mtj_dls_unzigzag(tid);
	if (!(t = thr_get(r, s.tid)))
		return -ENOMEM;
	if (keep > t->n)
		return fail(r, "sample at byte %llu keeps %llu frames of thread %u's previous chain, "
			    "which had %u", (unsigned long long)at, (unsigned long long)keep, s.tid, t->n);
	if (thr_reserve(t, (uint32_t)keep, (uint32_t)(keep + n)) < 0)
		return -ENOMEM;
	f = t->f + t->cap - keep - n;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t id;

		if (!get_ref(c, r->nframes, false, &id)) {
			t->n = 0;   /* its chain is half overwritten */
			return fail(r, "sample at byte %llu: frame %llu is not a defined frame",
				    (unsigned long long)at, (unsigned long long)i);
		}
		f[i] = r->frames[id];
	}
	t->n = (uint32_t)(keep + n);
	r->time += (uint64_t)mtj_dls_unzigzag(dtime);
	s.pid = (uint32_t)mtj_dls_unzigzag(pid);
	s.time_ns = r->time;
	s.comm = str(r, comm);
	s.event = str(r, r->events[ev].name);
	s.nframes = t->n;
	s.frames = f;
	s.kept = (uint32_t)keep;
	r->samples++;
	return ops && ops->sample ? ops->sample(arg, &s, r->events[ev].period_ns) : 0;
}

static int read_header(struct mtj_dls_reader *r, mtj_dls_source source, void *src)
{
	ssize_t got = fill(r, MTJ_DLS_MAGIC_LEN, source, src);

	if (got < 0)
		return (int)got;
	if (got == 0)
		return fail(r, "empty stream: the dlfilter sent nothing");
	if (got < MTJ_DLS_MAGIC_LEN || memcmp(r->buf + r->start, MTJ_DLS_MAGIC, MTJ_DLS_MAGIC_LEN))
		return fail(r, "not an mtinject dlfilter stream (bad magic; dlfilter from another version?)");
	r->start += MTJ_DLS_MAGIC_LEN;
	return 0;
}

int mtj_dls_read(struct mtj_dls_reader *r, mtj_dls_source source, void *src,
		 const struct mtj_dls_ops *ops, void *arg)
{
	int ret = read_header(r, source, src);

	while (ret == 0) {
		uint64_t at = mtj_dls_bytes(r), len;
		struct cursor c;
		/* fill() only when the buffer may not hold the next record header */
		ssize_t got = r->end - r->start >= 11 ? (ssize_t)(r->end - r->start)
						   : fill(r, 11, source, src);
		uint8_t type;

		if (got < 0)
			return (int)got;
		if (got == 0)
			return fail(r, "stream truncated at byte %llu: no end record (perf stopped early?)",
				    (unsigned long long)at);
		type = r->buf[r->start];
		c = (struct cursor){ r->buf + r->start + 1, r->buf + r->end };
		if (!get_uv(&c, &len))
			return fail(r, "stream truncated at byte %llu inside a record header",
				    (unsigned long long)at);
		if (len > MTJ_DLS_MAX_RECORD)
			return fail(r, "record at byte %llu claims %llu bytes (corrupt stream)",
				    (unsigned long long)at, (unsigned long long)len);
		{
			size_t hdr = (size_t)(c.p - (r->buf + r->start));

			if ((size_t)got < hdr + len)
				got = fill(r, hdr + len, source, src);
			if (got < 0)
				return (int)got;
			if ((size_t)got < hdr + len)
				return fail(r, "stream truncated at byte %llu inside a %llu-byte record "
					    "starting at byte %llu", (unsigned long long)(at + (uint64_t)got),
					    (unsigned long long)(hdr + len), (unsigned long long)at);
			c = (struct cursor){ r->buf + r->start + hdr, r->buf + r->start + hdr + len };
			r->start += hdr + len;
		}
		switch (type) {
		case MTJ_DLS_REC_STRING: ret = rec_string(r, &c, at); break;
		case MTJ_DLS_REC_EVENT:  ret = rec_event(r, &c, at); break;
		case MTJ_DLS_REC_FRAME:  ret = rec_frame(r, &c, at); break;
		case MTJ_DLS_REC_SAMPLE: ret = rec_sample(r, &c, at, ops, arg); break;
		case MTJ_DLS_REC_END: {
			uint64_t n;

			if (!get_uv(&c, &n))
				return fail(r, "malformed end record at byte %llu", (unsigned long long)at);
			if (n != r->samples)
				return fail(r, "end record at byte %llu counts %llu samples, stream had %llu",
					    (unsigned long long)at, (unsigned long long)n,
					    (unsigned long long)r->samples);
			if (fill(r, 1, source, src) != 0)
				return fail(r, "data after the end record at byte %llu",
					    (unsigned long long)mtj_dls_bytes(r));
			return 0;
		}
		default:
			break;  /* a newer dlfilter's record: skip it */
		}
	}
	return ret;
}
