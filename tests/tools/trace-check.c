/*
 * tests/tools/trace-check — validate a Chrome Trace Event JSON file written by mtinject and
 * answer questions about it for shell tests.  The file is read one event at a time.
 *
 *   trace-check FILE                          validate; print a one-line summary
 *   trace-check FILE --threads                "tid name" per thread, sorted by tid
 *   trace-check FILE --count-spans NAME       number of spans (B or X) named NAME
 *   trace-check FILE --has-instant NAME       exit 0 if an instant NAME exists, else 1
 *   trace-check FILE --spans-before TS_NS NAME  spans NAME that begin before TS_NS (exit 1 if none)
 *   trace-check FILE --instant-args NAME      args of the first instant NAME, "key=value" lines
 *   trace-check FILE --dump                   "TS_NS PH PID TID NAME" per event
 * --tid T restricts the queries to one thread.  Validation (always done): well-formed JSON,
 * {"traceEvents":[...]}, per-thread B/E balanced and nested (an E with a name must match),
 * ts never decreasing per thread, thread_name metadata for every thread with events and
 * process_name for every process.  Exit 0 ok / 1 invalid or query false / 2 usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/json.h"
#include "tests/tools/slurp.h"

struct thr {
	uint64_t pid, tid;
	int64_t last_ts;
	bool events;
	char *name;
	char **stack;
	size_t depth, cap;
};

struct st {
	const char *path;
	const char *text;
	size_t len;
	struct thr *th;
	size_t nth;
	uint64_t *pids_named, *pids_used;
	size_t npn, npu;
	/* query */
	const char *query, *qname;
	bool has_tid;
	uint64_t qtid;
	int64_t qts;
	uint64_t count;
	bool printed_args;
	uint64_t nevents, nspans, ninstants, nmeta;
};

static size_t line_of(const struct st *s, size_t off)
{
	size_t line = 1;

	for (size_t i = 0; i < off && i < s->len; i++)
		line += s->text[i] == '\n';
	return line;
}

static int bad(const struct st *s, size_t off, const char *what, const char *detail)
{
	fprintf(stderr, "trace-check: %s:%zu: %s%s%s\n", s->path, line_of(s, off), what,
		detail ? ": " : "", detail ? detail : "");
	return 1;
}

static struct thr *thr_of(struct st *s, uint64_t pid, uint64_t tid)
{
	for (size_t i = 0; i < s->nth; i++)
		if (s->th[i].tid == tid)
			return &s->th[i];
	s->th = realloc(s->th, (s->nth + 1) * sizeof(*s->th));
	if (!s->th)
		abort();
	memset(&s->th[s->nth], 0, sizeof(s->th[0]));
	s->th[s->nth].pid = pid;
	s->th[s->nth].tid = tid;
	s->th[s->nth].last_ts = INT64_MIN;
	return &s->th[s->nth++];
}

static void add_pid(uint64_t **v, size_t *n, uint64_t pid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == pid)
			return;
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	if (!*v)
		abort();
	(*v)[(*n)++] = pid;
}

static bool get_uint(const struct mtj_json *ev, const char *key, uint64_t *out)
{
	const struct mtj_json *v = mtj_json_get(ev, key);

	if (!v || v->type != MTJ_JSON_NUM || !v->is_int || v->neg)
		return false;
	*out = v->u;
	return true;
}

static const char *get_str(const struct mtj_json *ev, const char *key)
{
	const struct mtj_json *v = mtj_json_get(ev, key);

	return v && v->type == MTJ_JSON_STR ? v->s : NULL;
}

static void print_value(const struct mtj_json *v)
{
	if (v->type == MTJ_JSON_STR) {
		for (const char *p = v->s; *p; p++)
			if (*p == '\n')
				fputs("\\n", stdout);
			else
				putchar(*p);
	} else if (v->type == MTJ_JSON_NUM)
		fputs(v->numtext, stdout);
	else if (v->type == MTJ_JSON_BOOL)
		fputs(v->b ? "true" : "false", stdout);
	else if (v->type == MTJ_JSON_NULL)
		fputs("null", stdout);
	else
		fputs("<composite>", stdout);
}

