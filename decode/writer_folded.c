/*
 * decode/writer_folded.c — folded stacks ("root;caller;callee count") for flamegraph.pl,
 * inferno and speedscope.  The begin/end stream walks a tree of distinct stacks (one root
 * per thread); each node accumulates the time its exact stack was on top.  Memory is bounded
 * by the number of distinct stacks; the lines are written at close, sorted, with the time
 * in microseconds as the count.
 */
#include "decode/trace.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NO_PARENT UINT32_MAX
#define SHARED_ROOT UINT32_MAX  /* name of the one root all threads share without thread roots */

struct fnode {
	uint32_t parent;        /* NO_PARENT for a thread's root */
	uint32_t name;          /* interned frame name; for a root: index of its thread or SHARED_ROOT */
	uint64_t ns;            /* time this exact stack was the current one */
	uint64_t hits;          /* instants seen as this leaf */
};

struct fthread {
	uint32_t pid, tid;
	uint32_t root, cur, depth;
	uint64_t last_ts;
	int64_t name;           /* interned thread name, -1 until known */
};

struct fd {
	struct mtj_strtab *names;
	struct mtj_u64map children;     /* parent << 32 | name -> node */
	struct mtj_u64map by_tid;       /* tid -> thread */
	struct fnode *nodes;
	uint32_t nn, ncap;
	struct fthread *th;
	uint32_t nth, thcap;
	bool shared;            /* MTJ_WRITER_FOLDED_NO_THREAD_ROOT: node 0 is every thread's root */
};

static int node_new(struct fd *d, uint32_t parent, uint32_t name, uint32_t *out)
{
	if (d->nn == d->ncap) {
		uint32_t ncap = d->ncap ? d->ncap * 2 : 256;
		struct fnode *n = realloc(d->nodes, (size_t)ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->nodes = n;
		d->ncap = ncap;
	}
	d->nodes[d->nn] = (struct fnode){ .parent = parent, .name = name };
	*out = d->nn++;
	return 0;
}

/* fixed: name is a writer-owned copy (w->own_names), so interning can go by its pointer */
static int child_of(struct fd *d, uint32_t parent, const char *name, bool fixed, uint32_t *out)
{
	uint32_t id;
	uint64_t key;

	if ((fixed ? mtj_strtab_intern_fixed : mtj_strtab_intern)(d->names, name, &id))
		return -ENOMEM;
	key = (uint64_t)parent << 32 | id;
	if (mtj_u64map_get(&d->children, key, out))
		return 0;
	if (node_new(d, parent, id, out) || mtj_u64map_put(&d->children, key, *out))
		return -ENOMEM;
	return 0;
}

static struct fthread *thread_of(struct fd *d, uint32_t pid, uint32_t tid)
{
	uint32_t idx, root;

	if (mtj_u64map_get(&d->by_tid, tid, &idx))
		return &d->th[idx];
	if (d->nth == d->thcap) {
		uint32_t ncap = d->thcap ? d->thcap * 2 : 16;
		struct fthread *t = realloc(d->th, (size_t)ncap * sizeof(*t));

		if (!t)
			return NULL;
		d->th = t;
		d->thcap = ncap;
	}
	if (d->shared)
		root = 0;
	else if (node_new(d, NO_PARENT, d->nth, &root))
		return NULL;
	if (mtj_u64map_put(&d->by_tid, tid, d->nth))
		return NULL;
	d->th[d->nth] = (struct fthread){ .pid = pid, .tid = tid, .root = root, .cur = root, .name = -1 };
	return &d->th[d->nth++];
}

/* Charge the time since the thread's last event to its current stack. */
static struct fthread *advance(struct fd *d, uint32_t pid, uint32_t tid, uint64_t ts)
{
	struct fthread *t = thread_of(d, pid, tid);

	if (!t)
		return NULL;
	if (t->depth && ts > t->last_ts)
		d->nodes[t->cur].ns += ts - t->last_ts;
	t->last_ts = ts;
	return t;
}

static int folded_open(struct mtj_writer *w)
{
	struct fd *d = calloc(1, sizeof(*d));
	uint32_t root;

	if (!d || !(d->names = mtj_strtab_new())) {
		free(d);
		return -ENOMEM;
	}
	w->priv = d;
	/* Without thread roots, threads share one tree: equal stacks are one node, one line. */
	d->shared = w->flags & MTJ_WRITER_FOLDED_NO_THREAD_ROOT;
	if (d->shared && node_new(d, NO_PARENT, SHARED_ROOT, &root))
		return -ENOMEM;
	return 0;
}

static int folded_process_name(struct mtj_writer *w, uint32_t pid, const char *name)
{
	(void)w, (void)pid, (void)name;   /* stacks are per thread; the thread name is the root */
	return 0;
}

static int folded_thread_name(struct mtj_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	struct fd *d = w->priv;
	struct fthread *t = thread_of(d, pid, tid);
	uint32_t id;

	if (!t || mtj_strtab_intern(d->names, name, &id))
		return -ENOMEM;
	t->name = id;
	return 0;
}

static int folded_begin(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
			const char *name, const char *object)
{
	struct fd *d = w->priv;
	struct fthread *t = advance(d, pid, tid, ts_ns);
	uint32_t child;

	(void)object;
	if (!t || child_of(d, t->cur, name, w->own_names, &child))
		return -ENOMEM;
	t->cur = child;
	t->depth++;
	return 0;
}

static int folded_end(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns, const char *name)
{
	struct fd *d = w->priv;
	struct fthread *t = advance(d, pid, tid, ts_ns);

	(void)name;
	if (!t)
		return -ENOMEM;
	if (!t->depth)
		return -EINVAL;
	t->cur = d->nodes[t->cur].parent;
	t->depth--;
	return 0;
}

static int folded_instant(struct mtj_writer *w, uint32_t pid, uint32_t tid, uint64_t ts_ns,
			  const char *name, const struct mtj_arg *args, size_t nargs)
{
	struct fd *d = w->priv;
	struct fthread *t = advance(d, pid, tid, ts_ns);
	uint32_t leaf;

	(void)args, (void)nargs;
	if (!t || child_of(d, t->cur, name, false, &leaf))
		return -ENOMEM;
	d->nodes[leaf].hits++;
	return 0;
}

/* ---- output ---- */

struct line {
	char *path;
	uint64_t ns, hits;
};

static int line_cmp(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->path, ((const struct line *)b)->path);
}

