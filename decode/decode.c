/*
 * decode/decode.c — the `mtinject decode` driver (see decode/decode.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "control/perf.h"
#include "decode/decode.h"
#include "decode/decode_text.h"
#include "decode/dlstream.h"
#include "decode/filter.h"
#include "decode/hits.h"
#include "decode/outfile.h"
#include "decode/perfscript.h"
#include "decode/ptstack.h"
#include "decode/sampling.h"
#include "preload/config.h"

#define PIPE_SIZE      (1 << 20)
#define OUT_BUF_SIZE   (1 << 20)
#define PROGRESS_AFTER 1.0     /* seconds before a progress line appears */
#define PERF_ERR_LINES 3

struct snap {
	char *path;
	size_t input;              /* index in opts->inputs */
	bool in_dir;
	unsigned index;            /* 1-based position among its input's snapshots */
};

void mtj_decode_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mtj_config_verr(err, errlen, fmt, ap);
	va_end(ap);
}

static double now_s(void)
{
	return (double)mtj_perf_now_ns() / 1e9;
}

/* ---- inputs ------------------------------------------------------------------------------ */

/* perf --switch-output names its dumps perf.data.<YYYYmmddHHMMSSmmm>: digits only, fixed
 * width, so name order is time order.  Our own outputs (perf.data.X.json) do not match. */
static bool is_snapshot_name(const char *name)
{
	const char *p = name + strlen("perf.data.");

	if (strncmp(name, "perf.data.", strlen("perf.data.")) || !*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

int mtj_decode_list_snapshots(const char *input, char ***out, char *err, size_t errlen)
{
	struct stat st;
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	if (stat(input, &st) < 0) {
		mtj_decode_set_err(err, errlen, "%s: %s", input, strerror(errno));
		return MTJ_DECODE_ENOINPUT;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (access(input, R_OK) < 0) {
			mtj_decode_set_err(err, errlen, "%s: %s", input, strerror(errno));
			return MTJ_DECODE_ENOINPUT;
		}
		if (!(v = malloc(sizeof(*v))) || !(v[0] = strdup(input))) {
			free(v);
			mtj_decode_set_err(err, errlen, "out of memory");
			return MTJ_DECODE_EFAIL;
		}
		*out = v;
		return 1;
	}
	if (!(d = opendir(input))) {
		mtj_decode_set_err(err, errlen, "%s: %s", input, strerror(errno));
		return MTJ_DECODE_ENOINPUT;
	}
	while ((de = readdir(d))) {
		if (!is_snapshot_name(de->d_name))
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap = cap ? cap * 2 : 8) * sizeof(*v));

			if (!nv)
				goto nomem;
			v = nv;
		}
		if (!(v[n] = join(input, de->d_name)))
			goto nomem;
		n++;
	}
	closedir(d);
	if (n == 0) {
		/* A plain `perf record` output directory. */
		char *p = join(input, "perf.data");

		if (p && access(p, R_OK) == 0 && (v = malloc(sizeof(*v)))) {
			v[0] = p;
			*out = v;
			return 1;
		}
		free(p);
		mtj_decode_set_err(err, errlen, "%s: no snapshots in this directory (expected perf.data.<timestamp> files)",
			input);
		return MTJ_DECODE_ENOINPUT;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return (int)n;
nomem:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	mtj_decode_set_err(err, errlen, "out of memory");
	return MTJ_DECODE_EFAIL;
}

static void free_snaps(struct snap *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].path);
	free(s);
}

