/*
 * decode/ptstack.c — call-stack reconstruction from Intel PT branches (see ptstack.h).
 *
 * Per thread: the live stack (frames) and a buffer of begin/end/instant ops since the last
 * reset.  Ops of the current timestamp form a "group" whose times are spread when the next
 * timestamp arrives.  Frames found by returning out of the bottom of the stack get their
 * begin in `prefix` (written before the buffer, at create_time), innermost first.
 */
#include "decode/ptstack.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define DEFAULT_MAX_BUFFERED ((size_t)1 << 20)
/* A return lands at most this far after its call instruction (x86 calls are 2..15 bytes). */
#define MAX_CALL_LEN 16

enum frame_kind {
	FR_FUNC,          /* entered by a call (or a tail call / resync) */
	FR_INFERRED,      /* running before the trace (or reset) began */
	FR_UNTRACED,      /* "tr end" .. "tr strt": [untraced] or [syscall] */
	FR_MARK,          /* kernel-side bracket: [syscall] / [interrupt] up to sysret / iret */
};

struct frame {
	uint32_t name, obj;
	uint64_t callsite;    /* address of the call instruction, 0 = unknown */
	uint8_t kind;
};

enum op_type { OP_B, OP_E, OP_I };

struct op {
	uint64_t ts;
	uint32_t name, obj;   /* for OP_I, obj is the message */
	uint8_t type, consumes;
};

struct pre {
	uint32_t name, obj;
};

struct thread {
	uint32_t pid, tid;
	bool started, named, dirty_front;
	uint64_t create_time, cur_time, last_out;
	struct frame *fr;
	size_t depth, frcap;
	struct op *ops;
	size_t nops, opcap, group;
	struct pre *prefix;
	size_t npre, precap;
};

struct mtj_ptstack {
	struct mtj_writer *w;
	struct mtj_strtab *strs;
	struct mtj_u64map by_tid;
	struct thread *th;
	size_t nth, thcap;
	size_t max_buffered;
	struct mtj_ptstack_stats st;
	uint32_t id_unknown, id_untraced, id_syscall, id_interrupt, id_error;
};

/* ---- storage ---------------------------------------------------------------------------------- */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*p, ncap * size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = ncap;
	return 0;
}

static int intern(struct mtj_ptstack *p, const char *s, uint32_t dflt, uint32_t *id)
{
	if (!s) {
		*id = dflt;
		return 0;
	}
	return mtj_strtab_intern(p->strs, s, id) ? -ENOMEM : 0;
}

static const char *str(const struct mtj_ptstack *p, uint32_t id)
{
	return id == NONE ? NULL : mtj_strtab_str(p->strs, id);
}

static int op_push(struct thread *t, enum op_type type, uint32_t name, uint32_t obj, bool consumes)
{
	if (grow((void **)&t->ops, &t->opcap, t->nops + 1, sizeof(*t->ops)))
		return -ENOMEM;
	t->ops[t->nops++] = (struct op){ .ts = t->cur_time, .name = name, .obj = obj,
					 .type = (uint8_t)type, .consumes = consumes };
	return 0;
}

/* ---- writing ---------------------------------------------------------------------------------- */

/* Give the ops of the current timestamp their share of the time up to `to`: each call
 * (consuming op) takes an equal part, as magic-trace does. */
static void spread(struct thread *t, uint64_t to)
{
	size_t count = 0, used = 0;
	uint64_t total = to - t->cur_time, off = 0;
	for (size_t i = t->group; i < t->nops; i++)
		count += t->ops[i].consumes;
	for (size_t i = t->group; i < t->nops; i++) {
		t->ops[i].ts = t->cur_time + off;
		if (t->ops[i].consumes) {
			used++;
			off += (total - off) / (count - used + 1);
		}
	}
	t->group = t->nops;
}

