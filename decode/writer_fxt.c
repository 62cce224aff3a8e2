/*
 * decode/writer_fxt.c — Fuchsia Trace Format, as magic-trace writes it and Perfetto reads it.
 *
 * Every record is a run of 64-bit little-endian words; word 0 is a header with the record
 * type in bits 0..3 and the size in words (header included) in bits 4..15.  Strings and
 * threads are referred to by small table indices (strings 1..32767, threads 1..255) that a
 * string/thread record defines before first use.  Traces can have more distinct names than
 * that, so both tables are LRU caches: a miss takes a free index or the least recently used
 * one and (re-)defines it with a new record.  Readers resolve references when they read an
 * event (Perfetto does), so re-defining an index later does not change earlier events.
 * An index used by the record being built is always among the most recent ones, so it cannot
 * be evicted before that record is written.
 */
#include "decode/trace.h"

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FXT_BUF_WORDS   (1u << 15)
#define FXT_STR_SLOTS   32767u          /* string ref is 16 bits; 0x8000 marks inline */
#define FXT_THR_SLOTS   255u            /* thread ref is 8 bits; 0 means inline */
#define FXT_MAX_STR     32000u          /* below the 15-bit length field, as magic-trace */
#define FXT_MAX_INLINE  256u            /* inline strings only on hash collisions */
#define FXT_MAX_ARGS    15u             /* 4-bit argument count */
#define FXT_MAGIC       0x0016547846040010ull
#define FXT_RECENT      1024u           /* pointer -> slot cache entries (a power of two) */
#define FXT_THR_RECENT  64u             /* tid -> thread slot cache entries (a power of two) */

enum { RT_METADATA = 0, RT_INIT = 1, RT_STRING = 2, RT_THREAD = 3, RT_EVENT = 4, RT_KOBJ = 7 };
enum { EV_INSTANT = 0, EV_BEGIN = 2, EV_END = 3 };
enum { ARG_NULL = 0, ARG_I64 = 3, ARG_U64 = 4, ARG_STR = 6, ARG_PTR = 7, ARG_KOID = 8 };
enum { OBJ_PROCESS = 1, OBJ_THREAD = 2 };

/*
 * Doubly linked recency list over slots 1..n (0 = none); head is the most recent.
 * Moving a slot to the front on every use was a tenth of the writer's time, and most uses
 * are of slots moved there a moment ago (the category, "object", a sample's functions), so a
 * slot moved within the last LRU_SLACK moves stays where it is.  It is then at most
 * LRU_SLACK places from the head, plus the few strings one record adds: far from the tail
 * that eviction takes, so the indices of the record being built stay defined.
 */
#define LRU_SLACK 64u

struct lru {
	uint16_t *prev, *next;
	uint64_t *moved;        /* value of `moves` when the slot last went to the front */
	uint64_t moves;         /* 64 bits: never wraps, so "recent" is never a wrong guess */
	uint16_t head, tail;
};

struct fxt_str {
	char *s;
	uint32_t len;
	uint32_t gen;                   /* bumped each time the slot is (re-)defined */
	uint64_t hash;
};

/* A resolved string reference: an index, or inline text when ref has bit 15 set. */
struct sref {
	uint16_t ref;
	const char *s;
	uint32_t len;
};

/*
 * The slot a caller's pointer named last time.  Producers pass the same pointer for the same
 * name over and over, so this spares hashing the string.  The slot must not have been
 * re-defined since (its generation), and the text is compared unless the pointer cannot
 * hold another string: our own literals and the writer's copies (w->own_names).
 */
struct srecent {
	const char *key;                /* compared, never dereferenced */
	uint32_t gen;                   /* the slot's generation when this was stored */
	uint16_t slot;                  /* 0 = none */
	bool fixed;
};

struct fw {
	uint64_t *buf;
	size_t nw;
	int err;
	struct fxt_str *str;            /* [FXT_STR_SLOTS + 1] */
	struct lru slru;
	uint32_t str_used;
	struct mtj_u64map smap;         /* string hash -> slot */
	struct srecent recent[FXT_RECENT];
	uint64_t thr_key[FXT_THR_SLOTS + 1];
	uint8_t thr_recent[FXT_THR_RECENT];   /* thread slot by tid, direct-mapped; 0 = none */
	struct lru tlru;
	uint32_t thr_used;
	struct mtj_u64map tmap;         /* pid << 32 | tid -> slot */
};

