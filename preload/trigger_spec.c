/*
 * preload/trigger_spec.c — the MTINJECT_TRIGGER grammar.
 *
 *   list     := trigger { ';' trigger }
 *   trigger  := location { ',' option }
 *   location := name | name '@' object | '0x' HEX | object '+0x' HEX
 *   option   := count=N|all | skip=N | every=N | min-gap=DURATION
 *
 * C++ names carry commas and spaces in their argument lists and templates
 * ("ns::f(int, char const*)", "std::map<int, int>::find"), so ',' and '+' only separate at
 * bracket depth 0, and the symbols of operator functions (operator<<, operator, and
 * operator+) are not taken for brackets or separators.
 */
#include "preload/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define LOCATION_VALID "name, name@object, 0xADDR, object+0xOFF"
#define OPTIONS_VALID  "count=N|all, skip=N, every=N, min-gap=DURATION"

struct span {
	const char *p;
	size_t n;
};

static struct span trim(const char *p, size_t n)
{
	while (n && isspace((unsigned char)*p))
		p++, n--;
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	return (struct span){ p, n };
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* If the keyword "operator" starts at i, the index just past its operator symbol; else i. */
static size_t skip_operator(struct span s, size_t i)
{
	/* Longest first, so "operator<<=" is not read as "operator<" + "<=". */
	static const char *const ops[] = {
		"<<=", ">>=", "->*", "<=>", "()", "[]", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
		"++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "->", "+", "-", "*", "/",
		"%", "^", "&", "|", "~", "!", "=", "<", ">", ",",
	};
	size_t j = i + 8;

	if ((i > 0 && ident_char(s.p[i - 1])) || s.n - i < 8 || memcmp(s.p + i, "operator", 8) ||
	    (j < s.n && ident_char(s.p[j])))
		return i;
	while (j < s.n && s.p[j] == ' ')
		j++;
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		size_t len = strlen(ops[k]);

		if (s.n - j >= len && !memcmp(s.p + j, ops[k], len))
			return j + len;
	}
	return i; /* operator new, conversion operators: nothing special follows */
}

/*
 * Index of the first (or, with `last`, the last) `sep` of s at bracket depth 0 that is not
 * part of an operator's name; s.n when there is none.  *balanced tells whether (), <> and []
 * pair up in s (a first match returns early, before looking at the rest).
 */
static size_t find_top(struct span s, char sep, bool last, bool *balanced)
{
	char expect[32];
	size_t depth = 0, found = s.n;

	*balanced = false;
	for (size_t i = 0; i < s.n; i++) {
		size_t past = skip_operator(s, i);
		char c = s.p[i];

		if (past != i) {
			i = past - 1;
		} else if (c == '(' || c == '<' || c == '[') {
			if (depth == sizeof(expect))
				return s.n;
			expect[depth++] = c == '(' ? ')' : c == '<' ? '>' : ']';
		} else if (c == ')' || c == '>' || c == ']') {
			if (depth == 0 || expect[--depth] != c)
				return s.n;
		} else if (c == sep && depth == 0) {
			found = i;
			if (!last) {
				*balanced = true;
				return found;
			}
		}
	}
	*balanced = depth == 0;
	return found;
}

/* "trigger I 'TEXT': " + the reason. */
__attribute__((format(printf, 5, 6)))
static int bad(char *err, size_t errlen, size_t idx, struct span t, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	mtj_config_err(err, errlen, "trigger %zu '%.*s': %s", idx, (int)t.n, t.p, why);
	return -EINVAL;
}

/* "0x" + 1 to 16 hex digits. */
static bool parse_hex(struct span s, uint64_t *out)
{
	uint64_t v = 0;

	if (s.n < 3 || s.n > 18 || s.p[0] != '0' || (s.p[1] != 'x' && s.p[1] != 'X'))
		return false;
	for (size_t i = 2; i < s.n; i++) {
		if (!isxdigit((unsigned char)s.p[i]))
			return false;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)s.p[i]) ? s.p[i] - '0'
								     : (tolower((unsigned char)s.p[i]) - 'a' + 10));
	}
	*out = v;
	return true;
}

/*
 * A C name ("foo", GCC's "foo.cold", mangled "_Z3fooi"), or a C++ name: anything printable
 * that starts like an identifier or "::", once its brackets are known to pair up.
 */
static bool valid_name(struct span s)
{
	bool cxx = false;

	if (!isalpha((unsigned char)s.p[0]) && s.p[0] != '_' && s.p[0] != ':')
		return false;
	for (size_t i = 0; i < s.n; i++)
		cxx |= strchr(":<([", s.p[i]) != NULL;
	for (size_t i = 0; i + 8 <= s.n; i++)
		cxx |= !memcmp(s.p + i, "operator", 8);
	for (size_t i = 0; i < s.n; i++) {
		char c = s.p[i];

		if (cxx ? !isprint((unsigned char)c) || strchr("\"'`\\#{}?", c)
			: !ident_char(c) && c != '.' && c != '$')
			return false;
	}
	return true;
}

