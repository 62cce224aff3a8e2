/*
 * decode/json.h — the small JSON toolkit of the decoder: a string escaper for the writers
 * (fast path: plain ASCII is copied as is) and a minimal tree reader good enough for
 * hits.jsonl lines and for our own trace files (one event at a time).
 */
#ifndef MTJ_DECODE_JSON_H
#define MTJ_DECODE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Escape s[0..len) for use inside a JSON string (no quotes added).  dst must have room for
 * MTJ_JSON_ESCAPED_MAX(len) bytes; returns the end of what was written (not terminated).
 * Control characters become \n, \t, ... or \u00XX; bytes that are not valid UTF-8 become
 * \ufffd, so the output is always valid JSON whatever the input. */
#define MTJ_JSON_ESCAPED_MAX(len) ((len) * 6)
char *mtj_json_escape_into(char *dst, const char *s, size_t len);

/* Write s as a quoted JSON string to f; 0 or -EIO. */
int mtj_json_fput_str(FILE *f, const char *s);

enum mtj_json_type {
	MTJ_JSON_NULL = 0, MTJ_JSON_BOOL, MTJ_JSON_NUM, MTJ_JSON_STR, MTJ_JSON_ARR, MTJ_JSON_OBJ,
};

struct mtj_json {
	enum mtj_json_type type;
	bool b;                /* BOOL */
	bool is_int;           /* NUM written without fraction or exponent and fits int64/uint64 */
	bool neg;              /* NUM is negative */
	double d;              /* NUM */
	uint64_t u;            /* NUM, is_int: magnitude */
	char *s;               /* STR: decoded UTF-8, NUL-terminated (may contain NULs, see len) */
	size_t len;            /* STR: bytes; ARR/OBJ: number of items */
	char **keys;           /* OBJ: keys[i] names items[i] */
	struct mtj_json *items;
	char numtext[32];      /* NUM: the literal as written (truncated if longer) */
};

struct mtj_json_err {
	size_t offset;         /* byte offset of the problem in the input */
	char msg[96];
};

/* Parse one JSON value at the start of s[0..len) (leading white space skipped).
 * *consumed (may be NULL) gets the offset just after the value.  Returns 0, -EINVAL
 * (syntax error, described in *err), or -ENOMEM.  On error *out is left empty. */
int mtj_json_parse(const char *s, size_t len, size_t *consumed, struct mtj_json *out,
		   struct mtj_json_err *err);
void mtj_json_free(struct mtj_json *v);

/* Member of an object by key (first match), or NULL; NULL-safe. */
const struct mtj_json *mtj_json_get(const struct mtj_json *obj, const char *key);

/* A NUM written as a decimal with up to 9 fraction digits, scaled by 10^scale_digits and
 * returned exactly (e.g. "12.345" with scale 3 -> 12345).  -EINVAL if not representable. */
int mtj_json_num_scaled(const struct mtj_json *v, unsigned scale_digits, int64_t *out);

#endif
