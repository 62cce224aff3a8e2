/*
 * decode/writer.c — format selection and the producer contract: per thread, begin/end nest
 * and time never goes backwards.  Checking here keeps every back end simple and makes a
 * reconstruction bug show up as -EINVAL at the call that broke the rule, not as a trace
 * that a viewer silently mangles.
 *
 * Names and objects are interned here anyway (an end is checked against the open begin's
 * name), so back ends get the interned copies and w->own_names: they can then key their own
 * per-name caches by pointer.  A producer that passes copies from mtj_writer_intern() makes
 * the checks pointer comparisons too.
 */
#include "decode/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct core_thread {
	uint32_t pid, tid;
	uint64_t last_ts;
	const char **stack;     /* names of the open begins (our copies), outermost first */
	uint32_t depth, cap;
};

#define OWN_CACHE 1024u          /* pointers known to be our copies (a power of two) */
#define TID_CACHE 64u             /* tid -> index in th[], direct-mapped (a power of two) */

struct core {
	struct mtj_strtab *names;
	struct mtj_u64map by_tid;       /* tid -> index in th[] */
	struct core_thread *th;
	uint32_t nth, cap;
	uint32_t last;                  /* index of the last thread used: events come in runs */
	uint32_t tid_cache[TID_CACHE];  /* index + 1 of a recent thread, by tid; 0 = none */
	/* Our own copies of names seen recently, by address: a producer that passes back what
	 * mtj_writer_intern() gave it (sampling.c always does) is recognised without hashing
	 * the string.  A miss only means interning as usual. */
	const char *own[OWN_CACHE];
};

static inline uint32_t own_slot(const char *s)
{
	uintptr_t k = (uintptr_t)s;

	return (uint32_t)(k >> 3 ^ k >> 13) & (OWN_CACHE - 1);
}

/* Our copy of s: s itself when it is one (the common case), else interned. */
static const char *own_copy(struct core *c, const char *s)
{
	uint32_t id, slot = own_slot(s);
	const char *copy;

	if (c->own[slot] == s)
		return s;
	if (mtj_strtab_intern(c->names, s, &id))
		return NULL;
	copy = mtj_strtab_str(c->names, id);
	c->own[own_slot(copy)] = copy;
	return copy;
}

static const struct {
	const char *name;
	enum mtj_format fmt;
} format_names[] = {
	{ "json", MTJ_FORMAT_JSON }, { "chrome", MTJ_FORMAT_JSON },
	{ "fxt", MTJ_FORMAT_FXT }, { "fuchsia", MTJ_FORMAT_FXT },
	{ "folded", MTJ_FORMAT_FOLDED }, { "stacks", MTJ_FORMAT_FOLDED },
};

int mtj_format_from_name(const char *name, enum mtj_format *out)
{
	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (strcmp(name, format_names[i].name) == 0) {
			*out = format_names[i].fmt;
			return 0;
		}
	return -EINVAL;
}

int mtj_format_from_path(const char *path, enum mtj_format *out)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (!dot || strchr(dot, '/'))
		return -EINVAL;
	for (enum mtj_format f = MTJ_FORMAT_JSON; f <= MTJ_FORMAT_FOLDED; f++)
		if (strcmp(dot, mtj_writer_ops_for(f)->ext) == 0) {
			*out = f;
			return 0;
		}
	return -EINVAL;
}

const struct mtj_writer_ops *mtj_writer_ops_for(enum mtj_format fmt)
{
	switch (fmt) {
	case MTJ_FORMAT_JSON: return &mtj_writer_json_ops;
	case MTJ_FORMAT_FXT: return &mtj_writer_fxt_ops;
	case MTJ_FORMAT_FOLDED: return &mtj_writer_folded_ops;
	}
	return NULL;
}

static void core_free(struct core *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nth; i++)
		free(c->th[i].stack);
	free(c->th);
	mtj_u64map_free(&c->by_tid);
	mtj_strtab_free(c->names);
	free(c);
}

int mtj_writer_open_flags(struct mtj_writer *w, enum mtj_format fmt, FILE *out, uint32_t flags)
{
	const struct mtj_writer_ops *ops = mtj_writer_ops_for(fmt);
	struct core *c;
	int rc;

	if (!w || !out || !ops)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	c = calloc(1, sizeof(*c));
	if (!c || !(c->names = mtj_strtab_new())) {
		free(c);
		return -ENOMEM;
	}
	w->ops = ops;
	w->out = out;
	w->flags = flags;
	w->core = c;
	rc = ops->open(w);
	if (rc) {
		core_free(c);
		memset(w, 0, sizeof(*w));
	}
	return rc;
}

int mtj_writer_open(struct mtj_writer *w, enum mtj_format fmt, FILE *out)
{
	return mtj_writer_open_flags(w, fmt, out, 0);
}

static struct core_thread *thread_of_slow(struct core *c, uint32_t pid, uint32_t tid)
{
	uint32_t *cached = &c->tid_cache[tid & (TID_CACHE - 1)];
	uint32_t idx;

