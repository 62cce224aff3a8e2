/*
 * decode/dlfilter.c — the perf dlfilter (build/mtinject-dlfilter.so) that `mtinject decode`
 * loads into `perf script`.  It turns every sample into a compact record of the stream
 * described in decode/dlstream.h, written to the fd named by --dlarg (stdout by default),
 * and drops the sample so perf prints nothing.
 *
 * Why: perf resolves symbols faster than we could (it has the maps and caches), but its text
 * output is slow and unstable.  Here each distinct (process, address) is resolved once and
 * each string is sent once.  Consecutive samples of a thread share their outer frames: a
 * sample sends only how many it keeps from the thread's previous chain and the ids of the
 * others, so only frames that changed cost a hash lookup and a varint.
 *
 * Runs inside perf: self-contained (links nothing of ours), never prints, never exits; an
 * error is returned to perf, which stops and reports it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perf/perf_dlfilter.h>

#include "decode/dlstream.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT struct perf_dlfilter_fns perf_dlfilter_fns;

/* Small enough that the tool gets work early and little is left for it after perf is done
 * (it decodes while perf reads), big enough that writes are few (~18 bytes a sample). */
#define OUTBUF_SIZE  (64u * 1024)
#define MAX_STRING   (64u * 1024)
#define KERNEL_PID   INT32_MIN    /* kernel addresses mean the same in every process */
#define MAX_EVENTS   64
#define SAMPLE_HEAD  64           /* room for a sample record's fixed fields */
#define CHAIN_SLOTS  16           /* threads whose last chain is kept (by tid, direct-mapped) */
#define FL_ADJ       1u           /* frame flags in a chain: resolved at ip - 1 */
#define FL_KERNEL    2u           /* a kernel address */
#define COMM_RECHECK_SAMPLES 64   /* a thread's name is read again after this many samples */
#define COMM_RECHECK_NS 1000000ull  /* or this much time (see comm_id) */

/* Fields of perf's structs we read; perf versions with smaller structs are refused. */
#define SAMPLE_NEEDS (offsetof(struct perf_dlfilter_sample, event) + sizeof(const char *))
#define AL_NEEDS     (offsetof(struct perf_dlfilter_al, comm) + sizeof(const char *))

struct str_ent {
	uint64_t hash;
	uint32_t id, len;
	char *s;
};

struct frame_ent {
	uint64_t ip;
	int32_t pid;
	uint32_t id;      /* 0 = empty slot */
	uint32_t adj;     /* resolved at ip - 1 (return address) */
};

struct comm_ent {
	bool used;        /* the slot holds tid */
	int32_t tid, pid;
	uint32_t sid;     /* the name's string id; 0 = none */
	uint32_t left;    /* samples before the name is read again; 0 = read it now */
	uint64_t when;    /* time it was last read */
	char comm[32];
};

struct event_ent {
	const void *attr;
	uint32_t id;
};

/* A sample's frames without the context markers, innermost first. */
struct chain {
	int32_t tid, pid;
	uint32_t n;
	uint64_t *ip;
	uint8_t *fl;      /* FL_* */
};

struct dlf {
	int fd;
	int err;
	size_t outlen;
	uint8_t *out;
	uint8_t *scratch;             /* a sample record's payload */
	uint8_t *strrec;              /* a string record's payload */
	uint64_t last_time, samples;

	struct str_ent *strs;
	uint32_t str_cap, str_count;
	struct frame_ent *frames;
	uint32_t frame_cap, frame_count;
	struct comm_ent *comms;
	uint32_t comm_cap, comm_count;
	struct event_ent events[MAX_EVENTS];
	uint32_t nevents, last_event;
	struct chain cur;                     /* the sample being encoded */
	struct chain chains[CHAIN_SLOTS];     /* the last chain of a few threads */
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h;
}

static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* ---- output ------------------------------------------------------------------------------ */

