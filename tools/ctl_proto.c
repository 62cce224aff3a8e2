/*
 * tools/ctl_proto.c — request lines, hits.jsonl answers and target lookup for
 * `mtinject snapshot` / `mtinject stop`.
 */
#include "tools/ctl_proto.h"

#include "control/perf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int mtj_ctl_line(enum mtj_ctl_cmd cmd, const char *id, const char *reason, char *out, size_t outlen)
{
	if (!id || !*id || id[strcspn(id, " \t\r\n")])
		return -EINVAL;
	int len;
	if (cmd == MTJ_CTL_SNAPSHOT) {
		if (!reason || !*reason)
			reason = "manual";
		if (strpbrk(reason, "\r\n"))
			return -EINVAL;
		len = snprintf(out, outlen, "snapshot %s %s\n", id, reason);
	} else if (cmd == MTJ_CTL_STOP) {
		len = snprintf(out, outlen, "stop %s\n", id);
	} else {
		return -EINVAL;
	}
	if (len < 0 || (size_t)len >= outlen || len > MTJ_CTL_LINE_MAX)
		return -ENOSPC;
	return len;
}

/* Start of the value of member `key`, or NULL.  A key's opening quote follows '{', ',' or
 * blanks; inside a JSON string every quote is escaped, so text in values cannot match. */
static const char *member(const char *line, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = strchr(line, '"'); p; p = strchr(p + 1, '"')) {
		if (p > line) {
			const char *q = p - 1;
			while (q > line && (*q == ' ' || *q == '\t'))
				q--;
			if (*q != '{' && *q != ',')
				continue;
		}
		if (strncmp(p + 1, key, klen) || p[1 + klen] != '"')
			continue;
		const char *v = p + 2 + klen;
		v += strspn(v, " \t");
		if (*v != ':')
			continue;
		v++;
		return v + strspn(v, " \t");
	}
	return NULL;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int mtj_jsonl_string(const char *line, const char *key, char *out, size_t outlen)
{
	const char *v = member(line, key);
	if (!v)
		return -ENOENT;
	if (*v != '"' || !outlen)
		return -EINVAL;
	size_t n = 0;
	for (v++; *v != '"'; v++) {
		if (!*v)
			return -EINVAL;
		char buf[4];
		size_t blen = 1;
		buf[0] = *v;
		if (*v == '\\') {
			v++;
			switch (*v) {
			case 'n': buf[0] = '\n'; break;
			case 't': buf[0] = '\t'; break;
			case 'r': buf[0] = '\r'; break;
			case 'b': buf[0] = '\b'; break;
			case 'f': buf[0] = '\f'; break;
			case '"': case '\\': case '/': buf[0] = *v; break;
			case 'u': {
				unsigned cp = 0;
				for (int i = 1; i <= 4; i++) {
					int h = hexval((unsigned char)v[i]);
					if (h < 0)
						return -EINVAL;
					cp = cp * 16 + (unsigned)h;
				}
				v += 4;
				/* Paths and reasons are UTF-8; a lone surrogate has no encoding. */
				if (cp >= 0xd800 && cp <= 0xdfff)
					cp = '?';
				if (cp < 0x80) {
					buf[0] = (char)cp;
				} else if (cp < 0x800) {
					buf[0] = (char)(0xc0 | cp >> 6);
					buf[1] = (char)(0x80 | (cp & 0x3f));
					blen = 2;
				} else {
					buf[0] = (char)(0xe0 | cp >> 12);
					buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
					buf[2] = (char)(0x80 | (cp & 0x3f));
					blen = 3;
				}
				break;
			}
			default:
				return -EINVAL;
			}
		}
		if (n + blen >= outlen)
			return -ENOSPC;
		memcpy(out + n, buf, blen);
		n += blen;
	}
	out[n] = '\0';
	return 0;
}

