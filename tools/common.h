/*
 * tools/common.h — what every `mtinject` command shares: exit statuses, where the preload
 * library and the perf dlfilter are, messages and option errors in one style.
 */
#ifndef MTJ_TOOLS_COMMON_H
#define MTJ_TOOLS_COMMON_H

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses of every command (documented in `mtinject --help` and mtinject(1)).
 * `mtinject run` returns its command's status instead, except for its own failures. */
enum mtj_exit {
	MTJ_EXIT_OK       = 0,
	MTJ_EXIT_FAIL     = 1,    /* the work failed (refused, timed out, tracing impossible) */
	MTJ_EXIT_USAGE    = 2,    /* bad command line or configuration */
	MTJ_EXIT_NOTFOUND = 3,    /* a file, directory or process is missing or unreadable */
	MTJ_EXIT_NOEXEC   = 126,  /* run: the command exists but cannot be executed */
	MTJ_EXIT_NOCMD    = 127,  /* run: the command was not found */
};

/* The text block that lists the statuses above, for --help outputs. */
extern const char mtj_tool_exit_help[];

/* ---- where our files are ------------------------------------------------------------- */
enum mtj_tool_file { MTJ_FILE_LIBRARY = 0, MTJ_FILE_DLFILTER };

#define MTJ_TOOL_MAX_CANDIDATES 4

/*
 * The places searched for `what`, best first, given the directory of the running tool
 * (`selfdir`) and the compile-time package library directory (`pkglibdir`, e.g.
 * /usr/local/lib/mtinject).  Next to the tool comes first (the build tree has everything
 * side by side), then relative to it as installed (bin/../lib), then the configured paths.
 * Duplicates are dropped.  Returns the number of paths written.
 */
size_t mtj_tool_candidates(enum mtj_tool_file what, const char *selfdir, const char *pkglibdir,
			   char out[][PATH_MAX], size_t max);

/* First existing candidate for this executable (absolute, canonical), or NULL.  Cached. */
const char *mtj_tool_libpath(void);
const char *mtj_tool_dlfilter_path(void);
/* Directory of /proc/self/exe ("" if it cannot be read). */
const char *mtj_tool_selfdir(void);

/* ---- messages ------------------------------------------------------------------------ */
/* "mtinject: " or "mtinject CMD: " + message + newline, to stderr. */
void mtj_tool_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The candidate closest to `word`, or NULL when nothing is close enough to suggest. */
const char *mtj_closest(const char *word, const char *const *cands, size_t n);

/*
 * Report a getopt_long() error for command `cmd` (opterr = 0, optstring starting with ':'):
 * `c` is the '?' or ':' getopt returned.  Suggests the closest long option.  Returns
 * MTJ_EXIT_USAGE.
 */
int mtj_tool_option_error(const char *cmd, int c, const struct option *longopts, char *const argv[]);

/* Append a JSON string literal (quoted, escaped) of `s` to `f`. */
void mtj_json_string(FILE *f, const char *s);

#endif