/* Every snapshot of every input, in order. */
static int collect(const struct mtj_decode_opts *o, struct snap **out, size_t *nout, char *err,
		   size_t errlen)
{
	struct snap *all = NULL;
	size_t n = 0;

	for (size_t i = 0; i < o->ninputs; i++) {
		char **v;
		struct stat st;
		int k = mtj_decode_list_snapshots(o->inputs[i], &v, err, errlen);
		struct snap *na;

		if (k < 0) {
			free_snaps(all, n);
			return k;
		}
		na = realloc(all, (n + (size_t)k) * sizeof(*all));
		if (!na) {
			for (int j = 0; j < k; j++)
				free(v[j]);
			free(v);
			free_snaps(all, n);
			mtj_decode_set_err(err, errlen, "out of memory");
			return MTJ_DECODE_EFAIL;
		}
		all = na;
		for (int j = 0; j < k; j++)
			all[n++] = (struct snap){ .path = v[j], .input = i, .index = (unsigned)j + 1,
						  .in_dir = stat(o->inputs[i], &st) == 0 && S_ISDIR(st.st_mode) };
		free(v);
	}
	*out = all;
	*nout = n;
	return 0;
}

/* ---- outputs ----------------------------------------------------------------------------- */

int mtj_decode_output_format(const struct mtj_decode_opts *o, enum mtj_format *fmt, char *err,
			     size_t errlen)
{
	if (o->format_set) {
		*fmt = o->format;
		return 0;
	}
	if (!o->output || !strcmp(o->output, "-")) {
		*fmt = MTJ_FORMAT_JSON;
		return 0;
	}
	if (mtj_format_from_path(o->output, fmt) < 0) {
		mtj_decode_set_err(err, errlen, "cannot tell the format from '%s' (known: .json, .fxt, .folded); "
			"use --format json|fxt|folded", o->output);
		return MTJ_DECODE_EUSAGE;
	}
	return 0;
}

/* OUT with "-N" before its extension: trace.json -> trace-2.json. */
static int numbered(char *dst, size_t len, const char *path, unsigned n)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	int w;

	if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
		w = snprintf(dst, len, "%s-%u", path, n);
	else
		w = snprintf(dst, len, "%.*s-%u%s", (int)(dot - path), path, n, dot);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

static int output_path(const struct mtj_decode_opts *o, const struct snap *s, size_t flat,
		       size_t nselected, unsigned in_input, enum mtj_format fmt, char *dst, size_t len)
{
	const char *ext = mtj_writer_ops_for(fmt)->ext;
	int w;

	if (o->output)
		return nselected == 1 ? (snprintf(dst, len, "%s", o->output) >= (int)len ? -ENAMETOOLONG : 0)
				      : numbered(dst, len, o->output, (unsigned)flat);
	if (s->in_dir) {
		if (in_input == 1)
			w = snprintf(dst, len, "%s/trace%s", o->inputs[s->input], ext);
		else
			w = snprintf(dst, len, "%s/trace-%u%s", o->inputs[s->input], s->index, ext);
	} else {
		w = snprintf(dst, len, "%s%s", s->path, ext);
	}
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

/* ---- progress ---------------------------------------------------------------------------- */

/*
 * The recording's first and last sample times (HEADER_SAMPLE_TIME, feature bit 21), for the
 * progress bar.  Feature sections follow the data, one {offset, size} per set bit in bit
 * order.  0 when the file does not say.
 */
static void header_time_range(const char *file, uint64_t *first, uint64_t *last)
{
	struct {
		char magic[8];
		uint64_t size, attr_size, attrs[2], data[2], types[2], features[4];
	} h;
	enum { SAMPLE_TIME = 21 };
	*first = *last = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.magic, "PERFILE2", 8) &&
	    (h.features[0] >> SAMPLE_TIME) & 1) {
		unsigned idx = 0;
		for (unsigned bit = 1; bit < SAMPLE_TIME; bit++)
			idx += (h.features[0] >> bit) & 1;
		uint64_t sec[2], t[2];
		if (pread(fd, sec, sizeof(sec), (off_t)(h.data[0] + h.data[1] + idx * sizeof(sec))) == (ssize_t)sizeof(sec) &&
		    sec[1] >= sizeof(t) && pread(fd, t, sizeof(t), (off_t)sec[0]) == (ssize_t)sizeof(t) && t[1] > t[0]) {
			*first = t[0];
			*last = t[1];
		}
	}
	close(fd);
}