int mtj_jsonl_bool(const char *line, const char *key, bool *out)
{
	const char *v = member(line, key);
	if (!v)
		return -ENOENT;
	if (!strncmp(v, "true", 4))
		*out = true;
	else if (!strncmp(v, "false", 5))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

bool mtj_ctl_match_line(const char *line, const char *id, struct mtj_ctl_reply *r)
{
	char req[256];
	if (mtj_jsonl_string(line, "request", req, sizeof req) || strcmp(req, id))
		return false;
	r->matched = true;
	if (!mtj_jsonl_bool(line, "snapshot", &r->snapshot))
		r->has_snapshot = true;
	if (!mtj_jsonl_string(line, "snapshot_file", r->file, sizeof r->file))
		r->has_file = true;
	if (!mtj_jsonl_bool(line, "stopped", &r->stopped))
		r->has_stopped = true;
	mtj_jsonl_string(line, "why", r->why, sizeof r->why);
	return true;
}

bool mtj_ctl_reply_done(enum mtj_ctl_cmd cmd, const struct mtj_ctl_reply *r)
{
	if (!r->matched)
		return false;
	if (r->why[0])
		return true;  /* refused, whatever the command */
	if (cmd == MTJ_CTL_STOP)
		return r->has_stopped;
	/* The preload writes one line per request, after the snapshot is on disk. */
	return r->has_snapshot;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int mtj_ctl_resolve(const char *target, const char *regdir, char *dir, size_t dirlen, pid_t *pid)
{
	struct stat st;
	*pid = 0;
	/* A directory named like a number in the current directory still counts as DIR. */
	if (all_digits(target) && stat(target, &st) != 0) {
		char link[PATH_MAX];
		long v = strtol(target, NULL, 10);
		if (v <= 0 || v > INT32_MAX)
			return -ENOENT;
		snprintf(link, sizeof link, "%s/%ld", regdir, v);
		ssize_t len = readlink(link, dir, dirlen - 1);
		if (len < 0)
			return -ENOENT;
		dir[len] = '\0';
		*pid = (pid_t)v;
		if (kill(*pid, 0) != 0 && errno == ESRCH)
			return -ESRCH;
		return 0;
	}
	if (stat(target, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	char abs[PATH_MAX];
	if (!realpath(target, abs))
		return -errno;
	if (strlen(abs) >= dirlen)
		return -ENAMETOOLONG;
	strcpy(dir, abs);
	return 0;
}

static long long now_ms(void)
{
	return (long long)(mtj_perf_now_ns() / 1000000u);
}

int mtj_ctl_wait(const char *dir, off_t offset, enum mtj_ctl_cmd cmd, const char *id,
		 int timeout_ms, struct mtj_ctl_reply *r)
{
	char path[PATH_MAX], line[8192];
	size_t have = 0;
	long long deadline = now_ms() + timeout_ms;
	int fd = -1;

	memset(r, 0, sizeof *r);
	snprintf(path, sizeof path, "%s/hits.jsonl", dir);
	for (;;) {
		if (fd < 0) {
			/* The file appears with the first hit or request. */
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0 && lseek(fd, offset, SEEK_SET) < 0) {
				close(fd);
				fd = -1;
			}
		}
		ssize_t got = 0;
		if (fd >= 0)
			got = read(fd, line + have, sizeof line - 1 - have);
		if (got > 0) {
			have += (size_t)got;
			line[have] = '\0';
			/* Only complete lines: the preload may be half-way through appending one. */
			char *nl;
			while ((nl = memchr(line, '\n', have))) {
				*nl = '\0';
				mtj_ctl_match_line(line, id, r);
				have -= (size_t)(nl + 1 - line);
				memmove(line, nl + 1, have);
				line[have] = '\0';
				if (mtj_ctl_reply_done(cmd, r)) {
					close(fd);
					return 0;
				}
			}
			if (have == sizeof line - 1)
				have = 0;  /* an absurdly long line is not ours: drop it */
			continue;
		}
		if (now_ms() >= deadline)
			break;
		struct timespec pause = { 0, 20 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
	if (fd >= 0)
		close(fd);
	return -ETIMEDOUT;
}
