/*
 * tools/run_env.h — the environment `mtinject run` gives its command: a private copy of
 * ours with the MTINJECT_* settings and LD_PRELOAD added.  Kept apart from cmd_run.c so the
 * rules (append to LD_PRELOAD, --multi, default output directory) are unit-tested.
 */
#ifndef MTJ_TOOLS_RUN_ENV_H
#define MTJ_TOOLS_RUN_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct mtj_env {
	char **vars;      /* "NAME=VALUE", NULL-terminated, each malloc'd */
	size_t n, cap;
};

/* Copy `base` (NULL-terminated, e.g. environ).  -ENOMEM. */
int mtj_env_init(struct mtj_env *e, char *const *base);
void mtj_env_free(struct mtj_env *e);
/* Value of `name`, or NULL. */
const char *mtj_env_get(const struct mtj_env *e, const char *name);
/* Replace or add.  -EINVAL for an empty name or one containing '='. */
int mtj_env_set(struct mtj_env *e, const char *name, const char *value);
/* "NAME=VALUE" from `-e`; -EINVAL without '=' or with an empty name. */
int mtj_env_put(struct mtj_env *e, const char *assignment);

/*
 * Add `lib` (absolute) to LD_PRELOAD after what is already there, unless an entry with the
 * same path or the same file name is present.  -EINVAL when `lib` contains a character
 * LD_PRELOAD cannot express (space or ':').
 */
int mtj_env_add_preload(struct mtj_env *e, const char *lib);

/*
 * Join the -t arguments with ';'.  With `multi`, every trigger that does not say count=
 * itself gets ",count=all".  -ENOSPC when `out` is too small.
 */
int mtj_triggers_join(char *const *triggers, size_t n, bool multi, char *out, size_t outlen);

/* "<cwd>/mtinject-<basename of cmd>-<pid>".  -ENAMETOOLONG. */
int mtj_run_default_output(const char *cwd, const char *cmd, pid_t pid, char *out, size_t outlen);

#endif
