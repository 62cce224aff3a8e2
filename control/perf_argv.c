/*
 * control/perf_argv.c — the exact `perf record` command line for each backend and option.
 * Pure (no I/O): what is decided here is pinned by golden unit tests, and the order of the
 * arguments is part of that contract.  perf.h lists what every option becomes.
 */
#include "control/perf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct argb {
	char **argv;
	size_t max, n;
	char *buf;
	size_t len, used;
	int err;
};

static void add(struct argb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct argb *b, const char *fmt, ...)
{
	if (b->err)
		return;
	if (b->n + 1 >= b->max) {
		b->err = -ENOSPC;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->buf + b->used, b->len - b->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->len - b->used) {
		b->err = -ENOSPC;
		return;
	}
	b->argv[b->n++] = b->buf + b->used;
	b->argv[b->n] = NULL;
	b->used += (size_t)n + 1;
}

/* perf -m wants a power-of-two number of pages. */
static unsigned long pow2_pages(uint64_t bytes)
{
	uint64_t page = 4096;
	uint64_t pages = (bytes + page - 1) / page;
	uint64_t p = 1;
	while (p < pages)
		p <<= 1;
	return (unsigned long)p;
}

/* The intel_pt event terms for MTINJECT_TIMER_RESOLUTION, as magic-trace maps them. */
static int pt_config(const char *res, char *out, size_t len)
{
	if (!res || !*res || strcasecmp(res, "normal") == 0)
		snprintf(out, len, "cyc=1,cyc_thresh=1,mtc_period=0");
	else if (strcasecmp(res, "low") == 0)
		snprintf(out, len, "%s", "");
	else if (strcasecmp(res, "high") == 0)
		snprintf(out, len, "cyc=1,cyc_thresh=1,mtc_period=0,noretcomp=1");
	else if (strncasecmp(res, "cyc=", 4) == 0) {
		char *end;
		long n = strtol(res + 4, &end, 10);
		/* cyc_thresh is a 4-bit field: a CYC packet after 2^(N-1) cycles. */
		if (end == res + 4 || *end || n < 0 || n > 15)
			return -EINVAL;
		snprintf(out, len, "cyc=1,cyc_thresh=%ld,mtc_period=0", n);
	} else
		return -EINVAL;
	return 0;
}

static bool control_by_fd(const struct mtj_record_opts *o)
{
	/* A zeroed struct must not mean fd:0,0. */
	return o->ctl_fd >= 0 && o->ack_fd >= 0 && o->ctl_fd != o->ack_fd;
}

int mtj_perf_record_argv(const struct mtj_perf_caps *caps, const struct mtj_record_opts *o,
			 char **argv, size_t max_argv, char *buf, size_t buflen)
{
	if (!o->output || !*o->output || o->pid <= 0 || o->backend == MTJ_BACKEND_AUTO || !caps->path[0])
		return -EINVAL;
	bool pt = o->backend == MTJ_BACKEND_PT;
	if (pt && !caps->intel_pt)
		return -EOPNOTSUPP;
	if (!pt && o->callgraph == MTJ_CALLGRAPH_LBR && !caps->hw_pmu)
		return -EOPNOTSUPP;
	bool fifo = o->ctl_fifo && o->ack_fifo;
	if ((fifo && !caps->control_fifo) || (!fifo && control_by_fd(o) && !caps->control_fd))
		return -EOPNOTSUPP;
	char ptcfg[128];
	if (pt && pt_config(o->timer_resolution, ptcfg, sizeof(ptcfg)) < 0)
		return -EINVAL;

	struct argb b = { .argv = argv, .max = max_argv, .buf = buf, .len = buflen };
	if (max_argv == 0)
		return -ENOSPC;
	argv[0] = NULL;
	uint64_t size = o->snapshot_size ? o->snapshot_size : mtj_perf_default_snapshot_size(caps);

	add(&b, "%s", caps->path);
	add(&b, "record");
	add(&b, "-o");
	add(&b, "%s", o->output);
	add(&b, "-p");
	add(&b, "%d", (int)o->pid);
	/* Hit times come from clock_gettime(CLOCK_MONOTONIC): samples on the same clock. */
	add(&b, "--clockid=CLOCK_MONOTONIC");
	if (pt) {
		add(&b, "-e");
		add(&b, "intel_pt/%s/u", ptcfg);
		add(&b, "--snapshot");
		if (o->multi)
			add(&b, "--switch-output=signal");
		add(&b, "-m,%lu", pow2_pages(size));
	} else {
		add(&b, "-e");
		add(&b, "%s", caps->hw_pmu ? "cycles:u" : "cpu-clock:u");
		add(&b, "-F");
		add(&b, "%u", o->sample_freq ? o->sample_freq : MTJ_SAMPLE_FREQ_DEFAULT);
		switch (o->callgraph) {
		case MTJ_CALLGRAPH_FP:
			add(&b, "--call-graph=fp");
			break;
		case MTJ_CALLGRAPH_DWARF:
			add(&b, "--call-graph=dwarf,%u", MTJ_DWARF_STACK_SIZE);
			break;
		case MTJ_CALLGRAPH_LBR:
			add(&b, "--call-graph=lbr");
			break;
		}
		/* A flight recorder: the ring is overwritten and only SIGUSR2 dumps it, single
		 * snapshot or multi alike (the control `snapshot` command writes nothing here). */
		add(&b, "--overwrite");
		add(&b, "--switch-output=signal");
		add(&b, "-m");
		add(&b, "%lu", pow2_pages(size));
	}
	/* BPF events exist since perf 5.1; their side-band thread costs ~1 s at exit. */
	if (!o->bpf_events && (caps->major > 5 || (caps->major == 5 && caps->minor >= 1)))
		add(&b, "--no-bpf-event");
	if (fifo)
		add(&b, "--control=fifo:%s,%s", o->ctl_fifo, o->ack_fifo);
	else if (control_by_fd(o))
		add(&b, "--control=fd:%d,%d", o->ctl_fd, o->ack_fd);
	return b.err ? b.err : (int)b.n;
}
