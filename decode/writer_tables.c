/*
 * decode/writer_tables.c — hash tables the writers share: a 64-bit key map and a string
 * interner.  Both grow with distinct keys only, never with trace length.
 */
#include "decode/trace.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

uint64_t mtj_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (len * 0xff51afd7ed558ccdull), v;

	while (len >= 8) {
		memcpy(&v, p, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		p += 8;
		len -= 8;
	}
	v = 0;
	memcpy(&v, p, len);
	h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 32;
	return h;
}

static inline uint32_t slot_of(uint64_t key, uint32_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (uint32_t)key & (cap - 1);
}

static int u64map_grow(struct mtj_u64map *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 64;
	struct mtj_u64map n = { .cap = ncap };

	n.keys = malloc((size_t)ncap * sizeof(*n.keys));
	n.vals = calloc(ncap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->cap; i++) {
		if (!m->vals[i])
			continue;
		uint32_t j = slot_of(m->keys[i], ncap);

		while (n.vals[j])
			j = (j + 1) & (ncap - 1);
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	n.n = m->n;
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int mtj_u64map_put(struct mtj_u64map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap && u64map_grow(m))
		return -ENOMEM;
	uint32_t j = slot_of(key, m->cap);

	while (m->vals[j] && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->vals[j])
		m->n++;
	m->keys[j] = key;
	m->vals[j] = val + 1;
	return 0;
}

int mtj_u64map_get(const struct mtj_u64map *m, uint64_t key, uint32_t *val)
{
	if (!m->cap)
		return 0;
	for (uint32_t j = slot_of(key, m->cap); m->vals[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key) {
			*val = m->vals[j] - 1;
			return 1;
		}
	return 0;
}

/* Linear probing deletion by backward shift: no tombstones, so lookups stay short. */
void mtj_u64map_del(struct mtj_u64map *m, uint64_t key)
{
	uint32_t mask = m->cap - 1, i, j;

	if (!m->cap)
		return;
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & mask)
		if (m->keys[i] == key)
			break;
	if (!m->vals[i])
		return;
	m->vals[i] = 0;
	m->n--;
	for (j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
		uint32_t home = slot_of(m->keys[j], m->cap);

		/* move j into the hole at i unless its home lies cyclically in (i, j] */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		m->vals[j] = 0;
		i = j;
	}
}

void mtj_u64map_free(struct mtj_u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- string interner ---- */

struct strent {
	char *s;
	size_t len;
	uint64_t hash;
};

#define RECENT 512u            /* pointer cache entries (a power of two) */

/*
 * Producers pass the same pointer for the same name again and again (a function's name is
 * one string for the whole decode), so the last id seen for a pointer is tried first: one
 * strcmp instead of hashing and probing.  The string is compared because a borrowed pointer
 * may hold another string by now, unless the pointer is known not to change: our own copy,
 * or one the caller vouched for (mtj_strtab_intern_fixed()).
 */
struct recent {
	const char *key;        /* compared, never dereferenced */
	uint32_t id;
	bool fixed;             /* key holds the same string as long as the table lives */
};

struct mtj_strtab {
	struct strent *ents;
	uint32_t n, cap;
	uint32_t *slots;        /* id + 1, 0 = empty */
	uint32_t nslots;
	struct recent recent[RECENT];
};

static inline struct recent *recent_of(struct mtj_strtab *t, const char *s)
{
	uintptr_t k = (uintptr_t)s;

	return &t->recent[(k >> 3 ^ k >> 12) & (RECENT - 1)];
}

struct mtj_strtab *mtj_strtab_new(void)
{
	return calloc(1, sizeof(struct mtj_strtab));
}

void mtj_strtab_free(struct mtj_strtab *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->n; i++)
		free(t->ents[i].s);
	free(t->ents);
	free(t->slots);
	free(t);
}

static int strtab_rehash(struct mtj_strtab *t)
{
	uint32_t ns = t->nslots ? t->nslots * 2 : 256;
	uint32_t *slots = calloc(ns, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t id = 0; id < t->n; id++) {
		uint32_t j = (uint32_t)t->ents[id].hash & (ns - 1);

		while (slots[j])
			j = (j + 1) & (ns - 1);
		slots[j] = id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
	return 0;
}

static int intern(struct mtj_strtab *t, const char *s, bool fixed, uint32_t *id)
{
	struct recent *r = recent_of(t, s);
	size_t len;
	uint64_t h;
	uint32_t j;

	if (r->key == s && (r->fixed || strcmp(t->ents[r->id].s, s) == 0)) {
		*id = r->id;
		return 0;
	}
	len = strlen(s);
	h = mtj_hash_bytes(s, len);
	if (t->nslots) {
		for (j = (uint32_t)h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
			const struct strent *e = &t->ents[t->slots[j] - 1];

			if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0) {
				*id = t->slots[j] - 1;
				*r = (struct recent){ .key = s, .id = *id, .fixed = fixed || s == e->s };
				return 0;
			}
		}
	}
	if ((t->n + 1) * 2 > t->nslots && strtab_rehash(t))
		return -ENOMEM;
	if (t->n == t->cap) {
		uint32_t ncap = t->cap ? t->cap * 2 : 64;
		struct strent *e = realloc(t->ents, (size_t)ncap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		t->ents = e;
		t->cap = ncap;
	}
	char *copy = malloc(len + 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len + 1);
	t->ents[t->n] = (struct strent){ .s = copy, .len = len, .hash = h };
	for (j = (uint32_t)h & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
		;
	t->slots[j] = t->n + 1;
	*id = t->n++;
	*r = (struct recent){ .key = s, .id = *id, .fixed = fixed };
	return 0;
}

int mtj_strtab_intern(struct mtj_strtab *t, const char *s, uint32_t *id)
{
	return intern(t, s, false, id);
}

int mtj_strtab_intern_fixed(struct mtj_strtab *t, const char *s, uint32_t *id)
{
	return intern(t, s, true, id);
}

const char *mtj_strtab_str(const struct mtj_strtab *t, uint32_t id)
{
	return id < t->n ? t->ents[id].s : NULL;
}

uint32_t mtj_strtab_count(const struct mtj_strtab *t)
{
	return t->n;
}