static int lru_init(struct lru *l, uint32_t n)
{
	l->prev = calloc(n + 1, sizeof(*l->prev));
	l->next = calloc(n + 1, sizeof(*l->next));
	l->moved = calloc(n + 1, sizeof(*l->moved));
	l->head = l->tail = 0;
	l->moves = 0;
	return l->prev && l->next && l->moved ? 0 : -ENOMEM;
}

static void lru_free(struct lru *l)
{
	free(l->prev);
	free(l->next);
	free(l->moved);
}

static void lru_unlink(struct lru *l, uint16_t s)
{
	if (l->prev[s])
		l->next[l->prev[s]] = l->next[s];
	else
		l->head = l->next[s];
	if (l->next[s])
		l->prev[l->next[s]] = l->prev[s];
	else
		l->tail = l->prev[s];
	l->prev[s] = l->next[s] = 0;
}

static void lru_push_front(struct lru *l, uint16_t s)
{
	l->prev[s] = 0;
	l->next[s] = l->head;
	if (l->head)
		l->prev[l->head] = s;
	l->head = s;
	if (!l->tail)
		l->tail = s;
	l->moved[s] = ++l->moves;
}

static inline void lru_touch(struct lru *l, uint16_t s)
{
	if (l->head != s && l->moves - l->moved[s] >= LRU_SLACK) {
		lru_unlink(l, s);
		lru_push_front(l, s);
	}
}

/* ---- output ---- */

static void fw_flush(struct mtj_writer *w, struct fw *f)
{
	size_t bytes = f->nw * 8;

	if (bytes && fwrite(f->buf, 1, bytes, w->out) != bytes && !f->err)
		f->err = -EIO;
	w->bytes_hint += bytes;
	f->nw = 0;
}

static inline uint64_t *fw_room(struct mtj_writer *w, struct fw *f, size_t words)
{
	if (FXT_BUF_WORDS - f->nw < words)
		fw_flush(w, f);
	return f->buf + f->nw;
}

static inline void fw_word(struct fw *f, uint64_t v)
{
	f->buf[f->nw++] = htole64(v);
}

static inline uint32_t words_for(uint32_t bytes)
{
	return (bytes + 7) / 8;
}

/* Bytes followed by zero padding to a word boundary. */
static void fw_stream(struct fw *f, const char *s, uint32_t len)
{
	uint32_t nw = words_for(len);

	if (!nw)
		return;
	f->buf[f->nw + nw - 1] = 0;
	memcpy(&f->buf[f->nw], s, len);
	f->nw += nw;
}

static inline uint32_t sref_words(const struct sref *r)
{
	return (r->ref & 0x8000) ? words_for(r->len) : 0;
}

static inline void fw_sref_stream(struct fw *f, const struct sref *r)
{
	if (r->ref & 0x8000)
		fw_stream(f, r->s, r->len);
}

