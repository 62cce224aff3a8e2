/*
 * tools/cmd_ctl.c — `mtinject snapshot DIR|PID [REASON]` and `mtinject stop DIR|PID`:
 * talk to a running preloaded process through its control FIFO (see tools/ctl_proto.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools/commands.h"
#include "tools/common.h"
#include "tools/ctl_proto.h"

#define DEFAULT_TIMEOUT_MS 10000

static void usage(enum mtj_ctl_cmd cmd, FILE *f)
{
	if (cmd == MTJ_CTL_SNAPSHOT)
		fprintf(f, "Usage: mtinject snapshot [--timeout SECONDS] DIR|PID [REASON...]\n\n"
			   "Ask a process running under mtinject for a snapshot now, from another\n"
			   "terminal, and print the path of the snapshot file once it is written.\n"
			   "PID is looked up in /tmp/mtinject-UID/; DIR is the process's output directory.\n"
			   "REASON (default \"manual\") is recorded in hits.jsonl and shown in the trace.\n");
	else
		fprintf(f, "Usage: mtinject stop [--timeout SECONDS] DIR|PID\n\n"
			   "Stop tracing in a process running under mtinject: its perf session ends,\n"
			   "the process runs on untraced.  PID is looked up in /tmp/mtinject-UID/;\n"
			   "DIR is the process's output directory.\n");
	fprintf(f, "\nOptions:\n"
		   "  -T, --timeout SECONDS  how long to wait for the answer (default 10)\n"
		   "  -h, --help             this help\n\n%s", mtj_tool_exit_help);
}

static int parse_timeout(const char *s, int *ms)
{
	char *end;
	errno = 0;
	double secs = strtod(s, &end);
	if (errno || end == s || *end || secs <= 0 || secs > 86400)
		return -EINVAL;
	*ms = (int)(secs * 1000 + 0.5);
	return 0;
}

/* Join REASON words with single spaces; newlines become spaces (one request = one line). */
static void join_reason(int n, char **words, char *out, size_t outlen)
{
	size_t pos = 0;
	out[0] = '\0';
	for (int i = 0; i < n && pos + 1 < outlen; i++) {
		int len = snprintf(out + pos, outlen - pos, "%s%s", i ? " " : "", words[i]);
		if (len < 0)
			break;
		pos += (size_t)len;
		if (pos >= outlen)
			pos = outlen - 1;
	}
	for (char *p = out; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

static int send_line(const char *name, const char *dir, const char *line, size_t len, int timeout_ms)
{
	char fifo[PATH_MAX + 16];
	struct stat st;
	snprintf(fifo, sizeof fifo, "%s/control", dir);
	if (stat(fifo, &st) != 0 || !S_ISFIFO(st.st_mode)) {
		mtj_tool_err(name, "%s: no control FIFO (is %s the output directory of a process running under mtinject?)",
			     fifo, dir);
		return MTJ_EXIT_NOTFOUND;
	}
	/* Non-blocking: with nobody reading, open fails (ENXIO) instead of hanging. */
	int fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENXIO)
			mtj_tool_err(name, "no process is reading %s: it has exited", fifo);
		else
			mtj_tool_err(name, "%s: %s", fifo, strerror(errno));
		return MTJ_EXIT_NOTFOUND;
	}
	int waited = 0;
	for (;;) {
		ssize_t w = write(fd, line, len);
		if (w == (ssize_t)len)
			break;
		if (w < 0 && errno == EAGAIN && waited < timeout_ms) {
			/* The pipe is full: the process is not reading right now. */
			struct timespec pause = { 0, 10 * 1000 * 1000 };
			nanosleep(&pause, NULL);
			waited += 10;
			continue;
		}
		mtj_tool_err(name, "cannot write to %s: %s", fifo, w < 0 ? strerror(errno) : "short write");
		close(fd);
		return MTJ_EXIT_FAIL;
	}
	close(fd);
	return MTJ_EXIT_OK;
}

