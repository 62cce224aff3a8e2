/*
 * decode/perfscript.c — `perf script` text -> mtj_sample / mtj_branch callbacks.
 *
 * Lines are read with getline() into one reused buffer and cut up in place; a sample's call
 * chain spans several lines, so its strings are copied into a reused arena until the sample
 * is complete.  Nothing is allocated per line once the buffers have grown.
 */
#include "decode/perfscript.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* An input whose first this-many content lines hold no event is not perf script output. */
#define PS_SNIFF_LINES 64
/* Longer lines are skipped as garbage (perf never prints anything near this). */
#define PS_MAX_LINE (1u << 20)

struct tid_time {
	uint32_t tid;
	bool used;
	uint64_t last;
};

struct ps {
	const char *file;
	const struct mtj_ps_callbacks *cb;
	struct mtj_ps_stats st;
	struct mtj_ps_error *err;
	unsigned long lineno;
	bool seen_event;
	unsigned long pre_garbage;        /* unrecognised lines before the first event */
	unsigned long pre_garbage_line;
	char pre_garbage_text[64];
	uint64_t last_time;               /* any thread: for trace errors without a time */

	/* per-thread last time (open addressing; grows only when a new thread appears) */
	struct tid_time *tt;
	size_t tt_cap, tt_used;

	/* the sample being assembled */
	bool in_sample;
	struct mtj_sample smp;
	size_t comm_off, event_off;       /* SIZE_MAX: none */
	struct mtj_frame *frames;
	size_t *frame_offs;               /* 2 per frame: sym, dso offsets (SIZE_MAX: none) */
	size_t nframes, frames_cap;
	char *arena;
	size_t arena_len, arena_cap;
};

/* ---- small lexical helpers ------------------------------------------------------------------ */

static bool is_sp(char c) { return c == ' ' || c == '\t'; }
static bool is_dig(char c) { return c >= '0' && c <= '9'; }

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char *skip_sp(char *p, char *end)
{
	while (p < end && is_sp(*p))
		p++;
	return p;
}

static char *tok_end(char *p, char *end)
{
	while (p < end && !is_sp(*p))
		p++;
	return p;
}

/* Whole token is hex (optional 0x), at most 16 digits. */
static bool parse_hex(const char *s, size_t n, uint64_t *out)
{
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		int h = hexval(s[i]);
		if (h < 0)
			return false;
		v = v << 4 | (uint64_t)h;
	}
	*out = v;
	return true;
}

