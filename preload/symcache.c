/*
 * preload/symcache.c — loaded objects (dl_iterate_phdr) and one parsed table per file.
 *
 * Tables are parsed lazily and kept for the life of the process: the constructor parses
 * only the objects its triggers name, the helper thread's symbolizer the objects its
 * backtraces pass through.
 */
#include "preload/symcache.h"

#include <errno.h>
#include <stdatomic.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

struct cache_entry {
	struct cache_entry *next;
	struct mtj_elf *elf;      /* NULL when the file could not be read */
	int err;                  /* why not (headers), or the symbol-table error */
	bool syms_tried;
	char path[];
};

static pthread_mutex_t cache_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct cache_entry *cache;

void mtj_symcache_lock(void)
{
	pthread_mutex_lock(&cache_lock);
}

void mtj_symcache_unlock(void)
{
	pthread_mutex_unlock(&cache_lock);
}

struct snap {
	struct mtj_obj *objs;
	size_t n, cap;
	uint64_t vdso;
	int err;
};

/* Runs under the loader's lock: copy only, no file access. */
static int snap_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct snap *s = arg;
	bool first = s->n == 0 && s->cap == 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct mtj_obj *o = realloc(s->objs, cap * sizeof *o);
		if (!o) {
			s->err = -ENOMEM;
			return 1;
		}
		s->objs = o;
		s->cap = cap;
	}
	struct mtj_obj *o = &s->objs[s->n];
	memset(o, 0, offsetof(struct mtj_obj, loads));
	o->bias = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum && o->nloads < MTJ_OBJ_MAX_LOADS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t start = info->dlpi_addr + ph->p_vaddr;
		if (s->vdso && s->vdso >= start && s->vdso < start + ph->p_memsz)
			return 0;      /* the vdso: no file to read, nothing to trigger on */
		o->loads[o->nloads].start = start;
		o->loads[o->nloads].end = start + ph->p_memsz;
		o->loads[o->nloads].exec = (ph->p_flags & PF_X) != 0;
		o->nloads++;
	}
	if (first && !info->dlpi_name[0]) {
		ssize_t len = readlink("/proc/self/exe", o->path, sizeof o->path - 1);
		o->path[len > 0 ? len : 0] = '\0';
		o->is_main = true;
	} else if (info->dlpi_name[0]) {
		snprintf(o->path, sizeof o->path, "%s", info->dlpi_name);
	} else {
		return 0;              /* nameless and not the executable: nothing we can read */
	}
	s->n++;
	return 0;
}

int mtj_objs_snapshot(struct mtj_obj **out, size_t *n)
{
	struct snap s = { .vdso = getauxval(AT_SYSINFO_EHDR) };
	dl_iterate_phdr(snap_cb, &s);
	if (s.err) {
		free(s.objs);
		return s.err;
	}
	*out = s.objs;
	*n = s.n;
	return 0;
}

/*
 * The helper thread symbolizes every frame of every hit: listing the loaded objects each
 * time (dl_iterate_phdr, readlink) cost more than the rest of a hit.  The list is kept and
 * rebuilt when the dlopen()/dlclose() wrappers say it changed, or when an address falls
 * outside it (an object loaded behind our back, e.g. by libc itself).
 */
static struct mtj_obj *cached_objs;
static size_t cached_n;
static _Atomic unsigned long objs_gen = 1;
static unsigned long cached_gen;

void mtj_symcache_invalidate(void)
{
	atomic_fetch_add(&objs_gen, 1);
}

static int refresh_objs(void)
{
	struct mtj_obj *objs;
	size_t n;
	unsigned long gen = atomic_load(&objs_gen);
	int rc = mtj_objs_snapshot(&objs, &n);
	if (rc)
		return rc;
	free(cached_objs);
	cached_objs = objs;
	cached_n = n;
	cached_gen = gen;
	return 0;
}

const struct mtj_obj *mtj_objs_cached_find(uint64_t addr)
{
	if (cached_gen != atomic_load(&objs_gen) && refresh_objs())
		return NULL;
	const struct mtj_obj *o = mtj_objs_find_addr(cached_objs, cached_n, addr, false);
	if (!o && refresh_objs() == 0)
		o = mtj_objs_find_addr(cached_objs, cached_n, addr, false);
	return o;
}

const struct mtj_obj *mtj_objs_find_addr(const struct mtj_obj *objs, size_t n, uint64_t addr,
					 bool exec_only)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < objs[i].nloads; j++)
			if (addr >= objs[i].loads[j].start && addr < objs[i].loads[j].end &&
			    (objs[i].loads[j].exec || !exec_only))
				return &objs[i];
	return NULL;
}

struct mtj_elf *mtj_symcache_get(const char *path, const char *open_path, bool syms, int *err)
{
	struct cache_entry *c;
	for (c = cache; c; c = c->next)
		if (!strcmp(c->path, path))
			break;
	if (!c) {
		size_t len = strlen(path) + 1;
		c = calloc(1, sizeof *c + len);
		if (!c) {
			*err = -ENOMEM;
			return NULL;
		}
		memcpy(c->path, path, len);
		c->err = mtj_elf_open(path, open_path, &c->elf);
		c->next = cache;
		cache = c;
	}
	if (c->elf && syms && !c->syms_tried) {
		c->syms_tried = true;
		c->err = mtj_elf_read_syms(c->elf);
	}
	if (!c->elf || (syms && c->err)) {
		*err = c->err;
		return NULL;
	}
	return c->elf;
}

/*
 * fork() from a multi-threaded process: the helper thread may hold the cache lock at that
 * moment.  The preload takes it around fork (pthread_atfork prepare/parent) and the child,
 * whose only thread is the forking one, starts with a fresh lock.
 */
void mtj_symcache_atfork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	cache_lock = fresh;
}
