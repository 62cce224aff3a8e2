/*
 * tests/unit/test_config.c — the MTINJECT_* table, every variable's accepted and rejected
 * values with the exact message each rejection prints, the unknown-variable check, and the
 * value parsers (durations, sizes, signals, numbers, booleans) including overflow.
 * The trigger grammar has its own file, test_triggers.c.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "preload/config.h"

/* ---- a fake environment: NULL-terminated "NAME=value" list, with a call log ---------------- */

static const char *const *fake_env;
static char asked[64][64];
static size_t nasked;

static const char *fake_get(const char *name)
{
	size_t len = strlen(name);

	if (nasked < 64)
		snprintf(asked[nasked++], sizeof(asked[0]), "%s", name);
	for (const char *const *e = fake_env; e && *e; e++)
		if (!strncmp(*e, name, len) && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

static struct mtj_config cfg;
static char err[2048];

static int parse_env(const char *const *env)
{
	fake_env = env;
	nasked = 0;
	memset(err, 'X', sizeof(err) - 1);
	err[sizeof(err) - 1] = 0;
	return mtj_config_parse(&cfg, fake_get, err, sizeof(err));
}

/* Parse a single variable next to a trigger (so "nothing to do" never hides the result). */
static int parse_one(const char *assignment)
{
	const char *env[] = { "MTINJECT_TRIGGER=foo", assignment, NULL };

	return parse_env(env);
}

static void expect_bad(const char *assignment, const char *message)
{
	int rc = parse_one(assignment);

	if (rc != -EINVAL)
		fail_msg("%s: expected -EINVAL, got %d", assignment, rc);
	assert_string_equal(err, message);
}

/* ---- the table ------------------------------------------------------------------------------ */

static void test_table_lists_every_variable_once(void **state)
{
	static const char *const expected[] = {
		"MTINJECT_TRIGGER", "MTINJECT_ON", "MTINJECT_OUTPUT", "MTINJECT_SESSION",
		"MTINJECT_BACKEND", "MTINJECT_SNAPSHOT_SIZE", "MTINJECT_SAMPLE_FREQ",
		"MTINJECT_CALLGRAPH", "MTINJECT_TIMER_RESOLUTION", "MTINJECT_START_TIMEOUT",
		"MTINJECT_KEEP", "MTINJECT_HITS_MAX", "MTINJECT_FOLLOW_FORK", "MTINJECT_FOLLOW_EXEC", "MTINJECT_STRICT",
		"MTINJECT_BPF_EVENTS", "MTINJECT_LOG", "MTINJECT_LOG_FILE", "MTINJECT_PERF",
	};
	(void)state;
	assert_int_equal(mtj_env_vars_count, sizeof(expected) / sizeof(expected[0]));
	for (size_t i = 0; i < mtj_env_vars_count; i++) {
		assert_string_equal(mtj_env_vars[i].name, expected[i]);
		assert_non_null(mtj_env_vars[i].parse);
		assert_true(strlen(mtj_env_vars[i].default_text) > 0);
		assert_true(strlen(mtj_env_vars[i].help) > 10);
		assert_null(strchr(mtj_env_vars[i].help, '\n'));
	}
	assert_string_equal(mtj_env_vars[4].default_text, "auto");
	assert_string_equal(mtj_env_vars[9].default_text, "5s");
	assert_string_equal(mtj_env_vars[10].default_text, "10");
	/* The documented backend defaults are control/perf.h's. */
	assert_int_equal(strtoull(mtj_env_vars[6].default_text, NULL, 10), MTJ_SAMPLE_FREQ_DEFAULT);
	assert_int_equal(MTJ_SNAPSHOT_SIZE_PRIVILEGED, 4u << 20);
	assert_int_equal(MTJ_SNAPSHOT_SIZE_UNPRIVILEGED, 256u << 10);
	assert_string_equal(mtj_env_vars[5].default_text, "4M (256K without perf privileges)");
}

static void test_each_variable_is_asked_for_exactly_once(void **state)
{
	(void)state;
	parse_one("MTINJECT_BACKEND=pt");
	assert_int_equal(nasked, mtj_env_vars_count);
	for (size_t i = 0; i < mtj_env_vars_count; i++)
		assert_string_equal(asked[i], mtj_env_vars[i].name);
}

static void test_defaults(void **state)
{
	const char *env[] = { "MTINJECT_TRIGGER=foo", NULL };
	struct mtj_config d;

	(void)state;
	assert_int_equal(parse_env(env), 0);
	assert_string_equal(err, "");
	assert_int_equal(cfg.ntriggers, 1);
	assert_int_equal(cfg.on, 0);
	assert_int_equal(cfg.non_signals, 0);
	assert_string_equal(cfg.output, "");
	assert_int_equal(cfg.session, MTJ_SESSION_SPAWN);
	assert_string_equal(cfg.session_spec, "");
	assert_int_equal(cfg.backend, MTJ_BACKEND_AUTO);
	assert_int_equal(cfg.snapshot_size, 0);
	assert_int_equal(cfg.sample_freq, 0);
	assert_int_equal(cfg.callgraph, MTJ_CALLGRAPH_FP);
	assert_string_equal(cfg.timer_resolution, "");
	assert_int_equal(cfg.start_timeout_ms, 5000);
	assert_int_equal(cfg.keep, 10);
	assert_int_equal(cfg.follow_fork, MTJ_FORK_DISARM);
	assert_false(cfg.follow_exec);
	assert_false(cfg.strict);
	assert_false(cfg.bpf_events);
	assert_int_equal(cfg.log_level, MTJ_LOG_ERROR);
	assert_string_equal(cfg.log_file, "");
	assert_string_equal(cfg.perf, "");

	mtj_config_defaults(&d);
	assert_int_equal(d.keep, 10);
	assert_int_equal(d.start_timeout_ms, 5000);
	assert_int_equal(d.ntriggers, 0);
}

static void test_nothing_to_do(void **state)
{
	const char *none[] = { NULL };
	const char *empty[] = { "MTINJECT_TRIGGER=", "MTINJECT_ON=  ", "MTINJECT_SESSION=none", NULL };

	(void)state;
	assert_int_equal(parse_env(none), -ENOENT);
	assert_string_equal(err, "nothing to do: set MTINJECT_TRIGGER (a function name) or MTINJECT_ON "
				 "(exit, crash, abort, api, signal:SIG)");
	/* Empty is unset; the rest of the configuration is still complete. */
	assert_int_equal(parse_env(empty), -ENOENT);
	assert_int_equal(cfg.session, MTJ_SESSION_NONE);
	assert_int_equal(mtj_config_parse(&cfg, fake_get, NULL, 0), -ENOENT);
}

static void test_on_alone_is_enough(void **state)
{
	const char *env[] = { "MTINJECT_ON=exit", NULL };

	(void)state;
	assert_int_equal(parse_env(env), 0);
	assert_int_equal(cfg.on, MTJ_ON_EXIT);
	assert_int_equal(cfg.ntriggers, 0);
}

static void test_blank_values_are_unset_and_values_are_trimmed(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_BACKEND=   "), 0);
	assert_int_equal(cfg.backend, MTJ_BACKEND_AUTO);
	assert_int_equal(parse_one("MTINJECT_BACKEND= \tsampling \n"), 0);
	assert_int_equal(cfg.backend, MTJ_BACKEND_SAMPLING);
	expect_bad("MTINJECT_BACKEND=  ptt ", "MTINJECT_BACKEND: 'ptt' is not a backend (valid: auto, pt, sampling)");
}

static void test_hardware_breakpoint_limit(void **state)
{
	const char *four[] = { "MTINJECT_TRIGGER=a;b;c;d", NULL };
	const char *five[] = { "MTINJECT_TRIGGER=a;b;c;d;e", NULL };

	(void)state;
	assert_int_equal(parse_env(four), 0);
	assert_int_equal(cfg.ntriggers, 4);
	assert_int_equal(parse_env(five), -EINVAL);
	assert_string_equal(err, "MTINJECT_TRIGGER: 5 triggers but x86 has 4 hardware breakpoint slots per "
				 "thread (valid: 1 to 4 triggers)");
	assert_int_equal(cfg.ntriggers, 0);
}

static void test_an_error_still_parses_the_rest(void **state)
{
	const char *env[] = { "MTINJECT_TRIGGER=a;;b", "MTINJECT_BACKEND=ptt", "MTINJECT_STRICT=1",
			      "MTINJECT_LOG=debug", "MTINJECT_LOG_FILE=/tmp/mtj.log", NULL };

	(void)state;
	assert_int_equal(parse_env(env), -EINVAL);
	/* The first bad variable in table order is the one reported. */
	assert_string_equal(err, "MTINJECT_TRIGGER: trigger 2 is empty (valid: triggers separated by ';', "
				 "e.g. 'foo;bar@libbar.so')");
	assert_int_equal(cfg.ntriggers, 0);
	assert_int_equal(cfg.backend, MTJ_BACKEND_AUTO);
	assert_true(cfg.strict);
	assert_int_equal(cfg.log_level, MTJ_LOG_DEBUG);
	assert_string_equal(cfg.log_file, "/tmp/mtj.log");
}

static void test_error_buffer_is_bounded(void **state)
{
	char small[16];
	const char *env[] = { "MTINJECT_BACKEND=ptt", NULL };

	(void)state;
	fake_env = env;
	assert_int_equal(mtj_config_parse(&cfg, fake_get, small, sizeof(small)), -EINVAL);
	assert_string_equal(small, "MTINJECT_BACKEN");
}

/* ---- each variable ------------------------------------------------------------------------- */

static void test_trigger_variable(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_ON=exit"), 0);
	{
		const char *env[] = { "MTINJECT_TRIGGER=foo@libfoo.so,count=all;0x401000", NULL };

		assert_int_equal(parse_env(env), 0);
		assert_int_equal(cfg.ntriggers, 2);
		assert_string_equal(cfg.triggers[0].symbol, "foo");
		assert_string_equal(cfg.triggers[0].object, "libfoo.so");
		assert_true(cfg.triggers[0].count == MTJ_COUNT_ALL);
		assert_int_equal(cfg.triggers[1].addr, 0x401000);
	}
	{
		const char *env[] = { "MTINJECT_TRIGGER=foo,cnt=2", NULL };

		assert_int_equal(parse_env(env), -EINVAL);
		assert_string_equal(err, "MTINJECT_TRIGGER: trigger 1 'foo,cnt=2': unknown option 'cnt' (did you "
					 "mean 'count'? valid: count, skip, every, min-gap)");
	}
}

static void test_on_valid(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_ON=exit,crash,abort"), 0);
	assert_int_equal(cfg.on, MTJ_ON_EXIT | MTJ_ON_CRASH | MTJ_ON_ABORT);
	assert_int_equal(cfg.non_signals, 0);
	assert_int_equal(parse_one("MTINJECT_ON= Crash , signal:SIGUSR1,signal: usr2 ,signal:1,signal:RTMIN+1"), 0);
	assert_int_equal(cfg.on, MTJ_ON_CRASH | MTJ_ON_SIGNAL);
	assert_int_equal(cfg.non_signals, 4);
	assert_int_equal(cfg.on_signals[0], SIGUSR1);
	assert_int_equal(cfg.on_signals[1], SIGUSR2);
	assert_int_equal(cfg.on_signals[2], SIGHUP);
	assert_int_equal(cfg.on_signals[3], SIGRTMIN + 1);
	assert_int_equal(parse_one("MTINJECT_ON=signal:1,signal:2,signal:3,signal:4,signal:6,signal:7,"
				   "signal:8,signal:10"), 0);
	assert_int_equal(cfg.non_signals, MTJ_MAX_ON_SIGNALS);
}

static void test_on_invalid(void **state)
{
	(void)state;
	expect_bad("MTINJECT_ON=exit,,crash",
		   "MTINJECT_ON: empty entry in 'exit,,crash' (valid: exit, crash, abort, api, signal:SIGNAME, separated by ',')");
	expect_bad("MTINJECT_ON=exit,",
		   "MTINJECT_ON: empty entry in 'exit,' (valid: exit, crash, abort, api, signal:SIGNAME, separated by ',')");
	expect_bad("MTINJECT_ON=crahs",
		   "MTINJECT_ON: 'crahs' is not an event (valid: exit, crash, abort, api, signal:SIGNAME)");
	expect_bad("MTINJECT_ON=exit, SIGUSR1",
		   "MTINJECT_ON: 'SIGUSR1' is not an event (valid: exit, crash, abort, api, signal:SIGNAME)");
	expect_bad("MTINJECT_ON=exit,crash,exit", "MTINJECT_ON: 'exit' is listed twice");
	expect_bad("MTINJECT_ON=signal:USR1,signal:10", "MTINJECT_ON: 'signal:10' is listed twice");
	expect_bad("MTINJECT_ON=signal:",
		   "MTINJECT_ON: 'signal:' names no signal (valid: signal:SIGNAME, e.g. signal:SIGUSR1)");
	expect_bad("MTINJECT_ON=signal:SIGFOO",
		   "MTINJECT_ON: 'signal:SIGFOO' is not a signal (valid: signal:NAME or signal:NUMBER, e.g. "
		   "signal:SIGUSR1, signal:USR1, signal:10)");
	expect_bad("MTINJECT_ON=signal:99",
		   "MTINJECT_ON: 'signal:99' is not a signal (valid: signal:NAME or signal:NUMBER, e.g. "
		   "signal:SIGUSR1, signal:USR1, signal:10)");
	expect_bad("MTINJECT_ON=signal:SIGKILL",
		   "MTINJECT_ON: 'signal:SIGKILL': SIGKILL cannot be caught by any program (valid: another "
		   "signal, e.g. signal:SIGUSR1)");
	expect_bad("MTINJECT_ON=signal:stop",
		   "MTINJECT_ON: 'signal:stop': SIGSTOP cannot be caught by any program (valid: another "
		   "signal, e.g. signal:SIGUSR1)");
	expect_bad("MTINJECT_ON=signal:SIGTRAP",
		   "MTINJECT_ON: 'signal:SIGTRAP': SIGTRAP is used by mtinject's breakpoints (valid: another "
		   "signal, e.g. signal:SIGUSR1)");
	expect_bad("MTINJECT_ON=signal:5",
		   "MTINJECT_ON: 'signal:5': SIGTRAP is used by mtinject's breakpoints (valid: another "
		   "signal, e.g. signal:SIGUSR1)");
	expect_bad("MTINJECT_ON=signal:1,signal:2,signal:3,signal:4,signal:6,signal:7,signal:8,signal:10,signal:11",
		   "MTINJECT_ON: 'signal:11' is one signal too many (valid: at most 8 signal: entries)");
	/* A rejected list leaves nothing half-set. */
	assert_int_equal(cfg.on, 0);
	assert_int_equal(cfg.non_signals, 0);
}

static void test_paths(void **state)
{
	static char big[PATH_MAX + 64];
	static char huge[20100];

	(void)state;
	assert_int_equal(parse_one("MTINJECT_OUTPUT=/tmp/out dir/"), 0);
	assert_string_equal(cfg.output, "/tmp/out dir/");
	assert_int_equal(parse_one("MTINJECT_LOG_FILE=mtj.log"), 0);
	assert_string_equal(cfg.log_file, "mtj.log");
	assert_int_equal(parse_one("MTINJECT_PERF=/usr/bin/perf"), 0);
	assert_string_equal(cfg.perf, "/usr/bin/perf");

	snprintf(big, sizeof(big), "MTINJECT_OUTPUT=/%0*d", PATH_MAX - 1, 0);
	expect_bad(big, "MTINJECT_OUTPUT: the path is 4096 bytes long (valid: at most 4095)");
	assert_string_equal(cfg.output, "");
	memcpy(big, "MTINJECT_LOG_FILE=", 18);
	snprintf(big + 18, sizeof(big) - 18, "/%0*d", PATH_MAX - 1, 0);
	expect_bad(big, "MTINJECT_LOG_FILE: the path is 4096 bytes long (valid: at most 4095)");
	snprintf(huge, sizeof(huge), "MTINJECT_PERF=/%0*d", 19999, 0);
	expect_bad(huge, "MTINJECT_PERF: the value is 20000 bytes long (valid: at most 16383)");
}

static void test_session_valid(void **state)
{
	static const struct { const char *env; enum mtj_session_kind kind; const char *spec; } ok[] = {
		{ "MTINJECT_SESSION=spawn", MTJ_SESSION_SPAWN, "" },
		{ "MTINJECT_SESSION=NONE", MTJ_SESSION_NONE, "" },
		{ "MTINJECT_SESSION=fifo:/tmp/ctl,/tmp/ack", MTJ_SESSION_FIFO, "/tmp/ctl,/tmp/ack" },
		{ "MTINJECT_SESSION=fifo:c,a,pid:4242", MTJ_SESSION_FIFO, "c,a,pid:4242" },
		{ "MTINJECT_SESSION=fifo:c,a,pid:parent", MTJ_SESSION_FIFO, "c,a,pid:parent" },
		{ "MTINJECT_SESSION=fd:5,6", MTJ_SESSION_FD, "5,6" },
		{ "MTINJECT_SESSION=fd:0,1,pid:parent", MTJ_SESSION_FD, "0,1,pid:parent" },
		{ "MTINJECT_SESSION=pid:4242", MTJ_SESSION_PID, "4242" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (parse_one(ok[i].env) != 0)
			fail_msg("%s: %s", ok[i].env, err);
		assert_int_equal(cfg.session, ok[i].kind);
		assert_string_equal(cfg.session_spec, ok[i].spec);
	}
}

#define SESSION_VALID "(valid: spawn, fifo:CTL,ACK[,pid:PID|pid:parent], fd:CTL,ACK[,pid:PID|pid:parent], pid:PID, none)"

static void test_session_invalid(void **state)
{
	static char big[400];

	(void)state;
	expect_bad("MTINJECT_SESSION=spwan", "MTINJECT_SESSION: 'spwan' is not a session " SESSION_VALID);
	expect_bad("MTINJECT_SESSION=fifo", "MTINJECT_SESSION: 'fifo' is not a session " SESSION_VALID);
	expect_bad("MTINJECT_SESSION=fifo:/tmp/ctl",
		   "MTINJECT_SESSION: 'fifo:/tmp/ctl' needs two fifo paths, CTL and ACK " SESSION_VALID);
	expect_bad("MTINJECT_SESSION=fifo:,/tmp/ack",
		   "MTINJECT_SESSION: 'fifo:,/tmp/ack' needs two fifo paths, CTL and ACK " SESSION_VALID);
	expect_bad("MTINJECT_SESSION=fd:5,",
		   "MTINJECT_SESSION: 'fd:5,' needs two file descriptors, CTL and ACK " SESSION_VALID);
	expect_bad("MTINJECT_SESSION=fd:a,6",
		   "MTINJECT_SESSION: 'fd:a,6': CTL and ACK must be file descriptor numbers (valid: fd:CTL,ACK, e.g. fd:5,6)");
	expect_bad("MTINJECT_SESSION=fd:5,99999999999",
		   "MTINJECT_SESSION: 'fd:5,99999999999': CTL and ACK must be file descriptor numbers (valid: fd:CTL,ACK, e.g. fd:5,6)");
	expect_bad("MTINJECT_SESSION=fd:5,5",
		   "MTINJECT_SESSION: 'fd:5,5': CTL and ACK must differ (valid: fd:CTL,ACK, e.g. fd:5,6)");
	expect_bad("MTINJECT_SESSION=fifo:c,a,pid:x",
		   "MTINJECT_SESSION: 'fifo:c,a,pid:x': 'pid:x' is not a perf pid (valid: pid:PID or pid:parent)");
	expect_bad("MTINJECT_SESSION=fd:5,6,4242",
		   "MTINJECT_SESSION: 'fd:5,6,4242': '4242' is not a perf pid (valid: pid:PID or pid:parent)");
	expect_bad("MTINJECT_SESSION=fifo:c,a,pid:1,pid:2",
		   "MTINJECT_SESSION: 'fifo:c,a,pid:1,pid:2': 'pid:1,pid:2' is not a perf pid (valid: pid:PID or pid:parent)");
	expect_bad("MTINJECT_SESSION=pid:0",
		   "MTINJECT_SESSION: 'pid:0': '0' is not a process id (valid: pid:PID, e.g. pid:4242)");
	expect_bad("MTINJECT_SESSION=pid:",
		   "MTINJECT_SESSION: 'pid:': '' is not a process id (valid: pid:PID, e.g. pid:4242)");
	expect_bad("MTINJECT_SESSION=pid:parent",
		   "MTINJECT_SESSION: 'pid:parent': 'parent' is not a process id (valid: pid:PID, e.g. pid:4242)");
	snprintf(big, sizeof(big), "MTINJECT_SESSION=fifo:/%0300d,/ack", 0);
	expect_bad(big, "MTINJECT_SESSION: 'fifo:/0000000000000000000000000000000000...' is 306 bytes long "
			"(valid: at most 255 after the prefix)");
	assert_int_equal(cfg.session, MTJ_SESSION_SPAWN);
}

static void test_backend(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_BACKEND=auto"), 0);
	assert_int_equal(cfg.backend, MTJ_BACKEND_AUTO);
	assert_int_equal(parse_one("MTINJECT_BACKEND=PT"), 0);
	assert_int_equal(cfg.backend, MTJ_BACKEND_PT);
	assert_int_equal(parse_one("MTINJECT_BACKEND=sampling"), 0);
	assert_int_equal(cfg.backend, MTJ_BACKEND_SAMPLING);
	expect_bad("MTINJECT_BACKEND=ptt", "MTINJECT_BACKEND: 'ptt' is not a backend (valid: auto, pt, sampling)");
}

static void test_snapshot_size(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_SNAPSHOT_SIZE=4M"), 0);
	assert_int_equal(cfg.snapshot_size, 4u << 20);
	assert_int_equal(parse_one("MTINJECT_SNAPSHOT_SIZE=4K"), 0);
	assert_int_equal(cfg.snapshot_size, 4096);
	assert_int_equal(parse_one("MTINJECT_SNAPSHOT_SIZE=16GiB"), 0);
	assert_int_equal(cfg.snapshot_size, 16ull << 30);
	assert_int_equal(parse_one("MTINJECT_SNAPSHOT_SIZE=0"), 0);
	assert_int_equal(cfg.snapshot_size, 0);
	expect_bad("MTINJECT_SNAPSHOT_SIZE=4X",
		   "MTINJECT_SNAPSHOT_SIZE: '4X' is not a size (valid: a number with an optional unit K, M or G, e.g. 4M)");
	expect_bad("MTINJECT_SNAPSHOT_SIZE=99999999999999999999",
		   "MTINJECT_SNAPSHOT_SIZE: '99999999999999999999' is too large (valid: a number with an optional unit K, M or G, e.g. 4M)");
	expect_bad("MTINJECT_SNAPSHOT_SIZE=4095",
		   "MTINJECT_SNAPSHOT_SIZE: '4095' is out of range (valid: 0 for the backend default, or 4K to 16G)");
	expect_bad("MTINJECT_SNAPSHOT_SIZE=17G",
		   "MTINJECT_SNAPSHOT_SIZE: '17G' is out of range (valid: 0 for the backend default, or 4K to 16G)");
}

static void test_sample_freq(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_SAMPLE_FREQ=1"), 0);
	assert_int_equal(cfg.sample_freq, 1);
	assert_int_equal(parse_one("MTINJECT_SAMPLE_FREQ=100000"), 0);
	assert_int_equal(cfg.sample_freq, 100000);
	expect_bad("MTINJECT_SAMPLE_FREQ=0", "MTINJECT_SAMPLE_FREQ: '0' is out of range (valid: 1 to 100000, in Hz)");
	expect_bad("MTINJECT_SAMPLE_FREQ=100001",
		   "MTINJECT_SAMPLE_FREQ: '100001' is out of range (valid: 1 to 100000, in Hz)");
	expect_bad("MTINJECT_SAMPLE_FREQ=1kHz",
		   "MTINJECT_SAMPLE_FREQ: '1kHz' is not a number (valid: 1 to 100000, in Hz)");
	expect_bad("MTINJECT_SAMPLE_FREQ=99999999999999999999",
		   "MTINJECT_SAMPLE_FREQ: '99999999999999999999' is too large (valid: 1 to 100000, in Hz)");
}

static void test_callgraph(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_CALLGRAPH=fp"), 0);
	assert_int_equal(cfg.callgraph, MTJ_CALLGRAPH_FP);
	assert_int_equal(parse_one("MTINJECT_CALLGRAPH=dwarf"), 0);
	assert_int_equal(cfg.callgraph, MTJ_CALLGRAPH_DWARF);
	assert_int_equal(parse_one("MTINJECT_CALLGRAPH=LBR"), 0);
	assert_int_equal(cfg.callgraph, MTJ_CALLGRAPH_LBR);
	expect_bad("MTINJECT_CALLGRAPH=frame",
		   "MTINJECT_CALLGRAPH: 'frame' is not a call-graph mode (valid: fp, dwarf, lbr)");
}

static void test_timer_resolution(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_TIMER_RESOLUTION=low"), 0);
	assert_string_equal(cfg.timer_resolution, "low");
	assert_int_equal(parse_one("MTINJECT_TIMER_RESOLUTION=Normal"), 0);
	assert_string_equal(cfg.timer_resolution, "normal");
	assert_int_equal(parse_one("MTINJECT_TIMER_RESOLUTION=high"), 0);
	assert_string_equal(cfg.timer_resolution, "high");
	assert_int_equal(parse_one("MTINJECT_TIMER_RESOLUTION=cyc=0"), 0);
	assert_string_equal(cfg.timer_resolution, "cyc=0");
	assert_int_equal(parse_one("MTINJECT_TIMER_RESOLUTION=CYC=015"), 0);
	assert_string_equal(cfg.timer_resolution, "cyc=15");
	expect_bad("MTINJECT_TIMER_RESOLUTION=max",
		   "MTINJECT_TIMER_RESOLUTION: 'max' is not a timer resolution (valid: low, normal, high, cyc=N with N 0-15)");
	expect_bad("MTINJECT_TIMER_RESOLUTION=cyc=",
		   "MTINJECT_TIMER_RESOLUTION: 'cyc=' is not a timer resolution (valid: low, normal, high, cyc=N with N 0-15)");
	expect_bad("MTINJECT_TIMER_RESOLUTION=cyc=16",
		   "MTINJECT_TIMER_RESOLUTION: 'cyc=16' is out of range (valid: cyc=N with N 0-15)");
	expect_bad("MTINJECT_TIMER_RESOLUTION=cyc=99999999999999999999",
		   "MTINJECT_TIMER_RESOLUTION: 'cyc=99999999999999999999' is out of range (valid: cyc=N with N 0-15)");
}

static void test_start_timeout(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_START_TIMEOUT=0"), 0);
	assert_int_equal(cfg.start_timeout_ms, 0);
	assert_int_equal(parse_one("MTINJECT_START_TIMEOUT=250ms"), 0);
	assert_int_equal(cfg.start_timeout_ms, 250);
	assert_int_equal(parse_one("MTINJECT_START_TIMEOUT=2s"), 0);
	assert_int_equal(cfg.start_timeout_ms, 2000);
	assert_int_equal(parse_one("MTINJECT_START_TIMEOUT=10m"), 0);
	assert_int_equal(cfg.start_timeout_ms, 600000);
	assert_int_equal(parse_one("MTINJECT_START_TIMEOUT=1500us"), 0);
	assert_int_equal(cfg.start_timeout_ms, 1);
	expect_bad("MTINJECT_START_TIMEOUT=500",
		   "MTINJECT_START_TIMEOUT: '500' has no unit (valid: 0, or an integer with a unit ns, us, ms, s or m, e.g. 250ms)");
	expect_bad("MTINJECT_START_TIMEOUT=5 s",
		   "MTINJECT_START_TIMEOUT: '5 s' is not a duration (valid: 0, or an integer with a unit ns, us, ms, s or m, e.g. 250ms)");
	expect_bad("MTINJECT_START_TIMEOUT=1.5s",
		   "MTINJECT_START_TIMEOUT: '1.5s' is not a duration (valid: 0, or an integer with a unit ns, us, ms, s or m, e.g. 250ms)");
	expect_bad("MTINJECT_START_TIMEOUT=99999999999999999999s",
		   "MTINJECT_START_TIMEOUT: '99999999999999999999s' is too large (valid: 0, or an integer with a unit ns, us, ms, s or m, e.g. 250ms)");
	expect_bad("MTINJECT_START_TIMEOUT=500us",
		   "MTINJECT_START_TIMEOUT: '500us' is out of range (valid: 0 to not wait, or 1ms to 10m)");
	expect_bad("MTINJECT_START_TIMEOUT=601s",
		   "MTINJECT_START_TIMEOUT: '601s' is out of range (valid: 0 to not wait, or 1ms to 10m)");
	assert_int_equal(cfg.start_timeout_ms, 5000);
}

static void test_keep(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_KEEP=0"), 0);
	assert_int_equal(cfg.keep, 0);
	assert_int_equal(parse_one("MTINJECT_KEEP=3"), 0);
	assert_int_equal(cfg.keep, 3);
	assert_int_equal(parse_one("MTINJECT_KEEP=4294967295"), 0);
	assert_int_equal(cfg.keep, UINT_MAX);
	expect_bad("MTINJECT_KEEP=-1",
		   "MTINJECT_KEEP: '-1' is not a number (valid: 0 to keep every snapshot, or how many of the newest to keep, e.g. 10)");
	expect_bad("MTINJECT_KEEP=4294967296",
		   "MTINJECT_KEEP: '4294967296' is too large (valid: 0 to keep every snapshot, or how many of the newest to keep, e.g. 10)");
}

static void test_hits_max(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_KEEP=3"), 0);
	assert_int_equal(cfg.hits_max, 10000);
	assert_int_equal(parse_one("MTINJECT_HITS_MAX=0"), 0);
	assert_int_equal(cfg.hits_max, 0);
	assert_int_equal(parse_one("MTINJECT_HITS_MAX=18446744073709551615"), 0);
	assert_int_equal(cfg.hits_max, UINT64_MAX);
	expect_bad("MTINJECT_HITS_MAX=1e6",
		   "MTINJECT_HITS_MAX: '1e6' is not a number (valid: 0 to write every hit, or how many hits that take no snapshot to write, e.g. 10000)");
	expect_bad("MTINJECT_HITS_MAX=18446744073709551616",
		   "MTINJECT_HITS_MAX: '18446744073709551616' is too large (valid: 0 to write every hit, or how many hits that take no snapshot to write, e.g. 10000)");
}

static void test_follow_fork(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_FOLLOW_FORK=trace"), 0);
	assert_int_equal(cfg.follow_fork, MTJ_FORK_TRACE);
	assert_int_equal(parse_one("MTINJECT_FOLLOW_FORK=disarm"), 0);
	assert_int_equal(cfg.follow_fork, MTJ_FORK_DISARM);
	expect_bad("MTINJECT_FOLLOW_FORK=follow",
		   "MTINJECT_FOLLOW_FORK: 'follow' is not a fork policy (valid: disarm, trace)");
}

static void test_booleans(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_FOLLOW_EXEC=1"), 0);
	assert_true(cfg.follow_exec);
	assert_int_equal(parse_one("MTINJECT_STRICT=yes"), 0);
	assert_true(cfg.strict);
	assert_int_equal(parse_one("MTINJECT_BPF_EVENTS=On"), 0);
	assert_true(cfg.bpf_events);
	assert_int_equal(parse_one("MTINJECT_STRICT=false"), 0);
	assert_false(cfg.strict);
	expect_bad("MTINJECT_FOLLOW_EXEC=2",
		   "MTINJECT_FOLLOW_EXEC: '2' is not a boolean (valid: 0, 1, yes, no, true, false, on, off)");
	expect_bad("MTINJECT_STRICT=maybe",
		   "MTINJECT_STRICT: 'maybe' is not a boolean (valid: 0, 1, yes, no, true, false, on, off)");
	expect_bad("MTINJECT_BPF_EVENTS=y",
		   "MTINJECT_BPF_EVENTS: 'y' is not a boolean (valid: 0, 1, yes, no, true, false, on, off)");
}

static void test_log(void **state)
{
	(void)state;
	assert_int_equal(parse_one("MTINJECT_LOG=quiet"), 0);
	assert_int_equal(cfg.log_level, MTJ_LOG_QUIET);
	assert_int_equal(parse_one("MTINJECT_LOG=info"), 0);
	assert_int_equal(cfg.log_level, MTJ_LOG_INFO);
	assert_int_equal(parse_one("MTINJECT_LOG=DEBUG"), 0);
	assert_int_equal(cfg.log_level, MTJ_LOG_DEBUG);
	assert_int_equal(parse_one("MTINJECT_LOG=error"), 0);
	assert_int_equal(cfg.log_level, MTJ_LOG_ERROR);
	expect_bad("MTINJECT_LOG=verbose",
		   "MTINJECT_LOG: 'verbose' is not a log level (valid: quiet, error, info, debug)");
}

/* ---- unknown variables ---------------------------------------------------------------------- */

static int check_unknown(const char *const *env)
{
	memset(err, 'X', 64);
	err[64] = 0;
	return mtj_config_check_unknown((char *const *)env, err, sizeof(err));
}

static void test_unknown_variables(void **state)
{
	const char *clean[] = { "PATH=/bin", "MTINJECT_TRIGGER=foo", "MTINJECT_LOG_FILE=x", "MTINJECT_PERF",
				"MTINJECTX=1", NULL };
	const char *typo[] = { "HOME=/", "MTINJECT_ON=exit", "MTINJECT_TRIGER=foo", "MTINJECT_FOO=1", NULL };
	const char *other[] = { "MTINJECT_FOO=1", NULL };
	const char *swapped[] = { "MTINJECT_SNAPSHTO_SIZE=4M", NULL };
	const char *lower[] = { "MTINJECT_backend=pt", NULL };
	const char *prefix_only[] = { "MTINJECT_=1", NULL };
	const char *longer[] = { "MTINJECT_TRIGGERS=foo", NULL };

	(void)state;
	assert_int_equal(mtj_config_check_unknown(NULL, err, sizeof(err)), 0);
	assert_int_equal(check_unknown(clean), 0);
	assert_int_equal(check_unknown(typo), -EINVAL);
	assert_string_equal(err, "MTINJECT_TRIGER is not a known variable (did you mean MTINJECT_TRIGGER?)");
	assert_int_equal(check_unknown(other), -EINVAL);
	assert_string_equal(err, "MTINJECT_FOO is not a known variable (valid: the MTINJECT_* variables listed in libmtinject(7))");
	assert_int_equal(check_unknown(swapped), -EINVAL);
	assert_string_equal(err, "MTINJECT_SNAPSHTO_SIZE is not a known variable (did you mean MTINJECT_SNAPSHOT_SIZE?)");
	assert_int_equal(check_unknown(lower), -EINVAL);
	assert_string_equal(err, "MTINJECT_backend is not a known variable (did you mean MTINJECT_BACKEND?)");
	assert_int_equal(check_unknown(prefix_only), -EINVAL);
	assert_string_equal(err, "MTINJECT_ is not a known variable (valid: the MTINJECT_* variables listed in libmtinject(7))");
	assert_int_equal(check_unknown(longer), -EINVAL);
	assert_string_equal(err, "MTINJECT_TRIGGERS is not a known variable (did you mean MTINJECT_TRIGGER?)");
}

static void test_load_reports_in_the_useful_order(void **state)
{
	const char *typo_only[] = { "MTINJECT_TRIGER=foo", NULL };
	const char *bad_and_typo[] = { "MTINJECT_TRIGER=foo", "MTINJECT_ON=exit", "MTINJECT_LOG=loud", NULL };
	const char *fine[] = { "MTINJECT_TRIGGER=foo", "PATH=/bin", NULL };
	const char *nothing[] = { "PATH=/bin", NULL };

	(void)state;
	fake_env = typo_only;
	/* Without the typo check this would only say "nothing to do". */
	assert_int_equal(mtj_config_load(&cfg, fake_get, (char *const *)typo_only, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "MTINJECT_TRIGER is not a known variable (did you mean MTINJECT_TRIGGER?)");
	fake_env = bad_and_typo;
	assert_int_equal(mtj_config_load(&cfg, fake_get, (char *const *)bad_and_typo, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "MTINJECT_LOG: 'loud' is not a log level (valid: quiet, error, info, debug)");
	fake_env = fine;
	assert_int_equal(mtj_config_load(&cfg, fake_get, (char *const *)fine, err, sizeof(err)), 0);
	assert_int_equal(cfg.ntriggers, 1);
	fake_env = nothing;
	assert_int_equal(mtj_config_load(&cfg, fake_get, (char *const *)nothing, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "nothing to do: set MTINJECT_TRIGGER (a function name) or MTINJECT_ON "
				 "(exit, crash, abort, api, signal:SIG)");
}

/* ---- value parsers -------------------------------------------------------------------------- */

static void test_parse_u64(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(mtj_parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(mtj_parse_u64("007", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(mtj_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(mtj_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(mtj_parse_u64("99999999999999999999", &v), -ERANGE);
	assert_int_equal(mtj_parse_u64("99999999999999999999x", &v), -EINVAL);
	assert_int_equal(mtj_parse_u64("", &v), -EINVAL);
	assert_int_equal(mtj_parse_u64("1a", &v), -EINVAL);
	assert_int_equal(mtj_parse_u64(" 1", &v), -EINVAL);
	assert_int_equal(mtj_parse_u64("+1", &v), -EINVAL);
	assert_int_equal(mtj_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(mtj_parse_u64("0x10", &v), -EINVAL);
	assert_string_equal(mtj_number_problem(-EINVAL), "is not a number");
	assert_string_equal(mtj_number_problem(-ERANGE), "is too large");
}

static void test_parse_duration(void **state)
{
	static const struct { const char *s; uint64_t ns; } ok[] = {
		{ "0", 0 }, { "000", 0 }, { "0ms", 0 }, { "1ns", 1 }, { "5us", 5000 },
		{ "50ms", 50000000 }, { "2s", 2000000000 }, { "3m", 180000000000ull },
		{ "18446744073709551615ns", UINT64_MAX }, { "307445734m", 307445734ull * 60000000000ull },
	};
	static const struct { const char *s; int rc; const char *problem; } bad[] = {
		{ "5", -EINVAL, "has no unit" }, { "", -EINVAL, "is not a duration" },
		{ "ms", -EINVAL, "is not a duration" }, { "5 ms", -EINVAL, "is not a duration" },
		{ "-5s", -EINVAL, "is not a duration" }, { "5S", -EINVAL, "is not a duration" },
		{ "5sec", -EINVAL, "is not a duration" }, { "1.5s", -EINVAL, "is not a duration" },
		{ "5h", -EINVAL, "is not a duration" },
		{ "18446744073709551616ns", -ERANGE, "is too large" },
		{ "307445735m", -ERANGE, "is too large" },
		{ "18446744073709552s", -ERANGE, "is too large" },
		{ "99999999999999999999999ms", -ERANGE, "is too large" },
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (mtj_parse_duration_ns(ok[i].s, &v) != 0 || v != ok[i].ns)
			fail_msg("'%s' should be %llu ns", ok[i].s, (unsigned long long)ok[i].ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = mtj_parse_duration_ns(bad[i].s, &v);

		if (rc != bad[i].rc)
			fail_msg("'%s': expected %d, got %d", bad[i].s, bad[i].rc, rc);
		assert_string_equal(mtj_duration_problem(bad[i].s, rc), bad[i].problem);
	}
}

static void test_parse_size(void **state)
{
	static const struct { const char *s; uint64_t bytes; } ok[] = {
		{ "0", 0 }, { "4096", 4096 }, { "512B", 512 }, { "4K", 4096 }, { "4k", 4096 },
		{ "4KB", 4096 }, { "4KiB", 4096 }, { "4kib", 4096 }, { "1M", 1 << 20 }, { "3MiB", 3 << 20 },
		{ "2G", 2ull << 30 }, { "2gb", 2ull << 30 },
		{ "17179869183G", 17179869183ull << 30 }, { "18446744073709551615", UINT64_MAX },
	};
	static const struct { const char *s; int rc; } bad[] = {
		{ "", -EINVAL }, { "K", -EINVAL }, { "4 K", -EINVAL }, { "16E", -EINVAL }, { "4T", -EINVAL },
		{ "-1", -EINVAL }, { "1.5M", -EINVAL }, { "4KiBB", -EINVAL },
		{ "17179869184G", -ERANGE }, { "18014398509481984K", -ERANGE },
		{ "18446744073709551616", -ERANGE },
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (mtj_parse_size(ok[i].s, &v) != 0 || v != ok[i].bytes)
			fail_msg("'%s' should be %llu bytes", ok[i].s, (unsigned long long)ok[i].bytes);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = mtj_parse_size(bad[i].s, &v);

		if (rc != bad[i].rc)
			fail_msg("'%s': expected %d, got %d", bad[i].s, bad[i].rc, rc);
	}
}

static void test_parse_signal(void **state)
{
	struct { const char *s; int sig; } ok[] = {
		{ "SIGUSR1", SIGUSR1 }, { "USR1", SIGUSR1 }, { "usr1", SIGUSR1 }, { "sigusr1", SIGUSR1 },
		{ "10", 10 }, { "1", SIGHUP }, { "SIGHUP", SIGHUP }, { "TERM", SIGTERM },
		{ "IO", SIGIO }, { "POLL", SIGIO }, { "CLD", SIGCHLD }, { "IOT", SIGABRT },
		{ "SIGKILL", SIGKILL }, { "TRAP", SIGTRAP },
		{ "SIGRTMIN", SIGRTMIN }, { "RTMIN+2", SIGRTMIN + 2 }, { "SIGRTMAX", SIGRTMAX },
		{ "rtmax-1", SIGRTMAX - 1 }, { "64", 64 },
	};
	static const char *const bad[] = {
		"", "SIG", "FOO", "SIGFOO", "0", "65", "99999999999999999999", "RTMIN+99", "RTMIN-1",
		"RTMAX+1", "RTMIN+", "10x", "-1", "SIGSIGUSR1", " USR1",
	};
	int sig;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (mtj_parse_signal(ok[i].s, &sig) != 0 || sig != ok[i].sig)
			fail_msg("'%s' should be signal %d", ok[i].s, ok[i].sig);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (mtj_parse_signal(bad[i], &sig) != -EINVAL)
			fail_msg("'%s' should be rejected", bad[i]);
	}
}

static void test_parse_bool(void **state)
{
	static const char *const yes[] = { "1", "yes", "YES", "true", "True", "on", "ON" };
	static const char *const no[] = { "0", "no", "No", "false", "FALSE", "off", "Off" };
	static const char *const bad[] = { "", "2", "y", "n", "enable", "00" };
	bool b;

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		assert_int_equal(mtj_parse_bool(yes[i], &b), 0);
		assert_true(b);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		assert_int_equal(mtj_parse_bool(no[i], &b), 0);
		assert_false(b);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(mtj_parse_bool(bad[i], &b), -EINVAL);
}

static void test_suggest(void **state)
{
	static const char *const opts[] = { "count", "skip", "every", "min-gap" };
	static const char *const vars[] = { "TRIGGER", "ON", "LOG", "LOG_FILE" };

	(void)state;
	assert_int_equal(mtj_suggest("cuont", opts, 4), 0);
	assert_int_equal(mtj_suggest("cnt", opts, 4), 0);
	assert_int_equal(mtj_suggest("Count", opts, 4), 0);
	assert_int_equal(mtj_suggest("skp", opts, 4), 1);
	assert_int_equal(mtj_suggest("evrey", opts, 4), 2);
	assert_int_equal(mtj_suggest("min_gap", opts, 4), 3);
	assert_int_equal(mtj_suggest("mingap", opts, 4), 3);
	assert_int_equal(mtj_suggest("xyz", opts, 4), 4);
	assert_int_equal(mtj_suggest("", opts, 4), 4);
	assert_int_equal(mtj_suggest("TRIGER", vars, 4), 0);
	assert_int_equal(mtj_suggest("FOO", vars, 4), 4);
	assert_int_equal(mtj_suggest("LOGFILE", vars, 4), 3);
	assert_int_equal(mtj_suggest("LOGS", vars, 4), 2);
	/* Words too long to compare are never "close". */
	assert_int_equal(mtj_suggest("TRIGGERTRIGGERTRIGGERTRIGGERTRIGGERTRIGGERTRIGGERTRIGGERTRIGGERTRIGGER",
				     vars, 4), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_lists_every_variable_once),
		cmocka_unit_test(test_each_variable_is_asked_for_exactly_once),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_nothing_to_do),
		cmocka_unit_test(test_on_alone_is_enough),
		cmocka_unit_test(test_blank_values_are_unset_and_values_are_trimmed),
		cmocka_unit_test(test_hardware_breakpoint_limit),
		cmocka_unit_test(test_an_error_still_parses_the_rest),
		cmocka_unit_test(test_error_buffer_is_bounded),
		cmocka_unit_test(test_trigger_variable),
		cmocka_unit_test(test_on_valid),
		cmocka_unit_test(test_on_invalid),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_session_valid),
		cmocka_unit_test(test_session_invalid),
		cmocka_unit_test(test_backend),
		cmocka_unit_test(test_snapshot_size),
		cmocka_unit_test(test_sample_freq),
		cmocka_unit_test(test_callgraph),
		cmocka_unit_test(test_timer_resolution),
		cmocka_unit_test(test_start_timeout),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_hits_max),
		cmocka_unit_test(test_follow_fork),
		cmocka_unit_test(test_booleans),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_unknown_variables),
		cmocka_unit_test(test_load_reports_in_the_useful_order),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_signal),
		cmocka_unit_test(test_parse_bool),
		cmocka_unit_test(test_suggest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