static int meta(struct st *s, size_t off, const struct mtj_json *ev, const char *name)
{
	const struct mtj_json *args = mtj_json_get(ev, "args");
	const char *val = get_str(args, "name");
	uint64_t pid, tid;

	s->nmeta++;
	if (strcmp(name, "process_name") != 0 && strcmp(name, "thread_name") != 0)
		return 0;
	if (!get_uint(ev, "pid", &pid))
		return bad(s, off, "metadata event without an integer pid", name);
	if (!val)
		return bad(s, off, "metadata event without args.name", name);
	if (name[0] == 'p') {
		add_pid(&s->pids_named, &s->npn, pid);
		return 0;
	}
	if (!get_uint(ev, "tid", &tid))
		return bad(s, off, "thread_name without an integer tid", NULL);
	struct thr *t = thr_of(s, pid, tid);

	free(t->name);
	t->name = strdup(val);
	return 0;
}

static int event(struct st *s, size_t off, const struct mtj_json *ev)
{
	const char *ph, *name;
	uint64_t pid, tid;
	int64_t ts;

	if (ev->type != MTJ_JSON_OBJ)
		return bad(s, off, "event is not an object", NULL);
	if (!(ph = get_str(ev, "ph")))
		return bad(s, off, "event without a \"ph\" string", NULL);
	name = get_str(ev, "name");
	if (strcmp(ph, "M") == 0)
		return name ? meta(s, off, ev, name) : bad(s, off, "metadata event without a name", NULL);
	if (!strchr("BEiIX", ph[0]) || ph[1])
		return bad(s, off, "unexpected phase", ph);
	if (!get_uint(ev, "pid", &pid) || !get_uint(ev, "tid", &tid))
		return bad(s, off, "event without integer pid and tid", ph);
	if (mtj_json_num_scaled(mtj_json_get(ev, "ts"), 3, &ts))
		return bad(s, off, "event without a ts in µs with at most 3 decimals", ph);
	if (ph[0] != 'E' && !name)
		return bad(s, off, "event without a name", ph);

	struct thr *t = thr_of(s, pid, tid);

	if (t->pid != pid)
		return bad(s, off, "thread appears under two pids", NULL);
	t->events = true;
	add_pid(&s->pids_used, &s->npu, pid);
	if (ts < t->last_ts) {
		char d[96];

		snprintf(d, sizeof(d), "tid %llu: %lld ns after %lld ns", (unsigned long long)tid,
			 (long long)ts, (long long)t->last_ts);
		return bad(s, off, "time goes backwards", d);
	}
	t->last_ts = ts;
	s->nevents++;

	bool tid_ok = !s->has_tid || s->qtid == tid;

	switch (ph[0]) {
	case 'B':
		if (t->depth == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 16;
			t->stack = realloc(t->stack, t->cap * sizeof(*t->stack));
			if (!t->stack)
				abort();
		}
		t->stack[t->depth++] = strdup(name);
		/* fall through */
	case 'X':
		s->nspans++;
		if (ph[0] == 'X') {
			const struct mtj_json *d = mtj_json_get(ev, "dur");

			if (!d || d->type != MTJ_JSON_NUM || d->d < 0)
				return bad(s, off, "X event without a non-negative dur", name);
		}
		if (s->qname && tid_ok && strcmp(name, s->qname) == 0) {
			if (strcmp(s->query, "--count-spans") == 0 ||
			    (strcmp(s->query, "--spans-before") == 0 && ts < s->qts))
				s->count++;
		}
		break;
	case 'E':
		if (!t->depth)
			return bad(s, off, "E without an open B", NULL);
		t->depth--;
		if (name && strcmp(name, t->stack[t->depth]) != 0) {
			free(t->stack[t->depth]);
			return bad(s, off, "E name does not match the open B", name);
		}
		free(t->stack[t->depth]);
		break;
	default: {
		const char *scope = get_str(ev, "s");

		if (scope && strcmp(scope, "t") && strcmp(scope, "p") && strcmp(scope, "g"))
			return bad(s, off, "bad instant scope", scope);
		s->ninstants++;
		if (s->qname && tid_ok && strcmp(name, s->qname) == 0) {
			s->count++;
			if (strcmp(s->query, "--instant-args") == 0 && !s->printed_args) {
				const struct mtj_json *a = mtj_json_get(ev, "args");

				s->printed_args = true;
				for (size_t i = 0; a && a->type == MTJ_JSON_OBJ && i < a->len; i++) {
					printf("%s=", a->keys[i]);
					print_value(&a->items[i]);
					putchar('\n');
				}
			}
		}
	}
	}
	if (s->query && strcmp(s->query, "--dump") == 0 && tid_ok)
		printf("%lld %s %llu %llu %s\n", (long long)ts, ph, (unsigned long long)pid,
		       (unsigned long long)tid, name ? name : "");
	return 0;
}

