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

/*
 * Resolve `t` in ONE object that was just loaded (dlopen): `path` as dl_iterate_phdr gives
 * it, `bias` its load bias.  Same results as above; -EAGAIN when `path` is not the object
 * the trigger names (keep waiting), -EINVAL for absolute addresses (never per object).
 *
 * Names match the table's (mangled) name first; only when none does, the demangled name
 * without its parameter list ("ns::Class::method") or, when `t->symbol` has one, with it
 * (whitespace normalised).  Of several versions of one name (malloc@@GLIBC_2.2.5), the
 * default version is meant.  Aliases at one address are one function.  A GNU IFUNC
 * resolves to the implementation its resolver picks (e.g. strlen -> __strlen_avx2).
 * out->symbol is the function's name for MTJ_LOC_SYMBOL, "name" or "name+0xOFF" for
 * addresses and offsets when a symbol covers them ("" otherwise).
 * Messages (err):
 *   "no function 'inti' in /path/app (did you mean 'init', 'int_add'?)"
 *   "'init' is ambiguous: 2 functions match: init (static, a.c) at 0x5555555551a9 in
 *    /path/app [app+0x11a9]; init (static, b.c) at ...; name one with object+0xOFFSET"
 *   "libfoo.so is not loaded (yet): the trigger is armed when it is dlopen'ed"
 */
int mtj_resolve_in_object(const struct mtj_trigger_spec *t, const char *path, uint64_t bias,
			  struct mtj_location *out, char *err, size_t errlen);

/* An object to resolve in without being this process: a file (bias 0) or an object of
 * another process (`mtinject symbols --resolve`).  open_path: what to open when `path`
 * is not the file itself (/proc/PID/exe), else NULL. */
struct mtj_sym_object {
	const char *path;
	const char *open_path;
	uint64_t bias;
	bool is_main;            /* what a trigger without "@object" names */
};

/* Resolve `t` in the objects given (the first is_main one is the executable).  Same results
 * as mtj_resolve_location; IFUNCs stay their resolver (the process is not this one). */
int mtj_resolve_in_objects(const struct mtj_trigger_spec *t, const struct mtj_sym_object *objs,
			   size_t n, struct mtj_location *out, char *err, size_t errlen);

/* Does `path` (a loaded object's path) match the object named in a trigger: full path,
 * file name or DT_SONAME? */
bool mtj_object_matches(const char *path, const char *wanted);

/* Iterate over the function symbols of an ELF file (.symtab, else .dynsym), in address
 * order.  Callback returns non-zero to stop.  0, or the errno of open(), or
 * -ENOEXEC (not ELF), -EBADMSG (truncated/corrupt), -ENODATA (no .symtab or .dynsym). */
int mtj_symbols_foreach(const char *path, int (*cb)(const struct mtj_symbol *sym, void *arg),
			void *arg);

/* Text for the errors of mtj_symbols_foreach(): "stripped: no .symtab or .dynsym", ... */
const char *mtj_symbols_strerror(int err);

/* Symbolize an address of this process: "name+0xoff" into sym, object path into obj.
 * Caches parsed tables; not async-signal-safe.  -ENOENT when unknown. */
int mtj_symbolize_self(uint64_t addr, char *sym, size_t symlen, char *obj, size_t objlen);

/* Demangle a C++ (Itanium) or Rust name; NULL if not mangled or no demangler.  Returns a
 * malloc'd string.  __cxa_demangle comes from the libstdc++ in the process, else from a
 * dlopen'ed one (we link none).  Rust legacy names (_ZN...17h<hash>E) lose the hash and
 * their $..$ escapes; Rust v0 names (_R...) are not demangled (NULL). */
char *mtj_demangle(const char *name);

#endif
