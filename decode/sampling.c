/*
 * decode/sampling.c — call-chain samples -> spans (rules in decode/sampling.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/sampling.h"
#include "preload/symbols.h"

#define PERIOD_SAMPLES 31   /* deltas used to estimate an unknown sampling period */

/* A function as the trace shows it: one span name per distinct (symbol, object). */
struct fn {
	const char *sym, *dso;   /* the key: borrowed (interned mode) or owned copies */
	const char *name;        /* demangled, or sym, or "[unknown]" */
	const char *object;      /* basename of dso, or NULL */
	/* name and object as the writer's own copies: passing these spares it comparing */
	const char *wname, *wobject;
	char *demangled;
	uint64_t hash;
};

struct instant {
	struct instant *next;
	uint64_t ts;
	bool only_if_covered;
	mtj_sampling_emit_fn emit;
	void *ctx;
};

struct thread {
	uint64_t key;            /* tid + 1 (0 = empty slot) */
	uint32_t pid, tid;
	struct fn **stack;       /* open spans, outermost first */
	uint32_t depth, cap;
	bool sampled;
	uint64_t last_ns;        /* time of the last sample */
	uint64_t emitted_ns;     /* time of the last event written */
	uint64_t period_ns;
	char *comm;
	const char *comm_key;    /* interned mode: the sample's comm pointer behind t->comm */
	struct instant *pending; /* sorted by ts */
};

struct process {
	uint32_t pid;
	bool named;              /* named after its main thread */
	char *first_comm;
};

struct mtj_sampling {
	struct mtj_writer *w;
	bool interned;

	struct fn **fns;
	uint32_t fn_cap, fn_count;
	struct thread *threads;
	uint32_t thr_cap, thr_count;
	struct process *procs;
	uint32_t nprocs, cap_procs;

	uint64_t deltas[PERIOD_SAMPLES];
	uint32_t ndeltas;
	uint64_t est_period, max_period;
	struct mtj_sampling_stats st;
	const struct fn **tmp;   /* the new stack of the sample being added */
	uint32_t tmp_cap;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (s && *s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* ---- functions --------------------------------------------------------------------------- */

static uint64_t fn_hash(const struct mtj_sampling *s, const char *sym, const char *dso)
{
	if (s->interned)
		return mix((uintptr_t)sym ^ mix((uintptr_t)dso));
	return mix(hash_str(sym) ^ (hash_str(dso) * 31));
}

static inline bool fn_is(const struct mtj_sampling *s, const struct fn *f, const char *sym, const char *dso)
{
	if (s->interned)
		return f->sym == sym && f->dso == dso;
	return same_str(f->sym, sym) && same_str(f->dso, dso);
}

static void fn_free(const struct mtj_sampling *s, struct fn *f)
{
	if (!f)
		return;
	if (!s->interned) {
		free((char *)f->sym);
		free((char *)f->dso);
	}
	free(f->demangled);
	free(f);
}

static int fn_grow(struct mtj_sampling *s)
{
	uint32_t cap = s->fn_cap ? s->fn_cap * 2 : 1024;
	struct fn **t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->fn_cap; i++) {
		uint32_t j;

		if (!s->fns[i])
			continue;
		for (j = (uint32_t)s->fns[i]->hash & (cap - 1); t[j]; j = (j + 1) & (cap - 1))
			;
		t[j] = s->fns[i];
	}
	free(s->fns);
	s->fns = t;
	s->fn_cap = cap;
	return 0;
}

static struct fn *fn_new(const struct mtj_sampling *s, const char *sym, const char *dso, uint64_t h)
{
	struct fn *f = calloc(1, sizeof(*f));
	const char *slash;