static void skip_ws(const struct st *s, size_t *p)
{
	while (*p < s->len && strchr(" \t\r\n", s->text[*p]) && s->text[*p])
		(*p)++;
}

static int parse_file(struct st *s)
{
	size_t p = 0, used;
	struct mtj_json v;
	struct mtj_json_err jerr;
	bool seen_events = false;

	skip_ws(s, &p);
	if (p >= s->len || s->text[p] != '{')
		return bad(s, p, "the trace does not start with '{'", NULL);
	p++;
	for (;;) {
		skip_ws(s, &p);
		if (p < s->len && s->text[p] == '}' ) {
			p++;
			break;
		}
		if (mtj_json_parse(s->text + p, s->len - p, &used, &v, &jerr) || v.type != MTJ_JSON_STR)
			return bad(s, p, "object key expected", NULL);
		bool is_events = strcmp(v.s, "traceEvents") == 0;

		mtj_json_free(&v);
		p += used;
		skip_ws(s, &p);
		if (p >= s->len || s->text[p] != ':')
			return bad(s, p, "':' expected", NULL);
		p++;
		skip_ws(s, &p);
		if (is_events) {
			seen_events = true;
			if (p >= s->len || s->text[p] != '[')
				return bad(s, p, "traceEvents is not an array", NULL);
			p++;
			skip_ws(s, &p);
			if (p < s->len && s->text[p] == ']')
				p++;
			else
				for (;;) {
					int rc;

					skip_ws(s, &p);
					if (mtj_json_parse(s->text + p, s->len - p, &used, &v, &jerr))
						return bad(s, p + jerr.offset, "malformed JSON", jerr.msg);
					rc = event(s, p, &v);
					mtj_json_free(&v);
					if (rc)
						return rc;
					p += used;
					skip_ws(s, &p);
					if (p < s->len && s->text[p] == ',') {
						p++;
						continue;
					}
					if (p < s->len && s->text[p] == ']') {
						p++;
						break;
					}
					return bad(s, p, "malformed JSON", "',' or ']' expected in traceEvents (truncated?)");
				}
		} else {
			if (mtj_json_parse(s->text + p, s->len - p, &used, &v, &jerr))
				return bad(s, p + jerr.offset, "malformed JSON", jerr.msg);
			mtj_json_free(&v);
			p += used;
		}
		skip_ws(s, &p);
		if (p < s->len && s->text[p] == ',') {
			p++;
			continue;
		}
		if (p < s->len && s->text[p] == '}') {
			p++;
			break;
		}
		return bad(s, p, "malformed JSON", "',' or '}' expected (truncated?)");
	}
	skip_ws(s, &p);
	if (p != s->len)
		return bad(s, p, "text after the end of the trace", NULL);
	if (!seen_events)
		return bad(s, p, "no traceEvents array", NULL);
	for (size_t i = 0; i < s->nth; i++) {
		struct thr *t = &s->th[i];
		char d[160];

		if (t->depth) {
			snprintf(d, sizeof(d), "tid %llu has %zu open B, innermost \"%.80s\"",
				 (unsigned long long)t->tid, t->depth, t->stack[t->depth - 1]);
			return bad(s, s->len, "unbalanced B/E", d);
		}
		if (t->events && !t->name) {
			snprintf(d, sizeof(d), "tid %llu has events but no thread_name", (unsigned long long)t->tid);
			return bad(s, s->len, "metadata missing", d);
		}
	}
	for (size_t i = 0; i < s->npu; i++) {
		bool named = false;

		for (size_t k = 0; k < s->npn; k++)
			named |= s->pids_named[k] == s->pids_used[i];
		if (!named) {
			char d[64];

			snprintf(d, sizeof(d), "pid %llu has no process_name", (unsigned long long)s->pids_used[i]);
			return bad(s, s->len, "metadata missing", d);
		}
	}
	return 0;
}

