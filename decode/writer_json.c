/*
 * decode/writer_json.c — Chrome Trace Event JSON, streamed: one event per line, nothing kept
 * but a staging buffer and small caches.  No printf on the hot path: numbers and timestamps
 * are formatted by hand and strings escaped straight into the buffer.
 *
 * Why the caches: a trace is mostly B/E events of a few threads, at timestamps shared by
 * several events (a sample's ends and begins happen at one instant), naming a few hundred
 * functions over and over.  Formatting pid/tid and the timestamp and escaping the same names
 * again was most of the writer's time, so recent threads' "pid/tid" texts, the last
 * timestamp's text and the escaped form of recently seen names are kept.
 */
#include "decode/json.h"
#include "decode/trace.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define JW_BUF (1u << 20)
#define JW_ESC_CHUNK 4096       /* bytes of input escaped at a time (<= 6x that of output) */
#define JW_NAMES     1024u      /* escaped-name cache entries (a power of two) */
#define JW_NAME_MAX  256u       /* longer names are escaped each time, not cached */

/*
 * A name escaped once.  Entries are found by the caller's pointer (producers pass the same
 * pointer for the same function) but a hit is only trusted when the string there still
 * equals our copy: strings are borrowed, so a pointer alone proves nothing; except the
 * writer's own copies (w->own_names), which do not change until the writer closes.
 */
struct jname {
	const char *key;        /* the caller's pointer: compared, never dereferenced */
	char *raw;              /* copy of the string, then its escaped form with quotes */
	uint32_t raw_len, esc_len;
	bool fixed;             /* key is a writer-owned copy */
};

/* The end of a B event, `,"name":N,"args":{"object":O}}`, per (name, object) pair of the
 * writer's own copies: a span is one lookup and one copy after its head. */
struct jtail {
	const char *name, *object;      /* compared, never dereferenced */
	char *text;
	uint32_t len;
};

#define JW_TAILS 1024u              /* a power of two */
#define JW_PTS   64u                /* threads' pid/tid texts kept (a power of two) */

struct jw {
	char *buf;
	size_t len;
	bool first;
	int err;
	/* `","pid":P,"tid":T,"ts":` of recent threads, by tid (samples of a few threads
	 * interleave) */
	struct jpt {
		uint32_t pid, tid, len;     /* len 0 = empty */
		char text[48];
	} pts[JW_PTS];
	/* the text of the last timestamp (µs with three decimals) */
	uint64_t ts_ns;
	uint32_t ts_len;        /* 0 = none yet */
	char ts[32];
	struct jname *names;    /* [JW_NAMES] */
	struct jtail *tails;    /* [JW_TAILS] */
	uint64_t flushes;       /* buffer flushes so far */
};

static void jw_flush(struct mtj_writer *w, struct jw *j)
{
	if (j->len && fwrite(j->buf, 1, j->len, w->out) != j->len && !j->err)
		j->err = -EIO;
	w->bytes_hint += j->len;
	j->len = 0;
	j->flushes++;
}

static inline char *jw_room(struct mtj_writer *w, struct jw *j, size_t n)
{
	if (JW_BUF - j->len < n)
		jw_flush(w, j);
	return j->buf + j->len;
}

static inline void jw_raw(struct mtj_writer *w, struct jw *j, const char *s, size_t n)
{
	memcpy(jw_room(w, j, n), s, n);
	j->len += n;
}

#define JW_LIT(w, j, lit) jw_raw((w), (j), (lit), sizeof(lit) - 1)

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v, two at a time (half the divisions of one at a time). */
static inline char *fmt_u64(char *d, uint64_t v)
{
	char tmp[20], *t = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		t -= 2;
		memcpy(t, digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, digits2 + 2 * v, 2);
	} else
		*--t = (char)('0' + v);
	n = (size_t)(tmp + sizeof(tmp) - t);
	memcpy(d, t, n);
	return d + n;
}

