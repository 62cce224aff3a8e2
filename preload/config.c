/*
 * preload/config.c — the table of MTINJECT_* variables and the parsers of their values.
 *
 * The table is the program: mtj_config_parse() walks it, asks the getter for each name once
 * and hands the value to the row's parser, so a variable cannot be read anywhere else or
 * forgotten in the docs (tests/integration/090-docs-env.sh checks them against the table).
 * The trigger grammar lives in trigger_spec.c, the value types in config_values.c.
 */
#include "preload/config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- one parser per variable ------------------------------------------------------------- */

/* Copy a path-like value into a fixed field. */
static int set_path(char *dst, size_t dstlen, const char *v, char *err, size_t errlen)
{
	size_t n = strlen(v);

	if (n >= dstlen) {
		mtj_config_err(err, errlen, "the path is %zu bytes long (valid: at most %zu)", n,
			       dstlen - 1);
		return -EINVAL;
	}
	memcpy(dst, v, n + 1);
	return 0;
}

/* v must be one of words[]: *out = its index.  what = "a backend", ... */
static int keyword(const char *v, const char *const *words, size_t n, const char *what, int *out,
		   char *err, size_t errlen)
{
	char valid[128] = "";

	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(v, words[i])) {
			*out = (int)i;
			return 0;
		}
		if (i)
			strncat(valid, ", ", sizeof(valid) - strlen(valid) - 1);
		strncat(valid, words[i], sizeof(valid) - strlen(valid) - 1);
	}
	mtj_config_err(err, errlen, "'%s' is not %s (valid: %s)", v, what, valid);
	return -EINVAL;
}

static int bool_var(bool *dst, const char *v, char *err, size_t errlen)
{
	if (mtj_parse_bool(v, dst) < 0) {
		mtj_config_err(err, errlen,
			       "'%s' is not a boolean (valid: 0, 1, yes, no, true, false, on, off)", v);
		return -EINVAL;
	}
	return 0;
}

static int parse_trigger(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	return mtj_triggers_parse(v, cfg->triggers, MTJ_MAX_TRIGGERS, &cfg->ntriggers, err, errlen);
}

#define ON_VALID "exit, crash, abort, api, signal:SIGNAME"

/* One "signal:NAME" entry of MTINJECT_ON (item/len is the whole entry, for messages). */
static int on_signal(const char *item, int len, const char *name, size_t namelen, int *sig,
		     char *err, size_t errlen)
{
	char buf[32];

	if (namelen == 0) {
		mtj_config_err(err, errlen, "'%.*s' names no signal (valid: signal:SIGNAME, e.g. signal:SIGUSR1)",
			       len, item);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)namelen, name);
	if (namelen >= sizeof(buf) || mtj_parse_signal(buf, sig) < 0) {
		mtj_config_err(err, errlen,
			       "'%.*s' is not a signal (valid: signal:NAME or signal:NUMBER, e.g. signal:SIGUSR1, signal:USR1, signal:10)",
			       len, item);
		return -EINVAL;
	}
	if (*sig == SIGKILL || *sig == SIGSTOP) {
		mtj_config_err(err, errlen,
			       "'%.*s': %s cannot be caught by any program (valid: another signal, e.g. signal:SIGUSR1)",
			       len, item, *sig == SIGKILL ? "SIGKILL" : "SIGSTOP");
		return -EINVAL;
	}
	if (*sig == SIGTRAP) {
		mtj_config_err(err, errlen,
			       "'%.*s': SIGTRAP is used by mtinject's breakpoints (valid: another signal, e.g. signal:SIGUSR1)",
			       len, item);
		return -EINVAL;
	}
	return 0;
}