static bool copy_span(char *dst, size_t dstlen, struct span s)
{
	if (s.n >= dstlen)
		return false;
	memcpy(dst, s.p, s.n);
	dst[s.n] = 0;
	return true;
}

static int parse_location(struct span t, size_t idx, struct span loc, struct mtj_trigger_spec *spec,
			  char *err, size_t errlen)
{
	const char *at;
	struct span name, obj;
	bool ok;
	size_t head, plus;

	if (loc.n >= 2 && loc.p[0] == '0' && (loc.p[1] == 'x' || loc.p[1] == 'X')) {
		if (!parse_hex(loc, &spec->addr))
			return bad(err, errlen, idx, t,
				   "'%.*s' is not a hex address (valid: 0x followed by 1 to 16 hex digits, e.g. 0x401136)",
				   (int)loc.n, loc.p);
		if (spec->addr == 0)
			return bad(err, errlen, idx, t,
				   "'%.*s' is address zero (valid: the address of an instruction, e.g. 0x401136)",
				   (int)loc.n, loc.p);
		spec->kind = MTJ_LOC_ADDR;
		return 0;
	}
	/* An object after '@' may itself contain '+' (libstdc++.so.6), so look before it only. */
	at = memchr(loc.p, '@', loc.n);
	head = at ? (size_t)(at - loc.p) : loc.n;
	plus = find_top((struct span){ loc.p, head }, '+', true, &ok);
	if (plus < head) {
		struct span off = trim(loc.p + plus + 1, loc.n - plus - 1);

		obj = trim(loc.p, plus);
		if (obj.n == 0)
			return bad(err, errlen, idx, t,
				   "'%.*s' has no object before '+' (valid: object+0xOFF, e.g. libfoo.so+0x1a30)",
				   (int)loc.n, loc.p);
		if (!parse_hex(off, &spec->offset))
			return bad(err, errlen, idx, t,
				   "offset '%.*s' is not hex (valid: object+0xOFF, e.g. libfoo.so+0x1a30)",
				   (int)off.n, off.p);
		if (!copy_span(spec->object, sizeof(spec->object), obj))
			return bad(err, errlen, idx, t, "the object name is %zu characters long (valid: at most %zu)",
				   obj.n, sizeof(spec->object) - 1);
		spec->kind = MTJ_LOC_OFFSET;
		return 0;
	}
	name = trim(loc.p, head);
	obj = at ? trim(at + 1, loc.n - (size_t)(at + 1 - loc.p)) : trim(loc.p, 0);
	if (at && name.n == 0)
		return bad(err, errlen, idx, t,
			   "'%.*s' has no function name before '@' (valid: name@object, e.g. foo@libbar.so)",
			   (int)loc.n, loc.p);
	if (at && obj.n == 0)
		return bad(err, errlen, idx, t,
			   "'%.*s' has an empty object after '@' (valid: name@object, e.g. foo@libbar.so)",
			   (int)loc.n, loc.p);
	if (!valid_name(name))
		return bad(err, errlen, idx, t, "'%.*s' is not a function name (valid: " LOCATION_VALID ")",
			   (int)name.n, name.p);
	if (!copy_span(spec->symbol, sizeof(spec->symbol), name))
		return bad(err, errlen, idx, t, "the function name is %zu characters long (valid: at most %zu)",
			   name.n, sizeof(spec->symbol) - 1);
	if (!copy_span(spec->object, sizeof(spec->object), obj))
		return bad(err, errlen, idx, t, "the object name is %zu characters long (valid: at most %zu)",
			   obj.n, sizeof(spec->object) - 1);
	spec->kind = MTJ_LOC_SYMBOL;
	return 0;
}

enum { OPT_COUNT, OPT_SKIP, OPT_EVERY, OPT_MIN_GAP, OPT_N };

static const char *const opt_names[OPT_N] = { "count", "skip", "every", "min-gap" };
static const char *const opt_valid[OPT_N] = {
	"count=N with N >= 1, or count=all",
	"skip=N with N >= 0",
	"every=N with N >= 1",
	"min-gap=DURATION: " MTJ_DURATION_VALID,
};

static int parse_option(struct span t, size_t idx, struct span opt, unsigned *seen,
			struct mtj_trigger_spec *spec, char *err, size_t errlen)
{
	const char *eq = memchr(opt.p, '=', opt.n);
	struct span key = trim(opt.p, eq ? (size_t)(eq - opt.p) : opt.n);
	char kbuf[64], val[64];
	uint64_t v = 0;
	int o = OPT_N, rc;

