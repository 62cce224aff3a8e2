/*
 * decode/json.c — JSON string escaping for the writers and a small recursive-descent reader.
 */
#include "decode/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MTJ_JSON_MAX_DEPTH 64

static const char hexdig[] = "0123456789abcdef";

/* Length of the valid UTF-8 sequence starting at s (>= 0x80), or 0 if it is not valid. */
static size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;      /* overlong */
		else if (c == 0xed)
			hi = 0x9f;      /* UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;      /* > U+10FFFF */
	} else
		return 0;
	if (avail < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

char *mtj_json_escape_into(char *dst, const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*dst++ = (char)c;
			i++;
			continue;
		}
		if (c >= 0x80) {
			size_t n = utf8_seq_len(s + i, len - i);

			if (n == 0) {
				memcpy(dst, "\\ufffd", 6);
				dst += 6;
				i++;
			} else {
				memcpy(dst, s + i, n);
				dst += n;
				i += n;
			}
			continue;
		}
		*dst++ = '\\';
		switch (c) {
		case '"': *dst++ = '"'; break;
		case '\\': *dst++ = '\\'; break;
		case '\n': *dst++ = 'n'; break;
		case '\t': *dst++ = 't'; break;
		case '\r': *dst++ = 'r'; break;
		case '\b': *dst++ = 'b'; break;
		case '\f': *dst++ = 'f'; break;
		default:
			*dst++ = 'u';
			*dst++ = '0';
			*dst++ = '0';
			*dst++ = hexdig[c >> 4];
			*dst++ = hexdig[c & 15];
		}
		i++;
	}
	return dst;
}

int mtj_json_fput_str(FILE *f, const char *s)
{
	char buf[1024];
	size_t len = strlen(s);

	if (fputc('"', f) == EOF)
		return -EIO;
	while (len) {
		size_t n = len > sizeof(buf) / 6 ? sizeof(buf) / 6 : len;

		/* never split a UTF-8 sequence between two chunks */
		while (n < len && n > 1 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		char *end = mtj_json_escape_into(buf, s, n);
		if (fwrite(buf, 1, (size_t)(end - buf), f) != (size_t)(end - buf))
			return -EIO;
		s += n;
		len -= n;
	}
	return fputc('"', f) == EOF ? -EIO : 0;
}

/* ---- reader -------------------------------------------------------------------------- */

struct parser {
	const char *s;
	size_t len, pos;
	struct mtj_json_err *err;
};

static int perr(struct parser *p, const char *fmt, ...)
{
	if (p->err) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
		va_end(ap);
		p->err->offset = p->pos;
	}
	return -EINVAL;
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

static int hex4(struct parser *p, unsigned *out)
{
	unsigned v = 0;

	if (p->len - p->pos < 4)
		return perr(p, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos + (size_t)i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return perr(p, "bad hex digit in \\u escape");
	}
	p->pos += 4;
	*out = v;
	return 0;
}

static size_t put_utf8(char *d, unsigned cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | (cp >> 6));
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | (cp >> 12));
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | (cp >> 18));
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* p->pos is just after the opening quote. */
static int parse_string(struct parser *p, char **out, size_t *outlen)
{
	size_t start = p->pos, end = start;

	/* Decoded text is never longer than the literal: size the buffer from a first scan. */
	while (end < p->len && p->s[end] != '"') {
		if (p->s[end] == '\\')
			end++;
		end++;
	}
	if (end >= p->len) {
		p->pos = p->len;
		return perr(p, "unterminated string");
	}
	char *d = malloc(end - start + 1);
	size_t n = 0;

	if (!d)
		return -ENOMEM;
	while (p->s[p->pos] != '"') {
		unsigned char c = (unsigned char)p->s[p->pos];

		if (c < 0x20) {
			free(d);
			return perr(p, "control character in string");
		}
		if (c != '\\') {
			d[n++] = (char)c;
			p->pos++;
			continue;
		}
		p->pos++;
		char e = p->s[p->pos++];
		unsigned cp, lo;

		switch (e) {
		case '"': d[n++] = '"'; break;
		case '\\': d[n++] = '\\'; break;
		case '/': d[n++] = '/'; break;
		case 'b': d[n++] = '\b'; break;
		case 'f': d[n++] = '\f'; break;
		case 'n': d[n++] = '\n'; break;
		case 'r': d[n++] = '\r'; break;
		case 't': d[n++] = '\t'; break;
		case 'u':
			if (hex4(p, &cp)) {
				free(d);
				return -EINVAL;
			}
			if (cp >= 0xd800 && cp < 0xdc00 && p->len - p->pos >= 6 &&
			    p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u') {
				p->pos += 2;
				if (hex4(p, &lo)) {
					free(d);
					return -EINVAL;
				}
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					cp = 0xfffd;
			} else if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			/* a \u escape of up to 4 bytes UTF-8 replaces >= 6 bytes of literal */
			n += put_utf8(d + n, cp);
			break;
		default:
			p->pos -= 2;    /* point at the backslash */
			free(d);
			return perr(p, "bad escape '\\%c'", e);
		}
	}
	p->pos++;
	d[n] = '\0';
	*out = d;
	*outlen = n;
	return 0;
}