struct run {
	const struct mtj_decode_opts *o;
	const char *file;
	uint64_t t_first, t_last, t_now;   /* sample times: where we are in the recording */
	struct mtj_sampling *sampling;
	struct mtj_dls_reader *reader;
	int ret;                   /* first error of the sampling/writer side */
	double start, last_draw;
	bool drawn;
};

static void progress(struct run *r, bool done)
{
	double t = now_s();

	if (!r->o->progress)
		return;
	if (done) {
		if (r->drawn)
			fputs("\r\033[K", stderr);
		return;
	}
	if (t - r->start < PROGRESS_AFTER || t - r->last_draw < 0.1)
		return;
	r->last_draw = t;
	r->drawn = true;
	if (r->t_last > r->t_first && r->t_now >= r->t_first) {
		double f = (double)(r->t_now - r->t_first) / (double)(r->t_last - r->t_first);
		int w = 30, fill = (int)(f > 1 ? w : f * w);
		fprintf(stderr, "\r\033[K[%.*s%*s] %3d%% decoding %s, %.1f s", fill,
			"##############################", w - fill, "", (int)(f > 1 ? 100 : f * 100), r->file,
			t - r->start);
	} else {
		fprintf(stderr, "\r\033[Kdecoding %s: %llu samples, %.1f MB of stream, %.1f s", r->file,
			(unsigned long long)mtj_dls_samples(r->reader), mtj_dls_bytes(r->reader) / 1e6,
			t - r->start);
	}
}

static int on_sample(void *arg, const struct mtj_sample *smp, uint64_t period_ns)
{
	struct run *r = arg;
	r->t_now = smp->time_ns;
	int ret = mtj_sampling_add(r->sampling, smp, period_ns);

	if (ret < 0)
		return r->ret = ret;
	if ((mtj_dls_samples(r->reader) & 4095) == 0)
		progress(r, false);
	return 0;
}

/* perf script text (DWARF and PT recordings): the same sampling state, or PT reconstruction. */
struct text_ctx {
	struct run *r;
	struct mtj_writer *w;
	struct mtj_ptstack *pt;
	const struct mtj_decode_opts *o;
	const char *file;
	unsigned long samples;
};

static int text_sample(void *ctx, const struct mtj_sample *smp)
{
	struct text_ctx *t = ctx;
	t->samples++;
	return on_sample(t->r, smp, 0);
}

static int text_branch(void *ctx, const struct mtj_branch *b)
{
	struct text_ctx *t = ctx;
	int rc;
	if (!t->pt && (rc = mtj_ptstack_new(t->w, NULL, &t->pt)) < 0)
		return t->r->ret = rc;
	if ((rc = mtj_ptstack_add(t->pt, b)) < 0)
		t->r->ret = rc;
	return rc;
}

static void text_warn(void *ctx, const char *file, unsigned long line, const char *msg)
{
	struct text_ctx *t = ctx;
	char wmsg[700];
	(void)file;
	if (!t->o->warn)
		return;
	snprintf(wmsg, sizeof(wmsg), "%s: perf script line %lu: %s", t->file, line, msg);
	t->o->warn(t->o->warn_arg, wmsg);
}

/* ---- perf -------------------------------------------------------------------------------- */

struct perf_child {
	pid_t pid;
	int rfd;
	FILE *err;                 /* perf's stderr */
};

/*
 * What a recording needs from `perf script`.  Frame-pointer/LBR call chains are in the
 * samples themselves and go through our dlfilter.  DWARF call graphs are unwound by perf
 * script itself and Intel PT is decoded by it (--itrace), and the dlfilter API sees neither
 * result, so those recordings are read as perf script text (decode/perfscript.c).
 */
enum rec_kind { REC_CALLCHAIN = 0, REC_DWARF, REC_PT };

/*
 * What a recording needs, from the perf.data header itself (no `perf evlist` run: that cost
 * ~9 ms of perf start-up before every decode).  Layout (tools/perf/util/header.h, stable since
 * 2011): magic "PERFILE2", header size, attr entry size, attrs {offset,size}, data {..},
 * event_types {..}, feature bitmap (256 bits).  Each attr entry is a perf_event_attr
 * followed by an ids section.  HEADER_AUXTRACE (feature bit 18) = AUX area data (Intel PT,
 * CoreSight, ...), which only perf can decode; PERF_SAMPLE_STACK_USER = DWARF call graphs.
 */