static int thr_cmp(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int usage(void)
{
	fprintf(stderr, "usage: trace-check FILE [--tid T] [--threads | --count-spans NAME | --has-instant NAME |\n"
			"       --spans-before TS_NS NAME | --instant-args NAME | --dump]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct st s = { 0 };
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--tid") == 0 && i + 1 < argc) {
			s.has_tid = true;
			s.qtid = strtoull(argv[++i], NULL, 10);
		} else if ((strcmp(a, "--count-spans") == 0 || strcmp(a, "--has-instant") == 0 ||
			    strcmp(a, "--instant-args") == 0) && i + 1 < argc && !s.query) {
			s.query = a;
			s.qname = argv[++i];
		} else if (strcmp(a, "--spans-before") == 0 && i + 2 < argc && !s.query) {
			s.query = a;
			s.qts = strtoll(argv[++i], NULL, 10);
			s.qname = argv[++i];
		} else if ((strcmp(a, "--threads") == 0 || strcmp(a, "--dump") == 0) && !s.query)
			s.query = a;
		else if (a[0] != '-' && !s.path)
			s.path = a;
		else
			return usage();
	}
	if (!s.path)
		return usage();
	char *text = slurp(s.path, &s.len);

	if (!text) {
		fprintf(stderr, "trace-check: %s: %s\n", s.path, strerror(errno));
		return 1;
	}
	s.text = text;
	rc = parse_file(&s);
	if (!rc && !s.query)
		printf("ok: %llu events (%llu spans, %llu instants), %zu threads, %llu metadata\n",
		       (unsigned long long)s.nevents, (unsigned long long)s.nspans,
		       (unsigned long long)s.ninstants, s.nth, (unsigned long long)s.nmeta);
	else if (!rc && strcmp(s.query, "--threads") == 0) {
		qsort(s.th, s.nth, sizeof(*s.th), thr_cmp);
		for (size_t i = 0; i < s.nth; i++)
			if (!s.has_tid || s.th[i].tid == s.qtid)
				printf("%llu %s\n", (unsigned long long)s.th[i].tid, s.th[i].name ? s.th[i].name : "");
	} else if (!rc && strcmp(s.query, "--count-spans") == 0)
		printf("%llu\n", (unsigned long long)s.count);
	else if (!rc && strcmp(s.query, "--spans-before") == 0) {
		printf("%llu\n", (unsigned long long)s.count);
		if (!s.count) {
			fprintf(stderr, "trace-check: %s: no span \"%s\" begins before %lld ns\n", s.path,
				s.qname, (long long)s.qts);
			rc = 1;
		}
	} else if (!rc && (strcmp(s.query, "--has-instant") == 0 || strcmp(s.query, "--instant-args") == 0) &&
		   !s.count) {
		fprintf(stderr, "trace-check: %s: no instant event \"%s\"%s\n", s.path, s.qname,
			s.has_tid ? " on that thread" : "");
		rc = 1;
	}
	for (size_t i = 0; i < s.nth; i++) {
		for (size_t k = 0; k < s.th[i].depth; k++)
			free(s.th[i].stack[k]);
		free(s.th[i].stack);
		free(s.th[i].name);
	}
	free(s.th);
	free(s.pids_named);
	free(s.pids_used);
	free(text);
	return rc;
}