/* Longest prefix of at most max bytes that does not cut a UTF-8 sequence. */
static uint32_t utf8_cut(const char *s, size_t len, uint32_t max)
{
	uint32_t n;

	if (len <= max)
		return (uint32_t)len;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

static inline struct srecent *recent_of(struct fw *f, const char *s)
{
	uintptr_t k = (uintptr_t)s;

	return &f->recent[(k >> 3 ^ k >> 13) & (FXT_RECENT - 1)];
}

/* The reference for string s when it is not the one its pointer named last time. */
static int fw_string_slow(struct mtj_writer *w, struct fw *f, const char *s, bool fixed,
			  struct sref *out)
{
	struct srecent *r = recent_of(f, s);
	size_t full;
	uint32_t len, slot;
	uint64_t h;

	if (r->key == s && r->slot && f->str[r->slot].gen == r->gen) {
		const struct fxt_str *e = &f->str[r->slot];

		/* equal to the slot's text, and not longer (a cut string takes the slow path) */
		if (strncmp(e->s, s, e->len) == 0 && s[e->len] == '\0') {
			lru_touch(&f->slru, r->slot);
			*out = (struct sref){ .ref = r->slot };
			return 0;
		}
	}
	full = strlen(s);
	len = utf8_cut(s, full, FXT_MAX_STR);
	if (len == 0) {
		*out = (struct sref){ .ref = 0 };
		return 0;
	}
	h = mtj_hash_bytes(s, len);
	if (mtj_u64map_get(&f->smap, h, &slot)) {
		struct fxt_str *e = &f->str[slot];

		if (e->len == len && memcmp(e->s, s, len) == 0) {
			lru_touch(&f->slru, (uint16_t)slot);
			*out = (struct sref){ .ref = (uint16_t)slot };
			*r = (struct srecent){ .key = s, .gen = e->gen, .slot = (uint16_t)slot,
					       .fixed = fixed };
			return 0;
		}
		/* 64-bit hash collision: an inline string is always correct */
		len = utf8_cut(s, len, FXT_MAX_INLINE);
		*out = (struct sref){ .ref = (uint16_t)(0x8000 | len), .s = s, .len = len };
		return 0;
	}
	if (f->str_used < FXT_STR_SLOTS)
		slot = ++f->str_used;
	else {
		slot = f->slru.tail;
		lru_unlink(&f->slru, (uint16_t)slot);
		mtj_u64map_del(&f->smap, f->str[slot].hash);
	}
	char *copy = malloc(len);

	if (!copy || mtj_u64map_put(&f->smap, h, slot)) {
		free(copy);
		return -ENOMEM;
	}
	free(f->str[slot].s);
	memcpy(copy, s, len);
	f->str[slot] = (struct fxt_str){ .s = copy, .len = len, .gen = f->str[slot].gen + 1, .hash = h };
	lru_push_front(&f->slru, (uint16_t)slot);

	fw_room(w, f, 1 + words_for(len));
	fw_word(f, RT_STRING | (uint64_t)(1 + words_for(len)) << 4 | (uint64_t)slot << 16 |
		   (uint64_t)len << 32);
	fw_stream(f, s, len);
	*out = (struct sref){ .ref = (uint16_t)slot };
	*r = (struct srecent){ .key = s, .gen = f->str[slot].gen, .slot = (uint16_t)slot, .fixed = fixed };
	return 0;
}

/* The reference for string s; fixed: s does not change while the writer is open.  The common
 * case, a pointer that cannot have changed naming a slot not re-defined since, inline. */
static inline int fw_string(struct mtj_writer *w, struct fw *f, const char *s, bool fixed,
			    struct sref *out)
{
	const struct srecent *r = recent_of(f, s);

	if (r->key == s && r->fixed && r->slot && f->str[r->slot].gen == r->gen) {
		lru_touch(&f->slru, r->slot);
		*out = (struct sref){ .ref = r->slot };
		return 0;
	}
	return fw_string_slow(w, f, s, fixed, out);
}

static int fw_thread(struct mtj_writer *w, struct fw *f, uint32_t pid, uint32_t tid, uint8_t *out)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	uint8_t *cached = &f->thr_recent[tid & (FXT_THR_RECENT - 1)];
	uint32_t slot;

	/* a slot still holds the thread it was cached for unless it was re-defined since */
	if (*cached && f->thr_key[*cached] == key) {
		lru_touch(&f->tlru, *cached);
		*out = *cached;
		return 0;
	}
	if (mtj_u64map_get(&f->tmap, key, &slot)) {
		lru_touch(&f->tlru, (uint16_t)slot);
		*out = *cached = (uint8_t)slot;
		return 0;
	}
	if (f->thr_used < FXT_THR_SLOTS)
		slot = ++f->thr_used;
	else {
		slot = f->tlru.tail;
		lru_unlink(&f->tlru, (uint16_t)slot);
		mtj_u64map_del(&f->tmap, f->thr_key[slot]);
	}
	if (mtj_u64map_put(&f->tmap, key, slot))
		return -ENOMEM;
	f->thr_key[slot] = key;
	lru_push_front(&f->tlru, (uint16_t)slot);
	fw_room(w, f, 3);
	fw_word(f, RT_THREAD | 3u << 4 | (uint64_t)slot << 16);
	fw_word(f, pid);
	fw_word(f, tid);
	*out = *cached = (uint8_t)slot;
	return 0;
}

