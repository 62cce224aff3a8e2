/*
 * decode/decode_text.c — the --from-perf-script driver (see decode_text.h).
 */
#include "decode/decode_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "decode/filter.h"
#include "decode/outfile.h"
#include "decode/perfscript.h"
#include "decode/ptstack.h"
#include "decode/sampling.h"

struct text_run {
	const struct mtj_decode_opts *o;
	struct mtj_writer *w;
	struct mtj_ptstack *pt;
	struct mtj_sampling *sampling;
	struct mtj_filter *filter;
	int build_rc;            /* a reconstruction/writer failure (not the input's fault) */
};

static void warn(const struct mtj_decode_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(const struct mtj_decode_opts *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	if (!o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->warn(o->warn_arg, msg);
}

static void on_warn(void *ctx, const char *file, unsigned long line, const char *msg)
{
	struct text_run *r = ctx;
	warn(r->o, "%s:%lu: %s", file, line, msg);
}

static int on_branch(void *ctx, const struct mtj_branch *b)
{
	struct text_run *r = ctx;
	int rc;
	if (r->filter)
		mtj_filter_observe_branch(r->filter, b);
	if (!r->pt && (rc = mtj_ptstack_new(r->w, NULL, &r->pt)) < 0)
		return r->build_rc = rc;
	if ((rc = mtj_ptstack_add(r->pt, b)) < 0)
		r->build_rc = rc;
	return rc;
}

static int on_sample(void *ctx, const struct mtj_sample *s)
{
	struct text_run *r = ctx;
	struct mtj_sampling_opts so = { .interned = false };
	int rc;
	if (!r->sampling && (rc = mtj_sampling_new(r->w, &so, &r->sampling)) < 0)
		return r->build_rc = rc;
	if ((rc = mtj_sampling_add(r->sampling, s, 0)) < 0)
		r->build_rc = rc;
	return rc;
}

static int output_path(const struct mtj_decode_opts *o, enum mtj_format fmt, char *path, size_t len)
{
	const char *in = o->from_perf_script;
	const char *ext = mtj_writer_ops_for(fmt)->ext;
	int n = o->output ? snprintf(path, len, "%s", o->output)
	      : strcmp(in, "-") ? snprintf(path, len, "%s%s", in, ext)
	      : snprintf(path, len, "trace%s", ext);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int mtj_decode_text(const struct mtj_decode_opts *o,
		    void (*on_output)(void *arg, const struct mtj_decode_output *out), void *arg,
		    char *err, size_t errlen)
{
	struct mtj_decode_output res = { 0 };
	struct text_run r = { .o = o };
	struct mtj_writer w;
	struct timespec t0, t1;
	const char *name = o->from_perf_script;
	bool is_stdin = !strcmp(name, "-");
	int ret = MTJ_DECODE_OK, rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o->ninputs) {
		mtj_decode_set_err(err, errlen, "--from-perf-script takes no other INPUT");
		return MTJ_DECODE_EUSAGE;
	}
	if (mtj_decode_output_format(o, &res.format, err, errlen) < 0)
		return MTJ_DECODE_EUSAGE;
	if (output_path(o, res.format, res.path, sizeof(res.path)) < 0) {
		mtj_decode_set_err(err, errlen, "output path too long");
		return MTJ_DECODE_EUSAGE;
	}
	snprintf(res.input, sizeof(res.input), "%s", is_stdin ? "<stdin>" : name);
	FILE *in = is_stdin ? stdin : fopen(name, "r");
	if (!in) {
		mtj_decode_set_err(err, errlen, "%s: %s", name, strerror(errno));
		return MTJ_DECODE_ENOINPUT;
	}
	struct mtj_outfile out;
	if (mtj_outfile_open(&out, res.path, 1 << 20) < 0) {
		mtj_decode_set_err(err, errlen, "%s: %s", res.path, strerror(errno));
		if (!is_stdin)
			fclose(in);
		return MTJ_DECODE_EFAIL;
	}
	if ((rc = mtj_writer_open(&w, res.format, out.f)) < 0) {
		mtj_decode_set_err(err, errlen, "%s: cannot start the trace: %s", res.path, strerror(-rc));
		ret = MTJ_DECODE_EFAIL;
		goto out;
	}
	r.w = &w;
	if (o->filter_start && ((rc = mtj_filter_new(o->filter_start, o->filter_stop, &r.filter)) < 0 ||
				(rc = mtj_filter_attach(r.filter, &w)) < 0)) {
		mtj_decode_set_err(err, errlen, "--filter: %s", strerror(-rc));
		ret = MTJ_DECODE_EUSAGE;
		goto close;
	}

	struct mtj_ps_callbacks cb = { &r, on_sample, on_branch, on_warn };
	struct mtj_ps_stats st;
	struct mtj_ps_error perr;
	rc = mtj_perfscript_parse(in, name, &cb, &st, &perr);
	if (rc == 0 && r.pt)
		rc = r.build_rc = mtj_ptstack_finish(r.pt);
	if (rc == 0 && r.sampling)
		rc = r.build_rc = mtj_sampling_finish(r.sampling);
	if (r.build_rc < 0) {
		mtj_decode_set_err(err, errlen, "%s: building the trace failed: %s", res.input, strerror(-r.build_rc));
		ret = MTJ_DECODE_EFAIL;
	} else if (rc == -EINVAL) {
		if (perr.line)
			mtj_decode_set_err(err, errlen, "%s:%lu: %s", res.input, perr.line, perr.msg);
		else
			mtj_decode_set_err(err, errlen, "%s: %s", res.input, perr.msg);
		ret = MTJ_DECODE_EFAIL;
	} else if (rc < 0) {
		mtj_decode_set_err(err, errlen, "%s: %s", res.input, strerror(-rc));
		ret = MTJ_DECODE_EFAIL;
	}
	if (ret == 0 && st.warnings > MTJ_PS_MAX_WARN_REPORTS)
		warn(o, "%s: %lu warnings in all (%lu lines skipped, %lu reordered, %lu unknown branch "
		     "types, %lu trace errors)", res.input, st.warnings, st.skipped, st.reordered,
		     st.unknown_flags, st.trace_errors);
	if (ret == 0 && r.filter) {
		struct mtj_filter_stats fs;
		mtj_filter_get_stats(r.filter, &fs);
		if (fs.regions == 0)
			warn(o, "--filter %s,%s: %s is never called in %s: the trace is empty",
			     o->filter_start, o->filter_stop, o->filter_start, res.input);
	}
	res.samples = st.samples;
	if (r.pt) {
		struct mtj_ptstack_stats ps;
		mtj_ptstack_get_stats(r.pt, &ps);
		res.threads += ps.threads;
	}
	if (r.sampling) {
		struct mtj_sampling_stats ss;
		mtj_sampling_get_stats(r.sampling, &ss);
		res.threads += ss.threads;
	}
close:
	res.events = w.events;
	if (mtj_writer_close(&w) < 0 && ret == 0) {
		mtj_decode_set_err(err, errlen, "%s: finishing the trace failed", res.path);
		ret = MTJ_DECODE_EFAIL;
	}
	if (ret == 0)
		res.events = w.events;
out:
	if (ret < 0)
		mtj_outfile_abort(&out);   /* the old trace of that name stays as it was */
	else if (mtj_outfile_commit(&out) < 0) {
		mtj_decode_set_err(err, errlen, "%s: %s", res.path, strerror(errno));
		ret = MTJ_DECODE_EFAIL;
	}
	if (!is_stdin)
		fclose(in);
	mtj_ptstack_free(r.pt);
	mtj_sampling_free(r.sampling);
	mtj_filter_free(r.filter);
	if (ret < 0)
		return ret;
	struct stat sb;
	if (stat(res.path, &sb) == 0)
		res.bytes = (uint64_t)sb.st_size;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res.seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (on_output)
		on_output(arg, &res);
	return MTJ_DECODE_OK;
}
