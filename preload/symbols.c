/*
 * preload/symbols.c — trigger locations to runtime addresses, and addresses back to names.
 *
 * Loaded objects and their load bias come from dl_iterate_phdr (the executable's file from
 * /proc/self/exe); their tables from preload/symcache.c, parsed once, on first need: a
 * trigger in the executable never makes libc's table be read.
 */
#include "preload/symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/elfsyms.h"
#include "preload/symcache.h"
#include "preload/symmatch.h"

#define MAX_CANDS 8

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t w = strlen(buf);
	if (w + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + w, len - w, fmt, ap);
	va_end(ap);
}

/* "libfoo.so" also names "libfoo.so.1" and "libfoo.so.1.2.3": what users type. */
static bool name_matches(const char *name, const char *wanted)
{
	size_t n = strlen(wanted);
	if (strncmp(name, wanted, n))
		return false;
	if (!name[n])
		return true;
	if (name[n] != '.' || n < 3 || strcmp(wanted + n - 3, ".so"))
		return false;
	for (const char *p = name + n; *p; p++)
		if (*p != '.' && (*p < '0' || *p > '9'))
			return false;
	return true;
}

static bool object_matches(const char *path, const char *open_path, bool is_main,
			   const char *wanted)
{
	if (!wanted[0])
		return is_main;
	if (strchr(wanted, '/')) {
		char a[PATH_MAX], b[PATH_MAX];
		return !strcmp(path, wanted) ||
		       (realpath(path, a) && realpath(wanted, b) && !strcmp(a, b));
	}
	if (name_matches(base_name(path), wanted))
		return true;
	char real[PATH_MAX];
	if (realpath(path, real) && name_matches(base_name(real), wanted))
		return true;
	int err;
	struct mtj_elf *e = mtj_symcache_get(path, open_path, false, &err);
	return e && e->soname[0] && name_matches(e->soname, wanted);
}

bool mtj_object_matches(const char *path, const char *wanted)
{
	mtj_symcache_lock();
	bool r = object_matches(path, NULL, false, wanted);
	mtj_symcache_unlock();
	return r;
}

/* Where the executable of this process is read from: its path may be gone or replaced. */
#define SELF_EXE "/proc/self/exe"

struct cand {
	const struct mtj_sym_object *t;
	struct mtj_elf *e;
	size_t idx;
};

static const char *sym_kind(const struct mtj_elf_sym *s)
{
	return s->bind == STB_LOCAL ? "static" : s->bind == STB_WEAK ? "weak" : "global";
}

/* How a user names this function unambiguously: "obj+0xOFF" (file offset). */
static void offset_spec(const struct mtj_elf *e, const char *path, uint64_t value, char *out,
			size_t len)
{
	uint64_t off;
	if (mtj_elf_vaddr_to_offset(e, value, &off))
		off = value;
	snprintf(out, len, "%s+0x%" PRIx64, e->soname[0] ? e->soname : base_name(path), off);
}

/* The function an IFUNC symbol picks at run time: what ld.so would call its resolver for. */
static uint64_t ifunc_target(uint64_t resolver)
{
#if defined(__x86_64__) || defined(__i386__)
	/* glibc's x86 resolvers take no arguments (elf_ifunc_invoke); they only read CPU
	 * features, so calling one again has no effect on the program. */
	uint64_t (*fn)(void);
	void *p = (void *)(uintptr_t)resolver;
	memcpy(&fn, &p, sizeof fn);
	return fn();
#else
	return resolver;
#endif
}

static void fill_symbolized(uint64_t addr, char *sym, size_t symlen, uint64_t *size);

static void fill_location(const struct cand *c, struct mtj_location *out, bool in_process)
{
	const struct mtj_elf_sym *s = &c->e->syms[c->idx];
	memset(out, 0, sizeof *out);
	out->addr = c->t->bias + s->value;
	out->size = s->size;
	snprintf(out->object, sizeof out->object, "%s", c->t->path);
	snprintf(out->symbol, sizeof out->symbol, "%s", mtj_elf_name(c->e, s));
	if (s->ifunc && in_process) {
		/* Breaking on the resolver would never fire after start-up. */
		out->addr = ifunc_target(out->addr);
		fill_symbolized(out->addr, out->symbol, sizeof out->symbol, &out->size);
	}
}

static void describe_cand(const struct cand *c, char *buf, size_t len)
{
	const struct mtj_elf_sym *s = &c->e->syms[c->idx];
	const char *d = mtj_elf_demangled(c->e, c->idx);
	const char *file = mtj_elf_str(c->e, s->file);
	char spec[384];
	offset_spec(c->e, c->t->path, s->value, spec, sizeof spec);
	append(buf, len, "%s (%s%s%s) at 0x%" PRIx64 " in %s [%s]", d ? d : mtj_elf_name(c->e, s),
	       sym_kind(s), file ? ", " : "", file ? file : "", c->t->bias + s->value, c->t->path,
	       spec);
}