static enum rec_kind recording_kind_header(const char *file, bool *known)
{
	struct {
		char magic[8];
		uint64_t size, attr_size, attrs_off, attrs_size, data[2], types[2], features[4];
	} h;
	enum rec_kind k = REC_CALLCHAIN;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	*known = false;
	if (fd < 0)
		return k;
	if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h.magic, "PERFILE2", 8) &&
	    h.size >= sizeof(h) && h.attr_size >= 16 + 48 && h.attr_size <= 4096 &&
	    h.attrs_size / h.attr_size <= 4096) {
		*known = true;
		if (h.features[0] & (1ull << 18))
			k = REC_PT;
		for (uint64_t i = 0; k == REC_CALLCHAIN && i < h.attrs_size / h.attr_size; i++) {
			uint64_t sample_type;   /* perf_event_attr: type u32, size u32, config, period, sample_type */

			if (pread(fd, &sample_type, 8, (off_t)(h.attrs_off + i * h.attr_size + 24)) != 8) {
				*known = false;
				break;
			}
			if (sample_type & PERF_SAMPLE_STACK_USER)
				k = REC_DWARF;
		}
	}
	close(fd);
	return k;
}

static enum rec_kind recording_kind(const char *perf, const char *file)
{
	bool known;
	enum rec_kind hk = recording_kind_header(file, &known);
	if (known)
		return hk;
	/* A header we do not understand (a pipe-mode file, a future layout): ask perf. */
	char cmd[8192], line[1024];
	enum rec_kind k = REC_CALLCHAIN;
	/* `perf evlist -v` prints each event's attr; no shell quoting issues: single-quote the path. */
	if (strchr(file, '\''))
		return k;
	snprintf(cmd, sizeof(cmd), "'%s' evlist -f -v -i '%s' 2>/dev/null", perf, file);
	FILE *f = popen(cmd, "r");
	if (!f)
		return k;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "intel_pt"))
			k = REC_PT;
		else if (k == REC_CALLCHAIN && strstr(line, "STACK_USER"))
			k = REC_DWARF;
	}
	pclose(f);
	return k;
}

static int spawn_perf(const struct mtj_decode_opts *o, const char *file, enum rec_kind kind,
		      struct perf_child *c, char *err, size_t errlen)
{
	const char *perf = o->perf ? o->perf : "perf";
	char fdarg[16];
	int p[2], devnull;

