/*
 * control/perf.h — everything mtinject says to perf: capability probe, `perf record` argv,
 * spawning or attaching to a session, the control-pipe protocol with acks, the SIGUSR2
 * fallback, and knowing when a snapshot is on disk.  Used by preload/ (from its helper
 * thread, never from a signal handler) and by tools/.
 *
 * Errors are negative errno values.  The detail of a session's failure is in
 * mtj_session_error() (e.g. "perf exited with status 255 before acknowledging 'ping'; see
 * perf.log"); the detail of a failed probe/spawn/attach (no session yet) is in
 * mtj_perf_last_error() of the calling thread.
 *
 * Nothing here installs signal handlers, changes signal dispositions, calls wait(-1) or
 * blocks without a time limit: it runs inside somebody else's program.
 */
#ifndef MTJ_CONTROL_PERF_H
#define MTJ_CONTROL_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- defaults (what 0 / NULL in struct mtj_record_opts means) -------------------------- */
/* Sampling frequency: odd so it does not beat with periodic timers; 1 ms resolution at well
 * under 1% overhead with frame-pointer call graphs; a 4 MiB ring then holds >10 s. */
#define MTJ_SAMPLE_FREQ_DEFAULT        999u
/* Ring (sampling) / AUX (PT) bytes per CPU, as magic-trace: 4 MiB when the mlock limit does
 * not apply (root, CAP_PERFMON/CAP_SYS_ADMIN, or perf_event_paranoid < 0), else 256 KiB.
 * Rounded up to a power-of-two number of pages, as perf requires. */
#define MTJ_SNAPSHOT_SIZE_PRIVILEGED   (4ull << 20)
#define MTJ_SNAPSHOT_SIZE_UNPRIVILEGED (256ull << 10)
/* Stack bytes copied per sample with MTINJECT_CALLGRAPH=dwarf (perf's own default). */
#define MTJ_DWARF_STACK_SIZE           8192u
/* Minimum gap between two dump-causing events (SIGUSR2, stop): perf names dumps
 * perf.data.<timestamp> in centiseconds, so two dumps in one slot would overwrite. */
#define MTJ_DUMP_GAP_MS                20
/* Bound for `perf --version` in mtj_perf_probe(). */
#define MTJ_PROBE_TIMEOUT_MS           3000

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

/* perf_override: MTINJECT_PERF, or NULL for $PATH.  Fills *caps; -ENOENT if no perf
 * (caps->path is then "", the system facts are still filled), -EIO if it does not print its
 * version within MTJ_PROBE_TIMEOUT_MS.  The version is cached per executable (path, inode,
 * mtime), so only the first probe runs perf; the system facts are re-read (cheap). */
int mtj_perf_probe(const char *perf_override, struct mtj_perf_caps *caps);

/* "perf version 6.1.187" -> 6,1,187; "perf version 5.10.0-rc3.g1234" -> 5,10,0;
 * "perf version 5.4.gabc" -> 5,4,0.  -EINVAL for anything else. */
int mtj_perf_parse_version(const char *text, int *major, int *minor, int *patch);

/* Set the version-derived bits (control_fd, control_fifo, ping_stop, dlfilter) from
 * caps->major/minor. */
void mtj_perf_caps_from_version(struct mtj_perf_caps *caps);

/* Detail of the last failed probe/spawn/attach in this thread ("" if none). */
const char *mtj_perf_last_error(void);

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

/* Decide AUTO; `why` receives a human sentence ("Intel PT not present: sampling").
 * An explicit choice is returned as asked; `why` then says if it cannot work here. */
enum mtj_backend mtj_perf_choose_backend(const struct mtj_perf_caps *caps, enum mtj_backend asked,
					 char *why, size_t whylen);

/* Ring/AUX bytes used when opts->snapshot_size is 0 (see MTJ_SNAPSHOT_SIZE_*). */
uint64_t mtj_perf_default_snapshot_size(const struct mtj_perf_caps *caps);

/* Problems that keep perf from recording (FATAL) or make it record less well (WARN), each
 * with the exact thing to run, e.g. "perf_event_paranoid is 3: perf cannot record as this
 * user; run: sudo sysctl kernel.perf_event_paranoid=1 (or run as root)".
 * probe_rc is what mtj_perf_probe() returned; backend is the one that will be used (AUTO is
 * resolved first).  Returns the worst level found; one line per problem goes to buf
 * ("" with MTJ_HINT_NONE). */
