/*
 * preload/log.h — the preload's only way to speak.  Silent below the configured level,
 * errno-preserving, and one write(2) per message so lines from threads do not interleave.
 * mtj_log() formats with vsnprintf and must not be called from a signal handler;
 * mtj_log_sigsafe() only concatenates strings and decimal numbers and may be.
 */
#ifndef MTJ_PRELOAD_LOG_H
#define MTJ_PRELOAD_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "preload/config.h"

/* Until configured: level ERROR to stderr. */
void mtj_log_setup(enum mtj_log_level level, int fd);
enum mtj_log_level mtj_log_level(void);
int mtj_log_fd(void);

void mtj_log(enum mtj_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Async-signal-safe: "mtinject: " + a + b + (num >= 0 ? decimal num : "") + "\n". */
void mtj_log_sigsafe(enum mtj_log_level level, const char *a, const char *b, long num);

/* Async-signal-safe number formatting: returns characters written (no NUL added). */
size_t mtj_fmt_u64(char *buf, uint64_t v);
size_t mtj_fmt_hex(char *buf, uint64_t v);  /* "0x…" */

#endif
