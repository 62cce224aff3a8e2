/*
 * preload/elfsyms.h — one ELF file's function symbols, read with libelf.
 *
 * Internal to symbol resolution (preload/symbols.c, preload/symcache.c) and to
 * `mtinject symbols`.  A table is read once and then immutable, except for the demangled
 * names, which are filled in on first need (most lookups never need them).
 */
#ifndef MTJ_PRELOAD_ELFSYMS_H
#define MTJ_PRELOAD_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elf.h>

#define MTJ_NOSTR UINT32_MAX

/* Errors: those of open(), and -ENOEXEC, -EBADMSG, -ENODATA (see mtj_symbols_strerror). */

struct mtj_elf_sym {
	uint64_t value;        /* st_value */
	uint64_t size;
	uint32_t name;         /* offset in strs; any "@VER"/"@@VER" suffix cut off */
	uint32_t version;      /* offset in strs of the version name, or MTJ_NOSTR */
	uint32_t file;         /* offset in strs of the STT_FILE a local belongs to, or MTJ_NOSTR */
	uint8_t bind;          /* STB_LOCAL / STB_GLOBAL / STB_WEAK */
	bool ifunc;            /* STT_GNU_IFUNC: value is the resolver, not the function */
	bool hidden;           /* a non-default version (name@VER): not what `name` binds to */
};

struct mtj_elf_load {          /* a PT_LOAD program header */
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags;        /* PF_X | PF_W | PF_R */
};

struct mtj_elf {
	char *path;            /* what to report */
	char *open_path;       /* what to open (e.g. /proc/self/exe), NULL = path */
	bool is_exec;          /* ET_EXEC, PIE, or ET_DYN without a soname but with PT_INTERP */
	char soname[256];      /* DT_SONAME, "" when none */
	struct mtj_elf_load *loads;
	size_t nloads;
	/* Symbols: only after mtj_elf_read_syms() */
	bool syms_read;
	bool from_dynsym;      /* no .symtab: the table is .dynsym */
	struct mtj_elf_sym *syms;  /* sorted by value */
	size_t nsyms;
	char *strs;            /* copy of the string table (version names included) */
	size_t strs_len;
	char **demangled;      /* per symbol, NULL = none; the array itself NULL until needed */
};

/* Read the headers of `path` (program headers, soname).  `open_path` is what to open
 * (e.g. /proc/self/exe for the main executable), `path` what to report; open_path may be
 * NULL.  0 or a negative error (see above). */
int mtj_elf_open(const char *path, const char *open_path, struct mtj_elf **out);
/* Read the function symbols (.symtab, else .dynsym).  Idempotent. */
int mtj_elf_read_syms(struct mtj_elf *e);
/* Fill e->demangled (C++ and Rust names only).  Idempotent. */
void mtj_elf_demangle_all(struct mtj_elf *e);
void mtj_elf_free(struct mtj_elf *e);

static inline const char *mtj_elf_name(const struct mtj_elf *e, const struct mtj_elf_sym *s)
{
	return e->strs + s->name;
}
static inline const char *mtj_elf_str(const struct mtj_elf *e, uint32_t off)
{
	return off == MTJ_NOSTR ? NULL : e->strs + off;
}
/* Demangled name of symbol i if known, else NULL. */
const char *mtj_elf_demangled(const struct mtj_elf *e, size_t i);

/* File offset <-> link-time address through the PT_LOAD headers.  -ERANGE when outside
 * every segment's file contents; *exec tells whether the segment is executable. */
int mtj_elf_offset_to_vaddr(const struct mtj_elf *e, uint64_t off, uint64_t *vaddr, bool *exec);
int mtj_elf_vaddr_to_offset(const struct mtj_elf *e, uint64_t vaddr, uint64_t *off);

/* Index of the symbol covering link-time address v (the best-named of aliases), or -1. */
long mtj_elf_lookup(const struct mtj_elf *e, uint64_t v);

#endif