	if (!f)
		return NULL;
	f->hash = h;
	f->sym = s->interned || !sym ? sym : strdup(sym);
	f->dso = s->interned || !dso ? dso : strdup(dso);
	if ((sym && !f->sym) || (dso && !f->dso)) {
		fn_free(s, f);
		return NULL;
	}
	f->demangled = f->sym ? mtj_demangle(f->sym) : NULL;
	f->name = f->demangled ? f->demangled : f->sym ? f->sym : "[unknown]";
	if (f->dso) {
		slash = strrchr(f->dso, '/');
		f->object = slash && slash[1] ? slash + 1 : f->dso;
	}
	f->wname = mtj_writer_intern(s->w, f->name);
	f->wobject = mtj_writer_intern(s->w, f->object);
	if (!f->wname || (f->object && !f->wobject)) {
		fn_free(s, f);
		return NULL;
	}
	return f;
}

static const struct fn *fn_get(struct mtj_sampling *s, const char *sym, const char *dso)
{
	uint64_t h = fn_hash(s, sym, dso);
	uint32_t j;

	if (s->fn_count * 2 >= s->fn_cap && fn_grow(s) < 0)
		return NULL;
	for (j = (uint32_t)h & (s->fn_cap - 1); s->fns[j]; j = (j + 1) & (s->fn_cap - 1))
		if (s->fns[j]->hash == h && fn_is(s, s->fns[j], sym, dso))
			return s->fns[j];
	s->fns[j] = fn_new(s, sym, dso, h);
	if (s->fns[j])
		s->fn_count++;
	return s->fns[j];
}

/* ---- threads and processes --------------------------------------------------------------- */

/* Threads are known by tid alone, as the writers know them (a hit may not carry its pid). */
static uint64_t thr_key(uint32_t tid)
{
	return (uint64_t)tid + 1;
}

static int thr_grow(struct mtj_sampling *s)
{
	uint32_t cap = s->thr_cap ? s->thr_cap * 2 : 64;
	struct thread *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->thr_cap; i++) {
		uint32_t j;

		if (!s->threads[i].key)
			continue;
		for (j = (uint32_t)mix(s->threads[i].key) & (cap - 1); t[j].key; j = (j + 1) & (cap - 1))
			;
		t[j] = s->threads[i];
	}
	free(s->threads);
	s->threads = t;
	s->thr_cap = cap;
	return 0;
}

static struct thread *thr_get(struct mtj_sampling *s, uint32_t pid, uint32_t tid)
{
	uint64_t key = thr_key(tid);
	uint32_t j;

	if (s->thr_count * 2 >= s->thr_cap && thr_grow(s) < 0)
		return NULL;
	for (j = (uint32_t)mix(key) & (s->thr_cap - 1); s->threads[j].key; j = (j + 1) & (s->thr_cap - 1))
		if (s->threads[j].key == key)
			return &s->threads[j];
	s->threads[j] = (struct thread){ .key = key, .pid = pid, .tid = tid };
	s->thr_count++;
	return &s->threads[j];
}

