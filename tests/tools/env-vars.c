/* env-vars — print the names of mtj_env_vars[], the table that drives configuration parsing,
 * one per line: the docs tests check every name against the man page, the Markdown
 * reference and the README. */
#include <stdio.h>

#include "preload/config.h"

int main(void)
{
	for (size_t i = 0; i < mtj_env_vars_count; i++)
		printf("%s\n", mtj_env_vars[i].name);
	return 0;
}
