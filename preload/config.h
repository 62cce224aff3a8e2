/*
 * preload/config.h — every MTINJECT_* variable, read once from one table, validated.
 *
 * Nothing else in mtinject calls getenv(): the preload's constructor and the `mtinject`
 * tool both call mtj_config_parse() and get either a complete configuration or one message
 * that names the variable, the bad token and what would be valid.
 */
#ifndef MTJ_PRELOAD_CONFIG_H
#define MTJ_PRELOAD_CONFIG_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control/perf.h"

#define MTJ_MAX_TRIGGERS   16   /* grammar limit; the hardware limit is checked separately */
#define MTJ_HW_BREAKPOINTS 4    /* x86 debug registers */
#define MTJ_MAX_ON_SIGNALS 8
#define MTJ_COUNT_ALL      UINT64_MAX

enum mtj_loc_kind {
	MTJ_LOC_SYMBOL = 0,   /* name, or name@object */
	MTJ_LOC_ADDR,         /* 0xADDR (absolute) */
	MTJ_LOC_OFFSET,       /* object+0xOFF (file offset into object) */
};

struct mtj_trigger_spec {
	char text[512];             /* the whole trigger as configured, for hits.jsonl */
	enum mtj_loc_kind kind;
	char symbol[384];           /* MTJ_LOC_SYMBOL: mangled or demangled, maybe with (args) */
	char object[256];           /* "" = main executable; else file name, soname or path */
	uint64_t addr;              /* MTJ_LOC_ADDR */
	uint64_t offset;            /* MTJ_LOC_OFFSET */
	uint64_t count;             /* snapshots at most; default 1; MTJ_COUNT_ALL for count=all */
	uint64_t skip;              /* ignore the first N hits */
	uint64_t every;             /* snapshot on every Nth (counted after skip); default 1 */
	uint64_t min_gap_ns;        /* rate limit; 0 = none */
};

enum mtj_on {
	MTJ_ON_EXIT   = 1u << 0,
	MTJ_ON_CRASH  = 1u << 1,    /* SIGSEGV, SIGBUS, SIGFPE, SIGILL */
	MTJ_ON_ABORT  = 1u << 2,    /* SIGABRT */
	MTJ_ON_SIGNAL = 1u << 3,    /* on_signals[] */
	MTJ_ON_API    = 1u << 4,    /* only mtinject_snapshot(): keep the recorder running for it */
};

enum mtj_session_kind {
	MTJ_SESSION_SPAWN = 0,      /* default */
	MTJ_SESSION_FIFO,           /* fifo:CTL,ACK[,pid:PID|pid:parent] */
	MTJ_SESSION_FD,             /* fd:CTL,ACK[,pid:...] */
	MTJ_SESSION_PID,            /* pid:PID  (signals only) */
	MTJ_SESSION_NONE,           /* hits only, no perf */
};

enum mtj_follow_fork { MTJ_FORK_DISARM = 0, MTJ_FORK_TRACE };

enum mtj_log_level { MTJ_LOG_QUIET = 0, MTJ_LOG_ERROR, MTJ_LOG_INFO, MTJ_LOG_DEBUG };

struct mtj_config {
	struct mtj_trigger_spec triggers[MTJ_MAX_TRIGGERS];
	size_t ntriggers;
	unsigned on;                        /* MTJ_ON_* */
	int on_signals[MTJ_MAX_ON_SIGNALS];
	size_t non_signals;
	char output[PATH_MAX];              /* "" = default ./mtinject-<prog>-<pid>/ */
	enum mtj_session_kind session;
	char session_spec[256];             /* the text after "fifo:", "fd:", "pid:" */
	enum mtj_backend backend;
	uint64_t snapshot_size;             /* bytes, 0 = backend default */
	unsigned sample_freq;               /* 0 = default */
	enum mtj_callgraph callgraph;
	char timer_resolution[32];          /* "" = normal */
	int start_timeout_ms;               /* default 5000; 0 = do not wait */
	unsigned keep;                      /* newest snapshots kept; default 10; 0 = all */
	uint64_t hits_max;                  /* no-snapshot hits written to hits.jsonl; 10000; 0 = all */
	enum mtj_follow_fork follow_fork;
	bool follow_exec;
	bool strict;
	bool bpf_events;
	enum mtj_log_level log_level;       /* default ERROR */
	char log_file[PATH_MAX];            /* "" = stderr */
	char perf[PATH_MAX];                /* "" = perf from PATH */
};

/* One row per variable: the single source for parsing, `mtinject info` and the docs test. */
struct mtj_env_var {
	const char *name;         /* "MTINJECT_BACKEND" */
	const char *default_text; /* "auto" */
	const char *help;         /* one line */
	/* Stores the (trimmed, non-empty) value in cfg.  On error returns -EINVAL and writes
	 * the reason without the variable's name ("'ptt' is not a backend (valid: ...)"). */
	int (*parse)(struct mtj_config *cfg, const char *value, char *err, size_t errlen);
};
extern const struct mtj_env_var mtj_env_vars[];
extern const size_t mtj_env_vars_count;

