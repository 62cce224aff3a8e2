/*
 * golden-run — run one golden scenario: perf script text in, the events that reach the
 * writer out, one per line (compared with the scenario's .expected file by
 * tests/integration/320-golden-perfscript.sh; see tests/golden/README.md).
 *
 *   golden-run FILE.perfscript
 *
 * Options come from comment lines at the top of the scenario:
 *   # filter: START,STOP        run through decode/filter.c
 *   # max-buffered: N           ptstack's per-thread buffer limit
 * Output lines:
 *   T pid=P tid=T name=N         thread name          P pid=P name=N   process name
 *   B tid=T ts=NS name=N [obj=O] begin                E tid=T ts=NS name=N   end
 *   I tid=T ts=NS name=N [k=v]   instant              S tid=T ts=NS stack=outer;...;inner
 *   W FILE:LINE: msg             parser warning       X FILE:LINE: msg  parser error
 *   stats k=v ...                non-zero counters of the parser and ptstack
 * Exit: 0 when the run ended as the output says, 2 when the writer rejected an event (a
 * reconstruction bug: the nesting/time contract of decode/trace.h was broken).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/filter.h"
#include "decode/perfscript.h"
#include "decode/ptstack.h"
#include "decode/trace.h"

struct text {
	FILE *out;
	struct mtj_writer inner;   /* a real back end underneath, so the checker has a writer */
};

static int t_open(struct mtj_writer *w) { (void)w; return 0; }

static int t_process_name(struct mtj_writer *w, uint32_t pid, const char *name)
{
	struct text *t = w->priv;
	fprintf(t->out, "P pid=%u name=%s\n", pid, name);
	return 0;
}

static int t_thread_name(struct mtj_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	struct text *t = w->priv;
	fprintf(t->out, "T pid=%u tid=%u name=%s\n", pid, tid, name);
	return 0;
}

static int t_begin(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		   const char *name, const char *object)
{
	struct text *t = w->priv;
	(void)pid;
	fprintf(t->out, "B tid=%u ts=%llu name=%s", tid, (unsigned long long)ts, name);
	if (object)
		fprintf(t->out, " obj=%s", object);
	fputc('\n', t->out);
	return 0;
}

static int t_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts, const char *name)
{
	struct text *t = w->priv;
	(void)pid;
	fprintf(t->out, "E tid=%u ts=%llu name=%s\n", tid, (unsigned long long)ts, name);
	return 0;
}

static int t_instant(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts,
		     const char *name, const struct mtj_arg *args, size_t nargs)
{
	struct text *t = w->priv;
	(void)pid;
	fprintf(t->out, "I tid=%u ts=%llu name=%s", tid, (unsigned long long)ts, name);
	for (size_t i = 0; i < nargs; i++) {
		if (args[i].type == MTJ_ARG_STR)
			fprintf(t->out, " %s=%s", args[i].key, args[i].s);
		else
			fprintf(t->out, " %s=%llu", args[i].key, (unsigned long long)args[i].u);
	}
	fputc('\n', t->out);
	return 0;
}

static int t_close(struct mtj_writer *w)
{
	struct text *t = w->priv;
	w->priv = t->inner.priv;
	return t->inner.ops->close(&t->inner);
}

static const struct mtj_writer_ops text_ops = {
	"text", ".txt", t_open, t_process_name, t_thread_name, t_begin, t_end, t_instant, t_close,
};

struct run {
	struct mtj_ptstack *pt;
	struct mtj_filter *filter;
	struct mtj_writer *w;
	FILE *out;
	int writer_rc;
};

static int on_branch(void *ctx, const struct mtj_branch *b)
{
	struct run *r = ctx;
	if (r->filter)
		mtj_filter_observe_branch(r->filter, b);
	int rc = mtj_ptstack_add(r->pt, b);
	if (rc)
		r->writer_rc = rc;
	return rc;
}