static int ctl_main(enum mtj_ctl_cmd cmd, int argc, char **argv)
{
	const char *name = cmd == MTJ_CTL_SNAPSHOT ? "snapshot" : "stop";
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int timeout_ms = DEFAULT_TIMEOUT_MS, c;

	optind = 0;
	opterr = 0;
	/* '+': the REASON may start with '-' after the target. */
	while ((c = getopt_long(argc, argv, "+:T:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'T':
			if (parse_timeout(optarg, &timeout_ms)) {
				mtj_tool_err(name, "--timeout: '%s' is not a number of seconds", optarg);
				return MTJ_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(cmd, stdout);
			return MTJ_EXIT_OK;
		default:
			return mtj_tool_option_error(name, c, longopts, argv);
		}
	}
	int rest = argc - optind;
	if (rest < 1 || (cmd == MTJ_CTL_STOP && rest > 1)) {
		if (rest < 1)
			mtj_tool_err(name, "missing DIR or PID");
		else
			mtj_tool_err(name, "unexpected argument '%s'", argv[optind + 1]);
		fprintf(stderr, "Try 'mtinject %s --help'.\n", name);
		return MTJ_EXIT_USAGE;
	}
	const char *target = argv[optind];

	char regdir[64], dir[PATH_MAX];
	pid_t pid;
	snprintf(regdir, sizeof regdir, "/tmp/mtinject-%u", (unsigned)getuid());
	int rc = mtj_ctl_resolve(target, regdir, dir, sizeof dir, &pid);
	if (rc == -ENOENT && target[strspn(target, "0123456789")] == '\0') {
		mtj_tool_err(name, "PID %s is not running under mtinject (no %s/%s)", target, regdir, target);
		return MTJ_EXIT_NOTFOUND;
	}
	if (rc == -ESRCH) {
		mtj_tool_err(name, "PID %d has exited (stale %s/%d)", (int)pid, regdir, (int)pid);
		return MTJ_EXIT_NOTFOUND;
	}
	if (rc == -ENOTDIR) {
		mtj_tool_err(name, "%s is not a directory (give the output directory or the PID)", target);
		return MTJ_EXIT_NOTFOUND;
	}
	if (rc) {
		mtj_tool_err(name, "%s: %s", target, strerror(-rc));
		return MTJ_EXIT_NOTFOUND;
	}

	static unsigned counter;
	char id[64], reason[1024], line[MTJ_CTL_LINE_MAX + 1];
	snprintf(id, sizeof id, "%d-%u", (int)getpid(), ++counter);
	join_reason(argc - optind - 1, argv + optind + 1, reason, sizeof reason);
	int len = mtj_ctl_line(cmd, id, reason, line, sizeof line);
	if (len < 0) {
		mtj_tool_err(name, "REASON is too long");
		return MTJ_EXIT_USAGE;
	}

	/* Answers are appended: read only what arrives after our request. */
	char hits[PATH_MAX + 16];
	struct stat st;
	snprintf(hits, sizeof hits, "%s/hits.jsonl", dir);
	off_t offset = stat(hits, &st) == 0 ? st.st_size : 0;

	rc = send_line(name, dir, line, (size_t)len, timeout_ms);
	if (rc)
		return rc;

	struct mtj_ctl_reply r;
	if (mtj_ctl_wait(dir, offset, cmd, id, timeout_ms, &r)) {
		mtj_tool_err(name, "no answer to request %s within %.1f s (see %s)", id, timeout_ms / 1000.0, hits);
		return MTJ_EXIT_FAIL;
	}
	if (cmd == MTJ_CTL_STOP) {
		if (r.has_stopped && r.stopped && !r.why[0]) {
			fprintf(stderr, "mtinject stop: tracing stopped (%s)\n", dir);
			return MTJ_EXIT_OK;
		}
		mtj_tool_err(name, "refused: %s", r.why[0] ? r.why : "the process did not stop tracing");
		return MTJ_EXIT_FAIL;
	}
	if (!r.snapshot) {
		mtj_tool_err(name, "refused: %s", r.why[0] ? r.why : "no reason given");
		return MTJ_EXIT_FAIL;
	}
	if (r.file[0] == '/')
		printf("%s\n", r.file);
	else if (r.file[0])
		printf("%s/%s\n", dir, r.file);
	else
		fprintf(stderr, "mtinject snapshot: snapshot taken; the perf session that wrote it did not say where\n");
	return MTJ_EXIT_OK;
}

int mtj_cmd_snapshot(int argc, char **argv)
{
	return ctl_main(MTJ_CTL_SNAPSHOT, argc, argv);
}

int mtj_cmd_stop(int argc, char **argv)
{
	return ctl_main(MTJ_CTL_STOP, argc, argv);
}