enum mtj_hint { MTJ_HINT_NONE = 0, MTJ_HINT_WARN, MTJ_HINT_FATAL };
enum mtj_hint mtj_perf_fix_hint(const struct mtj_perf_caps *caps, int probe_rc,
				enum mtj_backend backend, char *buf, size_t len);

/* Build the argv of `perf record` (argv[0] = caps->path).  Strings live in `buf`.
 * Returns argc (argv[argc] = NULL), or -ENOSPC / -EINVAL (bad option value, AUTO backend,
 * no pid/output) / -EOPNOTSUPP (PT without intel_pt, lbr without a hardware PMU, fifo
 * control on perf < 5.10, fd control on perf < 5.9).
 *
 * Both backends: -o OUT -p PID --clockid=CLOCK_MONOTONIC ... [--no-bpf-event] [--control=...]
 *   sampling: -e cycles:u (hw PMU) or cpu-clock:u, -F FREQ, --call-graph=fp|dwarf,N|lbr,
 *             --overwrite --switch-output=signal, -m PAGES (single and multi alike: only
 *             SIGUSR2 makes this recorder dump)
 *   pt:       -e intel_pt/CFG/u --snapshot [--switch-output=signal if multi] -m,AUXPAGES
 *             CFG as magic-trace: low "", normal "cyc=1,cyc_thresh=1,mtc_period=0",
 *             high normal+",noretcomp=1", cyc=N "cyc=1,cyc_thresh=N,mtc_period=0" (N 0..15)
 * --no-bpf-event is only given to perf >= 5.1 (older perf has no BPF events to turn off). */
int mtj_perf_record_argv(const struct mtj_perf_caps *caps, const struct mtj_record_opts *o,
			 char **argv, size_t max_argv, char *buf, size_t buflen);

/* ---- sessions ---------------------------------------------------------------------------- */
struct mtj_session;

/* Start perf record with `o` (a control pipe is created and added when perf >= 5.9), its
 * stdout/stderr to `log_path`, LD_PRELOAD and MTINJECT_* removed from its environment, no
 * shell, in its own process group, no fd but the two control fds inherited.  With
 * start_timeout_ms > 0, wait until perf acknowledges a ping (it is recording); perf without
 * a control pipe is given min(start_timeout_ms, 500) ms.  With 0, do not wait.
 * On failure *out is NULL and mtj_perf_last_error() says why (perf is not left running). */
int mtj_session_spawn(const struct mtj_perf_caps *caps, const struct mtj_record_opts *o,
		      const char *log_path, int start_timeout_ms, struct mtj_session **out);

/* Attach to a session somebody else started: "fifo:CTL,ACK[,pid:PID|pid:parent]",
 * "fd:CTL,ACK[,pid:...]" or "pid:PID" / "pid:parent".  `backend` says how snapshots are
 * requested (AUTO: resolved from caps); `output` is the perf.data path of that session when
 * known (may be NULL: it is then read from perf's command line in /proc/PID when a pid is
 * given).  The sampling backend needs a pid (SIGUSR2).  A fifo whose perf is not reading yet
 * is opened at the first command.  Attached sessions belong to whoever started them:
 * mtj_session_stop() only detaches (perf ends with its workload or its owner). */
int mtj_session_attach(const struct mtj_perf_caps *caps, const char *spec, enum mtj_backend backend,
		       const char *output, struct mtj_session **out);

/* Take one snapshot and wait (bounded) until it is on disk.  The path of the file written
 * goes to `file` (empty when it cannot be known, e.g. output unknown).
 *   sampling, and PT multi: SIGUSR2, then ping->ack twice, then the new perf.data.<timestamp>
 *     (found by name: the newest one must change); without ping, the directory is watched.
 *   PT single: `snapshot`->ack, ping->ack; `file` is the output, complete after stop.
 * Calls are serialized: a second caller waits (bounded by its timeout) for the first.
 * -ETIMEDOUT (perf did not answer: the session is then failed), -EPIPE (perf died: see
 * mtj_session_error()), -EBUSY (another snapshot held the session past timeout_ms). */
int mtj_session_snapshot(struct mtj_session *s, int timeout_ms, char *file, size_t filelen);

/* True while a snapshot is being taken (a request now would be served after it). */
bool mtj_session_busy(const struct mtj_session *s);

/* Spawned sessions: send `stop` (SIGINT without a control pipe), wait bounded for perf to
 * exit, then SIGTERM, then SIGKILL; reap it.  The dump perf writes at exit and a partial
 * perf.data left by a killed perf in switch-output mode are removed: they are not snapshots
 * anyone asked for.  Attached sessions: detach.  Safe to call twice (then 0); frees
 * nothing.  -ETIMEDOUT if perf had to be killed, -ESRCH if it had died before. */