static int flush_out(struct dlf *d)
{
	size_t off = 0;

	while (off < d->outlen) {
		ssize_t n = write(d->fd, d->out + off, d->outlen - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return d->err = n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	d->outlen = 0;
	return 0;
}

static int emit(struct dlf *d, uint8_t type, const uint8_t *payload, size_t len)
{
	if (d->outlen + 1 + 10 + len > OUTBUF_SIZE && flush_out(d) < 0)
		return d->err;
	d->out[d->outlen++] = type;
	d->outlen += mtj_dls_put_uv(d->out + d->outlen, len);
	memcpy(d->out + d->outlen, payload, len);
	d->outlen += len;
	return 0;
}

/* ---- strings ----------------------------------------------------------------------------- */

static int grow_strs(struct dlf *d)
{
	uint32_t cap = d->str_cap ? d->str_cap * 2 : 1024;
	struct str_ent *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->str_cap; i++) {
		struct str_ent *e = &d->strs[i];
		uint32_t j;

		if (!e->id)
			continue;
		for (j = (uint32_t)e->hash & (cap - 1); t[j].id; j = (j + 1) & (cap - 1))
			;
		t[j] = *e;
	}
	free(d->strs);
	d->strs = t;
	d->str_cap = cap;
	return 0;
}

/* Id of `s`, sending its definition the first time.  0 for NULL; <0 on error. */
static int64_t intern(struct dlf *d, const char *s)
{
	size_t len;
	uint64_t h;
	uint32_t j;
	uint8_t *p = d->strrec;

	if (!s)
		return 0;
	len = strnlen(s, MAX_STRING);
	h = hash_bytes(s, len);
	if (d->str_count * 2 >= d->str_cap && grow_strs(d) < 0)
		return -ENOMEM;
	for (j = (uint32_t)h & (d->str_cap - 1); d->strs[j].id; j = (j + 1) & (d->str_cap - 1)) {
		struct str_ent *e = &d->strs[j];

		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return e->id;
	}
	d->strs[j].s = malloc(len + 1);
	if (!d->strs[j].s)
		return -ENOMEM;
	memcpy(d->strs[j].s, s, len);
	d->strs[j].s[len] = 0;
	d->strs[j].hash = h;
	d->strs[j].len = (uint32_t)len;
	d->strs[j].id = ++d->str_count;

	p += mtj_dls_put_uv(p, d->str_count);
	p += mtj_dls_put_uv(p, len);
	memcpy(p, s, len);
	p += len;
	if (emit(d, MTJ_DLS_REC_STRING, d->strrec, (size_t)(p - d->strrec)) < 0)
		return d->err;
	return d->str_count;
}

/* ---- frames ------------------------------------------------------------------------------ */

static int grow_frames(struct dlf *d)
{
	uint32_t cap = d->frame_cap ? d->frame_cap * 2 : 4096;
	struct frame_ent *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->frame_cap; i++) {
		struct frame_ent *e = &d->frames[i];
		uint32_t j;

		if (!e->id)
			continue;
		j = (uint32_t)hash_u64(e->ip ^ ((uint64_t)(uint32_t)e->pid << 32) ^ e->adj);
		for (j &= cap - 1; t[j].id; j = (j + 1) & (cap - 1))
			;
		t[j] = *e;
	}
	free(d->frames);
	d->frames = t;
	d->frame_cap = cap;
	return 0;
}