typedef const char *(*mtj_getenv_fn)(const char *name);

/* Every field at its default (what an empty environment gives). */
void mtj_config_defaults(struct mtj_config *cfg);

/*
 * Parse the whole environment through `get` (getenv in production, a table in tests).
 * Every variable is asked for exactly once; an empty value is the same as an unset one.
 * On error returns -EINVAL and writes one line to err, e.g.
 *   "MTINJECT_BACKEND: 'ptt' is not a backend (valid: auto, pt, sampling)".
 * Even then every other variable is parsed, so cfg->strict, log_level and log_file are
 * right for reporting the error; the bad variable keeps its default.
 * More triggers than MTJ_HW_BREAKPOINTS is -EINVAL too.
 * A missing/empty MTINJECT_TRIGGER with no MTINJECT_ON is reported as -ENOENT (nothing to do);
 * cfg is then complete and valid, so a caller may still serve mtinject_snapshot().
 */
int mtj_config_parse(struct mtj_config *cfg, mtj_getenv_fn get, char *err, size_t errlen);

/*
 * getenv cannot list the environment, so typos are caught here: the first MTINJECT_* entry
 * of `envp` (an environ-style NULL-terminated "NAME=value" list) that is not in mtj_env_vars
 * gives -EINVAL and "MTINJECT_TRIGER is not a known variable (did you mean MTINJECT_TRIGGER?)".
 */
int mtj_config_check_unknown(char *const *envp, char *err, size_t errlen);

/*
 * Both of the above, in the order that gives the most useful message: a bad value first,
 * then an unknown variable (a typo such as MTINJECT_TRIGER is usually why there is nothing
 * to do), then -ENOENT.  What the preload's constructor and `mtinject run` call.
 */
int mtj_config_load(struct mtj_config *cfg, mtj_getenv_fn get, char *const *envp, char *err,
		    size_t errlen);

/* Parse a trigger list ("a;b@libc.so.6,count=all;0x401000,skip=3").  Used by the parser
 * above and by `mtinject run -t`.  Errors name the trigger, the token and the valid forms,
 * e.g. "trigger 2 'bar,cnt=3': unknown option 'cnt' (valid: count, skip, every, min-gap)".
 * *n is 0 after an error.  More than `max` triggers is an error. */
int mtj_triggers_parse(const char *text, struct mtj_trigger_spec *out, size_t max, size_t *n,
		       char *err, size_t errlen);

/* "50ms" -> 50000000; units ns, us, ms, s, m (minutes); a unit is required except for "0".
 * -EINVAL on junk or a missing unit, -ERANGE on overflow. */
int mtj_parse_duration_ns(const char *s, uint64_t *out);
/* "4M" -> 4194304; units none, K, M, G (powers of 1024, optional "iB"/"B"; k/m/g too).
 * -EINVAL on junk, -ERANGE on overflow. */
int mtj_parse_size(const char *s, uint64_t *out);
/* "SIGUSR1", "USR1", "usr1", "10", "SIGRTMIN+2" -> signal number.  -EINVAL if none. */
int mtj_parse_signal(const char *s, int *out);
/* Decimal digits only.  -EINVAL on junk, -ERANGE on overflow. */
int mtj_parse_u64(const char *s, uint64_t *out);
/* 0/1/yes/no/true/false/on/off, any case. */
int mtj_parse_bool(const char *s, bool *out);

/* ---- shared by config.c and trigger_spec.c for their messages ----------------------------- */
#define MTJ_DURATION_VALID "0, or an integer with a unit ns, us, ms, s or m, e.g. 250ms"
/* Why a token failed mtj_parse_duration_ns() with `rc`: "has no unit", "is too large", ... */
const char *mtj_duration_problem(const char *tok, int rc);
/* Why a token failed mtj_parse_u64() with `rc`: "is not a number" or "is too large". */
const char *mtj_number_problem(int rc);
/* Index of the candidate closest to `word` (case-insensitive edit distance), or n when none
 * is close enough to be worth suggesting. */
size_t mtj_suggest(const char *word, const char *const *cands, size_t n);
/* Optimal-string-alignment distance (a swap of neighbours counts 1), ignoring case; words
 * longer than 64 characters are SIZE_MAX apart.  Shared by every "did you mean". */
size_t mtj_edit_distance(const char *a, const char *b);
/* snprintf into err (which may be NULL when errlen is 0).  The one error-buffer formatter
 * of the project: the decoder's mtj_decode_set_err() is the same via the va_list form. */
void mtj_config_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mtj_config_verr(char *err, size_t errlen, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
