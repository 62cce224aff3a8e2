/*
 * decode/filter.c — time-region filter between a writer's checker and its back end.
 */
#include "decode/filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct region {
	uint64_t start, end;      /* [start, end); end UINT64_MAX while open */
};

struct mframe {
	uint32_t name, obj;
};

struct fthread {
	uint32_t pid, tid;
	struct mframe *fr;
	size_t depth, cap;
	size_t emitted;           /* frames fr[0..emitted) are open in the output */
	size_t ri;                /* first region not yet passed */
	uint64_t last_ts;
};

struct mtj_filter {
	char *start, *stop;
	bool fed;                 /* regions come from observed branches only */
	struct region *reg;
	size_t nreg, regcap;
	bool open;
	struct mtj_writer inner;  /* the back end we forward to */
	struct mtj_writer *outer;
	struct mtj_strtab *strs;
	struct mtj_u64map by_tid;
	struct fthread *th;
	size_t nth, thcap;
	struct mtj_filter_stats st;
};

bool mtj_filter_name_matches(const char *pattern, const char *name)
{
	if (!pattern || !name)
		return false;
	size_t n = strlen(pattern);
	return strncmp(pattern, name, n) == 0 &&
	       (name[n] == '\0' || name[n] == '(' || name[n] == '@');
}

int mtj_filter_parse_spec(const char *spec, char **start, char **stop, char *err, size_t errlen)
{
	const char *comma = spec ? strchr(spec, ',') : NULL;
	if (!comma || comma == spec || !comma[1] || strchr(comma + 1, ',')) {
		snprintf(err, errlen, "--filter wants START,STOP (two function names), got '%s'",
			 spec ? spec : "");
		return -EINVAL;
	}
	*start = strndup(spec, (size_t)(comma - spec));
	*stop = strdup(comma + 1);
	if (!*start || !*stop) {
		free(*start);
		free(*stop);
		return -ENOMEM;
	}
	return 0;
}

/* ---- regions --------------------------------------------------------------------------------- */

static void mark(struct mtj_filter *f, uint64_t ts, const char *name)
{
	if (!f->open && mtj_filter_name_matches(f->start, name)) {
		if (f->nreg == f->regcap) {
			size_t ncap = f->regcap ? f->regcap * 2 : 8;
			struct region *r = realloc(f->reg, ncap * sizeof(*r));
			if (!r)
				return;   /* out of memory: the region is lost, not the trace */
			f->reg = r;
			f->regcap = ncap;
		}
		f->reg[f->nreg++] = (struct region){ ts, UINT64_MAX };
		f->open = true;
		f->st.regions++;
	} else if (f->open && mtj_filter_name_matches(f->stop, name)) {
		f->reg[f->nreg - 1].end = ts;
		f->open = false;
	}
}

void mtj_filter_observe_branch(struct mtj_filter *f, const struct mtj_branch *b)
{
	f->fed = true;
	bool call = (b->flags & MTJ_BR_CALL) && !(b->flags & (MTJ_BR_TR_START | MTJ_BR_TR_END));
	bool tail = (b->flags & MTJ_BR_JUMP) && b->to.symoff == 0 && b->to.sym &&
		    !(b->flags & MTJ_BR_TR_START) &&
		    !(b->from.sym && strcmp(b->from.sym, b->to.sym) == 0);
	if (call || tail)
		mark(f, b->time_ns, b->to.sym);
}

/* ---- per thread -------------------------------------------------------------------------------- */

static struct fthread *thread_of(struct mtj_filter *f, uint32_t pid, uint32_t tid)
{
	uint32_t idx;
	if (mtj_u64map_get(&f->by_tid, tid, &idx))
		return &f->th[idx];
	if (f->nth == f->thcap) {
		size_t ncap = f->thcap ? f->thcap * 2 : 16;
		struct fthread *t = realloc(f->th, ncap * sizeof(*t));
		if (!t)
			return NULL;
		f->th = t;
		f->thcap = ncap;
	}
	if (mtj_u64map_put(&f->by_tid, tid, (uint32_t)f->nth))
		return NULL;
	f->th[f->nth] = (struct fthread){ .pid = pid, .tid = tid };
	return &f->th[f->nth++];
}

static const char *str(const struct mtj_filter *f, uint32_t id)
{
	return id == NONE ? NULL : mtj_strtab_str(f->strs, id);
}

static int emit_begins(struct mtj_filter *f, struct fthread *t, uint64_t ts)
{
	for (; t->emitted < t->depth; t->emitted++) {
		const struct mframe *m = &t->fr[t->emitted];
		int rc = f->inner.ops->begin(&f->inner, t->pid, t->tid, ts, str(f, m->name),
					     str(f, m->obj));
		if (rc)
			return rc;
		f->st.forwarded++;
	}
	return 0;
}

static int emit_ends(struct mtj_filter *f, struct fthread *t, uint64_t ts)
{
	while (t->emitted > 0) {
		t->emitted--;
		int rc = f->inner.ops->end(&f->inner, t->pid, t->tid, ts, str(f, t->fr[t->emitted].name));
		if (rc)
			return rc;
		f->st.forwarded++;
	}
	return 0;
}