/* ---- records ---- */

static void fxt_free(struct fw *f)
{
	if (!f)
		return;
	if (f->str)
		for (uint32_t i = 0; i <= FXT_STR_SLOTS; i++)
			free(f->str[i].s);
	free(f->str);
	free(f->buf);
	lru_free(&f->slru);
	lru_free(&f->tlru);
	mtj_u64map_free(&f->smap);
	mtj_u64map_free(&f->tmap);
	free(f);
}

static int fxt_open(struct mtj_writer *w)
{
	static const char provider[] = "mtinject";
	struct fw *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->buf = malloc(FXT_BUF_WORDS * sizeof(uint64_t));
	f->str = calloc(FXT_STR_SLOTS + 1, sizeof(*f->str));
	if (!f->buf || !f->str || lru_init(&f->slru, FXT_STR_SLOTS) || lru_init(&f->tlru, FXT_THR_SLOTS)) {
		fxt_free(f);
		return -ENOMEM;
	}
	w->priv = f;
	fw_word(f, FXT_MAGIC);
	/* provider info (metadata type 1, provider 0, name length in bits 52..59) */
	fw_word(f, RT_METADATA | (uint64_t)(1 + words_for(sizeof(provider) - 1)) << 4 | 1u << 16 |
		   (uint64_t)(sizeof(provider) - 1) << 52);
	fw_stream(f, provider, sizeof(provider) - 1);
	/* provider section (metadata type 2): the records that follow belong to provider 0 */
	fw_word(f, RT_METADATA | 1u << 4 | 2u << 16);
	/* initialization: 1e9 ticks per second, so ticks are nanoseconds */
	fw_word(f, RT_INIT | 2u << 4);
	fw_word(f, 1000000000ull);
	return 0;
}

static int fxt_kobj(struct mtj_writer *w, uint32_t pid, const uint32_t *tid, const char *name)
{
	struct fw *f = w->priv;
	struct sref n, key = { 0 };
	uint32_t size;
	int rc;

	if ((rc = fw_string(w, f, name, false, &n)))
		return rc;
	if (tid && (rc = fw_string(w, f, "process", true, &key)))
		return rc;
	size = 2 + sref_words(&n) + (tid ? 2 + sref_words(&key) : 0);
	fw_room(w, f, size);
	fw_word(f, RT_KOBJ | (uint64_t)size << 4 | (uint64_t)(tid ? OBJ_THREAD : OBJ_PROCESS) << 16 |
		   (uint64_t)n.ref << 24 | (uint64_t)(tid ? 1 : 0) << 40);
	fw_word(f, tid ? *tid : pid);
	fw_sref_stream(f, &n);
	if (tid) {
		/* Perfetto takes a thread's process from its "process" koid argument */
		fw_word(f, ARG_KOID | (uint64_t)(2 + sref_words(&key)) << 4 | (uint64_t)key.ref << 16);
		fw_sref_stream(f, &key);
		fw_word(f, pid);
	}
	return f->err;
}

static int fxt_process_name(struct mtj_writer *w, uint32_t pid, const char *name)
{
	return fxt_kobj(w, pid, NULL, name);
}

static int fxt_thread_name(struct mtj_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	return fxt_kobj(w, pid, &tid, name);
}

struct earg {
	struct sref key, sval;
	const struct mtj_arg *a;
};

static uint32_t earg_words(const struct earg *e)
{
	uint32_t n = 1 + sref_words(&e->key);

	if (e->a->type == MTJ_ARG_STR)
		return n + (e->a->s ? sref_words(&e->sval) : 0);
	return n + 1;
}