static int parse_number(struct parser *p, struct mtj_json *v)
{
	size_t start = p->pos;
	bool frac = false;

	if (p->pos < p->len && p->s[p->pos] == '-')
		p->pos++;
	if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
		return perr(p, "bad number");
	if (p->s[p->pos] == '0')
		p->pos++;
	else
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
	if (p->pos < p->len && p->s[p->pos] == '.') {
		frac = true;
		p->pos++;
		if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
			return perr(p, "bad number: digit expected after '.'");
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		frac = true;
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
			return perr(p, "bad number: digit expected in exponent");
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
	}
	size_t n = p->pos - start;
	char local[64];
	char *txt = n < sizeof(local) ? local : malloc(n + 1);

	if (!txt)
		return -ENOMEM;
	memcpy(txt, p->s + start, n);
	txt[n] = '\0';
	v->type = MTJ_JSON_NUM;
	v->d = strtod(txt, NULL);
	v->neg = txt[0] == '-';
	memcpy(v->numtext, txt, n < sizeof(v->numtext) - 1 ? n : sizeof(v->numtext) - 1);
	if (txt != local)
		free(txt);
	if (!frac && n < sizeof(v->numtext)) {
		uint64_t u = 0;
		bool ok = true;

		for (size_t i = v->neg ? 1 : 0; i < n; i++) {
			unsigned dg = (unsigned)(v->numtext[i] - '0');

			if (u > (UINT64_MAX - dg) / 10) {
				ok = false;
				break;
			}
			u = u * 10 + dg;
		}
		if (ok && v->neg && u > (uint64_t)INT64_MAX + 1)
			ok = false;
		v->is_int = ok;
		v->u = ok ? u : 0;
	}
	return 0;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
		return perr(p, "unexpected character '%c'", p->s[p->pos]);
	p->pos += n;
	return 0;
}

static int parse_value(struct parser *p, struct mtj_json *v, int depth);

static int grow(struct mtj_json *v, size_t *cap, bool keys)
{
	if (v->len < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 4;
	struct mtj_json *items = realloc(v->items, ncap * sizeof(*items));

	if (!items)
		return -ENOMEM;
	v->items = items;
	if (keys) {
		char **k = realloc(v->keys, ncap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		v->keys = k;
	}
	*cap = ncap;
	return 0;
}

static int parse_container(struct parser *p, struct mtj_json *v, int depth, bool obj)
{
	char close = obj ? '}' : ']';
	size_t cap = 0;
	int rc;

	v->type = obj ? MTJ_JSON_OBJ : MTJ_JSON_ARR;
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		size_t klen;

		skip_ws(p);
		if (obj) {
			if (p->pos >= p->len || p->s[p->pos] != '"')
				return perr(p, p->pos >= p->len ? "truncated object" : "object key expected");
			p->pos++;
			if ((rc = parse_string(p, &key, &klen)))
				return rc;
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(key);
				return perr(p, "':' expected after object key");
			}
			p->pos++;
		}
		if ((rc = grow(v, &cap, obj))) {
			free(key);
			return rc;
		}
		memset(&v->items[v->len], 0, sizeof(v->items[0]));
		if (obj)
			v->keys[v->len] = key;
		v->len++;       /* counted before parsing so mtj_json_free releases partial items */
		if ((rc = parse_value(p, &v->items[v->len - 1], depth + 1)))
			return rc;
		skip_ws(p);
		if (p->pos >= p->len)
			return perr(p, obj ? "truncated object" : "truncated array");
		if (p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->s[p->pos] == close) {
			p->pos++;
			return 0;
		}
		return perr(p, "',' or '%c' expected", close);
	}
}