	if (opt.n == 0)
		return bad(err, errlen, idx, t, "empty option (valid: " OPTIONS_VALID ")");
	snprintf(kbuf, sizeof(kbuf), "%.*s", (int)key.n, key.p);
	for (int i = 0; i < OPT_N; i++)
		if (!strcmp(kbuf, opt_names[i]))
			o = i;
	if (o == OPT_N) {
		size_t s = mtj_suggest(kbuf, opt_names, OPT_N);

		if (s < OPT_N)
			return bad(err, errlen, idx, t,
				   "unknown option '%s' (did you mean '%s'? valid: count, skip, every, min-gap)",
				   kbuf, opt_names[s]);
		return bad(err, errlen, idx, t, "unknown option '%s' (valid: count, skip, every, min-gap)", kbuf);
	}
	if (!eq)
		return bad(err, errlen, idx, t, "option '%s' has no value (valid: %s)", kbuf, opt_valid[o]);
	if (*seen & (1u << o))
		return bad(err, errlen, idx, t, "option '%s' is given twice (valid: each option once)", kbuf);
	*seen |= 1u << o;

	struct span vs = trim(eq + 1, opt.n - (size_t)(eq + 1 - opt.p));
	snprintf(val, sizeof(val), "%.*s", (int)vs.n, vs.p);
	if (o == OPT_COUNT && !strcasecmp(val, "all")) {
		spec->count = MTJ_COUNT_ALL;
		return 0;
	}
	if (o == OPT_MIN_GAP) {
		if ((rc = mtj_parse_duration_ns(val, &spec->min_gap_ns)) < 0)
			return bad(err, errlen, idx, t, "min-gap: '%s' %s (valid: %s)", val,
				   mtj_duration_problem(val, rc), opt_valid[o]);
		return 0;
	}
	if ((rc = mtj_parse_u64(val, &v)) < 0)
		return bad(err, errlen, idx, t, "%s: '%s' %s (valid: %s)", kbuf, val, mtj_number_problem(rc),
			   opt_valid[o]);
	if (v == 0 && o != OPT_SKIP)
		return bad(err, errlen, idx, t, "%s: '0' is out of range (valid: %s)", kbuf, opt_valid[o]);
	*(o == OPT_COUNT ? &spec->count : o == OPT_SKIP ? &spec->skip : &spec->every) = v;
	return 0;
}

static int parse_one(struct span t, size_t idx, struct mtj_trigger_spec *spec, char *err, size_t errlen)
{
	unsigned seen = 0;
	bool balanced;
	size_t pos;
	int rc;

	memset(spec, 0, sizeof(*spec));
	spec->count = 1;
	spec->every = 1;
	if (!copy_span(spec->text, sizeof(spec->text), t))
		return bad(err, errlen, idx, (struct span){ t.p, 40 },
			   "the trigger is %zu characters long (valid: at most %zu)", t.n, sizeof(spec->text) - 1);
	find_top(t, 0, true, &balanced);
	if (!balanced)
		return bad(err, errlen, idx, t,
			   "unbalanced brackets (valid: every '(', '<' and '[' closed in order, as in 'ns::f<int>(int, char*)')");
	pos = find_top(t, ',', false, &balanced);
	struct span loc = trim(t.p, pos);
	if (loc.n == 0)
		return bad(err, errlen, idx, t, "missing location before the options (valid: " LOCATION_VALID ")");
	if ((rc = parse_location(t, idx, loc, spec, err, errlen)) < 0)
		return rc;
	while (pos < t.n) {
		struct span rest = { t.p + pos + 1, t.n - pos - 1 };
		size_t next = find_top(rest, ',', false, &balanced);

		if ((rc = parse_option(t, idx, trim(rest.p, next), &seen, spec, err, errlen)) < 0)
			return rc;
		pos += 1 + next;
	}
	return 0;
}

int mtj_triggers_parse(const char *text, struct mtj_trigger_spec *out, size_t max, size_t *n,
		       char *err, size_t errlen)
{
	size_t idx = 0;

	*n = 0;
	for (const char *p = text;; p++) {
		/* ';' never occurs in a symbol name, so no bracket counting here. */
		size_t raw = strcspn(p, ";");
		struct span t = trim(p, raw);
		int rc;

		idx++;
		if (t.n == 0) {
			mtj_config_err(err, errlen,
				       "trigger %zu is empty (valid: triggers separated by ';', e.g. 'foo;bar@libbar.so')",
				       idx);
			return -EINVAL;
		}
		if (idx > max)
			return bad(err, errlen, idx, t, "too many triggers (valid: at most %zu)", max);
		if ((rc = parse_one(t, idx, &out[idx - 1], err, errlen)) < 0)
			return rc;
		p += raw;
		if (!*p)
			break;
	}
	*n = idx;
	return 0;
}
