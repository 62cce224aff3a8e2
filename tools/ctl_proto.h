/*
 * tools/ctl_proto.h — the tool's side of the runtime control protocol of a preloaded
 * process (`mtinject snapshot` / `mtinject stop`).
 *
 * The preload reads lines from the FIFO OUTDIR/control and registers itself as the symlink
 * /tmp/mtinject-<uid>/<pid> -> OUTDIR.  A request is one line written with one write():
 *     snapshot <id> <reason...>\n        stop <id>\n
 * and is answered by one line appended to OUTDIR/hits.jsonl, once the snapshot is on disk,
 * that carries "request":"<id>": "snapshot":true|false, "snapshot_file":"NAME" (relative to
 * OUTDIR; absent when the session cannot know it), "why" when refused, or "stopped":true
 * for stop.
 */
#ifndef MTJ_TOOLS_CTL_PROTO_H
#define MTJ_TOOLS_CTL_PROTO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum mtj_ctl_cmd { MTJ_CTL_SNAPSHOT = 0, MTJ_CTL_STOP };

/* Longest request line: what one write() to a pipe delivers atomically. */
#define MTJ_CTL_LINE_MAX PIPE_BUF

/*
 * Build the request line.  `id` must be a non-empty token without whitespace; `reason`
 * (snapshot only; NULL or "" = "manual") must not contain a newline.  Returns the length,
 * -EINVAL for bad input, -ENOSPC when the line would exceed MTJ_CTL_LINE_MAX or outlen.
 */
int mtj_ctl_line(enum mtj_ctl_cmd cmd, const char *id, const char *reason, char *out, size_t outlen);

/* The answer to one request, merged from the hits.jsonl lines that name it. */
struct mtj_ctl_reply {
	bool matched;         /* some line named the request */
	bool has_snapshot;    /* "snapshot" was present ... */
	bool snapshot;        /* ... with this value */
	bool has_file;
	char file[PATH_MAX];  /* "snapshot_file" */
	bool has_stopped;
	bool stopped;
	char why[512];        /* "why", "" if absent */
};

/* Read a string / boolean member of a one-line JSON object.  0, -ENOENT (absent),
 * -EINVAL (not that type), -ENOSPC (string longer than outlen). */
int mtj_jsonl_string(const char *line, const char *key, char *out, size_t outlen);
int mtj_jsonl_bool(const char *line, const char *key, bool *out);

/* If `line` answers request `id`, merge it into *r and return true. */
bool mtj_ctl_match_line(const char *line, const char *id, struct mtj_ctl_reply *r);
/* Does *r finish the request (written, refused or stopped)? */
bool mtj_ctl_reply_done(enum mtj_ctl_cmd cmd, const struct mtj_ctl_reply *r);

/*
 * Resolve "PID" (all digits: through `regdir`/PID, regdir normally /tmp/mtinject-<uid>)
 * or "DIR" into the absolute output directory.  *pid gets the PID (0 for a DIR).
 *   -ENOENT   no registry entry for PID / DIR does not exist
 *   -ESRCH    registry entry present but the process is gone
 *   -ENOTDIR  DIR is not a directory
 */
int mtj_ctl_resolve(const char *target, const char *regdir, char *dir, size_t dirlen, pid_t *pid);

/*
 * Follow DIR/hits.jsonl from byte `offset` until a line completes request `id` or
 * `timeout_ms` passes.  0 when done, -ETIMEDOUT (r->matched tells if anything arrived).
 */
int mtj_ctl_wait(const char *dir, off_t offset, enum mtj_ctl_cmd cmd, const char *id,
		 int timeout_ms, struct mtj_ctl_reply *r);

#endif
