/*
 * preload/symbols.h — ELF symbol tables (libelf) and trigger-location resolution.
 *
 * Functions come from .symtab first (so static functions resolve), from .dynsym when the
 * object is stripped.  Runtime address = symbol value + load bias (dl_iterate_phdr).
 * Used by the preload (resolving triggers, symbolizing hit backtraces from its helper
 * thread — never from a signal handler) and by `mtinject symbols` / `mtinject decode`.
 */
#ifndef MTJ_PRELOAD_SYMBOLS_H
#define MTJ_PRELOAD_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/config.h"

struct mtj_symbol {
	const char *name;        /* as in the symbol table (mangled) */
	const char *demangled;   /* C++/Rust demangled form, or NULL */
	uint64_t value;          /* st_value (link-time address) */
	uint64_t size;
	bool is_local;           /* STB_LOCAL: static function */
};

/* A trigger location resolved in this process. */
struct mtj_location {
	uint64_t addr;           /* runtime address to arm */
	char object[4096];       /* path of the object ("" if unknown) */
	char symbol[384];        /* symbol name (mangled) or "" for raw addresses */
	uint64_t size;
};

/*
 * Resolve `t` against the objects loaded in this process.
 *   0        *out filled
 *   -ENOENT  no such symbol: err says so and suggests the closest names
 *   -EEXIST  ambiguous: err lists the candidates with their files and addresses
 *   -EAGAIN  the object named by t->object is not loaded (yet): arm it on dlopen
 *   -EINVAL  address not inside any loaded object, offset beyond the object, ...
 */
int mtj_resolve_location(const struct mtj_trigger_spec *t, struct mtj_location *out,
			 char *err, size_t errlen);

/* Does `path` (a loaded object's path) match the object named in a trigger: full path,
 * file name or DT_SONAME? */
bool mtj_object_matches(const char *path, const char *wanted);

/* Iterate over the function symbols of an ELF file.  Callback returns non-zero to stop. */
int mtj_symbols_foreach(const char *path, int (*cb)(const struct mtj_symbol *sym, void *arg),
			void *arg);

/* Symbolize an address of this process: "name+0xoff" into sym, object path into obj.
 * Caches parsed tables; not async-signal-safe.  -ENOENT when unknown. */
int mtj_symbolize_self(uint64_t addr, char *sym, size_t symlen, char *obj, size_t objlen);

/* Demangle a C++ (Itanium) or Rust name; NULL if not mangled or no demangler.  Returns a
 * malloc'd string. */
char *mtj_demangle(const char *name);

#endif
