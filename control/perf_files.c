/*
 * control/perf_files.c — the files a perf session leaves: which perf.data.<timestamp> is
 * the newest (how a finished dump is recognised), deleting the oldest ones (MTINJECT_KEEP),
 * and where an external perf writes (its -o, read from its argv).
 *
 * perf names switch-output dumps OUTPUT.<YYYYMMDDHHMMSScc>; equal-length digit strings sort
 * as text in time order, so no stat() or mtime (coarse on some filesystems) is needed.
 */
#include "control/perf.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Split an output path (or a directory: base perf.data) into dir and base. */
static int split_output(const char *output, char *dir, size_t dlen, char *base, size_t blen)
{
	struct stat st;
	if (!output || !*output)
		return -EINVAL;
	if (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(dir, dlen, "%s", output);
		snprintf(base, blen, "perf.data");
		return 0;
	}
	const char *slash = strrchr(output, '/');
	if (!slash) {
		snprintf(dir, dlen, ".");
		snprintf(base, blen, "%s", output);
	} else {
		snprintf(dir, dlen, "%.*s", slash == output ? 1 : (int)(slash - output), output);
		snprintf(base, blen, "%s", slash + 1);
	}
	return *base ? 0 : -EINVAL;
}

/* The timestamp part of `name` if it is BASE.<digits>, else NULL. */
static const char *dump_stamp(const char *name, const char *base, size_t blen)
{
	if (strncmp(name, base, blen) != 0 || name[blen] != '.' || !name[blen + 1])
		return NULL;
	for (const char *p = name + blen + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return NULL;
	return name + blen + 1;
}

static int stamp_cmp(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a, b);
}

static int cmp_names(const void *a, const void *b)
{
	return stamp_cmp(*(char *const *)a, *(char *const *)b);
}

/* Every BASE.<digits> in dir, oldest first: names[] holds the stamps (malloc'd). */
static int list_dumps(const char *dir, const char *base, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	size_t blen = strlen(base), cap = 0;
	*names = NULL;
	*n = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *stamp = dump_stamp(de->d_name, base, blen);
		if (!stamp)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			char **grown = realloc(*names, cap * sizeof(**names));
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			*names = grown;
		}
		if (!((*names)[*n] = strdup(stamp))) {
			rc = -ENOMEM;
			break;
		}
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_names);
	return rc;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int mtj_perf_newest_dump(const char *output, char *name, size_t len)
{
	char dir[4096], base[256];
	int rc = split_output(output, dir, sizeof(dir), base, sizeof(base));
	if (rc < 0)
		return rc;
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	size_t blen = strlen(base);
	char best[64] = "";
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *stamp = dump_stamp(de->d_name, base, blen);
		if (stamp && strlen(stamp) < sizeof(best) && (!best[0] || stamp_cmp(stamp, best) > 0))
			snprintf(best, sizeof(best), "%s", stamp);
	}
	closedir(d);
	if (!best[0]) {
		if (len)
			name[0] = '\0';
		return 0;
	}
	if ((size_t)snprintf(name, len, "%s/%s.%s", dir, base, best) >= len)
		return -ENAMETOOLONG;
	return 1;
}

int mtj_perf_prune(const char *output_or_dir, unsigned keep)
{
	if (keep == 0)
		return 0;
	char dir[4096], base[256];
	int rc = split_output(output_or_dir, dir, sizeof(dir), base, sizeof(base));
	if (rc < 0)
		return rc;
	char **names = NULL;
	size_t n = 0;
	rc = list_dumps(dir, base, &names, &n);
	int deleted = 0;
	for (size_t i = 0; rc == 0 && n > keep && i < n - keep; i++) {
		char path[4400];
		snprintf(path, sizeof(path), "%s/%s.%s", dir, base, names[i]);
		if (unlink(path) == 0)
			deleted++;
		else if (errno != ENOENT)
			rc = -errno;
	}
	free_names(names, n);
	return rc < 0 ? rc : deleted;
}

/* ---- an external perf's output ----------------------------------------------------------- */

int mtj_perf_output_from_argv(int argc, char *const argv[], const char *cwd, char *out, size_t len,
			      bool *switch_output)
{
	int i = 1;
	/* Global options of perf itself come before the subcommand (perf --no-pager record). */
	while (i < argc && argv[i][0] == '-')
		i++;
	if (i >= argc || strcmp(argv[i], "record") != 0)
		return -EINVAL;
	const char *o = "perf.data";
	*switch_output = false;
	for (i++; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			break; /* the workload's own arguments follow */
		if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && i + 1 < argc)
			o = argv[++i];
		else if (strncmp(a, "--output=", 9) == 0)
			o = a + 9;
		else if (strncmp(a, "-o", 2) == 0 && a[2])
			o = a + 2;
		else if (strncmp(a, "--switch-output", 15) == 0)
			*switch_output = true;
	}
	int n = o[0] == '/' || !cwd ? snprintf(out, len, "%s", o) : snprintf(out, len, "%s/%s", cwd, o);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}
