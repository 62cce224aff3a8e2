/* preload/hitlog.c — see hitlog.h.  Backtraces are symbolized here, outside signal context. */
#include "preload/hitlog.h"

#include "preload/log.h"
#include "preload/symbols.h"

#include <stdio.h>
#include <string.h>

size_t mtj_json_escape(char *buf, size_t off, size_t cap, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	for (; s && *s && off + 7 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			buf[off++] = '\\';
			buf[off++] = (char)c;
		} else if (c < 0x20) {
			buf[off++] = '\\';
			buf[off++] = 'u';
			buf[off++] = '0';
			buf[off++] = '0';
			buf[off++] = hex[c >> 4];
			buf[off++] = hex[c & 15];
		} else {
			buf[off++] = (char)c;
		}
	}
	return off;
}

static size_t put(char *buf, size_t off, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (off + n >= cap)
		n = off < cap ? cap - off - 1 : 0;
	memcpy(buf + off, s, n);
	return off + n;
}

static size_t put_str(char *buf, size_t off, size_t cap, const char *key, const char *val)
{
	off = put(buf, off, cap, ",\"");
	off = put(buf, off, cap, key);
	off = put(buf, off, cap, "\":\"");
	off = mtj_json_escape(buf, off, cap, val);
	return put(buf, off, cap, "\"");
}

static size_t put_num(char *buf, size_t off, size_t cap, const char *key, uint64_t v)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), ",\"%s\":%llu", key, (unsigned long long)v);
	return put(buf, off, cap, tmp);
}

static size_t put_hex_array(char *buf, size_t off, size_t cap, const char *key,
			    const uint64_t *v, unsigned n)
{
	char tmp[32];
	off = put(buf, off, cap, ",\"");
	off = put(buf, off, cap, key);
	off = put(buf, off, cap, "\":[");
	for (unsigned i = 0; i < n; i++) {
		snprintf(tmp, sizeof(tmp), "%s\"0x%llx\"", i ? "," : "", (unsigned long long)v[i]);
		off = put(buf, off, cap, tmp);
	}
	return put(buf, off, cap, "]");
}

static const char *kind_name(enum mtj_hit_kind k)
{
	switch (k) {
	case MTJ_HIT_TRIGGER: return "trigger";
	case MTJ_HIT_API: return "api";
	case MTJ_HIT_CRASH: return "crash";
	case MTJ_HIT_EXIT: return "exit";
	case MTJ_HIT_SIGNAL: return "signal";
	case MTJ_HIT_REQUEST: return "request";
	}
	return "?";
}

size_t mtj_hitlog_format(char *buf, size_t cap, pid_t pid, const struct mtj_hit *h,
			 const struct mtj_hit_outcome *o)
{
	char tmp[64];
	size_t off = put(buf, 0, cap, "{\"kind\":\"");
	off = put(buf, off, cap, kind_name(h->kind));
	off = put(buf, off, cap, "\"");
	if (o->trigger)
		off = put_str(buf, off, cap, "trigger", o->trigger);
	off = put_num(buf, off, cap, "pid", (uint64_t)pid);
	off = put_num(buf, off, cap, "tid", (uint64_t)h->tid);
	off = put_str(buf, off, cap, "thread", h->thread);
	off = put_num(buf, off, cap, "time_ns", h->time_ns);
	if (h->nth)
		off = put_num(buf, off, cap, "hit", h->nth);
	snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)h->ip);
	off = put_str(buf, off, cap, "ip", tmp);
	if (h->kind == MTJ_HIT_TRIGGER || h->kind == MTJ_HIT_CRASH || h->kind == MTJ_HIT_SIGNAL)
		off = put_hex_array(buf, off, cap, "args", h->args, 6);
	off = put_hex_array(buf, off, cap, "backtrace", h->bt, h->nbt);
	off = put(buf, off, cap, ",\"frames\":[");
	for (unsigned i = 0; i < h->nbt && !o->no_symbols; i++) {
		char sym[256], obj[512], frame[800];
		/* A return address points after the call: look up ra-1 so the caller is found. */
		if (mtj_symbolize_self(h->bt[i] - 1, sym, sizeof(sym), obj, sizeof(obj)) == 0) {
			const char *base = strrchr(obj, '/');
			snprintf(frame, sizeof(frame), "%s (%s)", sym, base ? base + 1 : obj);
		} else if (obj[0]) {
			/* No symbol covers it (a stripped library's internal function): say where. */
			const char *base = strrchr(obj, '/');
			snprintf(frame, sizeof(frame), "0x%llx (%s)", (unsigned long long)h->bt[i],
				 base ? base + 1 : obj);
		} else {
			snprintf(frame, sizeof(frame), "0x%llx", (unsigned long long)h->bt[i]);
		}
		off = put(buf, off, cap, i ? ",\"" : "\"");
		off = mtj_json_escape(buf, off, cap, frame);
		off = put(buf, off, cap, "\"");
	}
	off = put(buf, off, cap, "]");
	if (o->object && *o->object)
		off = put_str(buf, off, cap, "object", o->object);
	if (o->symbol && *o->symbol)
		off = put_str(buf, off, cap, "symbol", o->symbol);
	if (h->reason[0])
		off = put_str(buf, off, cap, "reason", h->reason);
	if (h->request[0])
		off = put_str(buf, off, cap, "request", h->request);
	off = put(buf, off, cap, o->snapshot ? ",\"snapshot\":true" : ",\"snapshot\":false");
	if (!o->snapshot && o->why && *o->why)
		off = put_str(buf, off, cap, "why", o->why);
	if (o->snapshot_file && *o->snapshot_file)
		off = put_str(buf, off, cap, "snapshot_file", o->snapshot_file);
	if (o->coalesced)
		off = put_num(buf, off, cap, "coalesced", o->coalesced);
	off = put(buf, off, cap, "}");
	if (off + 1 < cap)
		buf[off++] = '\n';
	return off;
}
