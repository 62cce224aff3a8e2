/*
 * tests/tools/fxt-read.h — an independent Fuchsia Trace Format reader for the test suite
 * (fxt-check and the writer's round-trip unit test include it).  It follows the format
 * documentation, not our writer's code, and is strict: every string/thread reference must
 * be defined before use, begin/end must balance per thread with matching names, and time
 * must not go backwards per thread.
 */
#ifndef MTJ_TESTS_FXT_READ_H
#define MTJ_TESTS_FXT_READ_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FXT_FN static __attribute__((unused))
#define FXT_MAGIC_WORD 0x0016547846040010ull

struct fxt_arg {
	unsigned type;          /* 0 null, 1 i32, 2 u32, 3 i64, 4 u64, 5 double, 6 string, 7 pointer, 8 koid, 9 bool */
	const char *key;
	const char *s;          /* type 6 */
	uint64_t u;             /* numbers, pointer, koid, bool */
};

struct fxt_ev {
	unsigned type;          /* 0 instant, 2 begin, 3 end, ... */
	uint64_t ts;            /* ticks */
	uint64_t pid, tid;
	const char *cat, *name;
	unsigned nargs;
	struct fxt_arg args[15];
};

struct fxt_stats {
	uint64_t records, string_records, string_redefs, thread_records, thread_redefs;
	uint64_t events, begins, ends, instants, kobjs, inline_strings;
	uint64_t ticks_per_second;
	unsigned max_string_index, max_thread_index;
};

struct fxt_sink {
	void *ctx;
	void (*event)(void *ctx, const struct fxt_ev *ev);
	/* obj type 1 process (pid = koid), 2 thread (pid from the "process" argument) */
	void (*kobj)(void *ctx, unsigned type, uint64_t koid, const char *name, uint64_t pid);
};

struct fxt_thr_state {
	uint64_t tid, last_ts;
	char **stack;
	size_t depth, cap;
};

struct fxt_reader {
	const uint64_t *w;
	size_t nw, pos, rec_start, rec_end;
	char *str[32768];
	uint64_t thr_pid[256], thr_tid[256];
	unsigned char thr_def[256];
	struct fxt_thr_state *th;
	size_t nth;
	char inl[4][32768];     /* inline strings of the current record */
	int ninl;
	char err[256];
};

FXT_FN int fxt_fail(struct fxt_reader *r, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof(r->err), "record at byte %zu: %s", r->rec_start * 8, msg);
	return -1;
}

FXT_FN int fxt_word(struct fxt_reader *r, uint64_t *out)
{
	if (r->pos >= r->rec_end)
		return fxt_fail(r, "record shorter than its contents");
	*out = r->w[r->pos++];
	return 0;
}

FXT_FN uint64_t fxt_bits(uint64_t v, unsigned lo, unsigned hi)
{
	return (v >> lo) & ((hi - lo == 63) ? ~0ull : ((1ull << (hi - lo + 1)) - 1));
}

/* Resolve a 16-bit string ref: 0 empty, bit 15 inline (length in bits 0..14), else index. */
FXT_FN int fxt_sref(struct fxt_reader *r, unsigned ref, const char **out)
{
	if (ref == 0) {
		*out = "";
		return 0;
	}
	if (ref & 0x8000) {
		size_t len = ref & 0x7fff, nw = (len + 7) / 8;

		if (r->pos + nw > r->rec_end)
			return fxt_fail(r, "inline string of %zu bytes overruns the record", len);
		if (r->ninl == 4)
			return fxt_fail(r, "too many inline strings in one record for this reader");
		char *d = r->inl[r->ninl++];

		memcpy(d, &r->w[r->pos], len);
		d[len] = '\0';
		r->pos += nw;
		*out = d;
		return 0;
	}
	if (!r->str[ref])
		return fxt_fail(r, "string ref %u used before any string record defined it", ref);
	*out = r->str[ref];
	return 0;
}

FXT_FN struct fxt_thr_state *fxt_thr(struct fxt_reader *r, uint64_t tid)
{
	for (size_t i = 0; i < r->nth; i++)
		if (r->th[i].tid == tid)
			return &r->th[i];
	struct fxt_thr_state *t = realloc(r->th, (r->nth + 1) * sizeof(*t));

	if (!t)
		abort();
	r->th = t;
	memset(&t[r->nth], 0, sizeof(t[0]));
	t[r->nth].tid = tid;
	return &t[r->nth++];
}