static bool parse_dec(const char *s, size_t n, int64_t *out)
{
	bool neg = false;
	if (n && *s == '-') {
		neg = true;
		s++;
		n--;
	}
	if (n == 0 || n > 18)
		return false;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_dig(s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return true;
}

static bool is_decimal_tok(const char *s, size_t n)
{
	int64_t v;
	return parse_dec(s, n, &v) && v >= 0;
}

int mtj_ps_parse_time(const char *s, size_t len, uint64_t *ns)
{
	size_t i = 0;
	uint64_t sec = 0, frac = 0;
	if (len == 0 || !is_dig(s[0]))
		return -EINVAL;
	while (i < len && is_dig(s[i])) {
		if (sec > UINT64_MAX / 1000000000u)   /* keeps sec * 10 from overflowing */
			return -ERANGE;
		sec = sec * 10 + (uint64_t)(s[i++] - '0');
	}
	if (i == len || s[i] != '.' || i + 1 == len)
		return -EINVAL;
	i++;
	unsigned digits = 0;
	for (; i < len; i++) {
		if (!is_dig(s[i]))
			return -EINVAL;
		if (digits < 9) {     /* finer than a nanosecond is dropped, as perf rounds anyway */
			frac = frac * 10 + (uint64_t)(s[i] - '0');
			digits++;
		}
	}
	for (; digits < 9; digits++)
		frac *= 10;
	if (sec > (UINT64_MAX - frac) / 1000000000u)
		return -ERANGE;
	*ns = sec * 1000000000u + frac;
	return 0;
}

/* "S.F:" */
static bool is_time_tok(const char *s, size_t n)
{
	uint64_t ns;
	return n >= 4 && s[n - 1] == ':' && mtj_ps_parse_time(s, n - 1, &ns) == 0;
}

/* ---- messages -------------------------------------------------------------------------------- */

static void excerpt(char *dst, size_t cap, const char *s, size_t n)
{
	size_t j = 0;
	for (size_t i = 0; i < n && j + 1 < cap; i++)
		dst[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (n > j && j >= 3)   /* cut short: say so */
		dst[j - 3] = dst[j - 2] = dst[j - 1] = '.';
	dst[j] = '\0';
}

__attribute__((format(printf, 3, 4)))
static void warnf(struct ps *ps, unsigned long line, const char *fmt, ...)
{
	ps->st.warnings++;
	if (!ps->cb->warn || ps->st.warnings > MTJ_PS_MAX_WARN_REPORTS)
		return;
	char msg[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ps->cb->warn(ps->cb->ctx, ps->file, line, msg);
}

__attribute__((format(printf, 3, 4)))
static int fail(struct ps *ps, unsigned long line, const char *fmt, ...)
{
	if (ps->err) {
		va_list ap;
		va_start(ap, fmt);
		ps->err->line = line;
		vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void garbage(struct ps *ps, const char *s, size_t n, const char *why)
{
	char ex[64];
	excerpt(ex, sizeof(ex), s, n);
	if (!ps->seen_event) {
		if (ps->pre_garbage++ == 0) {
			ps->pre_garbage_line = ps->lineno;
			memcpy(ps->pre_garbage_text, ex, sizeof(ex));
		}
		return;
	}
	ps->st.skipped++;
	warnf(ps, ps->lineno, "%s, line skipped: '%s'", why, ex);
}

/* ---- per-thread time order ------------------------------------------------------------------- */

static struct tid_time *tt_slot(struct tid_time *t, size_t cap, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (cap - 1);
	while (t[i].used && t[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

static int tt_get(struct ps *ps, uint32_t tid, struct tid_time **out)
{
	if ((ps->tt_used + 1) * 2 > ps->tt_cap) {
		size_t ncap = ps->tt_cap ? ps->tt_cap * 2 : 64;
		struct tid_time *n = calloc(ncap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < ps->tt_cap; i++)
			if (ps->tt[i].used)
				*tt_slot(n, ncap, ps->tt[i].tid) = ps->tt[i];
		free(ps->tt);
		ps->tt = n;
		ps->tt_cap = ncap;
	}
	struct tid_time *s = tt_slot(ps->tt, ps->tt_cap, tid);
	if (!s->used) {
		s->used = true;
		s->tid = tid;
		s->last = 0;
		ps->tt_used++;
	}
	*out = s;
	return 0;
}

/* Keep time non-decreasing per thread: an earlier event is clamped and counted. */
static int order_time(struct ps *ps, uint32_t tid, uint64_t *t)
{
	struct tid_time *s;
	int rc = tt_get(ps, tid, &s);
	if (rc)
		return rc;
	if (*t < s->last) {
		ps->st.reordered++;
		warnf(ps, ps->lineno, "event of thread %u is %llu ns earlier than the one before it; "
		      "time clamped", tid, (unsigned long long)(s->last - *t));
		*t = s->last;
	}
	s->last = *t;
	if (*t > ps->last_time)
		ps->last_time = *t;
	return 0;
}

/* ---- locations: "IP [SYM[+0xOFF]] [(DSO)] [extra...]" ------------------------------------- */

static const char *unknown_to_null(const char *s)
{
	return (s && strcmp(s, "[unknown]") != 0 && *s) ? s : NULL;
}

/* Parses in place (writes NULs).  `p` points at the IP token. */
static bool parse_location(char *p, char *end, struct mtj_frame *fr)
{
	memset(fr, 0, sizeof(*fr));
	p = skip_sp(p, end);
	char *te = tok_end(p, end);
	if (!parse_hex(p, (size_t)(te - p), &fr->ip))
		return false;
	p = skip_sp(te, end);
	if (p == end)
		return true;
	/* trim trailing blanks */
	while (end > p && is_sp(end[-1]))
		end--;

	char *sym = p, *sym_end = NULL, *after = NULL;
	/* The first "+0x<hex>" that ends at a blank or the end is the symbol offset. */
	for (char *q = p; q + 3 <= end; q++) {
		if (q[0] != '+' || q[1] != '0' || q[2] != 'x')
			continue;
		char *h = q + 3, *he = h;
		while (he < end && hexval(*he) >= 0)
			he++;
		if (he == h || (he < end && !is_sp(*he)))
			continue;
		uint64_t off;
		if (!parse_hex(h, (size_t)(he - h), &off))
			continue;
		fr->symoff = off;
		sym_end = q;
		after = he;
		break;
	}
	if (!sym_end) {
		/* No offset printed: the symbol runs to " (" or the end. */
		char *q = NULL;
		for (char *r = p; r + 1 < end; r++)
			if (r[0] == ' ' && r[1] == '(') {
				q = r;
				break;
			}
		sym_end = q ? q : end;
		after = q ? q : end;
	}
	after = skip_sp(after, end);
	if (after < end && *after == '(') {
		char *d = after + 1, *de = memchr(d, ')', (size_t)(end - d));
		if (de) {
			*de = '\0';
			fr->dso = unknown_to_null(d);
		}
	}
	*sym_end = '\0';
	fr->sym = unknown_to_null(sym);
	return true;
}

/* ---- branch flags ------------------------------------------------------------------------------ */

enum { W_NONE, W_CALL, W_RETURN, W_JCC, W_JMP, W_INT, W_IRET, W_SYSCALL, W_SYSRET, W_ASYNC,
       W_HW, W_TR, W_STRT, W_END, W_TX, W_ABRT, W_VMENTRY, W_VMEXIT, W_BR, W_MISS, W_ERROR };

static const struct { const char *w; int id; } flag_words[] = {
	{ "call", W_CALL }, { "return", W_RETURN }, { "jcc", W_JCC }, { "jmp", W_JMP },
	{ "int", W_INT }, { "iret", W_IRET }, { "syscall", W_SYSCALL }, { "sysret", W_SYSRET },
	{ "async", W_ASYNC }, { "hw", W_HW }, { "tr", W_TR }, { "strt", W_STRT }, { "end", W_END },
	{ "tx", W_TX }, { "abrt", W_ABRT }, { "vmentry", W_VMENTRY }, { "vmexit", W_VMEXIT },
	{ "br", W_BR }, { "miss", W_MISS }, { "error", W_ERROR },
};

static int flag_word(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(flag_words) / sizeof(flag_words[0]); i++)
		if (strlen(flag_words[i].w) == n && memcmp(flag_words[i].w, s, n) == 0)
			return flag_words[i].id;
	return W_NONE;
}

/* "(x)", "(xi)": perf's per-branch condition letters (in transaction, ...). */
static bool is_flag_chars(const char *s, size_t n)
{
	if (n < 3 || n > 8 || s[0] != '(' || s[n - 1] != ')')
		return false;
	for (size_t i = 1; i + 1 < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/* Folds one word into the flags; `prev` is the previous word (for two-word names). */
static bool apply_flag_word(int w, int prev, uint32_t *f)
{
	switch (w) {
	case W_CALL: *f |= MTJ_BR_CALL; return true;
	case W_RETURN: *f |= MTJ_BR_RETURN; return true;
	case W_JCC: case W_JMP: *f |= MTJ_BR_JUMP; return true;
	case W_INT: *f |= MTJ_BR_INTERRUPT; return true;   /* "int" and "hw int" */
	case W_IRET: *f |= MTJ_BR_IRET; return true;
	case W_SYSCALL: *f |= MTJ_BR_SYSCALL; return true;
	case W_SYSRET: *f |= MTJ_BR_SYSRET; return true;
	case W_ASYNC: *f |= MTJ_BR_ASYNC; return true;
	case W_HW: case W_TR: case W_TX: case W_BR: return true;     /* first halves */
	case W_STRT: if (prev != W_TR) return false; *f |= MTJ_BR_TR_START; return true;
	case W_END: if (prev != W_TR) return false; *f |= MTJ_BR_TR_END; return true;
	case W_ABRT: if (prev != W_TX) return false; *f |= MTJ_BR_JUMP; return true;
	case W_MISS: return prev == W_BR;
	case W_VMENTRY: case W_VMEXIT: *f |= MTJ_BR_JUMP; return true;
	case W_ERROR: *f |= MTJ_BR_ERROR; return true;
	default: return false;
	}
}

int mtj_ps_parse_flags(const char *s, uint32_t *flags)
{
	uint32_t f = 0;
	int prev = W_NONE, rc = 0;
	const char *p = s;
	while (*p) {
		while (is_sp(*p))
			p++;
		const char *e = p;
		while (*e && !is_sp(*e))
			e++;
		if (e == p)
			break;
		int w = flag_word(p, (size_t)(e - p));
		if (!is_flag_chars(p, (size_t)(e - p)) && !apply_flag_word(w, prev, &f))
			rc = -EINVAL;
		prev = w;
		p = e;
	}
	*flags = f;
	return rc;
}

/* ---- header: "[comm] PID[/TID] [[CPU]] TIME: rest" ---------------------------------------- */

struct header {
	uint32_t pid, tid;
	uint64_t time;
	char *comm;      /* NUL-terminated in place, or NULL */
	char *rest, *end;
};

static bool parse_pidtid(const char *s, size_t n, uint32_t *pid, uint32_t *tid)
{
	const char *slash = memchr(s, '/', n);
	int64_t a, b;
	if (slash) {
		if (!parse_dec(s, (size_t)(slash - s), &a) ||
		    !parse_dec(slash + 1, n - (size_t)(slash - s) - 1, &b))
			return false;
	} else {
		/* perf's default columns print the thread id only */
		if (!parse_dec(s, n, &a))
			return false;
		b = a;
	}
	if (a < 0 || b <= 0 || a > UINT32_MAX || b > UINT32_MAX)
		return false;
	*pid = (uint32_t)a;
	*tid = (uint32_t)b;
	return true;
}

static bool is_cpu_tok(const char *s, size_t n)
{
	if (n < 3 || s[0] != '[' || s[n - 1] != ']')
		return false;
	for (size_t i = 1; i + 1 < n; i++)
		if (!is_dig(s[i]))
			return false;
	return true;
}

static bool parse_header(char *line, char *end, struct header *h)
{
	/* Remember the last two tokens before the time token. */
	char *t1 = NULL, *t1e = NULL, *t2 = NULL, *t2e = NULL;
	char *p = skip_sp(line, end);
	char *first = p;
	while (p < end) {
		char *e = tok_end(p, end);
		if (is_time_tok(p, (size_t)(e - p))) {
			char *pt = t1, *pte = t1e;
			if (pt && is_cpu_tok(pt, (size_t)(pte - pt))) {
				pt = t2;
				pte = t2e;
			}
			if (!pt || !parse_pidtid(pt, (size_t)(pte - pt), &h->pid, &h->tid))
				return false;
			if (mtj_ps_parse_time(p, (size_t)(e - p) - 1, &h->time) != 0)
				return false;
			h->comm = NULL;
			if (pt > first) {
				char *ce = pt;
				while (ce > first && is_sp(ce[-1]))
					ce--;
				*ce = '\0';
				h->comm = first;
			}
			h->rest = e;
			h->end = end;
			return true;
		}
		t2 = t1;
		t2e = t1e;
		t1 = p;
		t1e = e;
		p = skip_sp(e, end);
	}
	return false;
}

/* " => " separating the two ends of a branch. */
static char *find_arrow(char *p, char *end)
{
	for (char *q = p; q + 2 <= end; q++)
		if (q[0] == '=' && q[1] == '>' && q > p && is_sp(q[-1]) && (q + 2 == end || is_sp(q[2])))
			return q;
	return NULL;
}

/* ---- emitters ---------------------------------------------------------------------------------- */

static int on_first_event(struct ps *ps)
{
	if (ps->seen_event)
		return 0;
	ps->seen_event = true;
	if (ps->pre_garbage) {
		ps->st.skipped += ps->pre_garbage;
		warnf(ps, ps->pre_garbage_line, "%lu unrecognised line(s) before the first event "
		      "skipped, the first: '%s'", ps->pre_garbage, ps->pre_garbage_text);
	}
	return 0;
}

static int branch_line(struct ps *ps, struct header *h, char *arrow)
{
	struct mtj_branch b;
	memset(&b, 0, sizeof(b));
	b.pid = h->pid;
	b.tid = h->tid;
	b.time_ns = h->time;
	b.comm = h->comm;

	/* Tokens before the "from" location: [period] [event:] flag words. */
	char *p = skip_sp(h->rest, arrow), *loc = NULL;
	int prev = W_NONE;
	bool unknown = false, any_flag = false;
	while (p < arrow) {
		char *e = tok_end(p, arrow);
		size_t n = (size_t)(e - p);
		char *nx = skip_sp(e, arrow), *nxe = tok_end(nx, arrow);
		size_t nn = (size_t)(nxe - nx);
		uint64_t hx;
		int w = flag_word(p, n);
		if (p[n - 1] == ':') {
			/* event name ("branches:u:"): everything so far was header */
		} else if (is_flag_chars(p, n)) {
			/* condition letters */
		} else if (w != W_NONE && !(nx == arrow && parse_hex(p, n, &hx))) {
			if (!apply_flag_word(w, prev, &b.flags))
				unknown = true;
			any_flag = true;
		} else if (parse_hex(p, n, &hx)) {
			/* A number followed by a flag word or event name is a period, else the IP. */
			bool next_is_header = nx < arrow && nx[nn - 1] == ':';
			bool next_is_flag = nx < arrow && flag_word(nx, nn) != W_NONE &&
					    skip_sp(nxe, arrow) < arrow;
			if (!(is_decimal_tok(p, n) && (next_is_header || next_is_flag))) {
				loc = p;
				break;
			}
		} else {
			unknown = true;   /* a flag word from a newer perf, most likely */
			any_flag = true;
		}
		prev = w;
		p = nx;
	}
	if (!loc) {
		garbage(ps, h->rest, (size_t)(arrow - h->rest), "branch without a source address");
		return 0;
	}
	if (unknown) {
		ps->st.unknown_flags++;
		char ex[64], *fs = skip_sp(h->rest, loc), *fe = loc;
		while (fe > fs && is_sp(fe[-1]))
			fe--;
		excerpt(ex, sizeof(ex), fs, (size_t)(fe - fs));
		warnf(ps, ps->lineno, "unknown branch type '%s', line skipped", ex);
		return 0;
	}
	if (!any_flag) {
		return fail(ps, ps->lineno, "branch line without a branch type (call, return, jmp...): "
			    "run perf script with -F ...,flags");
	}
	char *to = skip_sp(arrow + 2, h->end);
	*arrow = '\0';
	if (!parse_location(loc, arrow, &b.from) || !parse_location(to, h->end, &b.to)) {
		garbage(ps, loc, (size_t)(h->end - loc), "unparsable branch address");
		return 0;
	}
	int rc = on_first_event(ps);
	if (rc == 0)
		rc = order_time(ps, b.tid, &b.time_ns);
	if (rc)
		return rc;
	ps->st.branches++;
	return ps->cb->on_branch ? ps->cb->on_branch(ps->cb->ctx, &b) : 0;
}

/* " instruction trace error type 1 time 4.5 cpu 2 pid 7 tid 7 ip 0x401525 code 6: msg" */
static int trace_error_line(struct ps *ps, char *p, char *end)
{
	struct mtj_branch b;
	memset(&b, 0, sizeof(b));
	bool have_time = false, have_tid = false;
	char *msg = NULL;
	while (p < end) {
		char *e = tok_end(p, end);
		char *v = skip_sp(e, end), *ve = tok_end(v, end);
		size_t n = (size_t)(e - p), vn = (size_t)(ve - v);
		int64_t d;
		if (n == 4 && !memcmp(p, "time", 4) && mtj_ps_parse_time(v, vn, &b.time_ns) == 0) {
			have_time = true;
		} else if (n == 3 && !memcmp(p, "pid", 3) && parse_dec(v, vn, &d) && d > 0 && d <= UINT32_MAX) {
			b.pid = (uint32_t)d;
		} else if (n == 3 && !memcmp(p, "tid", 3) && parse_dec(v, vn, &d) && d > 0 && d <= UINT32_MAX) {
			b.tid = (uint32_t)d;
			have_tid = true;
		} else if (n == 2 && !memcmp(p, "ip", 2)) {
			parse_hex(v, vn, &b.from.ip);
		} else if (n == 4 && !memcmp(p, "code", 4)) {
			char *colon = memchr(v, ':', (size_t)(end - v));
			msg = skip_sp(colon ? colon + 1 : ve, end);
			break;
		}
		p = v;
	}
	int rc = on_first_event(ps);
	if (rc)
		return rc;
	ps->st.trace_errors++;
	char ex[96];
	excerpt(ex, sizeof(ex), msg ? msg : "", msg ? (size_t)(end - msg) : 0);
	if (!have_tid) {
		warnf(ps, ps->lineno, "perf reported a trace error for no thread: '%s'", ex);
		return 0;
	}
	warnf(ps, ps->lineno, "perf reported a trace error in thread %u: '%s'", b.tid, ex);
	if (!b.pid)
		b.pid = b.tid;
	if (!have_time) {
		/* older perf prints no time here: the error happened after the thread's last event */
		struct tid_time *s;
		rc = tt_get(ps, b.tid, &s);
		if (rc)
			return rc;
		b.time_ns = s->last ? s->last : ps->last_time;
	}
	rc = order_time(ps, b.tid, &b.time_ns);
	if (rc)
		return rc;
	b.flags = MTJ_BR_ERROR;
	if (msg) {
		*end = '\0';
		b.to.sym = msg;  /* the message travels as the (non-)destination's name */
	}
	ps->st.branches++;
	return ps->cb->on_branch ? ps->cb->on_branch(ps->cb->ctx, &b) : 0;
}

/* ---- samples ---------------------------------------------------------------------------------- */

static size_t arena_put(struct ps *ps, const char *s)
{
	if (!s)
		return SIZE_MAX;
	size_t n = strlen(s) + 1;
	if (ps->arena_len + n > ps->arena_cap) {
		size_t ncap = ps->arena_cap ? ps->arena_cap : 4096;
		while (ps->arena_len + n > ncap)
			ncap *= 2;
		char *a = realloc(ps->arena, ncap);
		if (!a)
			return SIZE_MAX - 1;
		ps->arena = a;
		ps->arena_cap = ncap;
	}
	memcpy(ps->arena + ps->arena_len, s, n);
	ps->arena_len += n;
	return ps->arena_len - n;
}

static const char *arena_get(struct ps *ps, size_t off)
{
	return off == SIZE_MAX ? NULL : ps->arena + off;
}

static int add_frame(struct ps *ps, const struct mtj_frame *fr)
{
	if (ps->nframes == ps->frames_cap) {
		size_t ncap = ps->frames_cap ? ps->frames_cap * 2 : 64;
		struct mtj_frame *f = realloc(ps->frames, ncap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		ps->frames = f;
		size_t *o = realloc(ps->frame_offs, ncap * 2 * sizeof(*o));
		if (!o)
			return -ENOMEM;
		ps->frame_offs = o;
		ps->frames_cap = ncap;
	}
	size_t so = arena_put(ps, fr->sym), dso = arena_put(ps, fr->dso);
	if (so == SIZE_MAX - 1 || dso == SIZE_MAX - 1)
		return -ENOMEM;
	ps->frames[ps->nframes] = *fr;
	ps->frame_offs[2 * ps->nframes] = so;
	ps->frame_offs[2 * ps->nframes + 1] = dso;
	ps->nframes++;
	return 0;
}

static int flush_sample(struct ps *ps)
{
	if (!ps->in_sample)
		return 0;
	ps->in_sample = false;
	if (ps->nframes == 0) {
		/* A header with neither an IP nor a call chain says nothing about the stack. */
		ps->st.skipped++;
		warnf(ps, ps->lineno, "sample of thread %u has no IP or call chain, skipped", ps->smp.tid);
		return 0;
	}
	for (size_t i = 0; i < ps->nframes; i++) {
		ps->frames[i].sym = arena_get(ps, ps->frame_offs[2 * i]);
		ps->frames[i].dso = arena_get(ps, ps->frame_offs[2 * i + 1]);
	}
	ps->smp.comm = arena_get(ps, ps->comm_off);
	ps->smp.event = arena_get(ps, ps->event_off);
	ps->smp.nframes = (uint32_t)ps->nframes;
	ps->smp.frames = ps->frames;
	ps->st.samples++;
	return ps->cb->on_sample ? ps->cb->on_sample(ps->cb->ctx, &ps->smp) : 0;
}

/* Events perf's PT decoder prints besides branches; they carry no stack information. */
static bool is_side_event(const char *s, size_t n)
{
	static const char *const side[] = { "cbr", "psb", "pwre", "pwrx", "exstop", "mwait",
					    "ptwrite", "evt", "iflag", "cfe" };
	while (n && s[n - 1] == ':')
		n--;
	const char *colon = memchr(s, ':', n);   /* "cbr:u" */
	if (colon)
		n = (size_t)(colon - s);
	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++)
		if (strlen(side[i]) == n && !memcmp(side[i], s, n))
			return true;
	return false;
}

static int sample_header(struct ps *ps, struct header *h)
{
	/* rest: [period] [event:] [IP SYM (DSO)] */
	char *p = skip_sp(h->rest, h->end), *event = NULL, *event_e = NULL, *ip = NULL;
	char *q = p;
	while (q < h->end) {
		char *e = tok_end(q, h->end);
		if (e[-1] == ':') {
			event = q;
			event_e = e;
		} else if (!is_decimal_tok(q, (size_t)(e - q))) {
			break;
		}
		q = skip_sp(e, h->end);
	}
	if (event) {
		if (is_side_event(event, (size_t)(event_e - event)))
			return 0;
		ip = skip_sp(event_e, h->end);
	} else {
		/* no event column: "[period] IP SYM"; a lone number is the period */
		char *e = tok_end(p, h->end), *n2 = skip_sp(e, h->end);
		uint64_t hx;
		ip = p;
		if (n2 < h->end && is_decimal_tok(p, (size_t)(e - p)) &&
		    parse_hex(n2, (size_t)(tok_end(n2, h->end) - n2), &hx))
			ip = n2;
	}
	int rc = on_first_event(ps);
	if (rc == 0)
		rc = order_time(ps, h->tid, &h->time);
	if (rc)
		return rc;
	ps->in_sample = true;
	ps->nframes = 0;
	ps->arena_len = 0;
	memset(&ps->smp, 0, sizeof(ps->smp));
	ps->smp.pid = h->pid;
	ps->smp.tid = h->tid;
	ps->smp.time_ns = h->time;
	ps->comm_off = arena_put(ps, h->comm);
	if (event) {
		while (event_e > event && event_e[-1] == ':')
			event_e--;
		*event_e = '\0';
		ps->event_off = arena_put(ps, event);
	} else {
		ps->event_off = SIZE_MAX;
	}
	if (ps->comm_off == SIZE_MAX - 1 || ps->event_off == SIZE_MAX - 1)
		return -ENOMEM;
	if (ip && ip < h->end) {
		struct mtj_frame fr;
		if (parse_location(ip, h->end, &fr))
			return add_frame(ps, &fr);
		garbage(ps, ip, (size_t)(h->end - ip), "unparsable sample address");
	}
	return 0;
}

/* "\t    7f5c0c875c60 _dl_open+0x0 (/usr/lib64/ld-2.28.so)" */
static int frame_line(struct ps *ps, char *p, char *end)
{
	struct mtj_frame fr;
	if (!parse_location(p, end, &fr)) {
		garbage(ps, p, (size_t)(end - p), "unparsable call-chain line");
		return 0;
	}
	return add_frame(ps, &fr);
}

/* srcline output under a frame: "  file.c:123" */
static bool is_srcline(const char *p, const char *end)
{
	const char *colon = NULL;
	for (const char *q = p; q < end; q++)
		if (*q == ':')
			colon = q;
	if (!colon || colon + 1 == end)
		return false;
	for (const char *q = colon + 1; q < end; q++)
		if (!is_dig(*q))
			return false;
	return true;
}

/* ---- the line loop ---------------------------------------------------------------------------- */

static int one_line(struct ps *ps, char *line, size_t len)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	char *end = line + len;
	*end = '\0';

	if (memchr(line, '\0', len)) {
		if (ps->lineno == 1 && len >= 7 && !memcmp(line, "PERFILE", 7))
			return fail(ps, ps->lineno, "this is a perf.data file, not `perf script` text: "
				    "decode it without --from-perf-script");
		if (!ps->seen_event)
			return fail(ps, ps->lineno, "binary data: not `perf script` text");
		garbage(ps, line, len, "binary data");
		return 0;
	}
	if (len > PS_MAX_LINE) {
		garbage(ps, line, 60, "overlong line");
		return 0;
	}
	char *p = skip_sp(line, end);
	if (p == end)
		return flush_sample(ps);
	if (*p == '#')
		return 0;
	if (line[0] == '\t') {
		if (ps->in_sample)
			return frame_line(ps, line, end);
		garbage(ps, line, len, "call-chain line outside a sample");
		return 0;
	}
	if ((size_t)(end - p) > 23 && !memcmp(p, "instruction trace error", 23)) {
		int rc = flush_sample(ps);
		return rc ? rc : trace_error_line(ps, p + 23, end);
	}
	struct header h;
	if (parse_header(line, end, &h)) {
		int rc = flush_sample(ps);
		if (rc)
			return rc;
		char *arrow = find_arrow(h.rest, end);
		return arrow ? branch_line(ps, &h, arrow) : sample_header(ps, &h);
	}
	if (ps->in_sample && is_srcline(p, end))
		return 0;
	garbage(ps, line, len, ps->seen_event ? "not a perf script line" :
		"not `perf script` output");
	if (!ps->seen_event && ps->pre_garbage >= PS_SNIFF_LINES)
		return fail(ps, ps->pre_garbage_line, "not `perf script` output (no event in the "
			    "first %d lines): '%s'", PS_SNIFF_LINES, ps->pre_garbage_text);
	return 0;
}

int mtj_perfscript_parse(FILE *in, const char *name, const struct mtj_ps_callbacks *cb,
			 struct mtj_ps_stats *stats, struct mtj_ps_error *err)
{
	struct ps ps;
	memset(&ps, 0, sizeof(ps));
	ps.file = (!name || !strcmp(name, "-")) ? "<stdin>" : name;
	ps.cb = cb;
	ps.err = err;
	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while ((n = getline(&line, &cap, in)) >= 0) {
		ps.lineno++;
		ps.st.lines++;
		rc = one_line(&ps, line, (size_t)n);
		if (rc)
			break;
	}
	if (rc == 0 && ferror(in))
		rc = -EIO;
	if (rc == 0)
		rc = flush_sample(&ps);
	if (rc == 0 && !ps.seen_event) {
		if (ps.pre_garbage)
			rc = fail(&ps, ps.pre_garbage_line, "not `perf script` output: '%s'",
				  ps.pre_garbage_text);
		else
			rc = fail(&ps, 0, "no perf script events (empty input)");
	}
	free(line);
	free(ps.tt);
	free(ps.frames);
	free(ps.frame_offs);
	free(ps.arena);
	if (stats)
		*stats = ps.st;
	return rc;
}
