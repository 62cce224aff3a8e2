/*
 * control/perf.h — everything mtinject says to perf: capability probe, `perf record` argv,
 * spawning or attaching to a session, the control-pipe protocol with acks, the SIGUSR2
 * fallback, and knowing when a snapshot is on disk.  Used by preload/ (from its helper
 * thread, never from a signal handler) and by tools/.
 *
 * Errors are negative errno values; mtj_perf_strerror() adds the detail of the last failure
 * of a session (e.g. "perf exited with status 255 before acknowledging 'ping'; see perf.log").
 */
#ifndef MTJ_CONTROL_PERF_H
#define MTJ_CONTROL_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- capabilities ---------------------------------------------------------------------- */
struct mtj_perf_caps {
	char path[4096];           /* perf executable actually used */
	int major, minor, patch;   /* `perf --version` */
	bool control_fd;           /* --control=fd:   (>= 5.9)  */
	bool control_fifo;         /* --control=fifo: (>= 5.10) */
	bool ping_stop;            /* ping / stop commands (>= 5.12) */
	bool dlfilter;             /* perf script --dlfilter (>= 5.14) */
	bool intel_pt;             /* /sys/bus/event_source/devices/intel_pt exists */
	bool hw_pmu;               /* a hardware `cycles` event can be opened */
	int paranoid;              /* /proc/sys/kernel/perf_event_paranoid */
	bool privileged;           /* root or CAP_PERFMON / CAP_SYS_ADMIN */
};

/* perf_override: MTINJECT_PERF, or NULL for $PATH.  Fills *caps; -ENOENT if no perf. */
int mtj_perf_probe(const char *perf_override, struct mtj_perf_caps *caps);

/* ---- recording options ----------------------------------------------------------------- */
enum mtj_backend { MTJ_BACKEND_AUTO = 0, MTJ_BACKEND_PT, MTJ_BACKEND_SAMPLING };
enum mtj_callgraph { MTJ_CALLGRAPH_FP = 0, MTJ_CALLGRAPH_DWARF, MTJ_CALLGRAPH_LBR };

struct mtj_record_opts {
	enum mtj_backend backend;      /* AUTO is resolved by mtj_perf_choose_backend() */
	pid_t pid;                     /* process to record (-p) */
	const char *output;            /* perf.data path (-o) */
	uint64_t snapshot_size;        /* ring/AUX bytes; 0 = backend default */
	unsigned sample_freq;          /* Hz, sampling backend; 0 = default */
	enum mtj_callgraph callgraph;
	const char *timer_resolution;  /* PT: low|normal|high|cyc=N; NULL = normal */
	bool multi;                    /* several snapshots from one session */
	bool bpf_events;               /* default false: --no-bpf-event (perf exits 1 s faster) */
	/* Control channel given to perf (--control=...).  Filled by mtj_session_spawn. */
	int ctl_fd, ack_fd;            /* -1 when unused */
	const char *ctl_fifo, *ack_fifo;
};

/* Decide AUTO; `why` receives a human sentence ("Intel PT not present: sampling"). */
enum mtj_backend mtj_perf_choose_backend(const struct mtj_perf_caps *caps, enum mtj_backend asked,
					 char *why, size_t whylen);

/* Build the argv of `perf record` (argv[0] = caps->path).  Strings live in `buf`.
 * Returns argc, or -ENOSPC / -EINVAL. */
int mtj_perf_record_argv(const struct mtj_perf_caps *caps, const struct mtj_record_opts *o,
			 char **argv, size_t max_argv, char *buf, size_t buflen);

/* ---- sessions ---------------------------------------------------------------------------- */
struct mtj_session;

/* Start perf record with `o` (a control pipe is created and added), its stdout/stderr to
 * `log_path`, LD_PRELOAD and MTINJECT_* removed from its environment, no shell.  With
 * start_timeout_ms > 0, wait until perf acknowledges a ping (it is recording).  */
int mtj_session_spawn(const struct mtj_perf_caps *caps, const struct mtj_record_opts *o,
		      const char *log_path, int start_timeout_ms, struct mtj_session **out);

/* Attach to a session somebody else started: "fifo:CTL,ACK[,pid:PID|pid:parent]",
 * "fd:CTL,ACK[,pid:...]" or "pid:PID".  `backend` says how snapshots are requested;
 * `output` is the perf.data path of that session when known (may be NULL). */
int mtj_session_attach(const struct mtj_perf_caps *caps, const char *spec, enum mtj_backend backend,
		       const char *output, struct mtj_session **out);

/* Take one snapshot and wait (bounded) until it is on disk.  The path of the file written
 * goes to `file` (empty when it cannot be known, e.g. signal-only sessions).
 * -ETIMEDOUT, -EPIPE (perf died: see mtj_session_error()). */
int mtj_session_snapshot(struct mtj_session *s, int timeout_ms, char *file, size_t filelen);

/* Send `stop` (or SIGINT/SIGTERM for signal sessions), wait bounded for perf to exit,
 * reap it.  Safe to call twice; frees nothing. */
int mtj_session_stop(struct mtj_session *s, int timeout_ms);

/* Free the session (stops it first if it is still running). */
void mtj_session_free(struct mtj_session *s);

bool mtj_session_alive(struct mtj_session *s);
pid_t mtj_session_perf_pid(const struct mtj_session *s);      /* 0 when unknown */
enum mtj_backend mtj_session_backend(const struct mtj_session *s);
/* Last error detail, "" if none. */
const char *mtj_session_error(const struct mtj_session *s);

/* After fork() in the child: forget the parent's session without touching perf. */
void mtj_session_forget(struct mtj_session *s);

#endif