static int parse_on(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	static const struct { const char *word; unsigned bit; } events[] = {
		{ "exit", MTJ_ON_EXIT }, { "crash", MTJ_ON_CRASH }, { "abort", MTJ_ON_ABORT },
		{ "api", MTJ_ON_API },
	};
	int sigs[MTJ_MAX_ON_SIGNALS];
	size_t nsigs = 0;
	unsigned on = 0;

	for (const char *p = v;; p++) {
		size_t raw = strcspn(p, ","), n = raw;
		const char *item = p;
		unsigned bit = 0;

		while (n && isspace((unsigned char)*item))
			item++, n--;
		while (n && isspace((unsigned char)item[n - 1]))
			n--;
		if (n == 0) {
			mtj_config_err(err, errlen, "empty entry in '%s' (valid: " ON_VALID ", separated by ',')", v);
			return -EINVAL;
		}
		for (size_t i = 0; i < ARRAY_SIZE(events); i++)
			if (n == strlen(events[i].word) && !strncasecmp(item, events[i].word, n))
				bit = events[i].bit;
		if (bit & on) {
			mtj_config_err(err, errlen, "'%.*s' is listed twice", (int)n, item);
			return -EINVAL;
		}
		if (!bit && n >= 7 && !strncasecmp(item, "signal:", 7)) {
			const char *name = item + 7;
			size_t namelen = n - 7;
			int sig;

			while (namelen && isspace((unsigned char)*name))
				name++, namelen--;
			if (on_signal(item, (int)n, name, namelen, &sig, err, errlen) < 0)
				return -EINVAL;
			for (size_t i = 0; i < nsigs; i++)
				if (sigs[i] == sig) {
					mtj_config_err(err, errlen, "'%.*s' is listed twice", (int)n, item);
					return -EINVAL;
				}
			if (nsigs == MTJ_MAX_ON_SIGNALS) {
				mtj_config_err(err, errlen, "'%.*s' is one signal too many (valid: at most %d signal: entries)",
					       (int)n, item, MTJ_MAX_ON_SIGNALS);
				return -EINVAL;
			}
			sigs[nsigs++] = sig;
			bit = MTJ_ON_SIGNAL;
		} else if (!bit) {
			mtj_config_err(err, errlen, "'%.*s' is not an event (valid: " ON_VALID ")", (int)n, item);
			return -EINVAL;
		}
		on |= bit;
		p += raw;
		if (!*p)
			break;
	}
	cfg->on = on;
	memcpy(cfg->on_signals, sigs, nsigs * sizeof(sigs[0]));
	cfg->non_signals = nsigs;
	return 0;
}

static int parse_output(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	return set_path(cfg->output, sizeof(cfg->output), v, err, errlen);
}

#define SESSION_VALID "spawn, fifo:CTL,ACK[,pid:PID|pid:parent], fd:CTL,ACK[,pid:PID|pid:parent], pid:PID, none"

/* A positive pid that fits pid_t. */
static bool is_pid(const char *s, size_t n)
{
	char buf[24];
	uint64_t v;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	return mtj_parse_u64(buf, &v) == 0 && v >= 1 && v <= INT_MAX;
}

/* "CTL,ACK[,pid:PID|pid:parent]" after fifo: or fd: */
static int session_pipes(const char *v, const char *rest, bool fds, char *err, size_t errlen)
{
	const char *ack, *extra;
	size_t nctl, nack;

	nctl = strcspn(rest, ",");
	ack = rest + nctl + (rest[nctl] == ',');
	nack = strcspn(ack, ",");
	extra = ack[nack] ? ack + nack + 1 : NULL;
	if (!rest[nctl] || nctl == 0 || nack == 0) {
		mtj_config_err(err, errlen, "'%s' needs two %s, CTL and ACK (valid: %s)", v,
			       fds ? "file descriptors" : "fifo paths", SESSION_VALID);
		return -EINVAL;
	}
	if (fds) {
		char c[16] = "", a[16] = "";
		uint64_t fc, fa;

		if (nctl < sizeof(c))
			memcpy(c, rest, nctl);
		if (nack < sizeof(a))
			memcpy(a, ack, nack);
		if (mtj_parse_u64(c, &fc) < 0 || fc > INT_MAX || mtj_parse_u64(a, &fa) < 0 || fa > INT_MAX) {
			mtj_config_err(err, errlen,
				       "'%s': CTL and ACK must be file descriptor numbers (valid: fd:CTL,ACK, e.g. fd:5,6)", v);
			return -EINVAL;
		}
		if (fc == fa) {
			mtj_config_err(err, errlen, "'%s': CTL and ACK must differ (valid: fd:CTL,ACK, e.g. fd:5,6)", v);
			return -EINVAL;
		}
	}
	if (extra && strncmp(extra, "pid:", 4) == 0 &&
	    (strcmp(extra + 4, "parent") == 0 || is_pid(extra + 4, strlen(extra + 4))))
		return 0;
	if (extra) {
		mtj_config_err(err, errlen, "'%s': '%s' is not a perf pid (valid: pid:PID or pid:parent)", v, extra);
		return -EINVAL;
	}
	return 0;
}