/* Where else the name exists, when it is not in the executable: "malloc" -> libc.so.6. */
static void hint_other_objects(const char *q, char *err, size_t errlen)
{
	struct mtj_obj *objs;
	size_t n;
	if (mtj_objs_snapshot(&objs, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		int e_err;
		size_t idx;
		if (objs[i].is_main)
			continue;
		struct mtj_elf *e = mtj_symcache_get(objs[i].path, NULL, true, &e_err);
		if (!e || mtj_match(e, q, &idx, 1) != 1)
			continue;
		append(err, errlen, "; it is in %s: use '%s@%s'", objs[i].path, q,
		       e->soname[0] ? e->soname : base_name(objs[i].path));
		break;
	}
	free(objs);
}

/* Resolve name `t->symbol` in the targets.  in_process: addresses are live (IFUNCs). */
static int resolve_symbol(const struct mtj_trigger_spec *t, const struct mtj_sym_object *tg, size_t ntg,
			  struct mtj_location *out, char *err, size_t errlen, bool in_process)
{
	struct cand cands[MAX_CANDS];
	size_t ncand = 0, total = 0;
	int table_err = 0;
	const char *bad = NULL;
	for (size_t i = 0; i < ntg; i++) {
		int e_err;
		struct mtj_elf *e = mtj_symcache_get(tg[i].path, tg[i].open_path, true, &e_err);
		if (!e) {
			table_err = e_err;
			bad = tg[i].path;
			continue;
		}
		size_t idx[MAX_CANDS];
		size_t n = mtj_match(e, t->symbol, idx, MAX_CANDS);
		for (size_t k = 0; k < n && k < MAX_CANDS && ncand < MAX_CANDS; k++)
			cands[ncand++] = (struct cand){ &tg[i], e, idx[k] };
		total += n;
	}
	if (total == 1) {
		fill_location(&cands[0], out, in_process);
		return 0;
	}
	const char *where = ntg == 1 ? tg[0].path : t->object;
	if (total > 1) {
		set_err(err, errlen, "'%s' is ambiguous: %zu functions match: ", t->symbol, total);
		for (size_t i = 0; i < ncand; i++) {
			append(err, errlen, "%s", i ? "; " : "");
			describe_cand(&cands[i], err, errlen);
		}
		append(err, errlen, "; name one with object+0xOFFSET");
		return -EEXIST;
	}
	if (table_err && ntg == 1) {
		set_err(err, errlen, "cannot look up '%s': %s: %s", t->symbol, bad,
			mtj_symbols_strerror(table_err));
		return table_err == -ENODATA ? -ENOENT : table_err;
	}
	set_err(err, errlen, "no function '%s' in %s", t->symbol, where);
	char sugg[1024] = "";
	size_t ns = 0;
	for (size_t i = 0; i < ntg && ns < 3; i++) {
		int e_err;
		struct mtj_elf *e = mtj_symcache_get(tg[i].path, tg[i].open_path, true, &e_err);
		if (e)
			ns += mtj_sym_suggest(e, t->symbol, sugg + strlen(sugg), sizeof sugg - strlen(sugg), 3 - ns);
	}
	if (ns)
		append(err, errlen, " (did you mean %s?)", sugg);
	if (in_process && !t->object[0])
		hint_other_objects(t->symbol, err, errlen);
	return -ENOENT;
}

/* Runtime address of file offset `off` in an object. */
static int resolve_offset(const struct mtj_trigger_spec *t, const struct mtj_sym_object *tg,
			  struct mtj_location *out, char *err, size_t errlen)
{
	int e_err;
	struct mtj_elf *e = mtj_symcache_get(tg->path, tg->open_path, false, &e_err);
	if (!e) {
		set_err(err, errlen, "%s: %s", tg->path, mtj_symbols_strerror(e_err));
		return e_err;
	}
	uint64_t vaddr;
	bool exec;
	if (mtj_elf_offset_to_vaddr(e, t->offset, &vaddr, &exec)) {
		set_err(err, errlen, "offset 0x%" PRIx64 " is not inside a loadable segment of %s",
			t->offset, tg->path);
		return -EINVAL;
	}
	if (!exec) {
		set_err(err, errlen, "offset 0x%" PRIx64 " of %s is not in executable code", t->offset,
			tg->path);
		return -EINVAL;
	}
	memset(out, 0, sizeof *out);
	out->addr = tg->bias + vaddr;
	snprintf(out->object, sizeof out->object, "%s", tg->path);
	if (mtj_elf_read_syms(e) == 0) {
		long i = mtj_elf_lookup(e, vaddr);
		if (i >= 0 && e->syms[i].value == vaddr) {
			snprintf(out->symbol, sizeof out->symbol, "%s", mtj_elf_name(e, &e->syms[i]));
			out->size = e->syms[i].size;
		} else if (i >= 0) {
			snprintf(out->symbol, sizeof out->symbol, "%s+0x%" PRIx64,
				 mtj_elf_name(e, &e->syms[i]), vaddr - e->syms[i].value);
		}
	}
	return 0;
}

static int resolve_addr(const struct mtj_trigger_spec *t, const struct mtj_obj *objs, size_t n,
			struct mtj_location *out, char *err, size_t errlen)
{
	const struct mtj_obj *o = mtj_objs_find_addr(objs, n, t->addr, true);
	if (!o) {
		o = mtj_objs_find_addr(objs, n, t->addr, false);
		if (o)
			set_err(err, errlen, "0x%" PRIx64 " is in %s but not in executable code", t->addr,
				o->path);
		else
			set_err(err, errlen, "0x%" PRIx64 " is not inside any loaded object", t->addr);
		return -EINVAL;
	}
	memset(out, 0, sizeof *out);
	out->addr = t->addr;
	snprintf(out->object, sizeof out->object, "%s", o->path);
	fill_symbolized(t->addr, out->symbol, sizeof out->symbol, &out->size);
	return 0;
}

static int resolve_in(const struct mtj_trigger_spec *t, const struct mtj_sym_object *tg,
		      size_t ntg, struct mtj_location *out, char *err, size_t errlen, bool in_process)
{
	if (!ntg) {
		set_err(err, errlen, "%s is not loaded (yet): the trigger is armed when it is dlopen'ed",
			t->object[0] ? t->object : "the executable");
		return -EAGAIN;
	}
	if (t->kind == MTJ_LOC_SYMBOL)
		return resolve_symbol(t, tg, ntg, out, err, errlen, in_process);
	if (ntg > 1) {
		set_err(err, errlen, "'%s' names %zu loaded objects: %s and %s; give a path", t->object,
			ntg, tg[0].path, tg[1].path);
		return -EEXIST;
	}
	return resolve_offset(t, tg, out, err, errlen);
}

/* The objects `t` names among `objs` (malloc'd, *n set). */
static struct mtj_sym_object *select_objects(const struct mtj_trigger_spec *t,
					     const struct mtj_sym_object *objs, size_t n,
					     size_t *ntg)
{
	struct mtj_sym_object *tg = calloc(n ? n : 1, sizeof *tg);
	*ntg = 0;
	for (size_t i = 0; tg && i < n; i++)
		if (object_matches(objs[i].path, objs[i].open_path, objs[i].is_main, t->object))
			tg[(*ntg)++] = objs[i];
	return tg;
}

/* Absolute address in objects given by their files (not this process's). */
static int resolve_addr_in_files(const struct mtj_trigger_spec *t, const struct mtj_sym_object *objs,
				 size_t n, struct mtj_location *out, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		int e_err;
		struct mtj_elf *e = mtj_symcache_get(objs[i].path, objs[i].open_path, false, &e_err);
		if (!e || t->addr < objs[i].bias)
			continue;
		uint64_t v = t->addr - objs[i].bias, off;
		if (mtj_elf_vaddr_to_offset(e, v, &off))
			continue;
		struct mtj_trigger_spec byoff = *t;
		byoff.kind = MTJ_LOC_OFFSET;
		byoff.offset = off;
		return resolve_offset(&byoff, &objs[i], out, err, errlen);
	}
	set_err(err, errlen, "0x%" PRIx64 " is not inside any of the objects", t->addr);
	return -EINVAL;
}