static int parse_value(struct parser *p, struct mtj_json *v, int depth)
{
	if (depth > MTJ_JSON_MAX_DEPTH)
		return perr(p, "nested too deeply");
	skip_ws(p);
	if (p->pos >= p->len)
		return perr(p, "value expected, got end of input");
	switch (p->s[p->pos]) {
	case '{': return parse_container(p, v, depth, true);
	case '[': return parse_container(p, v, depth, false);
	case '"':
		p->pos++;
		v->type = MTJ_JSON_STR;
		return parse_string(p, &v->s, &v->len);
	case 't':
		v->type = MTJ_JSON_BOOL;
		v->b = true;
		return literal(p, "true");
	case 'f':
		v->type = MTJ_JSON_BOOL;
		return literal(p, "false");
	case 'n':
		v->type = MTJ_JSON_NULL;
		return literal(p, "null");
	default:
		if (p->s[p->pos] != '-' && (p->s[p->pos] < '0' || p->s[p->pos] > '9'))
			return perr(p, "unexpected character '%c'", p->s[p->pos]);
		return parse_number(p, v);
	}
}

int mtj_json_parse(const char *s, size_t len, size_t *consumed, struct mtj_json *out,
		   struct mtj_json_err *err)
{
	struct parser p = { .s = s, .len = len, .err = err };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = parse_value(&p, out, 0);
	if (rc) {
		if (rc == -ENOMEM && err) {
			snprintf(err->msg, sizeof(err->msg), "out of memory");
			err->offset = p.pos;
		}
		mtj_json_free(out);
		return rc;
	}
	if (consumed)
		*consumed = p.pos;
	return 0;
}

void mtj_json_free(struct mtj_json *v)
{
	if (!v)
		return;
	if (v->type == MTJ_JSON_STR)
		free(v->s);
	if (v->type == MTJ_JSON_ARR || v->type == MTJ_JSON_OBJ) {
		for (size_t i = 0; i < v->len; i++) {
			mtj_json_free(&v->items[i]);
			if (v->keys)
				free(v->keys[i]);
		}
		free(v->items);
		free(v->keys);
	}
	memset(v, 0, sizeof(*v));
}

const struct mtj_json *mtj_json_get(const struct mtj_json *obj, const char *key)
{
	if (!obj || obj->type != MTJ_JSON_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->len; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	return NULL;
}

int mtj_json_num_scaled(const struct mtj_json *v, unsigned scale, int64_t *out)
{
	const char *t;
	uint64_t u = 0;
	unsigned fdigits = 0;
	bool neg = false;

	if (!v || v->type != MTJ_JSON_NUM || scale > 9 || strlen(v->numtext) >= sizeof(v->numtext) - 1)
		return -EINVAL;
	t = v->numtext;
	if (*t == '-') {
		neg = true;
		t++;
	}
	for (; *t >= '0' && *t <= '9'; t++) {
		if (u > (UINT64_MAX / 10 - 9))
			return -EINVAL;
		u = u * 10 + (uint64_t)(*t - '0');
	}
	if (*t == '.')
		for (t++; *t >= '0' && *t <= '9'; t++) {
			if (fdigits == scale) {
				if (*t != '0')
					return -EINVAL;  /* more precision than the scale holds */
				continue;
			}
			if (u > (UINT64_MAX / 10 - 9))
				return -EINVAL;
			u = u * 10 + (uint64_t)(*t - '0');
			fdigits++;
		}
	if (*t)
		return -EINVAL;          /* exponent: not needed for our files */
	for (; fdigits < scale; fdigits++) {
		if (u > UINT64_MAX / 10)
			return -EINVAL;
		u *= 10;
	}
	if (u > (uint64_t)INT64_MAX)
		return -EINVAL;
	*out = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}