static int flush_out(struct mtj_ptstack *p, struct thread *t)
{
	struct mtj_writer *w = p->w;
	int rc = 0;
	for (size_t i = t->npre; i-- > 0 && !rc;)
		rc = mtj_writer_begin(w, t->pid, t->tid, t->create_time, str(p, t->prefix[i].name),
				      str(p, t->prefix[i].obj));
	if (t->npre)
		t->last_out = t->create_time;
	for (size_t i = 0; i < t->nops && !rc; i++) {
		const struct op *o = &t->ops[i];
		if (o->type == OP_B) {
			rc = mtj_writer_begin(w, t->pid, t->tid, o->ts, str(p, o->name), str(p, o->obj));
		} else if (o->type == OP_E) {
			rc = mtj_writer_end(w, t->pid, t->tid, o->ts, str(p, o->name));
		} else {
			struct mtj_arg a = { .key = "message", .type = MTJ_ARG_STR, .s = str(p, o->obj) };
			rc = mtj_writer_instant(w, t->pid, t->tid, o->ts, str(p, o->name), &a,
						o->obj == NONE ? 0 : 1);
		}
		t->last_out = o->ts;
	}
	t->npre = 0;
	t->nops = 0;
	t->group = 0;
	return rc;
}

/* ---- stack operations (all at t->cur_time) ---------------------------------------------------- */

static int push(struct thread *t, uint32_t name, uint32_t obj, uint64_t callsite, enum frame_kind k)
{
	if (grow((void **)&t->fr, &t->frcap, t->depth + 1, sizeof(*t->fr)))
		return -ENOMEM;
	t->fr[t->depth++] = (struct frame){ name, obj, callsite, (uint8_t)k };
	return op_push(t, OP_B, name, obj, true);
}

static int pop_to(struct thread *t, size_t depth)
{
	int rc = 0;
	while (t->depth > depth && !rc) {
		t->depth--;
		rc = op_push(t, OP_E, t->fr[t->depth].name, NONE, false);
	}
	return rc;
}

/* Start a new stack: close everything, write out, infer afresh from here. */
static int reset(struct mtj_ptstack *p, struct thread *t)
{
	int rc = pop_to(t, 0);
	spread(t, t->cur_time);
	if (rc == 0)
		rc = flush_out(p, t);
	t->create_time = t->cur_time;
	t->dirty_front = false;
	return rc;
}

/* The stack is empty and code runs in `name`: it was running since the thread's start. */
static int infer_outer(struct mtj_ptstack *p, struct thread *t, uint32_t name, uint32_t obj)
{
	if (t->dirty_front) {
		/* Frames that were open at a forced write have closed in the buffer since: an
		 * outer frame can only begin after them. */
		int rc = flush_out(p, t);
		if (rc)
			return rc;
		t->create_time = t->last_out > t->create_time ? t->last_out : t->create_time;
		t->dirty_front = false;
		p->st.truncated_inferred++;
	}
	if (grow((void **)&t->prefix, &t->precap, t->npre + 1, sizeof(*t->prefix)) ||
	    grow((void **)&t->fr, &t->frcap, 1, sizeof(*t->fr)))
		return -ENOMEM;
	t->prefix[t->npre++] = (struct pre){ name, obj };
	t->fr[0] = (struct frame){ name, obj, 0, FR_INFERRED };
	t->depth = 1;
	p->st.inferred++;
	return 0;
}

static bool is_code_frame(const struct frame *f)
{
	return f->kind == FR_FUNC || f->kind == FR_INFERRED;
}

/* Topmost code frame named `name` at or below index `from`, not crossing a kernel bracket. */
static long find_name(const struct thread *t, uint32_t name, long from)
{
	for (long i = from; i >= 0; i--) {
		if (t->fr[i].kind == FR_MARK)
			return -1;
		if (is_code_frame(&t->fr[i]) && t->fr[i].name == name)
			return i;
	}
	return -1;
}

static bool ret_matches(uint64_t callsite, uint64_t ip)
{
	return callsite && ip > callsite && ip - callsite <= MAX_CALL_LEN;
}