	if (!(c->err = tmpfile())) {
		mtj_decode_set_err(err, errlen, "temporary file for perf's messages: %s", strerror(errno));
		return MTJ_DECODE_EFAIL;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		mtj_decode_set_err(err, errlen, "pipe: %s", strerror(errno));
		return MTJ_DECODE_EFAIL;
	}
	/* A bigger pipe lets perf run ahead while we write the trace. */
	(void)fcntl(p[0], F_SETPIPE_SZ, PIPE_SIZE);
	snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
	fflush(NULL);
	c->pid = fork();
	if (c->pid == 0) {
		/* -f: decoding another user's snapshot (as root, say) is what was asked for. */
		char *dl[] = { (char *)perf, "script", "-f", "-i", (char *)file, "--dlfilter",
			       (char *)o->dlfilter, "--dlarg", fdarg, NULL };
		char *dwarf[] = { (char *)perf, "script", "-f", "-i", (char *)file, "--ns",
				  "-F", "comm,pid,tid,time,event,ip,sym,symoff,dso", NULL };
		char *pt[] = { (char *)perf, "script", "-f", "-i", (char *)file, "--ns", "--itrace=bep",
			       "-F", "comm,pid,tid,time,flags,ip,addr,sym,symoff,dso", NULL };
		char **argv = kind == REC_PT ? pt : kind == REC_DWARF ? dwarf : dl;

		devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(kind == REC_CALLCHAIN ? devnull : p[1], STDOUT_FILENO);
		}
		dup2(fileno(c->err), STDERR_FILENO);
		fcntl(p[1], F_SETFD, 0);
		/* A preloaded environment must not make perf trace itself. */
		unsetenv("LD_PRELOAD");
		execvp(perf, argv);
		fprintf(stderr, "cannot run %s: %s\n", perf, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	if (c->pid < 0) {
		close(p[0]);
		mtj_decode_set_err(err, errlen, "fork: %s", strerror(errno));
		return MTJ_DECODE_EFAIL;
	}
	c->rfd = p[0];
	return 0;
}

/* perf's stderr in one line: its first few non-empty lines. */
static void perf_messages(FILE *f, char *dst, size_t len)
{
	char line[512];
	size_t used = 0;
	int lines = 0;

	dst[0] = 0;
	rewind(f);
	while (lines < PERF_ERR_LINES && fgets(line, sizeof(line), f)) {
		size_t l = strcspn(line, "\r\n");

		line[l] = 0;
		if (!l || strspn(line, " \t") == l)
			continue;
		used += (size_t)snprintf(dst + used, len - used, "%s%s", lines ? " / " : "", line);
		if (used >= len)
			break;
		lines++;
	}
}

static int wait_perf(struct perf_child *c)
{
	int status;

	while (waitpid(c->pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* ---- one snapshot ------------------------------------------------------------------------ */

static int emit_hit(void *ctx, struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns)
{
	(void)tid;
	(void)ts_ns;
	return mtj_hit_emit(w, ctx, pid);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int queue_hits(struct mtj_sampling *s, const struct mtj_hits *hits, const char *file)
{
	for (size_t i = 0; hits && i < hits->n; i++) {
		struct mtj_hit *h = &hits->v[i];
		int ret;

		/* A hit belongs to the snapshot it triggered; one without a file to every
		 * snapshot whose samples cover its time. */
		if (h->snapshot_file && strcmp(base_name(h->snapshot_file), base_name(file)))
			continue;
		ret = mtj_sampling_instant(s, h->pid, h->tid, h->time_ns, emit_hit, h, !h->snapshot_file);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int decode_one(const struct mtj_decode_opts *o, const char *file, const struct mtj_hits *hits,
		      struct mtj_decode_output *res, char *err, size_t errlen)
{
	struct mtj_sampling_opts so = { .interned = true };
	struct mtj_dls_ops ops = { .sample = on_sample };
	struct run r = { .o = o, .file = file, .start = now_s() };
	if (o->progress)
		header_time_range(file, &r.t_first, &r.t_last);
	struct perf_child c = { .pid = -1, .rfd = -1 };
	struct mtj_sampling_stats st;
	struct mtj_writer w;
	struct mtj_filter *filter = NULL;
	char msgs[600];
	int ret, rret, status;
	struct mtj_outfile out;
	struct stat sb;

	if (mtj_outfile_open(&out, res->path, OUT_BUF_SIZE) < 0) {
		mtj_decode_set_err(err, errlen, "%s: %s", res->path, strerror(errno));
		return MTJ_DECODE_EFAIL;
	}
	if ((ret = mtj_writer_open(&w, res->format, out.f)) < 0) {
		mtj_outfile_abort(&out);
		mtj_decode_set_err(err, errlen, "%s: cannot start the trace: %s", res->path, strerror(-ret));
		return MTJ_DECODE_EFAIL;
	}
	enum rec_kind kind = recording_kind(o->perf ? o->perf : "perf", file);
	/* Strings from the dlfilter stream live as long as the stream; text lines do not. */
	so.interned = kind == REC_CALLCHAIN;
	ret = o->filter_start ? mtj_filter_new(o->filter_start, o->filter_stop, &filter) : 0;
	if (ret == 0 && filter)
		ret = mtj_filter_attach(filter, &w);
	if (ret == 0)
		ret = mtj_dls_reader_new(&r.reader);
	if (ret == 0)
		ret = mtj_sampling_new(&w, &so, &r.sampling);
	if (ret == 0)
		ret = queue_hits(r.sampling, hits, file);
	if (ret < 0) {
		mtj_decode_set_err(err, errlen, "%s: %s", file, strerror(-ret));
		ret = MTJ_DECODE_EFAIL;
		goto out;
	}
	if ((ret = spawn_perf(o, file, kind, &c, err, errlen)) < 0)
		goto out;

	struct text_ctx tc = { .r = &r, .w = &w, .o = o, .file = file };
	if (kind == REC_CALLCHAIN) {
		rret = mtj_dls_read(r.reader, mtj_dls_fd_source, &c.rfd, &ops, &r);
	} else {
		FILE *in = fdopen(c.rfd, "r");
		struct mtj_ps_callbacks cb = { &tc, text_sample, text_branch, text_warn };
		struct mtj_ps_stats pst;
		struct mtj_ps_error perr;
		rret = in ? mtj_perfscript_parse(in, file, &cb, &pst, &perr) : -errno;
		/* Empty output (no samples at all) is an empty trace, not an error. */
		if (rret == -EINVAL && pst.lines == 0)
			rret = 0;
		if (rret == 0 && tc.pt)
			rret = mtj_ptstack_finish(tc.pt);
		if (rret < 0 && r.ret == 0)
			mtj_decode_set_err(err, errlen, "%s: perf script text, line %lu: %s", file, perr.line, perr.msg);
		if (in) {
			fclose(in);
			c.rfd = -1;
		}
	}
	if (rret < 0)
		kill(c.pid, SIGTERM);   /* it may be blocked writing to a pipe nobody reads */
	if (c.rfd >= 0)
		close(c.rfd);
	status = wait_perf(&c);
	progress(&r, true);
	perf_messages(c.err, msgs, sizeof(msgs));

	ret = MTJ_DECODE_EFAIL;
	if (r.ret < 0)
		mtj_decode_set_err(err, errlen, "%s: building the trace failed: %s", file, strerror(-r.ret));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		mtj_decode_set_err(err, errlen, "%s: %s", file, msgs[0] ? msgs : "cannot run perf");
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		mtj_decode_set_err(err, errlen, "%s: perf script failed (%s %d)%s%s", file,
			WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), msgs[0] ? ": " : "", msgs);
	else if (rret == -EPROTO && kind == REC_CALLCHAIN)
		mtj_decode_set_err(err, errlen, "%s: %s", file, mtj_dls_error(r.reader));
	else if (rret < 0 && kind != REC_CALLCHAIN)
		; /* the message was set above */
	else if (rret < 0)
		mtj_decode_set_err(err, errlen, "%s: reading perf's output: %s", file, strerror(-rret));
	else if ((ret = mtj_sampling_finish(r.sampling)) < 0)
		mtj_decode_set_err(err, errlen, "%s: building the trace failed: %s", file, strerror(-ret));
	else
		ret = 0;
	if (ret == 0 && msgs[0] && o->warn) {
		char wmsg[700];

		snprintf(wmsg, sizeof(wmsg), "%s: perf: %s", file, msgs);
		o->warn(o->warn_arg, wmsg);
	}
	if (ret == 0) {
		mtj_sampling_get_stats(r.sampling, &st);
		res->samples = st.samples;
		res->threads = st.threads;
		res->hits = st.instants;
	}
out:
	res->events = w.events;
	if (mtj_writer_close(&w) < 0 && ret == 0) {
		mtj_decode_set_err(err, errlen, "%s: finishing the trace failed", res->path);
		ret = MTJ_DECODE_EFAIL;
	}
	if (ret < 0)
		mtj_outfile_abort(&out);   /* the old trace of that name stays as it was */
	else if (mtj_outfile_commit(&out) < 0) {
		mtj_decode_set_err(err, errlen, "%s: %s", res->path, strerror(errno));
		ret = MTJ_DECODE_EFAIL;
	} else if (stat(res->path, &sb) == 0)
		res->bytes = (uint64_t)sb.st_size;
	res->seconds = now_s() - r.start;
	if (c.err)
		fclose(c.err);
	mtj_sampling_free(r.sampling);
	mtj_ptstack_free(tc.pt);
	mtj_filter_free(filter);
	mtj_dls_reader_free(r.reader);
	return ret;
}

/* ---- driver ------------------------------------------------------------------------------ */

static char *hits_path_of(const struct mtj_decode_opts *o, const struct snap *s)
{
	char *p;

	if (!s->in_dir)
		return NULL;
	p = join(o->inputs[s->input], "hits.jsonl");
	if (p && access(p, F_OK) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

int mtj_decode_run(const struct mtj_decode_opts *o,
		   void (*on_output)(void *arg, const struct mtj_decode_output *out), void *arg,
		   char *err, size_t errlen)
{
	struct snap *snaps = NULL;
	size_t n = 0, first = 0, last;
	enum mtj_format fmt;
	int ret;
	struct mtj_hits hits = { 0 };
	size_t hits_input = (size_t)-1;

	if (o->from_perf_script)
		return mtj_decode_text(o, on_output, arg, err, errlen);
	if (!o->ninputs) {
		mtj_decode_set_err(err, errlen, "no input given");
		return MTJ_DECODE_EUSAGE;
	}
	if (!o->dlfilter) {
		mtj_decode_set_err(err, errlen, "cannot find mtinject-dlfilter.so (it belongs next to the mtinject "
			"executable or in its package library directory)");
		return MTJ_DECODE_EFAIL;
	}
	if ((ret = mtj_decode_output_format(o, &fmt, err, errlen)) < 0)
		return ret;
	if ((ret = collect(o, &snaps, &n, err, errlen)) < 0)
		return ret;
	last = n;
	if (o->snapshot) {
		if (o->snapshot > n) {
			mtj_decode_set_err(err, errlen, "--snapshot %lu: there %s only %zu snapshot%s", o->snapshot,
				n == 1 ? "is" : "are", n, n == 1 ? "" : "s");
			free_snaps(snaps, n);
			return MTJ_DECODE_EUSAGE;
		}
		first = o->snapshot - 1;
		last = o->snapshot;
	}
	if (o->output && !strcmp(o->output, "-") && last - first > 1) {
		mtj_decode_set_err(err, errlen, "-o - (standard output) takes one trace, and there are %zu "
			"snapshots: choose one with --snapshot N", last - first);
		free_snaps(snaps, n);
		return MTJ_DECODE_EUSAGE;
	}
	for (size_t i = first; i < last && ret == 0; i++) {
		struct mtj_decode_output res = { .format = fmt };
		unsigned in_input = 0;
		char *hp;

		for (size_t j = first; j < last; j++)
			in_input += snaps[j].input == snaps[i].input;
		if (output_path(o, &snaps[i], i + 1, last - first, in_input, fmt, res.path,
				sizeof(res.path)) < 0) {
			mtj_decode_set_err(err, errlen, "output path too long");
			ret = MTJ_DECODE_EUSAGE;
			break;
		}
		snprintf(res.input, sizeof(res.input), "%s", snaps[i].path);
		if (snaps[i].input != hits_input) {
			mtj_hits_free(&hits);
			memset(&hits, 0, sizeof(hits));
			hits_input = snaps[i].input;
			if ((hp = hits_path_of(o, &snaps[i]))) {
				long k = mtj_hits_load(hp, &hits, o->warn, o->warn_arg);

				if (k < 0) {
					mtj_decode_set_err(err, errlen, "%s: %s", hp, strerror((int)-k));
					ret = MTJ_DECODE_EFAIL;
				}
				free(hp);
				if (ret < 0)
					break;
			}
		}
		ret = decode_one(o, snaps[i].path, &hits, &res, err, errlen);
		if (ret == 0 && on_output)
			on_output(arg, &res);
	}
	mtj_hits_free(&hits);
	free_snaps(snaps, n);
	return ret;
}
