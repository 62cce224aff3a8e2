/*
 * decode/writer_json.c — Chrome Trace Event JSON, streamed: one event per line, nothing kept
 * but a staging buffer.  No printf on the hot path: numbers and timestamps are formatted by
 * hand and strings escaped straight into the buffer.
 */
#include "decode/json.h"
#include "decode/trace.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define JW_BUF (1u << 20)
#define JW_ESC_CHUNK 4096       /* bytes of input escaped at a time (<= 6x that of output) */

struct jw {
	char *buf;
	size_t len;
	bool first;
	int err;
};

static void jw_flush(struct mtj_writer *w, struct jw *j)
{
	if (j->len && fwrite(j->buf, 1, j->len, w->out) != j->len && !j->err)
		j->err = -EIO;
	w->bytes_hint += j->len;
	j->len = 0;
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

static inline char *fmt_u64(char *d, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*d++ = tmp[--n];
	return d;
}

static inline void jw_u64(struct mtj_writer *w, struct jw *j, uint64_t v)
{
	char *d = jw_room(w, j, 20);

	j->len += (size_t)(fmt_u64(d, v) - d);
}

/* ns -> µs with exactly three decimals, so the nanosecond survives the trip. */
static inline void jw_ts(struct mtj_writer *w, struct jw *j, uint64_t ns)
{
	char *d = jw_room(w, j, 24), *p = fmt_u64(d, ns / 1000);
	unsigned f = (unsigned)(ns % 1000);

	p[0] = '.';
	p[1] = (char)('0' + f / 100);
	p[2] = (char)('0' + f / 10 % 10);
	p[3] = (char)('0' + f % 10);
	j->len += (size_t)(p + 4 - d);
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

/* Start an event: separator, phase, pid, tid and (ts_ns != NULL) the time. */
static void jw_head(struct mtj_writer *w, struct jw *j, const char *ph, uint32_t pid,
		    const uint32_t *tid, const uint64_t *ts_ns)
{
	if (j->first) {
		JW_LIT(w, j, "\n{\"ph\":\"");
		j->first = false;
	} else
		JW_LIT(w, j, ",\n{\"ph\":\"");
	jw_raw(w, j, ph, strlen(ph));
	JW_LIT(w, j, "\",\"pid\":");
	jw_u64(w, j, pid);
	if (tid) {
		JW_LIT(w, j, ",\"tid\":");
		jw_u64(w, j, *tid);
	}
	if (ts_ns) {
		JW_LIT(w, j, ",\"ts\":");
		jw_ts(w, j, *ts_ns);
	}
}

static int json_open(struct mtj_writer *w)
{
	struct jw *j = calloc(1, sizeof(*j));

	if (!j || !(j->buf = malloc(JW_BUF))) {
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

	jw_head(w, j, "M", pid, tid, NULL);
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

	jw_head(w, j, "B", pid, &tid, &ts_ns);
	JW_LIT(w, j, ",\"name\":");
	jw_str(w, j, name);
	if (object) {
		JW_LIT(w, j, ",\"args\":{\"object\":");
		jw_str(w, j, object);
		JW_LIT(w, j, "}}");
	} else
		JW_LIT(w, j, "}");
	return j->err;
}

static int json_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns, const char *name)
{
	struct jw *j = w->priv;

	(void)name;     /* E closes the innermost B; a name would only cost bytes */
	jw_head(w, j, "E", pid, &tid, &ts_ns);
	JW_LIT(w, j, "}");
	return j->err;
}

static int json_instant(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
			const char *name, const struct mtj_arg *args, size_t nargs)
{
	struct jw *j = w->priv;

	jw_head(w, j, "i", pid, &tid, &ts_ns);
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
