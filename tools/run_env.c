/*
 * tools/run_env.c — the environment of the command started by `mtinject run`.
 */
#include "tools/run_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mtj_env_init(struct mtj_env *e, char *const *base)
{
	size_t n = 0;
	while (base && base[n])
		n++;
	e->cap = n + 8;
	e->n = 0;
	e->vars = calloc(e->cap + 1, sizeof *e->vars);
	if (!e->vars)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		e->vars[i] = strdup(base[i]);
		if (!e->vars[i]) {
			mtj_env_free(e);
			return -ENOMEM;
		}
		e->n = i + 1;
	}
	return 0;
}

void mtj_env_free(struct mtj_env *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->vars[i]);
	free(e->vars);
	e->vars = NULL;
	e->n = e->cap = 0;
}

static ssize_t find(const struct mtj_env *e, const char *name, size_t len)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->vars[i], name, len) && e->vars[i][len] == '=')
			return (ssize_t)i;
	return -1;
}

const char *mtj_env_get(const struct mtj_env *e, const char *name)
{
	ssize_t i = find(e, name, strlen(name));
	return i < 0 ? NULL : e->vars[i] + strlen(name) + 1;
}

static int set_n(struct mtj_env *e, const char *name, size_t len, const char *value)
{
	if (len == 0 || memchr(name, '=', len))
		return -EINVAL;
	size_t vlen = strlen(value);
	char *var = malloc(len + vlen + 2);
	if (!var)
		return -ENOMEM;
	memcpy(var, name, len);
	var[len] = '=';
	memcpy(var + len + 1, value, vlen + 1);

	ssize_t i = find(e, name, len);
	if (i >= 0) {
		free(e->vars[i]);
		e->vars[i] = var;
		return 0;
	}
	if (e->n == e->cap) {
		char **grown = realloc(e->vars, (e->cap * 2 + 1) * sizeof *grown);
		if (!grown) {
			free(var);
			return -ENOMEM;
		}
		e->vars = grown;
		e->cap *= 2;
	}
	e->vars[e->n++] = var;
	e->vars[e->n] = NULL;
	return 0;
}

int mtj_env_set(struct mtj_env *e, const char *name, const char *value)
{
	return set_n(e, name, strlen(name), value);
}

int mtj_env_put(struct mtj_env *e, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	if (!eq || eq == assignment)
		return -EINVAL;
	return set_n(e, assignment, (size_t)(eq - assignment), eq + 1);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

int mtj_env_add_preload(struct mtj_env *e, const char *lib)
{
	if (strpbrk(lib, " :\t\n"))
		return -EINVAL;
	const char *old = mtj_env_get(e, "LD_PRELOAD");
	if (!old || !*old)
		return mtj_env_set(e, "LD_PRELOAD", lib);

	/* ld.so separates entries with spaces or colons. */
	const char *p = old;
	while (*p) {
		size_t len = strcspn(p, " :");
		if (len) {
			char entry[4096];
			snprintf(entry, sizeof entry, "%.*s", (int)len, p);
			if (!strcmp(entry, lib) || !strcmp(base_name(entry), base_name(lib)))
				return 0;
		}
		p += len;
		p += strspn(p, " :");
	}
	size_t need = strlen(old) + strlen(lib) + 2;
	char *joined = malloc(need);
	if (!joined)
		return -ENOMEM;
	snprintf(joined, need, "%s:%s", old, lib);
	int rc = mtj_env_set(e, "LD_PRELOAD", joined);
	free(joined);
	return rc;
}

/* Does this one trigger ("sym@obj,skip=3,count=2") set count= itself? */
static bool says_count(const char *t, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (t[i] != ',')
			continue;
		size_t j = i + 1;
		while (j < len && t[j] == ' ')
			j++;
		if (len - j >= 6 && !strncmp(t + j, "count=", 6))
			return true;
	}
	return false;
}

static int append(char *out, size_t outlen, size_t *pos, const char *s, size_t len)
{
	if (*pos + len + 1 > outlen)
		return -ENOSPC;
	memcpy(out + *pos, s, len);
	*pos += len;
	out[*pos] = '\0';
	return 0;
}

int mtj_triggers_join(char *const *triggers, size_t n, bool multi, char *out, size_t outlen)
{
	size_t pos = 0;
	if (!outlen)
		return -ENOSPC;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *p = triggers[i];
		/* One -t may hold several triggers itself ("a;b"). */
		while (*p) {
			size_t len = strcspn(p, ";");
			if (len) {
				if ((pos && append(out, outlen, &pos, ";", 1)) || append(out, outlen, &pos, p, len))
					return -ENOSPC;
				if (multi && !says_count(p, len) && append(out, outlen, &pos, ",count=all", 10))
					return -ENOSPC;
			}
			p += len;
			if (*p == ';')
				p++;
		}
	}
	return 0;
}

int mtj_run_default_output(const char *cwd, const char *cmd, pid_t pid, char *out, size_t outlen)
{
	int len = snprintf(out, outlen, "%s%smtinject-%s-%d", cwd, strcmp(cwd, "/") ? "/" : "",
			   base_name(cmd), (int)pid);
	return len < 0 || (size_t)len >= outlen ? -ENAMETOOLONG : 0;
}