/* Resolve and define a frame: only the first time (pid, ip, adj) is seen. */
static int64_t define_frame(struct dlf *d, void *ctx, uint64_t ip, bool adj,
			    bool kernel, uint32_t id)
{
	struct perf_dlfilter_al al;
	const char *sym = NULL, *dso = NULL;
	uint64_t symoff = 0;
	int64_t sym_id, dso_id;
	uint8_t rec[64], *p = rec;

	memset(&al, 0, sizeof(al));
	al.size = sizeof(al);
	if (perf_dlfilter_fns.resolve_address &&
	    perf_dlfilter_fns.resolve_address(ctx, adj ? ip - 1 : ip, &al) == 0) {
		sym = al.sym;
		dso = al.dso;
		symoff = sym ? (uint64_t)al.symoff + adj : 0;
		kernel = kernel || al.is_kernel_ip;
	}
	sym_id = intern(d, sym);
	if (sym_id < 0)
		return sym_id;
	dso_id = intern(d, dso);
	if (dso_id < 0)
		return dso_id;
	p += mtj_dls_put_uv(p, id);
	p += mtj_dls_put_uv(p, ip);
	p += mtj_dls_put_uv(p, (uint64_t)sym_id);
	p += mtj_dls_put_uv(p, symoff);
	p += mtj_dls_put_uv(p, (uint64_t)dso_id);
	p += mtj_dls_put_uv(p, kernel ? MTJ_DLS_FRAME_KERNEL : 0);
	if (emit(d, MTJ_DLS_REC_FRAME, rec, (size_t)(p - rec)) < 0)
		return d->err;
	return id;
}

static int64_t frame_id(struct dlf *d, void *ctx, int32_t pid, uint64_t ip, uint8_t fl)
{
	bool adj = fl & FL_ADJ, kernel = fl & FL_KERNEL;
	uint32_t j;
	int32_t key_pid = kernel ? KERNEL_PID : pid;
	int64_t id;

	if (d->frame_count * 2 >= d->frame_cap && grow_frames(d) < 0)
		return -ENOMEM;
	j = (uint32_t)hash_u64(ip ^ ((uint64_t)(uint32_t)key_pid << 32) ^ adj);
	for (j &= d->frame_cap - 1; d->frames[j].id; j = (j + 1) & (d->frame_cap - 1)) {
		struct frame_ent *e = &d->frames[j];

		if (e->ip == ip && e->pid == key_pid && e->adj == adj)
			return e->id;
	}
	id = define_frame(d, ctx, ip, adj, kernel, d->frame_count + 1);
	if (id < 0)
		return id;
	d->frames[j] = (struct frame_ent){ .ip = ip, .pid = key_pid, .id = (uint32_t)id, .adj = adj };
	d->frame_count++;
	return id;
}

/* ---- chains ------------------------------------------------------------------------------ */

static int chain_alloc(struct chain *c)
{
	c->ip = malloc(MTJ_DLS_MAX_FRAMES * sizeof(*c->ip));
	c->fl = malloc(MTJ_DLS_MAX_FRAMES * sizeof(*c->fl));
	c->tid = -1;
	c->n = 0;
	return c->ip && c->fl ? 0 : -ENOMEM;
}

static void chain_free(struct chain *c)
{
	free(c->ip);
	free(c->fl);
}

/* A sample taken in the kernel (its ip is a kernel address), from perf's cpumode. */
static bool is_kernel_mode(uint8_t cpumode)
{
	uint8_t m = cpumode & PERF_RECORD_MISC_CPUMODE_MASK;

	return m == PERF_RECORD_MISC_KERNEL || m == PERF_RECORD_MISC_GUEST_KERNEL ||
	       m == PERF_RECORD_MISC_HYPERVISOR;
}

/* The sample's frames into d->cur: markers say whose frames follow, and the frame after a
 * marker is where that context was interrupted, not a return address. */
static void chain_fill(struct dlf *d, const struct perf_dlfilter_sample *s, bool ip_is_kernel)
{
	struct chain *c = &d->cur;
	uint64_t nraw = s->raw_callchain ? s->raw_callchain_nr : 0;
	bool kernel = false, first_in_ctx = true;
	uint32_t n = 0;

	c->tid = s->tid;
	c->pid = s->pid;
	if (nraw == 0) {
		c->ip[0] = s->ip;
		c->fl[0] = ip_is_kernel ? FL_KERNEL : 0;
		c->n = 1;
		return;
	}
	for (uint64_t i = 0; i < nraw && n < MTJ_DLS_MAX_FRAMES; i++) {
		uint64_t ip = s->raw_callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL ||
				 ip == (uint64_t)PERF_CONTEXT_GUEST_KERNEL || ip == (uint64_t)PERF_CONTEXT_HV;
			first_in_ctx = true;
			continue;
		}
		c->ip[n] = ip;
		c->fl[n] = (!first_in_ctx && ip > 0 ? FL_ADJ : 0) | (kernel ? FL_KERNEL : 0);
		first_in_ctx = false;
		n++;
	}
	c->n = n;
}