	if (*cached && c->th[*cached - 1].tid == tid) {
		c->last = *cached - 1;
		return &c->th[c->last];
	}
	if (mtj_u64map_get(&c->by_tid, tid, &idx)) {
		c->last = idx;
		*cached = idx + 1;
		return &c->th[idx];
	}
	if (c->nth == c->cap) {
		uint32_t ncap = c->cap ? c->cap * 2 : 16;
		struct core_thread *th = realloc(c->th, (size_t)ncap * sizeof(*th));

		if (!th)
			return NULL;
		c->th = th;
		c->cap = ncap;
	}
	if (mtj_u64map_put(&c->by_tid, tid, c->nth))
		return NULL;
	c->th[c->nth] = (struct core_thread){ .pid = pid, .tid = tid };
	*cached = c->nth + 1;
	c->last = c->nth++;
	return &c->th[c->last];
}

/* The thread's state; events come in runs of one thread, so the last one is tried inline. */
static inline struct core_thread *thread_of(struct core *c, uint32_t pid, uint32_t tid)
{
	if (c->nth && c->th[c->last].tid == tid)
		return &c->th[c->last];
	return thread_of_slow(c, pid, tid);
}

int mtj_writer_process_name(struct mtj_writer *w, uint32_t pid, const char *name)
{
	if (!w || !w->ops || !name)
		return -EINVAL;
	return w->ops->process_name(w, pid, name);
}

int mtj_writer_thread_name(struct mtj_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	if (!w || !w->ops || !name)
		return -EINVAL;
	return w->ops->thread_name(w, pid, tid, name);
}

const char *mtj_writer_intern(struct mtj_writer *w, const char *s)
{
	struct core *c = w ? w->core : NULL;

	if (!c || !s)
		return s;
	return own_copy(c, s);
}

static int grow_stack(struct core_thread *t)
{
	uint32_t ncap = t->cap ? t->cap * 2 : 32;
	const char **st = realloc(t->stack, (size_t)ncap * sizeof(*st));

	if (!st)
		return -ENOMEM;
	t->stack = st;
	t->cap = ncap;
	return 0;
}

/* ops->begin/end with our own copies of the strings (see the top of the file). */
static int own_begin(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		     const char *name, const char *object)
{
	int rc;

	w->own_names = true;
	rc = w->ops->begin(w, pid, tid, ts, name, object);
	w->own_names = false;
	return rc;
}

static int own_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts, const char *name)
{
	int rc;

	w->own_names = true;
	rc = w->ops->end(w, pid, tid, ts, name);
	w->own_names = false;
	return rc;
}

int mtj_writer_begin(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		     const char *name, const char *object)
{
	struct core_thread *t;
	int rc;

	if (!w || !w->ops || !name)
		return -EINVAL;
	struct core *c = w->core;

	if (!(t = thread_of(c, pid, tid)))
		return -ENOMEM;
	if (ts_ns < t->last_ts)
		return -EINVAL;
	if (!(name = own_copy(c, name)) || (object && !(object = own_copy(c, object))))
		return -ENOMEM;
	if (t->depth == t->cap && grow_stack(t))
		return -ENOMEM;
	rc = own_begin(w, pid, tid, ts_ns, name, object);
	if (rc)
		return rc;
	t->stack[t->depth++] = name;
	t->last_ts = ts_ns;
	w->events++;
	return 0;
}

int mtj_writer_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns, const char *name)
{
	struct core_thread *t;
	int rc;

	if (!w || !w->ops || !name)
		return -EINVAL;
	if (!(t = thread_of(w->core, pid, tid)))
		return -ENOMEM;
	if (t->depth == 0 || ts_ns < t->last_ts)
		return -EINVAL;
	/* our copy: a producer passing it back is the common case, and needs no strcmp */
	if (name != t->stack[t->depth - 1] && strcmp(t->stack[t->depth - 1], name) != 0)
		return -EINVAL;
	rc = own_end(w, pid, tid, ts_ns, t->stack[t->depth - 1]);
	if (rc)
		return rc;
	t->depth--;
	t->last_ts = ts_ns;
	w->events++;
	return 0;
}

int mtj_writer_instant(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		       const char *name, const struct mtj_arg *args, size_t nargs)
{
	struct core_thread *t;
	int rc;

	if (!w || !w->ops || !name || (nargs && !args))
		return -EINVAL;
	if (!(t = thread_of(w->core, pid, tid)))
		return -ENOMEM;
	if (ts_ns < t->last_ts)
		return -EINVAL;
	rc = w->ops->instant(w, pid, tid, ts_ns, name, args, nargs);
	if (rc)
		return rc;
	t->last_ts = ts_ns;
	w->events++;
	return 0;
}

int mtj_writer_close(struct mtj_writer *w)
{
	struct core *c;
	int rc = 0, rc2;

	if (!w || !w->ops)
		return -EINVAL;
	c = w->core;
	for (uint32_t i = 0; i < c->nth && !rc; i++) {
		struct core_thread *t = &c->th[i];

		while (t->depth && !rc) {
			rc = own_end(w, t->pid, t->tid, t->last_ts, t->stack[t->depth - 1]);
			t->depth--;
			w->events++;
		}
	}
	rc2 = w->ops->close(w);
	core_free(c);
	w->core = NULL;
	w->ops = NULL;
	return rc ? rc : rc2;
}
