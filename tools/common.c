/*
 * tools/common.c — helpers shared by the `mtinject` commands.
 */
#include "tools/common.h"

#include "preload/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char mtj_tool_exit_help[] =
	"Exit status:\n"
	"  0    success\n"
	"  1    failure (snapshot refused or timed out, tracing not possible here, ...)\n"
	"  2    usage error: bad command line or configuration\n"
	"  3    a file, directory or process was not found or cannot be read\n"
	"  126  run: COMMAND cannot be executed\n"
	"  127  run: COMMAND not found\n"
	"  run otherwise exits with COMMAND's status (128+N if a signal N killed it)\n";

static const char *const file_names[] = {
	[MTJ_FILE_LIBRARY] = "libmtinject.so",
	[MTJ_FILE_DLFILTER] = "mtinject-dlfilter.so",
};

/* Lexical parent of an absolute, canonical directory ("/a/b" -> "/a", "/a" -> "/"). */
static void parent_dir(const char *dir, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s", dir);
	char *slash = strrchr(out, '/');
	if (slash == out)
		out[1] = '\0';
	else if (slash)
		*slash = '\0';
}

static size_t add_candidate(char out[][PATH_MAX], size_t n, size_t max, const char *dir,
			    const char *sub, const char *name)
{
	if (n >= max || !dir || !*dir)
		return n;
	char path[PATH_MAX];
	int len = snprintf(path, sizeof path, "%s%s%s/%s", strcmp(dir, "/") ? dir : "", *sub ? "/" : "",
			   sub, name);
	if (len < 0 || (size_t)len >= sizeof path)
		return n;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i], path))
			return n;
	memcpy(out[n], path, (size_t)len + 1);
	return n + 1;
}

size_t mtj_tool_candidates(enum mtj_tool_file what, const char *selfdir, const char *pkglibdir,
			   char out[][PATH_MAX], size_t max)
{
	const char *name = file_names[what];
	char prefix[PATH_MAX] = "", libdir[PATH_MAX] = "";
	size_t n = 0;

	if (selfdir && *selfdir)
		parent_dir(selfdir, prefix, sizeof prefix);
	if (pkglibdir && *pkglibdir)
		parent_dir(pkglibdir, libdir, sizeof libdir);

	n = add_candidate(out, n, max, selfdir, "", name);
	if (what == MTJ_FILE_LIBRARY) {
		n = add_candidate(out, n, max, prefix, "lib", name);
		n = add_candidate(out, n, max, libdir, "", name);
	} else {
		n = add_candidate(out, n, max, prefix, "lib/mtinject", name);
		n = add_candidate(out, n, max, pkglibdir, "", name);
	}
	return n;
}

const char *mtj_tool_selfdir(void)
{
	static char dir[PATH_MAX];
	static bool done;

	if (!done) {
		ssize_t len = readlink("/proc/self/exe", dir, sizeof dir - 1);
		dir[len > 0 ? len : 0] = '\0';
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		done = true;
	}
	return dir;
}

static const char *find_file(enum mtj_tool_file what, char *cache, bool *done)
{
	if (*done)
		return *cache ? cache : NULL;
	*done = true;
	char cands[MTJ_TOOL_MAX_CANDIDATES][PATH_MAX];
	size_t n = mtj_tool_candidates(what, mtj_tool_selfdir(), MTINJECT_PKGLIBDIR, cands,
				       MTJ_TOOL_MAX_CANDIDATES);
	for (size_t i = 0; i < n; i++) {
		/* LD_PRELOAD and perf's --dlfilter both want an absolute, symlink-free path. */
		if (access(cands[i], R_OK) == 0 && realpath(cands[i], cache))
			return cache;
	}
	cache[0] = '\0';
	return NULL;
}

const char *mtj_tool_libpath(void)
{
	static char path[PATH_MAX];
	static bool done;
	return find_file(MTJ_FILE_LIBRARY, path, &done);
}

const char *mtj_tool_dlfilter_path(void)
{
	static char path[PATH_MAX];
	static bool done;
	return find_file(MTJ_FILE_DLFILTER, path, &done);
}

void mtj_tool_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	/* One fprintf per line part keeps the message whole even when stderr is unbuffered. */
	char msg[4096];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fflush(stdout);
	if (cmd && *cmd)
		fprintf(stderr, "mtinject %s: %s\n", cmd, msg);
	else
		fprintf(stderr, "mtinject: %s\n", msg);
}

const char *mtj_closest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, wlen = strlen(word);

	for (size_t i = 0; i < n; i++) {
		size_t clen = strlen(cands[i]);
		/* A prefix of a longer name ("snap" for "snapshot") is what people type. */
		if (wlen >= 2 && wlen < clen && !strncmp(word, cands[i], wlen))
			return cands[i];
		size_t d = mtj_edit_distance(word, cands[i]);
		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	/* Suggest only when at most a third of the word (and at least one letter) is wrong. */
	if (best && best_d <= (wlen + 2) / 3)
		return best;
	return NULL;
}

int mtj_tool_option_error(const char *cmd, int c, const struct option *longopts, char *const argv[])
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (c == ':') {
		if (optopt)
			mtj_tool_err(cmd, "option -%c needs a value", optopt);
		else
			mtj_tool_err(cmd, "option %s needs a value", arg);
	} else if (optopt) {
		mtj_tool_err(cmd, "unknown option -%c", optopt);
	} else {
		/* An unknown or ambiguous long option: suggest the nearest real one. */
		char word[128];
		snprintf(word, sizeof word, "%s", arg + (strncmp(arg, "--", 2) ? 0 : 2));
		word[strcspn(word, "=")] = '\0';
		const char *names[64];
		size_t n = 0;
		for (const struct option *o = longopts; o && o->name && n < 64; o++)
			names[n++] = o->name;
		const char *near = mtj_closest(word, names, n);
		if (near)
			mtj_tool_err(cmd, "unknown option '%s' (did you mean '--%s'?)", arg, near);
		else
			mtj_tool_err(cmd, "unknown option '%s'", arg);
	}
	if (cmd && *cmd)
		fprintf(stderr, "Try 'mtinject %s --help'.\n", cmd);
	else
		fprintf(stderr, "Try 'mtinject --help'.\n");
	return MTJ_EXIT_USAGE;
}

void mtj_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}