/* How many outer frames d->cur shares with the thread's previous chain (same addresses, same
 * flags, same process): the reader keeps those, so they need neither an id nor a byte. */
static uint32_t chain_shared(struct dlf *d)
{
	const struct chain *c = &d->cur, *prev = &d->chains[(uint32_t)c->tid % CHAIN_SLOTS];
	uint32_t same = 0;

	if (prev->tid == c->tid && prev->pid == c->pid)
		while (same < c->n && same < prev->n &&
		       c->ip[c->n - 1 - same] == prev->ip[prev->n - 1 - same] &&
		       c->fl[c->n - 1 - same] == prev->fl[prev->n - 1 - same])
			same++;
	return same;
}

/* d->cur becomes its thread's previous chain. */
static void chain_keep(struct dlf *d)
{
	struct chain *prev = &d->chains[(uint32_t)d->cur.tid % CHAIN_SLOTS], t = *prev;

	*prev = d->cur;
	d->cur = t;
}

/* ---- threads' names ---------------------------------------------------------------------- */

static int grow_comms(struct dlf *d)
{
	uint32_t cap = d->comm_cap ? d->comm_cap * 2 : 256;
	struct comm_ent *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->comm_cap; i++) {
		uint32_t j;

		if (!d->comms[i].used)
			continue;
		j = (uint32_t)hash_u64((uint32_t)d->comms[i].tid);
		for (j &= cap - 1; t[j].used; j = (j + 1) & (cap - 1))
			;
		t[j] = d->comms[i];
	}
	free(d->comms);
	d->comms = t;
	d->comm_cap = cap;
	return 0;
}

/*
 * The string id of a sample's thread name.  Asking perf for it means resolving the sample
 * (thread, map and symbol of its ip: 80 ns, half of what perf spends on a sample), which a
 * dlfilter's filter_event_early() otherwise skips.  Threads rarely rename, so the name is
 * read at a thread's first sample and again after COMM_RECHECK_SAMPLES of its samples or
 * COMM_RECHECK_NS of time, whichever comes first: a rename (pthread_setname_np, prctl) shows
 * within that, and only the last samples of a thread that renames itself just before it
 * ends can keep the old name.
 */
static struct comm_ent *comm_slot(struct dlf *d, int32_t tid)
{
	uint32_t j;

	if (d->comm_count * 2 >= d->comm_cap && grow_comms(d) < 0)
		return NULL;
	j = (uint32_t)hash_u64((uint32_t)tid);
	for (j &= d->comm_cap - 1; d->comms[j].used; j = (j + 1) & (d->comm_cap - 1))
		if (d->comms[j].tid == tid)
			return &d->comms[j];
	d->comm_count++;
	d->comms[j] = (struct comm_ent){ .used = true, .tid = tid };
	return &d->comms[j];
}

static int64_t comm_id(struct dlf *d, const struct perf_dlfilter_sample *s, void *ctx)
{
	struct comm_ent *e = comm_slot(d, s->tid);
	const struct perf_dlfilter_al *al;
	const char *comm;
	int64_t sid;

	if (!e)
		return -ENOMEM;
	if (e->left && e->pid == s->pid && s->time - e->when < COMM_RECHECK_NS) {
		e->left--;
		return e->sid;
	}
	al = perf_dlfilter_fns.resolve_ip ? perf_dlfilter_fns.resolve_ip(ctx) : NULL;
	comm = al && al->size >= AL_NEEDS ? al->comm : NULL;
	e->pid = s->pid;
	e->left = COMM_RECHECK_SAMPLES;
	e->when = s->time;
	if (!comm) {
		e->sid = 0;
		e->comm[0] = 0;
		return 0;
	}
	if (e->sid && !strncmp(e->comm, comm, sizeof(e->comm)))
		return e->sid;
	sid = intern(d, comm);
	if (sid <= 0)
		return sid;
	e->sid = (uint32_t)sid;
	/* Names longer than the cache are interned each time (never happens with 16-byte comms). */
	if (strlen(comm) < sizeof(e->comm))
		strcpy(e->comm, comm);
	else
		e->comm[0] = 0;
	return sid;
}