int mtj_resolve_in_objects(const struct mtj_trigger_spec *t, const struct mtj_sym_object *objs,
			   size_t n, struct mtj_location *out, char *err, size_t errlen)
{
	mtj_symcache_lock();
	int rc;
	if (t->kind == MTJ_LOC_ADDR) {
		rc = resolve_addr_in_files(t, objs, n, out, err, errlen);
	} else {
		size_t ntg;
		struct mtj_sym_object *tg = select_objects(t, objs, n, &ntg);
		rc = tg ? resolve_in(t, tg, ntg, out, err, errlen, false) : -ENOMEM;
		free(tg);
	}
	mtj_symcache_unlock();
	return rc;
}

int mtj_resolve_location(const struct mtj_trigger_spec *t, struct mtj_location *out, char *err,
			 size_t errlen)
{
	struct mtj_obj *objs;
	size_t n;
	int rc = mtj_objs_snapshot(&objs, &n);
	if (rc) {
		set_err(err, errlen, "cannot list the loaded objects: %s", strerror(-rc));
		return rc;
	}
	struct mtj_sym_object *all = calloc(n ? n : 1, sizeof *all);
	if (!all) {
		free(objs);
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		all[i] = (struct mtj_sym_object){ objs[i].path, objs[i].is_main ? SELF_EXE : NULL,
						  objs[i].bias, objs[i].is_main };
	mtj_symcache_lock();
	if (t->kind == MTJ_LOC_ADDR) {
		rc = resolve_addr(t, objs, n, out, err, errlen);
	} else {
		size_t ntg;
		struct mtj_sym_object *tg = select_objects(t, all, n, &ntg);
		rc = tg ? resolve_in(t, tg, ntg, out, err, errlen, true) : -ENOMEM;
		free(tg);
	}
	mtj_symcache_unlock();
	free(all);
	free(objs);
	return rc;
}

int mtj_resolve_in_object(const struct mtj_trigger_spec *t, const char *path, uint64_t bias,
			  struct mtj_location *out, char *err, size_t errlen)
{
	if (t->kind == MTJ_LOC_ADDR) {
		set_err(err, errlen, "an absolute address is not resolved per object");
		return -EINVAL;
	}
	mtj_symcache_lock();
	int rc = -EAGAIN;
	if (t->object[0] && object_matches(path, NULL, false, t->object)) {
		struct mtj_sym_object tg = { path, NULL, bias, false };
		rc = resolve_in(t, &tg, 1, out, err, errlen, true);
	} else {
		set_err(err, errlen, "%s is not %s", path, t->object[0] ? t->object : "the executable");
	}
	mtj_symcache_unlock();
	return rc;
}

/* Lock held.  "name+0xoff" of a live address, demangled when it is C++ or Rust. */
static int symbolize(const struct mtj_obj *o, uint64_t addr, char *sym, size_t symlen,
		     uint64_t *size)
{
	int err;
	struct mtj_elf *e = mtj_symcache_get(o->path, o->is_main ? SELF_EXE : NULL, true, &err);
	if (!e)
		return -ENOENT;
	long i = mtj_elf_lookup(e, addr - o->bias);
	if (i < 0)
		return -ENOENT;
	const struct mtj_elf_sym *s = &e->syms[i];
	const char *name = mtj_elf_name(e, s);
	char *d = mtj_demangle(name);
	snprintf(sym, symlen, "%s+0x%" PRIx64, d ? d : name, addr - o->bias - s->value);
	free(d);
	if (size)
		*size = s->size;
	return 0;
}

static void fill_symbolized(uint64_t addr, char *sym, size_t symlen, uint64_t *size)
{
	struct mtj_obj *objs;
	size_t n;
	if (mtj_objs_snapshot(&objs, &n))
		return;
	const struct mtj_obj *o = mtj_objs_find_addr(objs, n, addr, false);
	if (o)
		symbolize(o, addr, sym, symlen, size);
	free(objs);
}

int mtj_symbolize_self(uint64_t addr, char *sym, size_t symlen, char *obj, size_t objlen)
{
	if (symlen)
		sym[0] = '\0';
	if (objlen)
		obj[0] = '\0';
	mtj_symcache_lock();
	const struct mtj_obj *o = mtj_objs_cached_find(addr);
	int rc = -ENOENT;
	if (o) {
		snprintf(obj, objlen, "%s", o->path);
		rc = symbolize(o, addr, sym, symlen, NULL);
	}
	mtj_symcache_unlock();
	return rc;
}

int mtj_symbols_foreach(const char *path, int (*cb)(const struct mtj_symbol *sym, void *arg),
			void *arg)
{
	struct mtj_elf *e;
	int rc = mtj_elf_open(path, NULL, &e);
	if (rc)
		return rc;
	rc = mtj_elf_read_syms(e);
	if (!rc) {
		mtj_elf_demangle_all(e);
		for (size_t i = 0; i < e->nsyms; i++) {
			const struct mtj_elf_sym *s = &e->syms[i];
			struct mtj_symbol ms = { .name = mtj_elf_name(e, s), .demangled = mtj_elf_demangled(e, i),
						 .value = s->value, .size = s->size,
						 .is_local = s->bind == STB_LOCAL };
			if (cb(&ms, arg))
				break;
		}
	}
	mtj_elf_free(e);
	return rc;
}