FXT_FN int fxt_args(struct fxt_reader *r, unsigned n, struct fxt_arg *out)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t h = 0, v = 0;
		size_t base = r->pos;

		if (fxt_word(r, &h))
			return -1;
		unsigned type = (unsigned)fxt_bits(h, 0, 3), size = (unsigned)fxt_bits(h, 4, 15);

		if (size == 0 || base + size > r->rec_end)
			return fxt_fail(r, "argument %u has bad size %u", i, size);
		out[i].type = type;
		out[i].s = NULL;
		out[i].u = 0;
		if (fxt_sref(r, (unsigned)fxt_bits(h, 16, 31), &out[i].key))
			return -1;
		switch (type) {
		case 0: break;
		case 1: case 2: case 9: out[i].u = fxt_bits(h, 32, 63); break;
		case 3: case 4: case 5: case 7: case 8:
			if (fxt_word(r, &v))
				return -1;
			out[i].u = v;
			break;
		case 6:
			if (fxt_sref(r, (unsigned)fxt_bits(h, 32, 47), &out[i].s))
				return -1;
			break;
		default:
			return fxt_fail(r, "argument %u has unknown type %u", i, type);
		}
		if (r->pos != base + size)
			return fxt_fail(r, "argument %u: size %u words but contents take %zu", i, size, r->pos - base);
	}
	return 0;
}

FXT_FN int fxt_event_rec(struct fxt_reader *r, uint64_t h, const struct fxt_sink *sink, struct fxt_stats *st)
{
	struct fxt_ev ev;
	uint64_t ts = 0, v = 0;
	unsigned tref = (unsigned)fxt_bits(h, 24, 31);

	memset(&ev, 0, sizeof(ev));
	ev.type = (unsigned)fxt_bits(h, 16, 19);
	ev.nargs = (unsigned)fxt_bits(h, 20, 23);
	if (!st->ticks_per_second)
		return fxt_fail(r, "event before the initialization record");
	if (fxt_word(r, &ts))
		return -1;
	ev.ts = ts;
	if (tref == 0) {
		if (fxt_word(r, &ev.pid) || fxt_word(r, &ev.tid))
			return -1;
	} else {
		if (!r->thr_def[tref])
			return fxt_fail(r, "thread ref %u used before any thread record defined it", tref);
		ev.pid = r->thr_pid[tref];
		ev.tid = r->thr_tid[tref];
	}
	unsigned cref = (unsigned)fxt_bits(h, 32, 47), nref = (unsigned)fxt_bits(h, 48, 63);

	st->inline_strings += (cref & 0x8000 ? 1 : 0) + (nref & 0x8000 ? 1 : 0);
	if (fxt_sref(r, cref, &ev.cat) || fxt_sref(r, nref, &ev.name) || fxt_args(r, ev.nargs, ev.args))
		return -1;
	if (ev.type == 4 || (ev.type >= 5 && ev.type <= 10)) {
		if (fxt_word(r, &v))
			return -1;
	}
	if (r->pos != r->rec_end)
		return fxt_fail(r, "event record has %zu words beyond its contents", r->rec_end - r->pos);

	struct fxt_thr_state *t = fxt_thr(r, ev.tid);

	if (ts < t->last_ts)
		return fxt_fail(r, "time goes backwards on thread %llu: %llu after %llu",
				(unsigned long long)ev.tid, (unsigned long long)ts, (unsigned long long)t->last_ts);
	t->last_ts = ts;
	st->events++;
	if (ev.type == 2) {
		if (t->depth == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 16;
			t->stack = realloc(t->stack, t->cap * sizeof(*t->stack));
			if (!t->stack)
				abort();
		}
		t->stack[t->depth++] = strdup(ev.name);
		st->begins++;
	} else if (ev.type == 3) {
		if (!t->depth)
			return fxt_fail(r, "end of \"%s\" on thread %llu with no open begin", ev.name,
					(unsigned long long)ev.tid);
		char *top = t->stack[--t->depth];
		int same = strcmp(top, ev.name) == 0;

		if (!same) {
			fxt_fail(r, "end of \"%s\" closes \"%s\" on thread %llu", ev.name, top,
				 (unsigned long long)ev.tid);
			free(top);
			return -1;
		}
		free(top);
		st->ends++;
	} else if (ev.type == 0)
		st->instants++;
	if (sink && sink->event)
		sink->event(sink->ctx, &ev);
	return 0;
}

FXT_FN void fxt_reader_free(struct fxt_reader *r)
{
	for (size_t i = 0; i < 32768; i++)
		free(r->str[i]);
	for (size_t i = 0; i < r->nth; i++) {
		for (size_t k = 0; k < r->th[i].depth; k++)
			free(r->th[i].stack[k]);
		free(r->th[i].stack);
	}
	free(r->th);
	free(r);
}