static int parse_session(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	static const struct { const char *prefix; enum mtj_session_kind kind; } forms[] = {
		{ "spawn", MTJ_SESSION_SPAWN }, { "none", MTJ_SESSION_NONE },
		{ "fifo:", MTJ_SESSION_FIFO }, { "fd:", MTJ_SESSION_FD }, { "pid:", MTJ_SESSION_PID },
	};
	const char *rest = NULL;
	enum mtj_session_kind kind = MTJ_SESSION_SPAWN;

	for (size_t i = 0; i < ARRAY_SIZE(forms) && !rest; i++) {
		size_t n = strlen(forms[i].prefix);
		bool takes_arg = forms[i].prefix[n - 1] == ':';

		if (takes_arg ? !strncasecmp(v, forms[i].prefix, n) : !strcasecmp(v, forms[i].prefix)) {
			rest = v + (takes_arg ? n : strlen(v));
			kind = forms[i].kind;
		}
	}
	if (!rest) {
		mtj_config_err(err, errlen, "'%s' is not a session (valid: %s)", v, SESSION_VALID);
		return -EINVAL;
	}
	if (kind == MTJ_SESSION_PID && !is_pid(rest, strlen(rest))) {
		mtj_config_err(err, errlen, "'%s': '%s' is not a process id (valid: pid:PID, e.g. pid:4242)", v, rest);
		return -EINVAL;
	}
	if ((kind == MTJ_SESSION_FIFO || kind == MTJ_SESSION_FD) &&
	    session_pipes(v, rest, kind == MTJ_SESSION_FD, err, errlen) < 0)
		return -EINVAL;
	if (strlen(rest) >= sizeof(cfg->session_spec)) {
		mtj_config_err(err, errlen, "'%.40s...' is %zu bytes long (valid: at most %zu after the prefix)",
			       v, strlen(rest), sizeof(cfg->session_spec) - 1);
		return -EINVAL;
	}
	cfg->session = kind;
	strcpy(cfg->session_spec, rest);
	return 0;
}

static int parse_backend(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	static const char *const words[] = { "auto", "pt", "sampling" };
	int i;

	if (keyword(v, words, ARRAY_SIZE(words), "a backend", &i, err, errlen) < 0)
		return -EINVAL;
	cfg->backend = (enum mtj_backend[]){ MTJ_BACKEND_AUTO, MTJ_BACKEND_PT, MTJ_BACKEND_SAMPLING }[i];
	return 0;
}

#define SIZE_MIN_BYTES 4096ull
#define SIZE_MAX_BYTES (16ull << 30)

static int parse_snapshot_size(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	uint64_t bytes;
	int rc = mtj_parse_size(v, &bytes);

	if (rc < 0) {
		mtj_config_err(err, errlen, "'%s' %s (valid: a number with an optional unit K, M or G, e.g. 4M)",
			       v, rc == -ERANGE ? "is too large" : "is not a size");
		return -EINVAL;
	}
	if (bytes && (bytes < SIZE_MIN_BYTES || bytes > SIZE_MAX_BYTES)) {
		mtj_config_err(err, errlen, "'%s' is out of range (valid: 0 for the backend default, or 4K to 16G)", v);
		return -EINVAL;
	}
	cfg->snapshot_size = bytes;
	return 0;
}

/* The kernel's own ceiling (perf_event_max_sample_rate) is checked when perf is started. */
#define FREQ_MAX 100000

static int parse_sample_freq(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	uint64_t hz;
	int rc = mtj_parse_u64(v, &hz);

	if (rc < 0 || hz < 1 || hz > FREQ_MAX) {
		mtj_config_err(err, errlen, "'%s' %s (valid: 1 to %d, in Hz)", v,
			       rc < 0 ? mtj_number_problem(rc) : "is out of range", FREQ_MAX);
		return -EINVAL;
	}
	cfg->sample_freq = (unsigned)hz;
	return 0;
}