static void fw_earg(struct fw *f, const struct earg *e)
{
	uint64_t type;

	switch (e->a->type) {
	case MTJ_ARG_STR: type = e->a->s ? ARG_STR : ARG_NULL; break;
	case MTJ_ARG_U64: type = ARG_U64; break;
	case MTJ_ARG_I64: type = ARG_I64; break;
	default: type = ARG_PTR; break;   /* Perfetto shows pointers in hex */
	}
	fw_word(f, type | (uint64_t)earg_words(e) << 4 | (uint64_t)e->key.ref << 16 |
		   (type == ARG_STR ? (uint64_t)e->sval.ref << 32 : 0));
	fw_sref_stream(f, &e->key);
	if (type == ARG_STR)
		fw_sref_stream(f, &e->sval);
	else if (type != ARG_NULL)
		fw_word(f, e->a->u);
}

static int fxt_event(struct mtj_writer *w, unsigned type, uint32_t pid, uint32_t tid, uint64_t ts,
		     const char *name, const struct mtj_arg *args, size_t nargs)
{
	struct fw *f = w->priv;
	struct earg ea[FXT_MAX_ARGS];
	struct sref cat, nm;
	uint8_t thr;
	uint32_t size;
	int rc;

	if (nargs > FXT_MAX_ARGS)
		nargs = FXT_MAX_ARGS;
	/* Define everything the event refers to first: records cannot nest. */
	if ((rc = fw_string(w, f, "mtinject", true, &cat)) ||
	    (rc = fw_string(w, f, name, w->own_names, &nm)))
		return rc;
	for (size_t i = 0; i < nargs; i++) {
		ea[i].a = &args[i];
		ea[i].sval = (struct sref){ 0 };
		/* begin's one argument is ours: key "object", value a writer-owned copy */
		if ((rc = fw_string(w, f, args[i].key ? args[i].key : "", w->own_names, &ea[i].key)))
			return rc;
		if (args[i].type == MTJ_ARG_STR && args[i].s &&
		    (rc = fw_string(w, f, args[i].s, w->own_names, &ea[i].sval)))
			return rc;
	}
	if ((rc = fw_thread(w, f, pid, tid, &thr)))
		return rc;
	size = 2 + sref_words(&cat) + sref_words(&nm);
	for (size_t i = 0; i < nargs; i++)
		size += earg_words(&ea[i]);
	fw_room(w, f, size);
	fw_word(f, RT_EVENT | (uint64_t)size << 4 | (uint64_t)type << 16 | (uint64_t)nargs << 20 |
		   (uint64_t)thr << 24 | (uint64_t)cat.ref << 32 | (uint64_t)nm.ref << 48);
	fw_word(f, ts);
	fw_sref_stream(f, &cat);
	fw_sref_stream(f, &nm);
	for (size_t i = 0; i < nargs; i++)
		fw_earg(f, &ea[i]);
	return f->err;
}

static int fxt_begin(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		     const char *name, const char *object)
{
	struct mtj_arg a = { .key = "object", .type = MTJ_ARG_STR, .s = object };

	return fxt_event(w, EV_BEGIN, pid, tid, ts_ns, name, &a, object ? 1 : 0);
}

static int fxt_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns, const char *name)
{
	return fxt_event(w, EV_END, pid, tid, ts_ns, name, NULL, 0);
}

static int fxt_instant(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		       const char *name, const struct mtj_arg *args, size_t nargs)
{
	return fxt_event(w, EV_INSTANT, pid, tid, ts_ns, name, args, nargs);
}

static int fxt_close(struct mtj_writer *w)
{
	struct fw *f = w->priv;
	int rc;

	fw_flush(w, f);
	rc = f->err;
	if (!rc && fflush(w->out))
		rc = -EIO;
	fxt_free(f);
	w->priv = NULL;
	return rc;
}

const struct mtj_writer_ops mtj_writer_fxt_ops = {
	.name = "fxt",
	.ext = ".fxt",
	.open = fxt_open,
	.process_name = fxt_process_name,
	.thread_name = fxt_thread_name,
	.begin = fxt_begin,
	.end = fxt_end,
	.instant = fxt_instant,
	.close = fxt_close,
};