/* ---- events ------------------------------------------------------------------------------ */

/* Sampling period in ns of a clock event (cpu-clock / task-clock count nanoseconds). */
static uint64_t clock_period_ns(const struct perf_event_attr *a)
{
	if (!a || a->type != PERF_TYPE_SOFTWARE ||
	    (a->config != PERF_COUNT_SW_CPU_CLOCK && a->config != PERF_COUNT_SW_TASK_CLOCK))
		return 0;
	if (a->freq)
		return a->sample_freq ? 1000000000ull / a->sample_freq : 0;
	return a->sample_period;
}

static int64_t event_id(struct dlf *d, const struct perf_dlfilter_sample *s, void *ctx)
{
	const struct perf_event_attr *a = perf_dlfilter_fns.attr ? perf_dlfilter_fns.attr(ctx) : NULL;
	uint8_t rec[40], *p = rec;
	int64_t name;

	if (d->nevents && d->events[d->last_event].attr == a)
		return d->events[d->last_event].id;
	for (uint32_t i = 0; i < d->nevents; i++) {
		if (d->events[i].attr == a) {
			d->last_event = i;
			return d->events[i].id;
		}
	}
	if (d->nevents == MAX_EVENTS)
		return -E2BIG;
	name = intern(d, s->event);
	if (name < 0)
		return name;
	d->events[d->nevents] = (struct event_ent){ .attr = a, .id = d->nevents + 1 };
	d->last_event = d->nevents++;
	p += mtj_dls_put_uv(p, d->nevents);
	p += mtj_dls_put_uv(p, (uint64_t)name);
	p += mtj_dls_put_uv(p, clock_period_ns(a));
	if (emit(d, MTJ_DLS_REC_EVENT, rec, (size_t)(p - rec)) < 0)
		return d->err;
	return d->nevents;
}

/* ---- the dlfilter API -------------------------------------------------------------------- */

EXPORT const char *filter_description(const char **long_description)
{
	if (long_description)
		*long_description = "Encodes samples with call chains into mtinject's binary stream "
				     "(decode/dlstream.h) on the fd given by --dlarg and drops them.";
	return "mtinject: samples -> binary stream for `mtinject decode`";
}

static void free_dlf(struct dlf *d)
{
	if (d->strs)
		for (uint32_t i = 0; i < d->str_cap; i++)
			free(d->strs[i].s);
	free(d->strs);
	free(d->frames);
	free(d->comms);
	free(d->out);
	free(d->scratch);
	free(d->strrec);
	chain_free(&d->cur);
	for (uint32_t i = 0; i < CHAIN_SLOTS; i++)
		chain_free(&d->chains[i]);
	free(d);
}