static inline void jw_u64(struct mtj_writer *w, struct jw *j, uint64_t v)
{
	char *d = jw_room(w, j, 20);

	j->len += (size_t)(fmt_u64(d, v) - d);
}

/* ns -> µs with exactly three decimals, so the nanosecond survives the trip.  Kept as the
 * last timestamp's text: consecutive events often share the time, and the next time mostly
 * shares all but the last four digits of the µs too (they change every 10 ms). */
static void jw_ts_text(struct jw *j, uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned f = (unsigned)(ns % 1000);
	char *p;

	if (j->ts_len && us >= 10000 && us / 10000 == j->ts_ns / 10000000) {
		unsigned lo = (unsigned)(us % 10000);

		p = j->ts + j->ts_len - 8;      /* the last four digits and ".fff" */
		memcpy(p, digits2 + 2 * (lo / 100), 2);
		memcpy(p + 2, digits2 + 2 * (lo % 100), 2);
		p += 4;
	} else {
		p = fmt_u64(j->ts, us);
	}
	p[0] = '.';
	p[1] = (char)('0' + f / 100);
	memcpy(p + 2, digits2 + 2 * (f % 100), 2);
	j->ts_len = (uint32_t)(p + 4 - j->ts);
	j->ts_ns = ns;
}

static void jw_str(struct mtj_writer *w, struct jw *j, const char *s)
{
	size_t len = strlen(s);

	jw_room(w, j, 1)[0] = '"';
	j->len++;
	while (len) {
		size_t n = len > JW_ESC_CHUNK ? JW_ESC_CHUNK : len;

		/* keep UTF-8 sequences whole so validation sees them entire */
		while (n < len && n > 1 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		char *d = jw_room(w, j, MTJ_JSON_ESCAPED_MAX(n));

		j->len += (size_t)(mtj_json_escape_into(d, s, n) - d);
		s += n;
		len -= n;
	}
	jw_room(w, j, 1)[0] = '"';
	j->len++;
}

static void jw_hex(struct mtj_writer *w, struct jw *j, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	char *d = jw_room(w, j, 20);
	int n = 1;

	while (n < 16 && (v >> (4 * n)))
		n++;
	*d++ = '"';
	*d++ = '0';
	*d++ = 'x';
	for (int i = n - 1; i >= 0; i--)
		*d++ = hx[(v >> (4 * i)) & 15];
	*d = '"';
	j->len += (size_t)n + 4;
}

/* A name as a JSON string, from the cache when the same string was seen before. */
static void jw_name(struct mtj_writer *w, struct jw *j, const char *s)
{
	uintptr_t k = (uintptr_t)s;
	struct jname *e = &j->names[(k >> 3 ^ k >> 13) & (JW_NAMES - 1)];
	size_t len;
	char *d;

	if (e->key == s && (e->fixed || strcmp(e->raw, s) == 0)) {
		jw_raw(w, j, e->raw + e->raw_len + 1, e->esc_len);
		return;
	}
	len = strlen(s);
	if (len > JW_NAME_MAX) {
		jw_str(w, j, s);
		return;
	}
	/* escape into the output, then keep a copy of what was written */
	d = jw_room(w, j, MTJ_JSON_ESCAPED_MAX(len) + 2);
	d[0] = '"';
	d = mtj_json_escape_into(d + 1, s, len);
	*d++ = '"';
	{
		size_t esc = (size_t)(d - (j->buf + j->len));
		char *raw = realloc(e->raw, len + 1 + esc);

		if (raw) {
			memcpy(raw, s, len + 1);
			memcpy(raw + len + 1, j->buf + j->len, esc);
			*e = (struct jname){ .key = s, .raw = raw, .raw_len = (uint32_t)len,
					     .esc_len = (uint32_t)esc, .fixed = w->own_names };
		}
		/* without memory the name is just not cached */
		j->len += esc;
	}
}

/* The separator before an event and its phase: `,\n{"ph":"X` (no comma for the first). */
static inline char *jw_sep_ph(struct jw *j, char *p, char ph)
{
	if (j->first) {
		memcpy(p, "\n{\"ph\":\"", 8);
		p += 8;
		j->first = false;
	} else {
		memcpy(p, ",\n{\"ph\":\"", 9);
		p += 9;
	}
	*p++ = ph;
	return p;
}

static void jw_pt_fill(struct jpt *e, uint32_t pid, uint32_t tid)
{
	char *t = e->text;

	memcpy(t, "\",\"pid\":", 8);
	t = fmt_u64(t + 8, pid);
	memcpy(t, ",\"tid\":", 7);
	t = fmt_u64(t + 7, tid);
	memcpy(t, ",\"ts\":", 6);
	e->len = (uint32_t)(t + 6 - e->text);
	e->pid = pid;
	e->tid = tid;
}

/* Start a timed event of a thread: separator, phase, pid, tid and the time, from the
 * thread's cached text and the last time's text (fixed-size copies the compiler inlines). */
static inline __attribute__((always_inline)) void
jw_head(struct mtj_writer *w, struct jw *j, char ph, uint32_t pid, uint32_t tid, uint64_t ts_ns)
{
	struct jpt *e = &j->pts[tid & (JW_PTS - 1)];
	char *d = jw_room(w, j, 12 + sizeof(e->text) + sizeof(j->ts)), *p;

	p = jw_sep_ph(j, d, ph);
	if (!e->len || e->pid != pid || e->tid != tid)
		jw_pt_fill(e, pid, tid);
	memcpy(p, e->text, sizeof(e->text));
	p += e->len;
	if (!j->ts_len || ts_ns != j->ts_ns)
		jw_ts_text(j, ts_ns);
	memcpy(p, j->ts, sizeof(j->ts));
	j->len += (size_t)(p - d) + j->ts_len;
}

/* Start a metadata event: separator, phase, pid and (tid != NULL) tid; no time. */
static void jw_head_meta(struct mtj_writer *w, struct jw *j, char ph, uint32_t pid, const uint32_t *tid)
{
	char *d = jw_room(w, j, 12);

	j->len += (size_t)(jw_sep_ph(j, d, ph) - d);
	JW_LIT(w, j, "\",\"pid\":");
	jw_u64(w, j, pid);
	if (tid) {
		JW_LIT(w, j, ",\"tid\":");
		jw_u64(w, j, *tid);
	}
}

static int json_open(struct mtj_writer *w)
{
	struct jw *j = calloc(1, sizeof(*j));

	if (!j || !(j->buf = malloc(JW_BUF)) || !(j->names = calloc(JW_NAMES, sizeof(*j->names))) ||
	    !(j->tails = calloc(JW_TAILS, sizeof(*j->tails)))) {
		if (j) {
			free(j->buf);
			free(j->names);
		}
		free(j);
		return -ENOMEM;
	}
	j->first = true;
	w->priv = j;
	JW_LIT(w, j, "{\"traceEvents\":[");
	return 0;
}

static int json_meta(struct mtj_writer *w, uint32_t pid, const uint32_t *tid, const char *what,
		     const char *name)
{
	struct jw *j = w->priv;

	jw_head_meta(w, j, 'M', pid, tid);
	JW_LIT(w, j, ",\"name\":\"");
	jw_raw(w, j, what, strlen(what));
	JW_LIT(w, j, "\",\"args\":{\"name\":");
	jw_str(w, j, name);
	JW_LIT(w, j, "}}");
	return j->err;
}

static int json_process_name(struct mtj_writer *w, uint32_t pid, const char *name)
{
	return json_meta(w, pid, NULL, "process_name", name);
}

static int json_thread_name(struct mtj_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	return json_meta(w, pid, &tid, "thread_name", name);
}

static int json_begin(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
		      const char *name, const char *object)
{
	struct jw *j = w->priv;
	uintptr_t k = (uintptr_t)name ^ (uintptr_t)object * 31;
	struct jtail *t = &j->tails[(k >> 3 ^ k >> 13) & (JW_TAILS - 1)];
	size_t start;
	uint64_t flushes;

	jw_head(w, j, 'B', pid, tid, ts_ns);
	if (w->own_names && t->text && t->name == name && t->object == object) {
		jw_raw(w, j, t->text, t->len);
		return j->err;
	}
	start = j->len;
	flushes = j->flushes;
	JW_LIT(w, j, ",\"name\":");
	jw_name(w, j, name);
	if (object) {
		JW_LIT(w, j, ",\"args\":{\"object\":");
		jw_name(w, j, object);
		JW_LIT(w, j, "}}");
	} else
		JW_LIT(w, j, "}");
	/* keep what was just written (when no flush came in between: it is all in buf) */
	if (w->own_names && j->flushes == flushes && j->len > start) {
		size_t len = j->len - start;
		char *text = realloc(t->text, len);

		if (text) {
			memcpy(text, j->buf + start, len);
			*t = (struct jtail){ .name = name, .object = object, .text = text,
					     .len = (uint32_t)len };
		}
	}
	return j->err;
}

static int json_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns, const char *name)
{
	struct jw *j = w->priv;

	(void)name;     /* E closes the innermost B; a name would only cost bytes */
	jw_head(w, j, 'E', pid, tid, ts_ns);
	JW_LIT(w, j, "}");
	return j->err;
}

