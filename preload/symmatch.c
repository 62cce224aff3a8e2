/*
 * preload/symmatch.c — matching a trigger's function name against a symbol table.
 */
#include "preload/symmatch.h"

#include <ctype.h>
#include <elf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whitespace only where it separates two identifier characters ("unsigned long"). */
static void normalise_ws(const char *s, char *out, size_t outlen)
{
	size_t w = 0;
	char prev = 0;
	for (; *s && w + 1 < outlen; s++) {
		if (isspace((unsigned char)*s)) {
			const char *n = s;
			while (isspace((unsigned char)*n))
				n++;
			if (ident_char(prev) && ident_char(*n))
				out[w++] = ' ';
			s = n - 1;
			continue;
		}
		out[w++] = prev = *s;
	}
	out[w] = '\0';
}

/* Skip "operator<", "operator()", ... so their characters are not taken for brackets. */
static size_t skip_operator(const char *d, size_t i)
{
	if (strncmp(d + i, "operator", 8) || (i && ident_char(d[i - 1])) || ident_char(d[i + 8]))
		return i;
	i += 8;
	if (!strncmp(d + i, "()", 2))
		return i + 2;
	while (d[i] && strchr("<>=!+-*/%^&|~,[]", d[i]))
		i++;
	return i;
}

void mtj_demangled_noargs(const char *d, char *out, size_t outlen)
{
	/* The parameter list is the last '(' at bracket depth 0; drop it and what follows. */
	size_t cut = strlen(d), space = (size_t)-1;
	int depth = 0;
	for (size_t i = 0; d[i]; i++) {
		size_t j = skip_operator(d, i);
		if (j != i) {
			i = j - 1;
			continue;
		}
		char c = d[i];
		if (c == '(' && depth == 0)
			cut = i;
		if (c == '<' || c == '(' || c == '[')
			depth++;
		else if ((c == '>' || c == ')' || c == ']') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0 && i < cut)
			space = i;
	}
	/* A return type (template functions) ends at the last top-level space before it,
	 * unless that space belongs to "operator new" or a conversion operator. */
	size_t start = 0;
	if (space != (size_t)-1 && space < cut && !(space >= 8 && !strncmp(d + space - 8, "operator", 8)))
		start = space + 1;
	size_t n = cut > start ? cut - start : 0;
	/* "[abi:cxx11]" tags are part of the mangling, not of the name users write. */
	size_t w = 0;
	for (size_t i = start; i < start + n && w + 1 < outlen; i++) {
		if (d[i] == '[' && !strncmp(d + i, "[abi:", 5)) {
			const char *e = strchr(d + i, ']');
			if (e && (size_t)(e - d) < start + n) {
				i = (size_t)(e - d);
				continue;
			}
		}
		out[w++] = d[i];
	}
	while (w > 0 && out[w - 1] == ' ')
		w--;
	if (outlen)
		out[w < outlen ? w : outlen - 1] = '\0';
	/* "(anonymous namespace)::f" is what users call "f" (and the trigger grammar takes no
	 * parentheses outside a parameter list). */
	static const char anon[] = "(anonymous namespace)::";
	for (char *a; (a = strstr(out, anon));)
		memmove(a, a + sizeof anon - 1, strlen(a + sizeof anon - 1) + 1);
}

/* Add match i unless an alias (same address) is already there: keep the better name. */
static size_t add_match(struct mtj_elf *e, size_t i, size_t *idx, size_t max, size_t n)
{
	for (size_t k = 0; k < n && k < max; k++)
		if (e->syms[idx[k]].value == e->syms[i].value)
			return n;
	if (n < max)
		idx[n] = i;
	return n + 1;
}

size_t mtj_match(struct mtj_elf *e, const char *q, size_t *idx, size_t max)
{
	size_t n = 0;
	bool any_default = false;
	for (size_t i = 0; i < e->nsyms; i++)
		if (!strcmp(mtj_elf_name(e, &e->syms[i]), q) && !e->syms[i].hidden)
			any_default = true;
	for (size_t i = 0; i < e->nsyms; i++)
		if (!strcmp(mtj_elf_name(e, &e->syms[i]), q) && (!any_default || !e->syms[i].hidden))
			n = add_match(e, i, idx, max, n);
	if (n)
		return n;
	bool with_args = strchr(q, '(') != NULL;
	char want[1024], have[1024];
	if (with_args)
		normalise_ws(q, want, sizeof want);
	mtj_elf_demangle_all(e);
	for (size_t i = 0; i < e->nsyms; i++) {
		const char *d = mtj_elf_demangled(e, i);
		if (!d)
			continue;
		if (with_args)
			normalise_ws(d, have, sizeof have);
		else
			mtj_demangled_noargs(d, have, sizeof have);
		if (!strcmp(have, with_args ? want : q))
			n = add_match(e, i, idx, max, n);
	}
	return n;
}

size_t mtj_levenshtein(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 255 || lb > 255 || (la > lb ? la - lb : lb - la) >= cap)
		return cap;
	size_t row[256];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], best = row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best >= cap)
			return cap;
	}
	return row[lb] < cap ? row[lb] : cap;
}

#define SUGGEST_MAX 3

size_t mtj_sym_suggest(struct mtj_elf *e, const char *q, char *out, size_t outlen, size_t max)
{
	struct { size_t dist; char name[256]; } best[SUGGEST_MAX];
	size_t nbest = 0;
	if (max > SUGGEST_MAX)
		max = SUGGEST_MAX;
	/* Farther than half the query's length is noise, not a typo. */
	size_t lq = strlen(q), cap = lq / 3 + 2;
	mtj_elf_demangle_all(e);
	for (size_t i = 0; i < e->nsyms; i++) {
		const struct mtj_elf_sym *s = &e->syms[i];
		if (s->hidden)
			continue;
		const char *name = mtj_elf_name(e, s);
		const char *d = mtj_elf_demangled(e, i);
		char noargs[256];
		if (d)
			mtj_demangled_noargs(d, noargs, sizeof noargs);
		const char *show = d ? noargs : name;
		size_t limit = nbest == max ? best[max - 1].dist : cap;
		size_t dist = mtj_levenshtein(q, name, limit);
		if (lq >= 3 && !strncmp(name, q, lq))
			dist = 1;         /* what was typed is the start of the name */
		if (d) {
			size_t dd = mtj_levenshtein(q, noargs, limit);
			/* "methd" for "ns::Class::method": the last component, one step farther */
			const char *last = strrchr(noargs, ':');
			if (last && last > noargs && last[-1] == ':' && !strstr(q, "::")) {
				size_t dl = mtj_levenshtein(q, last + 1, limit) + 1;
				if (dl < dd)
					dd = dl;
			}
			if (dd < dist)
				dist = dd;
		}
		if (dist >= limit)
			continue;
		bool dup = false;
		for (size_t k = 0; k < nbest; k++)
			dup |= !strcmp(best[k].name, show);
		if (dup)
			continue;
		size_t pos = nbest < max ? nbest++ : max - 1;
		while (pos > 0 && best[pos - 1].dist > dist) {
			best[pos] = best[pos - 1];
			pos--;
		}
		best[pos].dist = dist;
		snprintf(best[pos].name, sizeof best[pos].name, "%s", show);
	}
	size_t w = strlen(out);
	for (size_t k = 0; k < nbest && w < outlen; k++) {
		int r = snprintf(out + w, outlen - w, "%s'%s'", k ? ", " : "", best[k].name);
		w += r > 0 ? (size_t)r : 0;
	}
	return nbest;
}
