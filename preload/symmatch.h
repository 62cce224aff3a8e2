/*
 * preload/symmatch.h — which functions of a table a trigger's name means.
 *
 * The rules, shared by the resolver and by `mtinject symbols` (whose first column must
 * resolve to exactly the function on its line):
 *   1. the name as in the table (mangled; a "@VER" suffix is not part of it); of several
 *      versions of one name, the default one ("name@@VER") is what `name` means;
 *   2. only when nothing matched so: the demangled name, compared without its parameter
 *      list ("ns::Class::method") or, when the query has one, with it, whitespace
 *      normalised ("ns::Class::method(int, char const*)").
 * Symbols at one address are one function (aliases), not an ambiguity.
 */
#ifndef MTJ_PRELOAD_SYMMATCH_H
#define MTJ_PRELOAD_SYMMATCH_H

#include <stddef.h>

#include "preload/elfsyms.h"

/* Matches of `q` in `e` (symbols read): distinct addresses, one (best-named) index each.
 * Fills up to `max` indexes, returns how many there are (may exceed max). */
size_t mtj_match(struct mtj_elf *e, const char *q, size_t *idx, size_t max);

/* "void ns::f<int>(int) const" -> "ns::f<int>": the name without return type, parameter
 * list and qualifiers.  Writes at most outlen bytes (always terminated). */
void mtj_demangled_noargs(const char *d, char *out, size_t outlen);

/* The closest names of `e` to `q` (edit distance on the name and on the demangled name
 * without parameters), best first, as "name" strings appended to `out` separated by
 * "', '".  Returns how many were appended. */
size_t mtj_sym_suggest(struct mtj_elf *e, const char *q, char *out, size_t outlen, size_t max);

/* Levenshtein distance, capped at `cap` (returns cap when >= cap). */
size_t mtj_levenshtein(const char *a, const char *b, size_t cap);

#endif