/* Make the top frame the function that contains `loc`. */
static int sync_to(struct mtj_ptstack *p, struct thread *t, const struct mtj_frame *loc)
{
	uint32_t name, obj;
	int rc;
	if (loc->ip == 0)
		return 0;
	if ((rc = intern(p, loc->sym, p->id_unknown, &name)) || (rc = intern(p, loc->dso, NONE, &obj)))
		return rc;
	/* an [untraced] frame whose "tr strt" was lost */
	while (t->depth && t->fr[t->depth - 1].kind == FR_UNTRACED)
		if ((rc = pop_to(t, t->depth - 1)))
			return rc;
	if (t->depth == 0)
		return infer_outer(p, t, name, obj);
	struct frame *top = &t->fr[t->depth - 1];
	if (is_code_frame(top) && top->name == name)
		return 0;
	if (top->kind == FR_MARK)   /* first function inside a kernel bracket */
		return push(t, name, obj, 0, FR_FUNC);
	p->st.resyncs++;
	long i = find_name(t, name, (long)t->depth - 2);
	if (i >= 0)
		return pop_to(t, (size_t)i + 1);
	uint64_t cs = top->callsite;
	if ((rc = pop_to(t, t->depth - 1)))
		return rc;
	return push(t, name, obj, cs, FR_FUNC);
}

static int do_call(struct mtj_ptstack *p, struct thread *t, const struct mtj_branch *b)
{
	uint32_t name, obj;
	int rc = sync_to(p, t, &b->from);
	if (rc || (rc = intern(p, b->to.sym, p->id_unknown, &name)) ||
	    (rc = intern(p, b->to.dso, NONE, &obj)))
		return rc;
	p->st.calls++;
	return push(t, name, obj, b->from.ip, FR_FUNC);
}

static int do_return(struct mtj_ptstack *p, struct thread *t, const struct mtj_branch *b)
{
	int rc = sync_to(p, t, &b->from);
	if (rc)
		return rc;
	p->st.returns++;
	if (t->depth == 0 || !is_code_frame(&t->fr[t->depth - 1]))
		return sync_to(p, t, &b->to);
	size_t n = t->depth;
	if (ret_matches(t->fr[n - 1].callsite, b->to.ip)) {
		rc = pop_to(t, n - 1);
	} else {
		/* Not the return of the top frame: which live frame does it land in? */
		long hit = -1;
		for (long i = (long)n - 2; i >= 1 && hit < 0; i--) {
			if (t->fr[i].kind == FR_MARK)
				break;
			if (ret_matches(t->fr[i].callsite, b->to.ip))
				hit = i;    /* returns into frame i-1 */
		}
		if (hit < 0 && b->to.ip) {
			uint32_t name;
			if ((rc = intern(p, b->to.sym, p->id_unknown, &name)))
				return rc;
			long i = find_name(t, name, (long)n - 2);
			if (i >= 0)
				hit = i + 1;
		}
		if (hit >= 0) {
			p->st.nonlocal++;
			rc = pop_to(t, (size_t)hit);
		} else if (t->fr[n - 1].callsite == 0) {
			/* an inferred (or resynced) frame returns to its unseen caller */
			rc = pop_to(t, n - 1);
		} else {
			/* a context we have never seen (swapcontext to a new stack) */
			p->st.switched++;
			rc = pop_to(t, n - 1);
			if (rc == 0 && b->to.ip && t->depth > 0) {
				uint32_t name, obj;
				if ((rc = intern(p, b->to.sym, p->id_unknown, &name)) ||
				    (rc = intern(p, b->to.dso, NONE, &obj)))
					return rc;
				return push(t, name, obj, 0, FR_FUNC);
			}
		}
	}
	return rc ? rc : sync_to(p, t, &b->to);
}