static int parse_callgraph(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	static const char *const words[] = { "fp", "dwarf", "lbr" };
	int i;

	if (keyword(v, words, ARRAY_SIZE(words), "a call-graph mode", &i, err, errlen) < 0)
		return -EINVAL;
	cfg->callgraph = (enum mtj_callgraph[]){ MTJ_CALLGRAPH_FP, MTJ_CALLGRAPH_DWARF, MTJ_CALLGRAPH_LBR }[i];
	return 0;
}

/* PT's cyc_thresh field is 4 bits wide. */
#define CYC_MAX 15

static int parse_timer_resolution(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	static const char *const words[] = { "low", "normal", "high" };
	uint64_t cyc;

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcasecmp(v, words[i])) {
			strcpy(cfg->timer_resolution, words[i]);
			return 0;
		}
	if (strncasecmp(v, "cyc=", 4) || mtj_parse_u64(v + 4, &cyc) == -EINVAL) {
		mtj_config_err(err, errlen,
			       "'%s' is not a timer resolution (valid: low, normal, high, cyc=N with N 0-%d)", v, CYC_MAX);
		return -EINVAL;
	}
	if (mtj_parse_u64(v + 4, &cyc) < 0 || cyc > CYC_MAX) {
		mtj_config_err(err, errlen, "'%s' is out of range (valid: cyc=N with N 0-%d)", v, CYC_MAX);
		return -EINVAL;
	}
	snprintf(cfg->timer_resolution, sizeof(cfg->timer_resolution), "cyc=%u", (unsigned)cyc);
	return 0;
}

#define TIMEOUT_MAX_MS (10 * 60 * 1000)

static int parse_start_timeout(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	uint64_t ns;
	int rc = mtj_parse_duration_ns(v, &ns);

	if (rc < 0) {
		mtj_config_err(err, errlen, "'%s' %s (valid: " MTJ_DURATION_VALID ")", v,
			       mtj_duration_problem(v, rc));
		return -EINVAL;
	}
	if (ns && (ns < 1000000 || ns > (uint64_t)TIMEOUT_MAX_MS * 1000000)) {
		mtj_config_err(err, errlen, "'%s' is out of range (valid: 0 to not wait, or 1ms to 10m)", v);
		return -EINVAL;
	}
	cfg->start_timeout_ms = (int)(ns / 1000000);
	return 0;
}

static int parse_keep(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	uint64_t n;
	int rc = mtj_parse_u64(v, &n);

	if (rc == 0 && n > UINT_MAX)
		rc = -ERANGE;
	if (rc < 0) {
		mtj_config_err(err, errlen, "'%s' %s (valid: 0 to keep every snapshot, or how many of the newest to keep, e.g. 10)",
			       v, mtj_number_problem(rc));
		return -EINVAL;
	}
	cfg->keep = (unsigned)n;
	return 0;
}

static int parse_hits_max(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	int rc = mtj_parse_u64(v, &cfg->hits_max);

	if (rc < 0) {
		mtj_config_err(err, errlen, "'%s' %s (valid: 0 to write every hit, or how many hits that take "
			       "no snapshot to write, e.g. 10000)", v, mtj_number_problem(rc));
		return -EINVAL;
	}
	return 0;
}

static int parse_follow_fork(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	static const char *const words[] = { "disarm", "trace" };
	int i;

	if (keyword(v, words, ARRAY_SIZE(words), "a fork policy", &i, err, errlen) < 0)
		return -EINVAL;
	cfg->follow_fork = i ? MTJ_FORK_TRACE : MTJ_FORK_DISARM;
	return 0;
}

static int parse_follow_exec(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	return bool_var(&cfg->follow_exec, v, err, errlen);
}

static int parse_strict(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	return bool_var(&cfg->strict, v, err, errlen);
}

static int parse_bpf_events(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	return bool_var(&cfg->bpf_events, v, err, errlen);
}

static int parse_log(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	static const char *const words[] = { "quiet", "error", "info", "debug" };
	int i;

	if (keyword(v, words, ARRAY_SIZE(words), "a log level", &i, err, errlen) < 0)
		return -EINVAL;
	cfg->log_level = (enum mtj_log_level)i;
	return 0;
}

static int parse_log_file(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	return set_path(cfg->log_file, sizeof(cfg->log_file), v, err, errlen);
}