static int json_instant(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
			const char *name, const struct mtj_arg *args, size_t nargs)
{
	struct jw *j = w->priv;

	jw_head(w, j, 'i', pid, tid, ts_ns);
	JW_LIT(w, j, ",\"s\":\"t\",\"name\":");
	jw_str(w, j, name);
	if (nargs) {
		JW_LIT(w, j, ",\"args\":{");
		for (size_t i = 0; i < nargs; i++) {
			if (i)
				JW_LIT(w, j, ",");
			jw_str(w, j, args[i].key ? args[i].key : "");
			JW_LIT(w, j, ":");
			switch (args[i].type) {
			case MTJ_ARG_STR:
				if (args[i].s)
					jw_str(w, j, args[i].s);
				else
					JW_LIT(w, j, "null");
				break;
			case MTJ_ARG_U64:
				jw_u64(w, j, args[i].u);
				break;
			case MTJ_ARG_I64:
				if (args[i].i < 0) {
					JW_LIT(w, j, "-");
					jw_u64(w, j, -(uint64_t)args[i].i);
				} else
					jw_u64(w, j, (uint64_t)args[i].i);
				break;
			case MTJ_ARG_HEX:
				jw_hex(w, j, args[i].u);
				break;
			}
		}
		JW_LIT(w, j, "}");
	}
	JW_LIT(w, j, "}");
	return j->err;
}

static int json_close(struct mtj_writer *w)
{
	struct jw *j = w->priv;
	int rc;

	JW_LIT(w, j, "\n]}\n");
	jw_flush(w, j);
	rc = j->err;
	if (!rc && fflush(w->out))
		rc = -EIO;
	for (uint32_t i = 0; i < JW_NAMES; i++)
		free(j->names[i].raw);
	for (uint32_t i = 0; i < JW_TAILS; i++)
		free(j->tails[i].text);
	free(j->names);
	free(j->tails);
	free(j->buf);
	free(j);
	w->priv = NULL;
	return rc;
}

const struct mtj_writer_ops mtj_writer_json_ops = {
	.name = "json",
	.ext = ".json",
	.open = json_open,
	.process_name = json_process_name,
	.thread_name = json_thread_name,
	.begin = json_begin,
	.end = json_end,
	.instant = json_instant,
	.close = json_close,
};