/* Parse a whole trace.  Returns 0, or -1 with a message in err. */
FXT_FN int fxt_read(const void *data, size_t len, const struct fxt_sink *sink, struct fxt_stats *st,
		    char *err, size_t errlen)
{
	struct fxt_reader *r = calloc(1, sizeof(*r));
	int rc = 0;

	if (!r)
		abort();
	memset(st, 0, sizeof(*st));
	r->w = data;
	r->nw = len / 8;
	if (len % 8)
		rc = fxt_fail(r, "file size %zu is not a multiple of 8", len);
	else if (r->nw == 0 || r->w[0] != FXT_MAGIC_WORD)
		rc = fxt_fail(r, "the first record is not the FXT magic number record");
	r->pos = 1;
	st->records = rc ? 0 : 1;
	while (!rc && r->pos < r->nw) {
		uint64_t h = r->w[r->pos];
		unsigned type = (unsigned)fxt_bits(h, 0, 3), size = (unsigned)fxt_bits(h, 4, 15);

		r->rec_start = r->pos;
		r->ninl = 0;
		if (size == 0) {
			rc = fxt_fail(r, "record of size 0");
			break;
		}
		if (r->pos + size > r->nw) {
			rc = fxt_fail(r, "record of %u words is cut by the end of the file (truncated?)", size);
			break;
		}
		r->rec_end = r->pos + size;
		r->pos++;
		st->records++;
		switch (type) {
		case 0: /* metadata: provider info / section / event, trace info */
			break;
		case 1: {
			uint64_t tps = 0;

			if ((rc = fxt_word(r, &tps)))
				break;
			if (!tps)
				rc = fxt_fail(r, "initialization record with 0 ticks per second");
			st->ticks_per_second = tps;
			break;
		}
		case 2: {
			unsigned idx = (unsigned)fxt_bits(h, 16, 30), slen = (unsigned)fxt_bits(h, 32, 46);

			if (idx == 0) {
				rc = fxt_fail(r, "string record for index 0");
				break;
			}
			if (size != 1 + (slen + 7) / 8) {
				rc = fxt_fail(r, "string record of %u bytes has size %u words", slen, size);
				break;
			}
			if (r->str[idx])
				st->string_redefs++;
			free(r->str[idx]);
			r->str[idx] = malloc(slen + 1);
			memcpy(r->str[idx], &r->w[r->pos], slen);
			r->str[idx][slen] = '\0';
			if (memchr(r->str[idx], '\0', slen))
				rc = fxt_fail(r, "string %u contains a NUL byte", idx);
			st->string_records++;
			if (idx > st->max_string_index)
				st->max_string_index = idx;
			r->pos = r->rec_end;
			break;
		}
		case 3: {
			unsigned idx = (unsigned)fxt_bits(h, 16, 23);

			if (idx == 0 || size != 3) {
				rc = fxt_fail(r, "bad thread record (index %u, size %u)", idx, size);
				break;
			}
			if (r->thr_def[idx])
				st->thread_redefs++;
			r->thr_def[idx] = 1;
			r->thr_pid[idx] = r->w[r->pos];
			r->thr_tid[idx] = r->w[r->pos + 1];
			st->thread_records++;
			if (idx > st->max_thread_index)
				st->max_thread_index = idx;
			r->pos = r->rec_end;
			break;
		}
		case 4:
			rc = fxt_event_rec(r, h, sink, st);
			break;
		case 7: {
			unsigned otype = (unsigned)fxt_bits(h, 16, 23), nargs = (unsigned)fxt_bits(h, 40, 43);
			uint64_t koid = 0, pid = 0;
			const char *name;
			struct fxt_arg args[16];

			if ((rc = fxt_word(r, &koid)) || (rc = fxt_sref(r, (unsigned)fxt_bits(h, 24, 39), &name)) ||
			    (rc = fxt_args(r, nargs, args)))
				break;
			for (unsigned i = 0; i < nargs; i++)
				if (strcmp(args[i].key, "process") == 0 && args[i].type == 8)
					pid = args[i].u;
			if (otype == 2 && !pid) {
				rc = fxt_fail(r, "thread object %llu without a \"process\" koid argument",
					      (unsigned long long)koid);
				break;
			}
			if (otype == 1)
				pid = koid;
			st->kobjs++;
			if (sink && sink->kobj)
				sink->kobj(sink->ctx, otype, koid, name, pid);
			break;
		}
		default:
			break;  /* other record types are legal; we write none */
		}
		r->pos = r->rec_end;
	}
	for (size_t i = 0; !rc && i < r->nth; i++)
		if (r->th[i].depth)
			rc = fxt_fail(r, "thread %llu ends with %zu open begin(s), innermost \"%s\"",
				      (unsigned long long)r->th[i].tid, r->th[i].depth,
				      r->th[i].stack[r->th[i].depth - 1]);
	if (rc)
		snprintf(err, errlen, "%s", r->err);
	fxt_reader_free(r);
	return rc;
}

#endif
