/* preload/log.c — see log.h.  State is two ints, so there is nothing to lock. */
#include "preload/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "control/perf.h"

static enum mtj_log_level log_level = MTJ_LOG_ERROR;
static int log_fd = 2;

void mtj_log_setup(enum mtj_log_level level, int fd)
{
	log_level = level;
	log_fd = fd;
}

enum mtj_log_level mtj_log_level(void) { return log_level; }
int mtj_log_fd(void) { return log_fd; }

void mtj_log(enum mtj_log_level level, const char *fmt, ...)
{
	if (level > log_level || level == MTJ_LOG_QUIET)
		return;
	int saved = errno;
	char buf[2048];
	size_t off = (size_t)snprintf(buf, sizeof(buf), "mtinject: ");
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + off, sizeof(buf) - off - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	off += (size_t)n < sizeof(buf) - off - 1 ? (size_t)n : sizeof(buf) - off - 2;
	buf[off++] = '\n';
	(void)mtj_write_all(log_fd, buf, off);
	errno = saved;
}

size_t mtj_fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

size_t mtj_fmt_hex(char *buf, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0;
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	buf[0] = '0';
	buf[1] = 'x';
	for (size_t i = 0; i < n; i++)
		buf[2 + i] = tmp[n - 1 - i];
	return n + 2;
}

static size_t append(char *buf, size_t off, size_t cap, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	if (len > cap - off)
		len = cap - off;
	memcpy(buf + off, s ? s : "", len);
	return off + len;
}

void mtj_log_sigsafe(enum mtj_log_level level, const char *a, const char *b, long num)
{
	if (level > log_level || level == MTJ_LOG_QUIET)
		return;
	int saved = errno;
	char buf[512];
	size_t cap = sizeof(buf) - 24;
	size_t off = append(buf, 0, cap, "mtinject: ");
	off = append(buf, off, cap, a);
	off = append(buf, off, cap, b);
	if (num >= 0)
		off += mtj_fmt_u64(buf + off, (uint64_t)num);
	buf[off++] = '\n';
	(void)mtj_write_all(log_fd, buf, off);
	errno = saved;
}
