/*
 * decode/hits.c — hits.jsonl reader and the hit -> instant event mapping.
 */
#include "decode/hits.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/json.h"
#include "preload/config.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mtj_config_verr(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *type_name(enum mtj_json_type t)
{
	static const char *const names[] = { "null", "boolean", "number", "string", "array", "object" };

	return names[t];
}

/* An optional string member; -EINVAL if present with another type. */
static int get_str(const struct mtj_json *o, const char *key, char **out, char *err, size_t errlen)
{
	const struct mtj_json *v = mtj_json_get(o, key);

	if (!v || v->type == MTJ_JSON_NULL)
		return 0;
	if (v->type != MTJ_JSON_STR)
		return fail(err, errlen, "\"%s\" must be a string, not a %s", key, type_name(v->type));
	if (!(*out = strdup(v->s)))
		return -ENOMEM;
	return 0;
}

static int get_uint(const struct mtj_json *o, const char *key, bool required, uint64_t max,
		    uint64_t *out, char *err, size_t errlen)
{
	const struct mtj_json *v = mtj_json_get(o, key);

	if (!v)
		return required ? fail(err, errlen, "missing \"%s\"", key) : 0;
	if (v->type != MTJ_JSON_NUM || !v->is_int || v->neg || v->u > max)
		return fail(err, errlen, "\"%s\" must be an integer in 0..%llu", key,
			    (unsigned long long)max);
	*out = v->u;
	return 0;
}

/* Addresses are written as "0x..." strings; plain numbers are accepted too. */
static int addr_of(const struct mtj_json *v, uint64_t *out)
{
	if (v->type == MTJ_JSON_NUM && v->is_int && !v->neg) {
		*out = v->u;
		return 0;
	}
	if (v->type != MTJ_JSON_STR || v->len < 3 || v->s[0] != '0' || (v->s[1] != 'x' && v->s[1] != 'X'))
		return -EINVAL;
	uint64_t u = 0;

	for (size_t i = 2; i < v->len; i++) {
		char c = v->s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (i > 17)
			return -EINVAL;  /* more than 16 hex digits */
		u = u << 4 | d;
	}
	*out = u;
	return 0;
}

static int get_addr_array(const struct mtj_json *o, const char *key, size_t max, uint64_t **out,
			  size_t *n, char *err, size_t errlen)
{
	const struct mtj_json *v = mtj_json_get(o, key);

	if (!v || v->type == MTJ_JSON_NULL)
		return 0;
	if (v->type != MTJ_JSON_ARR)
		return fail(err, errlen, "\"%s\" must be an array, not a %s", key, type_name(v->type));
	if (v->len > max)
		return fail(err, errlen, "\"%s\" has %zu items, at most %zu expected", key, v->len, max);
	if (!v->len)
		return 0;
	if (!(*out = calloc(v->len, sizeof(**out))))
		return -ENOMEM;
	*n = v->len;
	for (size_t i = 0; i < v->len; i++)
		if (addr_of(&v->items[i], &(*out)[i]))
			return fail(err, errlen, "\"%s\"[%zu] must be an address like \"0x401136\"", key, i);
	return 0;
}