static int do_jump(struct mtj_ptstack *p, struct thread *t, const struct mtj_branch *b)
{
	uint32_t name, obj;
	int rc = sync_to(p, t, &b->from);
	if (rc || (rc = intern(p, b->to.sym, p->id_unknown, &name)) ||
	    (rc = intern(p, b->to.dso, NONE, &obj)))
		return rc;
	if (t->depth == 0 || b->to.ip == 0)
		return sync_to(p, t, &b->to);
	struct frame *top = &t->fr[t->depth - 1];
	if (is_code_frame(top) && top->name == name)
		return 0;
	if (b->to.sym && b->to.symoff == 0 && is_code_frame(top)) {
		/* tail call: the callee returns to our caller */
		uint64_t cs = top->callsite;
		p->st.tail_calls++;
		if ((rc = pop_to(t, t->depth - 1)))
			return rc;
		return push(t, name, obj, cs, FR_FUNC);
	}
	/* into the middle of a function: longjmp / landing pad when it is live below */
	long i = find_name(t, name, (long)t->depth - 2);
	if (i >= 0) {
		p->st.nonlocal++;
		return pop_to(t, (size_t)i + 1);
	}
	return sync_to(p, t, &b->to);
}

/* Pop down to and including the nearest kernel bracket; none: the trace began inside. */
static int kernel_return(struct mtj_ptstack *p, struct thread *t, const struct mtj_branch *b)
{
	long i;
	for (i = (long)t->depth - 1; i >= 0 && t->fr[i].kind != FR_MARK; i--)
		;
	int rc = i >= 0 ? pop_to(t, (size_t)i) : reset(p, t);
	return rc ? rc : sync_to(p, t, &b->to);
}

static int kernel_enter(struct mtj_ptstack *p, struct thread *t, const struct mtj_branch *b,
			uint32_t mark)
{
	int rc = sync_to(p, t, &b->from);
	if (rc || (rc = push(t, mark, NONE, 0, FR_MARK)))
		return rc;
	return sync_to(p, t, &b->to);
}

/* ---- threads ------------------------------------------------------------------------------------ */

static int thread_for(struct mtj_ptstack *p, const struct mtj_branch *b, struct thread **out)
{
	uint32_t idx;
	if (!mtj_u64map_get(&p->by_tid, b->tid, &idx)) {
		if (grow((void **)&p->th, &p->thcap, p->nth + 1, sizeof(*p->th)))
			return -ENOMEM;
		idx = (uint32_t)p->nth;
		if (mtj_u64map_put(&p->by_tid, b->tid, idx))
			return -ENOMEM;
		memset(&p->th[idx], 0, sizeof(p->th[idx]));
		p->th[idx].pid = b->pid;
		p->th[idx].tid = b->tid;
		p->nth++;
		p->st.threads++;
	}
	struct thread *t = &p->th[idx];
	if (!t->named && b->comm) {
		int rc = mtj_writer_thread_name(p->w, t->pid, t->tid, b->comm);
		if (rc == 0 && t->pid == t->tid)
			rc = mtj_writer_process_name(p->w, t->pid, b->comm);
		if (rc)
			return rc;
		t->named = true;
	}
	*out = t;
	return 0;
}

static int advance(struct mtj_ptstack *p, struct thread *t, uint64_t ts)
{
	if (!t->started) {
		t->started = true;
		t->create_time = t->cur_time = t->last_out = ts;
		return 0;
	}
	if (ts < t->cur_time) {
		p->st.reordered++;
		return 0;
	}
	if (ts == t->cur_time)
		return 0;
	spread(t, ts);
	t->cur_time = ts;
	if (t->nops >= p->max_buffered) {
		int rc = flush_out(p, t);
		if (rc)
			return rc;
		t->create_time = t->last_out;
		t->dirty_front = t->depth > 0;
	}
	return 0;
}