static int on_sample(void *ctx, const struct mtj_sample *s)
{
	struct run *r = ctx;
	fprintf(r->out, "S tid=%u ts=%llu stack=", s->tid, (unsigned long long)s->time_ns);
	for (uint32_t i = s->nframes; i-- > 0;)
		fprintf(r->out, "%s%s", s->frames[i].sym ? s->frames[i].sym : "[unknown]",
			i ? ";" : "\n");
	return 0;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static void on_warn(void *ctx, const char *file, unsigned long line, const char *msg)
{
	struct run *r = ctx;
	fprintf(r->out, "W %s:%lu: %s\n", base(file), line, msg);
}

#define STAT(name, v) do { if (v) fprintf(out, " " name "=%llu", (unsigned long long)(v)); } while (0)

static void print_stats(FILE *out, const struct mtj_ps_stats *ps, const struct mtj_ptstack_stats *pt)
{
	fprintf(out, "stats");
	STAT("samples", ps->samples);
	STAT("branches", ps->branches);
	STAT("skipped", ps->skipped);
	STAT("reordered", ps->reordered);
	STAT("unknown_flags", ps->unknown_flags);
	STAT("trace_errors", ps->trace_errors);
	STAT("warnings", ps->warnings);
	STAT("calls", pt->calls);
	STAT("returns", pt->returns);
	STAT("tail_calls", pt->tail_calls);
	STAT("inferred", pt->inferred);
	STAT("nonlocal", pt->nonlocal);
	STAT("switched", pt->switched);
	STAT("resyncs", pt->resyncs);
	STAT("untraced", pt->untraced);
	STAT("syscalls", pt->syscalls);
	STAT("interrupts", pt->interrupts);
	STAT("ignored", pt->ignored);
	STAT("truncated_inferred", pt->truncated_inferred);
	fputc('\n', out);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: golden-run FILE.perfscript\n");
		return 1;
	}
	FILE *in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	char filter_spec[512] = "", line[512];
	struct mtj_ptstack_opts popts = { 0 };
	while (fgets(line, sizeof(line), in) && line[0] == '#') {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "# filter: ", 10))
			memcpy(filter_spec, line + 10, strlen(line + 10) + 1);
		else if (!strncmp(line, "# max-buffered: ", 16))
			popts.max_buffered = strtoul(line + 16, NULL, 10);
	}
	rewind(in);

	FILE *devnull = fopen("/dev/null", "w");
	struct mtj_writer w;
	struct text text = { .out = stdout };
	if (!devnull || mtj_writer_open(&w, MTJ_FORMAT_JSON, devnull)) {
		fprintf(stderr, "golden-run: cannot open a writer\n");
		return 1;
	}
	/* decode/trace.h opens writers by format only: put the text back end under the checker */
	text.inner = w;
	w.ops = &text_ops;
	w.priv = &text;

	struct run r = { .w = &w, .out = stdout };
	if (filter_spec[0]) {
		char *start, *stop, err[200];
		if (mtj_filter_parse_spec(filter_spec, &start, &stop, err, sizeof(err)) ||
		    mtj_filter_new(start, stop, &r.filter) || mtj_filter_attach(r.filter, &w)) {
			fprintf(stderr, "golden-run: bad filter '%s'\n", filter_spec);
			return 1;
		}
		free(start);
		free(stop);
	}
	if (mtj_ptstack_new(&w, &popts, &r.pt))
		return 1;
	struct mtj_ps_callbacks cb = { &r, on_sample, on_branch, on_warn };
	struct mtj_ps_stats ps;
	struct mtj_ps_error err;
	int rc = mtj_perfscript_parse(in, argv[1], &cb, &ps, &err);
	if (rc == -EINVAL && !r.writer_rc && err.line)
		printf("X %s:%lu: %s\n", base(argv[1]), err.line, err.msg);
	else if (rc == -EINVAL && !r.writer_rc)
		printf("X %s: %s\n", base(argv[1]), err.msg);
	if (rc == 0 && (rc = mtj_ptstack_finish(r.pt)) != 0)
		r.writer_rc = rc;
	struct mtj_ptstack_stats pst;
	mtj_ptstack_get_stats(r.pt, &pst);
	print_stats(stdout, &ps, &pst);
	if (r.filter) {
		struct mtj_filter_stats fst;
		mtj_filter_get_stats(r.filter, &fst);
		printf("filter regions=%llu\n", (unsigned long long)fst.regions);
	}
	int crc = mtj_writer_close(&w);
	mtj_ptstack_free(r.pt);
	mtj_filter_free(r.filter);
	fclose(devnull);
	fclose(in);
	if (r.writer_rc || crc) {
		printf("X writer rejected an event: %s\n", strerror(-(r.writer_rc ? r.writer_rc : crc)));
		return 2;
	}
	return 0;
}