static int parse_obj(const struct mtj_json *o, struct mtj_hit *h, char *err, size_t errlen)
{
	const struct mtj_json *v;
	uint64_t u;
	int rc;

	if (o->type != MTJ_JSON_OBJ)
		return fail(err, errlen, "a JSON object expected, got a %s", type_name(o->type));
	if ((rc = get_uint(o, "tid", true, UINT32_MAX, &u, err, errlen)))
		return rc;
	h->tid = (uint32_t)u;
	u = 0;
	if ((rc = get_uint(o, "pid", false, UINT32_MAX, &u, err, errlen)))
		return rc;
	h->pid = (uint32_t)u;
	if ((rc = get_uint(o, "time_ns", true, UINT64_MAX, &h->time_ns, err, errlen)) ||
	    (rc = get_uint(o, "coalesced", false, UINT64_MAX, &h->coalesced, err, errlen)))
		return rc;
	if ((rc = get_str(o, "trigger", &h->trigger, err, errlen)) ||
	    (rc = get_str(o, "reason", &h->reason, err, errlen)) ||
	    (rc = get_str(o, "thread", &h->thread, err, errlen)) ||
	    (rc = get_str(o, "object", &h->object, err, errlen)) ||
	    (rc = get_str(o, "symbol", &h->symbol, err, errlen)) ||
	    (rc = get_str(o, "why", &h->why, err, errlen)) ||
	    (rc = get_str(o, "snapshot_file", &h->snapshot_file, err, errlen)))
		return rc;
	if ((v = mtj_json_get(o, "ip")) && v->type != MTJ_JSON_NULL) {
		if (addr_of(v, &h->ip))
			return fail(err, errlen, "\"ip\" must be an address like \"0x401136\"");
		h->has_ip = true;
	}
	h->snapshot = -1;
	if ((v = mtj_json_get(o, "snapshot")) && v->type != MTJ_JSON_NULL) {
		if (v->type != MTJ_JSON_BOOL)
			return fail(err, errlen, "\"snapshot\" must be true or false, not a %s", type_name(v->type));
		h->snapshot = v->b;
	}
	uint64_t *args = NULL;
	size_t nargs = 0;

	rc = get_addr_array(o, "args", MTJ_HIT_NARGS, &args, &nargs, err, errlen);
	if (nargs)
		memcpy(h->args, args, nargs * sizeof(*args));
	h->nargs = (uint32_t)nargs;
	free(args);
	if (rc || (rc = get_addr_array(o, "backtrace", SIZE_MAX, &h->backtrace, &h->nbacktrace, err, errlen)))
		return rc;
	if ((v = mtj_json_get(o, "frames")) && v->type != MTJ_JSON_NULL) {
		if (v->type != MTJ_JSON_ARR)
			return fail(err, errlen, "\"frames\" must be an array of strings");
		if (v->len && !(h->frames = calloc(v->len, sizeof(*h->frames))))
			return -ENOMEM;
		for (size_t i = 0; i < v->len; i++) {
			if (v->items[i].type != MTJ_JSON_STR)
				return fail(err, errlen, "\"frames\"[%zu] must be a string", i);
			if (!(h->frames[i] = strdup(v->items[i].s)))
				return -ENOMEM;
			h->nframes = i + 1;
		}
	}
	return 0;
}

int mtj_hit_parse(const char *line, size_t len, struct mtj_hit *out, char *err, size_t errlen)
{
	struct mtj_json o;
	struct mtj_json_err jerr = { 0 };
	size_t used;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = mtj_json_parse(line, len, &used, &o, &jerr);
	if (rc == -EINVAL)
		return fail(err, errlen, "not valid JSON: %s at column %zu", jerr.msg, jerr.offset + 1);
	if (rc)
		return rc;
	while (used < len && (line[used] == ' ' || line[used] == '\t' || line[used] == '\r'))
		used++;
	if (used < len)
		rc = fail(err, errlen, "unexpected text after the JSON object at column %zu", used + 1);
	else
		rc = parse_obj(&o, out, err, errlen);
	mtj_json_free(&o);
	if (rc)
		mtj_hit_free(out);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return rc;
}

void mtj_hit_free(struct mtj_hit *h)
{
	if (!h)
		return;
	free(h->trigger);
	free(h->reason);
	free(h->thread);
	free(h->object);
	free(h->symbol);
	free(h->why);
	free(h->snapshot_file);
	free(h->backtrace);
	for (size_t i = 0; i < h->nframes; i++)
		free(h->frames[i]);
	free(h->frames);
	memset(h, 0, sizeof(*h));
	h->snapshot = -1;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct mtj_hit *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static void warnf(mtj_hits_warn_fn warn, void *ctx, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(ctx, msg);
}

long mtj_hits_load(const char *path, struct mtj_hits *hits, mtj_hits_warn_fn warn, void *ctx)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, err[256];
	size_t cap = 0, lineno = 0, before = hits->n;
	ssize_t len;
	long rc = 0;

	if (!f)
		return -errno;
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct mtj_hit h;
		bool complete = len > 0 && line[len - 1] == '\n';

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		size_t sp = 0;

		while (sp < (size_t)len && (line[sp] == ' ' || line[sp] == '\t'))
			sp++;
		if (sp == (size_t)len)
			continue;       /* blank lines are harmless */
		int prc = mtj_hit_parse(line, (size_t)len, &h, err, sizeof(err));

		if (prc == -ENOMEM) {
			rc = -ENOMEM;
			break;
		}
		if (prc) {
			hits->bad_lines++;
			warnf(warn, ctx, "%s:%zu: %s%s", path, lineno, err,
			      complete ? "" : " (last line has no newline: truncated file?)");
			continue;
		}
		h.line = lineno;
		if (hits->n == hits->cap) {
			size_t ncap = hits->cap ? hits->cap * 2 : 16;
			struct mtj_hit *v = realloc(hits->v, ncap * sizeof(*v));

			if (!v) {
				mtj_hit_free(&h);
				rc = -ENOMEM;
				break;
			}
			hits->v = v;
			hits->cap = ncap;
		}
		hits->v[hits->n++] = h;
	}
	if (ferror(f) && !rc)
		rc = -EIO;
	free(line);
	fclose(f);
	qsort(hits->v, hits->n, sizeof(*hits->v), hit_cmp);
	return rc ? rc : (long)(hits->n - before);
}