int mtj_ptstack_add(struct mtj_ptstack *p, const struct mtj_branch *b)
{
	struct thread *t;
	int rc = thread_for(p, b, &t);
	if (rc || (rc = advance(p, t, b->time_ns)))
		return rc;
	p->st.branches++;
	uint32_t f = b->flags;

	if (f & MTJ_BR_ERROR) {
		uint32_t msg;
		p->st.trace_errors++;
		if ((rc = intern(p, b->to.sym, NONE, &msg)) ||
		    (rc = op_push(t, OP_I, p->id_error, msg, false)))
			return rc;
		return reset(p, t);
	}
	if ((f & MTJ_BR_TR_START) && (f & MTJ_BR_TR_END)) {
		p->st.ignored++;
		return 0;
	}
	if (f & MTJ_BR_TR_END) {
		if ((f & MTJ_BR_CALL) && b->to.ip)
			rc = do_call(p, t, b);
		else if ((f & MTJ_BR_RETURN) && b->to.ip)
			rc = do_return(p, t, b);
		else
			rc = sync_to(p, t, &b->from);
		if (rc)
			return rc;
		bool sys = f & MTJ_BR_SYSCALL;
		if (sys)
			p->st.syscalls++;
		else
			p->st.untraced++;
		return push(t, sys ? p->id_syscall : p->id_untraced, NONE, 0, FR_UNTRACED);
	}
	if (f & MTJ_BR_TR_START) {
		while (t->depth && t->fr[t->depth - 1].kind == FR_UNTRACED)
			if ((rc = pop_to(t, t->depth - 1)))
				return rc;
		return sync_to(p, t, &b->to);
	}
	if (f & MTJ_BR_SYSCALL) {
		p->st.syscalls++;
		return kernel_enter(p, t, b, p->id_syscall);
	}
	if (f & (MTJ_BR_SYSRET | MTJ_BR_IRET))
		return kernel_return(p, t, b);
	if (f & (MTJ_BR_INTERRUPT | MTJ_BR_ASYNC)) {
		p->st.interrupts++;
		return kernel_enter(p, t, b, p->id_interrupt);
	}
	if (f & MTJ_BR_CALL)
		return do_call(p, t, b);
	if (f & MTJ_BR_RETURN)
		return do_return(p, t, b);
	if (f & MTJ_BR_JUMP)
		return do_jump(p, t, b);
	p->st.ignored++;
	return 0;
}

int mtj_ptstack_finish(struct mtj_ptstack *p)
{
	int rc = 0;
	for (size_t i = 0; i < p->nth && !rc; i++) {
		struct thread *t = &p->th[i];
		spread(t, t->cur_time);
		rc = pop_to(t, 0);
		if (rc == 0)
			rc = flush_out(p, t);
	}
	return rc;
}

int mtj_ptstack_new(struct mtj_writer *w, const struct mtj_ptstack_opts *opts,
		    struct mtj_ptstack **out)
{
	struct mtj_ptstack *p = calloc(1, sizeof(*p));
	if (!p || !(p->strs = mtj_strtab_new())) {
		free(p);
		return -ENOMEM;
	}
	p->w = w;
	p->max_buffered = opts && opts->max_buffered ? opts->max_buffered : DEFAULT_MAX_BUFFERED;
	if (mtj_strtab_intern(p->strs, "[unknown]", &p->id_unknown) ||
	    mtj_strtab_intern(p->strs, "[untraced]", &p->id_untraced) ||
	    mtj_strtab_intern(p->strs, "[syscall]", &p->id_syscall) ||
	    mtj_strtab_intern(p->strs, "[interrupt]", &p->id_interrupt) ||
	    mtj_strtab_intern(p->strs, "[trace error]", &p->id_error)) {
		mtj_ptstack_free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void mtj_ptstack_get_stats(const struct mtj_ptstack *p, struct mtj_ptstack_stats *st)
{
	*st = p->st;
}

void mtj_ptstack_free(struct mtj_ptstack *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nth; i++) {
		free(p->th[i].fr);
		free(p->th[i].ops);
		free(p->th[i].prefix);
	}
	free(p->th);
	mtj_u64map_free(&p->by_tid);
	mtj_strtab_free(p->strs);
	free(p);
}