static int parse_perf(struct mtj_config *cfg, const char *v, char *err, size_t errlen)
{
	return set_path(cfg->perf, sizeof(cfg->perf), v, err, errlen);
}

/* ---- the table ----------------------------------------------------------------------------- */

const struct mtj_env_var mtj_env_vars[] = {
	{ "MTINJECT_TRIGGER", "(none)",
	  "functions or addresses whose execution takes a snapshot: name[@object] | 0xADDR | object+0xOFF, options ,count=N|all ,skip=N ,every=N ,min-gap=DURATION; ';' separates triggers",
	  parse_trigger },
	{ "MTINJECT_ON", "(none)",
	  "events that also take a snapshot: any of exit, crash, abort, signal:SIGNAME (repeatable), separated by ','; api = none of those, only mtinject_snapshot() calls",
	  parse_on },
	{ "MTINJECT_OUTPUT", "./mtinject-<program>-<pid>/",
	  "directory for perf.data.<timestamp> snapshots, perf.log and hits.jsonl",
	  parse_output },
	{ "MTINJECT_SESSION", "spawn",
	  "where the recording comes from: spawn (start perf), fifo:CTL,ACK[,pid:PID|pid:parent], fd:CTL,ACK[,pid:PID|pid:parent], pid:PID (signal a perf), none (record hits only)",
	  parse_session },
	{ "MTINJECT_BACKEND", "auto",
	  "auto (Intel PT when the CPU has it, else sampling), pt, sampling",
	  parse_backend },
	{ "MTINJECT_SNAPSHOT_SIZE", "4M (256K without perf privileges)",
	  "ring buffer (sampling) or AUX area (Intel PT) per CPU, with unit K, M or G (powers of 1024); 0 = default; 4K to 16G",
	  parse_snapshot_size },
	{ "MTINJECT_SAMPLE_FREQ", "999",
	  "samples per second of the sampling backend, 1 to 100000",
	  parse_sample_freq },
	{ "MTINJECT_CALLGRAPH", "fp",
	  "how the sampling backend records call stacks: fp (frame pointers), dwarf, lbr",
	  parse_callgraph },
	{ "MTINJECT_TIMER_RESOLUTION", "normal",
	  "Intel PT timing detail: low, normal, high, or cyc=N (cycle threshold 0-15)",
	  parse_timer_resolution },
	{ "MTINJECT_START_TIMEOUT", "5s",
	  "how long the program may wait at start for perf to be recording; 0 = do not wait",
	  parse_start_timeout },
	{ "MTINJECT_KEEP", "10",
	  "keep only the N newest snapshots of a run; 0 = keep all",
	  parse_keep },
	{ "MTINJECT_HITS_MAX", "10000",
	  "write at most N hits that take no snapshot (skip, every, count reached, min-gap) to hits.jsonl, then only count them; 0 = write all",
	  parse_hits_max },
	{ "MTINJECT_FOLLOW_FORK", "disarm",
	  "forked children: disarm (no breakpoints in the child) or trace (re-arm them)",
	  parse_follow_fork },
	{ "MTINJECT_FOLLOW_EXEC", "0",
	  "boolean: keep the preload in programs this one executes",
	  parse_follow_exec },
	{ "MTINJECT_STRICT", "0",
	  "boolean: exit with status 2 before main on a configuration error instead of running untraced",
	  parse_strict },
	{ "MTINJECT_BPF_EVENTS", "0",
	  "boolean: let perf record BPF events (costs about 1 s at exit)",
	  parse_bpf_events },
	{ "MTINJECT_LOG", "error",
	  "what mtinject itself prints: quiet, error, info, debug",
	  parse_log },
	{ "MTINJECT_LOG_FILE", "(stderr)",
	  "file that mtinject's messages are appended to",
	  parse_log_file },
	{ "MTINJECT_PERF", "(perf from PATH)",
	  "the perf executable to run",
	  parse_perf },
};
const size_t mtj_env_vars_count = ARRAY_SIZE(mtj_env_vars);

/* ---- driving the table --------------------------------------------------------------------- */

void mtj_config_defaults(struct mtj_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->session = MTJ_SESSION_SPAWN;
	cfg->backend = MTJ_BACKEND_AUTO;
	cfg->callgraph = MTJ_CALLGRAPH_FP;
	cfg->start_timeout_ms = 5000;
	/* count=all on a hot function must not fill the disk. */
	cfg->keep = 10;
	/* nor skip=1000000 on one: a hit's line is ~800 bytes */
	cfg->hits_max = 10000;
	cfg->follow_fork = MTJ_FORK_DISARM;
	cfg->log_level = MTJ_LOG_ERROR;
}