static struct process *proc_get(struct mtj_sampling *s, uint32_t pid)
{
	for (uint32_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	if (s->nprocs == s->cap_procs) {
		uint32_t cap = s->cap_procs ? s->cap_procs * 2 : 8;
		struct process *p = realloc(s->procs, cap * sizeof(*p));

		if (!p)
			return NULL;
		s->procs = p;
		s->cap_procs = cap;
	}
	s->procs[s->nprocs] = (struct process){ .pid = pid };
	return &s->procs[s->nprocs++];
}

/* Thread names follow the sample's comm (written again when a thread renames itself);
 * a process is named after its main thread. */
static int note_comm(struct mtj_sampling *s, struct thread *t, const char *comm)
{
	struct process *p;
	int ret;

	if (!comm || (s->interned && comm == t->comm_key))
		return 0;   /* interned strings: the same pointer is the same name */
	if (s->interned)
		t->comm_key = comm;
	if (t->comm && !strcmp(t->comm, comm))
		return 0;
	free(t->comm);
	if (!(t->comm = strdup(comm)))
		return -ENOMEM;
	ret = mtj_writer_thread_name(s->w, t->pid, t->tid, comm);
	if (ret < 0)
		return ret;
	if (!(p = proc_get(s, t->pid)))
		return -ENOMEM;
	if (!p->first_comm && !(p->first_comm = strdup(comm)))
		return -ENOMEM;
	if (t->tid == t->pid && !p->named) {
		p->named = true;
		return mtj_writer_process_name(s->w, t->pid, comm);
	}
	return 0;
}

/* ---- emission ---------------------------------------------------------------------------- */

static bool covered(const struct mtj_sampling *s, uint64_t ts)
{
	return s->st.samples && ts >= s->st.first_ns && ts <= s->st.last_ns + s->max_period;
}

/* Write the thread's queued instants up to `until` (inclusive). */
static int flush_instants_slow(struct mtj_sampling *s, struct thread *t, uint64_t until)
{
	while (t->pending && t->pending->ts <= until) {
		struct instant *in = t->pending;
		int ret = 0;

		t->pending = in->next;
		if (!in->only_if_covered || covered(s, in->ts)) {
			ret = in->emit(in->ctx, s->w, t->pid, t->tid, in->ts);
			t->emitted_ns = in->ts;
			s->st.instants++;
		} else {
			s->st.dropped_instants++;
		}
		free(in);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Most threads have none queued: that is checked inline. */
static inline int flush_instants(struct mtj_sampling *s, struct thread *t, uint64_t until)
{
	return t->pending && t->pending->ts <= until ? flush_instants_slow(s, t, until) : 0;
}

/* End the thread's spans down to `keep` open ones, at `ts`. */
static int close_to(struct mtj_sampling *s, struct thread *t, uint32_t keep, uint64_t ts)
{
	int ret = flush_instants(s, t, ts);

	while (ret == 0 && t->depth > keep) {
		const struct fn *f = t->stack[--t->depth];

		ret = mtj_writer_end(s->w, t->pid, t->tid, ts, f->wname);
		t->emitted_ns = ts;
	}
	return ret;
}

static int open_from(struct mtj_sampling *s, struct thread *t, const struct fn **fns, uint32_t n,
		     uint64_t ts)
{
	int ret = flush_instants(s, t, ts);

	if (ret == 0 && n > t->cap) {
		uint32_t cap = n < 64 ? 64 : n;
		struct fn **st = realloc(t->stack, cap * sizeof(*st));

		if (!st)
			return -ENOMEM;
		t->stack = st;
		t->cap = cap;
	}
	for (uint32_t i = t->depth; ret == 0 && i < n; i++) {
		ret = mtj_writer_begin(s->w, t->pid, t->tid, ts, fns[i]->wname, fns[i]->wobject);
		t->stack[t->depth++] = (struct fn *)fns[i];
		t->emitted_ns = ts;
		s->st.spans++;
	}
	return ret;
}

/* ---- sampling period --------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median of the first deltas between a thread's consecutive samples: used when the event's
 * period is not known in ns (non-clock events). */
static void learn_period(struct mtj_sampling *s, uint64_t delta)
{
	uint64_t sorted[PERIOD_SAMPLES];

	if (!delta || s->ndeltas == PERIOD_SAMPLES)
		return;
	s->deltas[s->ndeltas++] = delta;
	memcpy(sorted, s->deltas, s->ndeltas * sizeof(*sorted));
	qsort(sorted, s->ndeltas, sizeof(*sorted), cmp_u64);
	s->est_period = sorted[s->ndeltas / 2];
}

/* ---- API --------------------------------------------------------------------------------- */

int mtj_sampling_new(struct mtj_writer *w, const struct mtj_sampling_opts *opts,
		     struct mtj_sampling **out)
{
	struct mtj_sampling *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->w = w;
	s->interned = opts && opts->interned;
	if (fn_grow(s) < 0 || thr_grow(s) < 0) {
		mtj_sampling_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void mtj_sampling_free(struct mtj_sampling *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->fn_cap; i++)
		fn_free(s, s->fns[i]);
	for (uint32_t i = 0; i < s->thr_cap; i++) {
		struct thread *t = &s->threads[i];

		while (t->pending) {
			struct instant *in = t->pending;

			t->pending = in->next;
			free(in);
		}
		free(t->stack);
		free(t->comm);
	}
	for (uint32_t i = 0; i < s->nprocs; i++)
		free(s->procs[i].first_comm);
	free(s->procs);
	free(s->fns);
	free(s->threads);
	free(s->tmp);
	free(s);
}

int mtj_sampling_add(struct mtj_sampling *s, const struct mtj_sample *smp, uint64_t period_ns)
{
	struct thread *t = thr_get(s, smp->pid, smp->tid);
	uint64_t ts = smp->time_ns, period;
	uint32_t n = smp->nframes, keep = 0;
	int ret;

	if (!t)
		return -ENOMEM;
	t->pid = smp->pid;
	if ((ret = note_comm(s, t, smp->comm)) < 0)
		return ret;
	if (t->sampled && ts < t->last_ns)
		ts = t->last_ns;   /* perf sorts samples; never let a thread's time go back */
	if (t->sampled && !period_ns)
		learn_period(s, ts - t->last_ns);
	period = period_ns ? period_ns : s->est_period;
	t->period_ns = period;
	if (period > s->max_period)
		s->max_period = period;
	if (!s->st.samples)
		s->st.first_ns = ts;
	s->st.samples++;
	s->st.last_ns = ts > s->st.last_ns ? ts : s->st.last_ns;

	if (n > s->tmp_cap) {
		const struct fn **tmp = realloc(s->tmp, n * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		s->tmp = tmp;
		s->tmp_cap = n;
	}
	/* Outermost first; the common prefix with the open stack stays open (its entries in
	 * s->tmp are filled only when the stack is rebuilt from the bottom, after a gap).  After
	 * a sample the open stack is exactly that sample's chain, so the frames the producer
	 * says it kept from the thread's previous sample are known to match. */
	{
		uint32_t lim = n < t->depth ? n : t->depth;

		const struct mtj_frame *fr = smp->frames;   /* fr[n - 1 - i] is the i-th outermost */

		if (t->sampled && smp->kept)
			keep = smp->kept < lim ? smp->kept : lim;
		if (s->interned)
			while (keep < lim && t->stack[keep]->sym == fr[n - 1 - keep].sym &&
			       t->stack[keep]->dso == fr[n - 1 - keep].dso)
				keep++;
		else
			while (keep < lim && fn_is(s, t->stack[keep], fr[n - 1 - keep].sym, fr[n - 1 - keep].dso))
				keep++;
	}
	for (uint32_t i = keep; i < n; i++) {
		const struct mtj_frame *fr = &smp->frames[n - 1 - i];

		if (!(s->tmp[i] = fn_get(s, fr->sym, fr->dso)))
			return -ENOMEM;
	}

	if (!t->sampled || (period && ts - t->last_ns > MTJ_SAMPLING_GAP_PERIODS * period)) {
		/* First sample, or the thread did not run in between: nothing spans the gap. */
		if (keep)
			memcpy(s->tmp, t->stack, keep * sizeof(*s->tmp));
		if (t->sampled && (ret = close_to(s, t, 0, t->last_ns + period)) < 0)
			return ret;
		ret = open_from(s, t, s->tmp, n, ts);
	} else {
		uint64_t mid = t->last_ns + (ts - t->last_ns) / 2;

		if ((ret = close_to(s, t, keep, mid)) == 0)
			ret = open_from(s, t, s->tmp, n, mid);
	}
	t->sampled = true;
	t->last_ns = ts;
	return ret;
}

int mtj_sampling_instant(struct mtj_sampling *s, uint32_t pid, uint32_t tid, uint64_t ts_ns,
			 mtj_sampling_emit_fn emit, void *ctx, bool only_if_covered)
{
	struct thread *t = thr_get(s, pid, tid);
	struct instant *in, **pp;

	if (!t || !(in = calloc(1, sizeof(*in))))
		return -ENOMEM;
	*in = (struct instant){ .ts = ts_ns, .only_if_covered = only_if_covered, .emit = emit,
				.ctx = ctx };
	for (pp = &t->pending; *pp && (*pp)->ts <= ts_ns; pp = &(*pp)->next)
		;
	in->next = *pp;
	*pp = in;
	return 0;
}

int mtj_sampling_finish(struct mtj_sampling *s)
{
	int ret = 0;

	for (uint32_t i = 0; ret == 0 && i < s->thr_cap; i++) {
		struct thread *t = &s->threads[i];

		if (!t->key)
			continue;
		if (t->sampled)
			ret = close_to(s, t, 0, t->last_ns + t->period_ns);
		if (ret == 0)
			ret = flush_instants(s, t, UINT64_MAX);
	}
	/* A process whose main thread was never sampled is named after its first thread seen. */
	for (uint32_t i = 0; ret == 0 && i < s->nprocs; i++) {
		if (!s->procs[i].named && s->procs[i].first_comm) {
			s->procs[i].named = true;
			ret = mtj_writer_process_name(s->w, s->procs[i].pid, s->procs[i].first_comm);
		}
	}
	return ret;
}

void mtj_sampling_get_stats(const struct mtj_sampling *s, struct mtj_sampling_stats *st)
{
	*st = s->st;
	st->threads = 0;
	for (uint32_t i = 0; i < s->thr_cap; i++)
		st->threads += s->threads[i].key && s->threads[i].sampled;
	st->period_ns = s->max_period;
}
