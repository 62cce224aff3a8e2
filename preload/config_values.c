/*
 * preload/config_values.c — the value types of the MTINJECT_* variables and the trigger
 * options: numbers, durations, sizes, signals, booleans, and the "did you mean" suggestion.
 * Shared by config.c (the variables) and trigger_spec.c (the trigger grammar).
 */
#include "preload/config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void mtj_config_verr(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
}

void mtj_config_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mtj_config_verr(err, errlen, fmt, ap);
	va_end(ap);
}

/* n decimal digits at s (the caller checked they are digits). */
static int digits_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int mtj_parse_u64(const char *s, uint64_t *out)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0 || s[n])
		return -EINVAL;
	return digits_u64(s, n, out);
}

int mtj_parse_duration_ns(const char *s, uint64_t *out)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000ull }, { "m", 60000000000ull },
	};
	size_t n = strspn(s, "0123456789");
	uint64_t v, mult = 0;
	int rc;

	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(s + n, units[i].unit))
			mult = units[i].ns;
	/* A bare number is only unambiguous when it is zero. */
	if (!s[n] && strspn(s, "0") == n)
		mult = 1;
	if (!mult)
		return -EINVAL;
	if ((rc = digits_u64(s, n, &v)) < 0)
		return rc;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

const char *mtj_duration_problem(const char *tok, int rc)
{
	size_t n = strspn(tok, "0123456789");

	if (rc == -ERANGE)
		return "is too large";
	if (n && !tok[n])
		return "has no unit";
	return "is not a duration";
}

const char *mtj_number_problem(int rc)
{
	return rc == -ERANGE ? "is too large" : "is not a number";
}

int mtj_parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *unit; unsigned shift; } units[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
	};
	size_t n = strspn(s, "0123456789");
	int shift = -1, rc;
	uint64_t v;

	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcasecmp(s + n, units[i].unit))
			shift = (int)units[i].shift;
	if (shift < 0)
		return -EINVAL;
	if ((rc = digits_u64(s, n, &v)) < 0)
		return rc;
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

int mtj_parse_signal(const char *s, int *out)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL },
		{ "TRAP", SIGTRAP }, { "ABRT", SIGABRT }, { "IOT", SIGIOT }, { "BUS", SIGBUS },
		{ "FPE", SIGFPE }, { "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV },
		{ "USR2", SIGUSR2 }, { "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
		{ "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD }, { "CLD", SIGCHLD }, { "CONT", SIGCONT },
		{ "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
		{ "URG", SIGURG }, { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM },
		{ "PROF", SIGPROF }, { "WINCH", SIGWINCH }, { "IO", SIGIO }, { "POLL", SIGPOLL },
		{ "PWR", SIGPWR }, { "SYS", SIGSYS },
	};
	size_t n = strspn(s, "0123456789");
	uint64_t v;

	if (n && !s[n]) {
		if (mtj_parse_u64(s, &v) < 0 || v < 1 || v > (uint64_t)SIGRTMAX)
			return -EINVAL;
		*out = (int)v;
		return 0;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcasecmp(s, names[i].name)) {
			*out = names[i].sig;
			return 0;
		}
	/* RTMIN, RTMIN+N, RTMAX, RTMAX-N, as kill(1) spells them. */
	if (!strncasecmp(s, "RTMIN", 5) || !strncasecmp(s, "RTMAX", 5)) {
		bool min = !strncasecmp(s, "RTMIN", 5);
		const char *rest = s + 5;

		v = 0;
		if (*rest && (*rest != (min ? '+' : '-') || mtj_parse_u64(rest + 1, &v) < 0))
			return -EINVAL;
		if (v > (uint64_t)(SIGRTMAX - SIGRTMIN))
			return -EINVAL;
		*out = min ? SIGRTMIN + (int)v : SIGRTMAX - (int)v;
		return 0;
	}
	return -EINVAL;
}

int mtj_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int lower_at(const char *s, size_t i)
{
	return tolower((unsigned char)s[i]);
}

size_t mtj_edit_distance(const char *a, const char *b)
{
	enum { MAXW = 64 };
	size_t la = strlen(a), lb = strlen(b);
	int d[MAXW + 1][MAXW + 1];

	if (la > MAXW || lb > MAXW)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int best = d[i - 1][j - 1] + (lower_at(a, i - 1) != lower_at(b, j - 1));

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && lower_at(a, i - 1) == lower_at(b, j - 2) &&
			    lower_at(a, i - 2) == lower_at(b, j - 1) && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return (size_t)d[la][lb];
}

size_t mtj_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t best = n, best_d = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		size_t d = mtj_edit_distance(word, cands[i]);
		size_t limit = (strlen(cands[i]) + 1) / 3;

		/* A suggestion further away than about a third of the word is noise ("FOO" -> "ON"). */
		if (d <= (limit ? limit : 1) && d < best_d) {
			best = i;
			best_d = d;
		}
	}
	return best;
}