int mtj_config_parse(struct mtj_config *cfg, mtj_getenv_fn get, char *err, size_t errlen)
{
	/* Room for MTJ_MAX_TRIGGERS full triggers with separators and blanks. */
	char value[MTJ_MAX_TRIGGERS * sizeof(cfg->triggers[0].text) * 2];
	char why[1024];
	int rc = 0;

	mtj_config_defaults(cfg);
	mtj_config_err(err, errlen, "%s", "");
	for (size_t i = 0; i < mtj_env_vars_count; i++) {
		const struct mtj_env_var *var = &mtj_env_vars[i];
		const char *v = get(var->name);
		size_t n;
		int r;

		if (!v)
			continue;
		while (isspace((unsigned char)*v))
			v++;
		n = strlen(v);
		while (n && isspace((unsigned char)v[n - 1]))
			n--;
		if (n == 0)
			continue;
		if (n >= sizeof(value)) {
			mtj_config_err(why, sizeof(why), "the value is %zu bytes long (valid: at most %zu)", n,
				       sizeof(value) - 1);
			r = -EINVAL;
		} else {
			memcpy(value, v, n);
			value[n] = 0;
			r = var->parse(cfg, value, why, sizeof(why));
		}
		/* Keep going: strict, log level and log file must be known to report the error. */
		if (r < 0 && rc == 0) {
			mtj_config_err(err, errlen, "%s: %s", var->name, why);
			rc = -EINVAL;
		}
	}
	if (rc < 0)
		return rc;
	if (cfg->ntriggers > MTJ_HW_BREAKPOINTS) {
		mtj_config_err(err, errlen,
			       "MTINJECT_TRIGGER: %zu triggers but x86 has %d hardware breakpoint slots per thread (valid: 1 to %d triggers)",
			       cfg->ntriggers, MTJ_HW_BREAKPOINTS, MTJ_HW_BREAKPOINTS);
		cfg->ntriggers = 0;
		return -EINVAL;
	}
	if (cfg->ntriggers == 0 && cfg->on == 0) {
		mtj_config_err(err, errlen, "%s",
			       "nothing to do: set MTINJECT_TRIGGER (a function name) or MTINJECT_ON (exit, crash, abort, api, signal:SIG)");
		return -ENOENT;
	}
	return 0;
}

int mtj_config_check_unknown(char *const *envp, char *err, size_t errlen)
{
	static const char prefix[] = "MTINJECT_";
	const size_t plen = sizeof(prefix) - 1;
	const char *suffixes[ARRAY_SIZE(mtj_env_vars)];

	for (size_t i = 0; i < mtj_env_vars_count; i++)
		suffixes[i] = mtj_env_vars[i].name + plen;
	for (; envp && *envp; envp++) {
		const char *e = *envp;
		size_t n = strcspn(e, "="), best;
		bool known = false;
		char name[128];

		if (strncmp(e, prefix, plen))
			continue;
		for (size_t i = 0; i < mtj_env_vars_count && !known; i++)
			known = strlen(mtj_env_vars[i].name) == n && !strncmp(e, mtj_env_vars[i].name, n);
		if (known)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)n, e);
		best = mtj_suggest(name + plen, suffixes, mtj_env_vars_count);
		if (best < mtj_env_vars_count)
			mtj_config_err(err, errlen, "%s is not a known variable (did you mean %s?)", name,
				       mtj_env_vars[best].name);
		else
			mtj_config_err(err, errlen,
				       "%s is not a known variable (valid: the MTINJECT_* variables listed in libmtinject(7))",
				       name);
		return -EINVAL;
	}
	return 0;
}

int mtj_config_load(struct mtj_config *cfg, mtj_getenv_fn get, char *const *envp, char *err,
		    size_t errlen)
{
	int rc = mtj_config_parse(cfg, get, err, errlen);

	if (rc == -EINVAL)
		return rc;
	if (mtj_config_check_unknown(envp, err, errlen) < 0)
		return -EINVAL;
	return rc;
}
