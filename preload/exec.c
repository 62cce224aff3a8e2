/*
 * preload/exec.c — exec*() wrappers: exec replaces the image that perf is recording and
 * removes our breakpoints (remove_on_exec), so before the program execs we stop perf
 * cleanly (bounded), exactly as at exit.  The new image finds the _MTINJECT_ROOT marker and
 * stays dormant unless MTINJECT_FOLLOW_EXEC=1.  glibc's execl*() and execvp() call its
 * internal execve, which cannot be interposed, hence one wrapper per entry point.
 * exec may be called between vfork() and _exit(), so the work is left to the helper
 * thread (see start.c: mtj_quiesce()).
 */
#include "preload/start.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#define NEXT(type, name) ((type)dlsym(RTLD_NEXT, name))

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

extern char **environ;

__attribute__((visibility("default"))) int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn real = NEXT(execve_fn, "execve");
	mtj_quiesce("exec");
	return real(path, argv, envp);
}

__attribute__((visibility("default"))) int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

__attribute__((visibility("default"))) int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execvpe_fn real = NEXT(execvpe_fn, "execvpe");
	mtj_quiesce("exec");
	return real(file, argv, envp);
}

__attribute__((visibility("default"))) int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

__attribute__((visibility("default"))) int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn real = NEXT(fexecve_fn, "fexecve");
	mtj_quiesce("exec");
	return real(fd, argv, envp);
}

__attribute__((visibility("default"))) int execveat(int dirfd, const char *path, char *const argv[],
						     char *const envp[], int flags)
{
	execveat_fn real = NEXT(execveat_fn, "execveat");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	mtj_quiesce("exec");
	return real(dirfd, path, argv, envp, flags);
}

/* execl(), execlp(), execle(): collect the variadic list (bounded like the kernel's). */
#define MAX_ARGS 4096

/* argv[] of at most MAX_ARGS entries including the NULL; -1 (E2BIG) when longer. */
static int collect(const char *arg0, va_list ap, char **argv)
{
	size_t n = 0;
	argv[n++] = (char *)(uintptr_t)arg0;
	while (argv[n - 1]) {
		if (n == MAX_ARGS) {
			errno = E2BIG;
			return -1;
		}
		argv[n++] = va_arg(ap, char *);
	}
	return 0;
}

__attribute__((visibility("default"))) int execl(const char *path, const char *arg, ...)
{
	char *argv[MAX_ARGS];
	va_list ap;
	va_start(ap, arg);
	int rc = collect(arg, ap, argv);
	va_end(ap);
	return rc < 0 ? -1 : execve(path, argv, environ);
}

__attribute__((visibility("default"))) int execlp(const char *file, const char *arg, ...)
{
	char *argv[MAX_ARGS];
	va_list ap;
	va_start(ap, arg);
	int rc = collect(arg, ap, argv);
	va_end(ap);
	return rc < 0 ? -1 : execvpe(file, argv, environ);
}

__attribute__((visibility("default"))) int execle(const char *path, const char *arg, ...)
{
	char *argv[MAX_ARGS];
	va_list ap;
	va_start(ap, arg);
	int rc = collect(arg, ap, argv);
	char *const *envp = rc < 0 ? NULL : va_arg(ap, char *const *);
	va_end(ap);
	return rc < 0 ? -1 : execve(path, argv, envp);
}
