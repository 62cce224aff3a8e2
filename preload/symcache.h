/*
 * preload/symcache.h — the objects loaded in this process and their cached symbol tables.
 *
 * Internal to preload/symbols.c.  One recursive mutex guards the cache: every public
 * function of symbols.c takes it for its whole duration (recursive because resolving may
 * run dlopen hooks that resolve again in the same thread).  Never used in signal handlers.
 */
#ifndef MTJ_PRELOAD_SYMCACHE_H
#define MTJ_PRELOAD_SYMCACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/elfsyms.h"

#define MTJ_OBJ_MAX_LOADS 16

/* One object as dl_iterate_phdr saw it (copied: it may be dlclose'd afterwards). */
struct mtj_obj {
	char path[PATH_MAX];
	bool is_main;            /* the executable: its file is opened as /proc/self/exe */
	uint64_t bias;
	size_t nloads;
	struct { uint64_t start, end; bool exec; } loads[MTJ_OBJ_MAX_LOADS]; /* runtime */
};

void mtj_symcache_lock(void);
void mtj_symcache_unlock(void);
/* In a fork child (pthread_atfork): a fresh, unlocked cache lock. */
void mtj_symcache_atfork_child(void);

/* The loaded objects, main executable first, vdso left out.  malloc'd; caller frees. */
int mtj_objs_snapshot(struct mtj_obj **out, size_t *n);
/* The object containing addr, from a kept list (caller holds the cache lock); the list is
 * rebuilt after mtj_symcache_invalidate() or when addr is in none of its objects. */
const struct mtj_obj *mtj_objs_cached_find(uint64_t addr);
/* The set of loaded objects changed (dlopen/dlclose). */
void mtj_symcache_invalidate(void);

/* The object whose segments contain runtime address `addr` (exec segments only when
 * `exec_only`), or NULL. */
const struct mtj_obj *mtj_objs_find_addr(const struct mtj_obj *objs, size_t n, uint64_t addr,
					 bool exec_only);

/* The cached table of the file `path` (headers read; symbols too when `syms`), opened as
 * `open_path` when not NULL (/proc/self/exe).  Lock held.  NULL and *err set when the file
 * cannot be used. */
struct mtj_elf *mtj_symcache_get(const char *path, const char *open_path, bool syms, int *err);

#endif