int mtj_session_stop(struct mtj_session *s, int timeout_ms);

/* Free the session (stops it first, 2 s bound, if it is still running). */
void mtj_session_free(struct mtj_session *s);

bool mtj_session_alive(struct mtj_session *s);
pid_t mtj_session_perf_pid(const struct mtj_session *s);      /* 0 when unknown */
enum mtj_backend mtj_session_backend(const struct mtj_session *s);
/* perf.data path of the session ("" when unknown). */
const char *mtj_session_output(const struct mtj_session *s);
/* Last error detail, "" if none. */
const char *mtj_session_error(const struct mtj_session *s);

/* Delete the oldest perf.data.<timestamp> files next to the session's output so that the
 * newest `keep` remain (keep 0 = keep all).  Returns the number deleted or -errno. */
int mtj_session_prune(struct mtj_session *s, unsigned keep);
/* Same for a perf.data path or a directory (base name perf.data). */
int mtj_perf_prune(const char *output_or_dir, unsigned keep);

/* The newest perf.data.<timestamp> next to `output` into name (full path): 1 found, 0 none,
 * -errno.  Timestamps sort as text, so "newest" is the greatest name. */
int mtj_perf_newest_dump(const char *output, char *name, size_t len);

/* ---- building blocks shared inside control/ (exposed for tests) ----------------------- */
uint64_t mtj_perf_now_ns(void);                 /* CLOCK_MONOTONIC */
/* printf into the calling thread's mtj_perf_last_error(). */
void mtj_perf_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Spawn `path argv` untraced: environment without LD_PRELOAD and MTINJECT_*, stdin
 * /dev/null, stdout+stderr to out_fd (-1: /dev/null), ctl_fd/ack_fd (when >= 0) as fds 3
 * and 4, every other fd closed, own process group, default signal dispositions and an empty
 * mask.  posix_spawn, so nothing runs between fork and exec. */
int mtj_perf_exec(const char *path, char *const argv[], int out_fd, int ctl_fd, int ack_fd,
		  pid_t *pid);
/* Wait until `pid` (our child) exits, watching pidfd when >= 0; reaps it.  0 with *status,
 * -ECHILD if somebody else reaped it (status unknown), -ETIMEDOUT at the deadline. */
int mtj_perf_wait_pid(pid_t pid, int pidfd, uint64_t deadline_ns, int *status);
/* Resolve `name` (a path if it has a '/', else searched in the PATH perf would get). */
int mtj_perf_which(const char *name, char *out, size_t len);
/* "exited with status 3" / "was killed by signal 9 (KILL)" for a waitpid status. */
void mtj_perf_describe_status(int status, char *buf, size_t len);

/* Write "cmd\n" to perf's control fd within the deadline; SIGPIPE is blocked in the calling
 * thread around the write and a SIGPIPE it raised is consumed, so a dead perf cannot kill
 * the host.  0, -EPIPE, -ETIMEDOUT. */
int mtj_ctl_write(int fd, const char *cmd, uint64_t deadline_ns);
/* Discard what is waiting on the ack fd (acks of commands given up on).  -EPIPE on EOF. */
int mtj_ack_drain(int fd);
/* Count "ack\n" in data[0..n) (perf writes "ack\n\0"; NULs are ignored). */
unsigned mtj_ack_count(const char *data, size_t n);

/* perf record's output as given by its argv (-o X, -oX, --output X, --output=X; default
 * perf.data), made absolute with cwd.  *switch_output tells whether --switch-output was
 * given.  -EINVAL if argv is not a `perf record`. */
int mtj_perf_output_from_argv(int argc, char *const argv[], const char *cwd, char *out, size_t len,
			      bool *switch_output);

/* After fork() in the child: forget the parent's session without touching perf. */
void mtj_session_forget(struct mtj_session *s);

/*
 * Move a descriptor of ours out of the program's way: a copy at or above 900 (close-on-exec),
 * the original closed.  Programs allocate the lowest free numbers and daemons close
 * 3..N at start-up; a pipe of ours that got a low number could otherwise be closed under us
 * and the number reused for one of the program's files, which our next write would then
 * corrupt.  Returns the new fd, or fd itself when the limit leaves no room.
 */
int mtj_fd_move_high(int fd);

/* write(2) all of buf, again after EINTR and short writes: 0, or -errno (-EIO when write
 * returns 0).  Async-signal-safe. */
int mtj_write_all(int fd, const void *buf, size_t len);

#endif