/* Bring the thread to time ts: close regions passed, open the one ts is in. */
static int advance(struct mtj_filter *f, struct fthread *t, uint64_t ts, bool *inside)
{
	int rc;
	while (t->ri < f->nreg && f->reg[t->ri].end <= ts) {
		const struct region *r = &f->reg[t->ri];
		/* frames open across (part of) the region show there even without events */
		if (t->depth && t->emitted < t->depth) {
			uint64_t b = r->start > t->last_ts ? r->start : t->last_ts;
			if ((rc = emit_begins(f, t, b)))
				return rc;
		}
		if ((rc = emit_ends(f, t, r->end)))
			return rc;
		t->ri++;
	}
	*inside = t->ri < f->nreg && f->reg[t->ri].start <= ts;
	if (*inside && t->emitted < t->depth) {
		uint64_t b = f->reg[t->ri].start > t->last_ts ? f->reg[t->ri].start : t->last_ts;
		if ((rc = emit_begins(f, t, b)))
			return rc;
	}
	t->last_ts = ts;
	return 0;
}

/* ---- the back-end interface ------------------------------------------------------------------- */

static int f_open(struct mtj_writer *w)
{
	(void)w;
	return 0;
}

static int f_process_name(struct mtj_writer *w, uint32_t pid, const char *name)
{
	struct mtj_filter *f = w->priv;
	return f->inner.ops->process_name(&f->inner, pid, name);
}

static int f_thread_name(struct mtj_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	struct mtj_filter *f = w->priv;
	return f->inner.ops->thread_name(&f->inner, pid, tid, name);
}

static int f_begin(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		   const char *name, const char *object)
{
	struct mtj_filter *f = w->priv;
	struct fthread *t = thread_of(f, pid, tid);
	uint32_t nid, oid = NONE;
	bool inside;
	int rc;
	if (!t)
		return -ENOMEM;
	if (!f->fed)
		mark(f, ts, name);
	if ((rc = advance(f, t, ts, &inside)))
		return rc;
	if (mtj_strtab_intern(f->strs, name, &nid) || (object && mtj_strtab_intern(f->strs, object, &oid)))
		return -ENOMEM;
	if (t->depth == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 32;
		struct mframe *fr = realloc(t->fr, ncap * sizeof(*fr));
		if (!fr)
			return -ENOMEM;
		t->fr = fr;
		t->cap = ncap;
	}
	t->fr[t->depth++] = (struct mframe){ nid, oid };
	if (!inside) {
		f->st.dropped++;
		return 0;
	}
	return emit_begins(f, t, ts);
}

static int f_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts, const char *name)
{
	struct mtj_filter *f = w->priv;
	struct fthread *t = thread_of(f, pid, tid);
	bool inside;
	int rc;
	if (!t || t->depth == 0)
		return t ? -EINVAL : -ENOMEM;
	if ((rc = advance(f, t, ts, &inside)))
		return rc;
	t->depth--;
	if (t->emitted > t->depth) {
		t->emitted = t->depth;
		f->st.forwarded++;
		return f->inner.ops->end(&f->inner, pid, tid, ts, name);
	}
	f->st.dropped++;
	return 0;
}

static int f_instant(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		     const char *name, const struct mtj_arg *args, size_t nargs)
{
	struct mtj_filter *f = w->priv;
	struct fthread *t = thread_of(f, pid, tid);
	bool inside;
	int rc;
	if (!t)
		return -ENOMEM;
	if ((rc = advance(f, t, ts, &inside)))
		return rc;
	if (!inside) {
		f->st.dropped++;
		return 0;
	}
	f->st.forwarded++;
	return f->inner.ops->instant(&f->inner, pid, tid, ts, name, args, nargs);
}

static int f_close(struct mtj_writer *w)
{
	struct mtj_filter *f = w->priv;
	int rc = 0;
	/* the checker ended every producer frame before this, so nothing is open here */
	for (size_t i = 0; i < f->nth && !rc; i++)
		rc = emit_ends(f, &f->th[i], f->th[i].last_ts);
	int rc2 = f->inner.ops->close(&f->inner);
	w->bytes_hint = f->inner.bytes_hint;
	w->events = f->st.forwarded;
	w->priv = f->inner.priv;
	return rc ? rc : rc2;
}

static const struct mtj_writer_ops filter_ops = {
	.name = "filter",
	.ext = "",
	.open = f_open,
	.process_name = f_process_name,
	.thread_name = f_thread_name,
	.begin = f_begin,
	.end = f_end,
	.instant = f_instant,
	.close = f_close,
};

int mtj_filter_attach(struct mtj_filter *f, struct mtj_writer *w)
{
	if (!f || !w || !w->ops || f->outer)
		return -EINVAL;
	f->inner = *w;
	f->outer = w;
	w->ops = &filter_ops;
	w->priv = f;
	return 0;
}

int mtj_filter_new(const char *start, const char *stop, struct mtj_filter **out)
{
	if (!start || !*start || !stop || !*stop)
		return -EINVAL;
	struct mtj_filter *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->start = strdup(start);
	f->stop = strdup(stop);
	f->strs = mtj_strtab_new();
	if (!f->start || !f->stop || !f->strs) {
		mtj_filter_free(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void mtj_filter_get_stats(const struct mtj_filter *f, struct mtj_filter_stats *st)
{
	*st = f->st;
}

void mtj_filter_free(struct mtj_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nth; i++)
		free(f->th[i].fr);
	free(f->th);
	mtj_u64map_free(&f->by_tid);
	if (f->strs)
		mtj_strtab_free(f->strs);
	free(f->reg);
	free(f->start);
	free(f->stop);
	free(f);
}