EXPORT int start(void **data, void *ctx)
{
	struct dlf *d = calloc(1, sizeof(*d));
	int argc = 0;
	char **argv = perf_dlfilter_fns.args ? perf_dlfilter_fns.args(ctx, &argc) : NULL;

	if (!d)
		return -ENOMEM;
	d->fd = STDOUT_FILENO;
	if (argc >= 1 && argv && argv[0]) {
		char *end;
		long fd = strtol(argv[0], &end, 10);

		if (*end || fd < 0 || fd > 1 << 20) {
			free(d);
			return -EINVAL;
		}
		d->fd = (int)fd;
	}
	d->out = malloc(OUTBUF_SIZE);
	d->scratch = malloc(SAMPLE_HEAD + MTJ_DLS_MAX_FRAMES * 10);
	d->strrec = malloc(MAX_STRING + 32);
	int ret = chain_alloc(&d->cur);

	for (uint32_t i = 0; i < CHAIN_SLOTS; i++)
		ret |= chain_alloc(&d->chains[i]);
	if (ret || !d->out || !d->scratch || !d->strrec || grow_strs(d) < 0 || grow_frames(d) < 0 ||
	    grow_comms(d) < 0) {
		free_dlf(d);
		return -ENOMEM;
	}
	memcpy(d->out, MTJ_DLS_MAGIC, MTJ_DLS_MAGIC_LEN);
	d->outlen = MTJ_DLS_MAGIC_LEN;
	*data = d;
	return 0;
}

static int encode_sample(struct dlf *d, const struct perf_dlfilter_sample *s, void *ctx)
{
	/* Frame ids go at the end of the record; they are written to scratch from an offset
	 * so the fixed fields can be put in front once the count is known. */
	uint8_t *ids = d->scratch + SAMPLE_HEAD, *p = ids, *q;
	const struct chain *c = &d->cur;
	uint32_t keep;
	int64_t ev, cid;

	ev = event_id(d, s, ctx);
	if (ev < 0)
		return (int)ev;
	cid = comm_id(d, s, ctx);
	if (cid < 0)
		return (int)cid;
	chain_fill(d, s, is_kernel_mode(s->cpumode));
	keep = chain_shared(d);
	for (uint32_t i = 0; i < c->n - keep; i++) {
		int64_t id = frame_id(d, ctx, c->pid, c->ip[i], c->fl[i]);

		if (id < 0)
			return (int)id;
		p += mtj_dls_put_uv(p, (uint64_t)id);
	}
	/* The fixed fields in front of the ids: 7 varints, at most 36 bytes (only dtime is
	 * 64-bit). */
	{
		uint8_t head[SAMPLE_HEAD], *h = head;

		h += mtj_dls_put_uv(h, (uint64_t)ev);
		h += mtj_dls_put_uv(h, mtj_dls_zigzag(s->pid));
		h += mtj_dls_put_uv(h, mtj_dls_zigzag(s->tid));
		h += mtj_dls_put_uv(h, mtj_dls_zigzag((int64_t)(s->time - d->last_time)));
		h += mtj_dls_put_uv(h, (uint64_t)cid);
		h += mtj_dls_put_uv(h, keep);
		h += mtj_dls_put_uv(h, c->n - keep);
		q = ids - (h - head);
		memcpy(q, head, (size_t)(h - head));
	}
	chain_keep(d);
	d->last_time = s->time;
	d->samples++;
	return emit(d, MTJ_DLS_REC_SAMPLE, q, (size_t)(p - q));
}

/* Early: before perf resolves the sample's thread, map and symbol, which we need only for
 * addresses we have not seen (frame_id) and now and then for the thread name (comm_id). */
EXPORT int filter_event_early(void *data, const struct perf_dlfilter_sample *s, void *ctx)
{
	struct dlf *d = data;

	if (!d || d->err)
		return d ? d->err : -EINVAL;
	if (s->size < SAMPLE_NEEDS)
		return d->err = -EPROTO;   /* an older perf whose sample lacks fields we read */
	if (encode_sample(d, s, ctx) < 0)
		return d->err ? d->err : -ENOMEM;
	return 1;
}

EXPORT int stop(void *data, void *ctx)
{
	struct dlf *d = data;
	uint8_t rec[16];
	int ret;

	(void)ctx;
	if (!d)
		return 0;
	ret = d->err;
	/* The end record is the tool's proof that nothing was lost: only a clean run sends it. */
	if (!ret && emit(d, MTJ_DLS_REC_END, rec, mtj_dls_put_uv(rec, d->samples)) == 0)
		ret = flush_out(d);
	free_dlf(d);
	return ret;
}