void mtj_hits_free(struct mtj_hits *hits)
{
	for (size_t i = 0; i < hits->n; i++)
		mtj_hit_free(&hits->v[i]);
	free(hits->v);
	memset(hits, 0, sizeof(*hits));
}

/* Backtrace as one string, innermost first, one frame per line. */
static char *backtrace_text(const struct mtj_hit *h)
{
	size_t n = h->nframes ? h->nframes : h->nbacktrace, len = 1;

	if (!n)
		return NULL;
	for (size_t i = 0; i < n; i++)
		len += (h->nframes ? strlen(h->frames[i]) : 18) + 1;
	char *s = malloc(len), *p = s;

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i)
			*p++ = '\n';
		if (h->nframes)
			p = stpcpy(p, h->frames[i]);
		else
			p += sprintf(p, "0x%llx", (unsigned long long)h->backtrace[i]);
	}
	*p = '\0';
	return s;
}

int mtj_hit_emit(struct mtj_writer *w, const struct mtj_hit *h, uint32_t pid)
{
	static const char *const argkey[MTJ_HIT_NARGS] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };
	struct mtj_arg a[16];
	size_t n = 0;
	const char *what = h->trigger ? h->trigger : h->reason ? h->reason : "?";
	char *name = malloc(strlen(what) + 6);
	char *bt = backtrace_text(h);
	int rc;

	if (!name || ((h->nframes || h->nbacktrace) && !bt)) {
		free(name);
		free(bt);
		return -ENOMEM;
	}
	stpcpy(stpcpy(name, "hit: "), what);
	if (h->trigger)
		a[n++] = (struct mtj_arg){ .key = "trigger", .type = MTJ_ARG_STR, .s = h->trigger };
	if (h->reason)
		a[n++] = (struct mtj_arg){ .key = "reason", .type = MTJ_ARG_STR, .s = h->reason };
	if (h->has_ip)
		a[n++] = (struct mtj_arg){ .key = "ip", .type = MTJ_ARG_HEX, .u = h->ip };
	for (uint32_t i = 0; i < h->nargs && i < MTJ_HIT_NARGS; i++)
		a[n++] = (struct mtj_arg){ .key = argkey[i], .type = MTJ_ARG_HEX, .u = h->args[i] };
	if (h->snapshot >= 0)
		a[n++] = (struct mtj_arg){ .key = "snapshot", .type = MTJ_ARG_STR,
					   .s = h->snapshot ? "true" : "false" };
	if (h->why)
		a[n++] = (struct mtj_arg){ .key = "why", .type = MTJ_ARG_STR, .s = h->why };
	if (h->object)
		a[n++] = (struct mtj_arg){ .key = "object", .type = MTJ_ARG_STR, .s = h->object };
	if (h->symbol)
		a[n++] = (struct mtj_arg){ .key = "symbol", .type = MTJ_ARG_STR, .s = h->symbol };
	if (bt)
		a[n++] = (struct mtj_arg){ .key = "backtrace", .type = MTJ_ARG_STR, .s = bt };
	/* FXT holds 15 args: the ones below are the first to go when everything is present */
	if (h->snapshot_file)
		a[n++] = (struct mtj_arg){ .key = "snapshot_file", .type = MTJ_ARG_STR, .s = h->snapshot_file };
	if (h->coalesced)
		a[n++] = (struct mtj_arg){ .key = "coalesced", .type = MTJ_ARG_U64, .u = h->coalesced };
	rc = mtj_writer_instant(w, h->pid ? h->pid : pid, h->tid, h->time_ns, name, a, n);
	free(name);
	free(bt);
	return rc;
}