/* Frame text with the two characters the format reserves replaced. */
static void put_frame(char *dst, size_t *pos, const char *s)
{
	for (; *s; s++)
		dst[(*pos)++] = *s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s;
}

static int build_path(struct fd *d, uint32_t node, char **out)
{
	size_t len = 0, pos = 0, depth = 0;
	char rootbuf[64];
	const char *rootname = NULL;
	uint32_t n, *chain;
	bool thread_root;

	for (n = node; d->nodes[n].parent != NO_PARENT; n = d->nodes[n].parent) {
		len += strlen(mtj_strtab_str(d->names, d->nodes[n].name)) + 1;
		depth++;
	}
	thread_root = d->nodes[n].name != SHARED_ROOT;
	if (thread_root) {
		const struct fthread *t = &d->th[d->nodes[n].name];

		if (t->name >= 0) {
			rootname = mtj_strtab_str(d->names, (uint32_t)t->name);
			snprintf(rootbuf, sizeof(rootbuf), "-%u", t->tid);
		} else
			snprintf(rootbuf, sizeof(rootbuf), "thread-%u", t->tid);
		len += (rootname ? strlen(rootname) : 0) + strlen(rootbuf) + 1;
	}
	char *p = malloc(len + 1);

	chain = malloc((depth ? depth : 1) * sizeof(*chain));
	if (!p || !chain) {
		free(p);
		free(chain);
		return -ENOMEM;
	}
	size_t k = depth;

	for (n = node; d->nodes[n].parent != NO_PARENT; n = d->nodes[n].parent)
		chain[--k] = n;
	if (thread_root) {
		if (rootname)
			put_frame(p, &pos, rootname);
		put_frame(p, &pos, rootbuf);
	}
	for (k = 0; k < depth; k++) {
		if (pos)
			p[pos++] = ';';
		put_frame(p, &pos, mtj_strtab_str(d->names, d->nodes[chain[k]].name));
	}
	p[pos] = '\0';
	free(chain);
	*out = p;
	return 0;
}

static int folded_write(struct mtj_writer *w, struct fd *d)
{
	struct line *lines = calloc(d->nn ? d->nn : 1, sizeof(*lines));
	size_t n = 0, i;
	int rc = 0;

	if (!lines)
		return -ENOMEM;
	/* Each node is one distinct stack; only those with a non-zero count become text. */
	for (uint32_t v = 0; v < d->nn && !rc; v++) {
		const struct fnode *nd = &d->nodes[v];

		if (nd->parent == NO_PARENT || (nd->ns + 500) / 1000 + nd->hits == 0)
			continue;
		lines[n].ns = nd->ns;
		lines[n].hits = nd->hits;
		rc = build_path(d, v, &lines[n].path);
		n += rc ? 0 : 1;
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	for (i = 0; i < n && !rc; i++) {
		int m = fprintf(w->out, "%s %llu\n", lines[i].path,
				(unsigned long long)((lines[i].ns + 500) / 1000 + lines[i].hits));

		if (m < 0)
			rc = -EIO;
		else
			w->bytes_hint += (uint64_t)m;
	}
	for (i = 0; i < n; i++)
		free(lines[i].path);
	free(lines);
	return rc;
}

static int folded_close(struct mtj_writer *w)
{
	struct fd *d = w->priv;
	int rc = folded_write(w, d);

	if (!rc && fflush(w->out))
		rc = -EIO;
	mtj_strtab_free(d->names);
	mtj_u64map_free(&d->children);
	mtj_u64map_free(&d->by_tid);
	free(d->nodes);
	free(d->th);
	free(d);
	w->priv = NULL;
	return rc;
}

const struct mtj_writer_ops mtj_writer_folded_ops = {
	.name = "folded",
	.ext = ".folded",
	.open = folded_open,
	.process_name = folded_process_name,
	.thread_name = folded_thread_name,
	.begin = folded_begin,
	.end = folded_end,
	.instant = folded_instant,
	.close = folded_close,
};
