/*
 * tools/cmd_run.c — `mtinject run [OPTIONS] [--] CMD ARGS`: run CMD with the preload and
 * its configuration in the environment, pass its terminal, exit status and signals through,
 * then decode what it recorded.
 *
 * The configuration is validated here, with the very environment CMD will get, before CMD
 * starts: a typo in a trigger costs a message, not a run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "decode/trace.h"
#include "preload/config.h"
#include "preload/symbols.h"
#include "tools/commands.h"
#include "tools/ctl_proto.h"
#include "tools/common.h"
#include "tools/run_env.h"

extern char **environ;

#define MAX_TRIGGER_ARGS 64
/* Bound on waiting for the perf session CMD leaves behind to finish writing. */
#define PERF_LINGER_MS 10000

struct run_opts {
	char *triggers[MAX_TRIGGER_ARGS];
	size_t ntriggers;
	const char *on, *output, *backend, *session, *format;
	char *assignments[MAX_TRIGGER_ARGS];
	size_t nassignments;
	bool multi, no_decode, quiet;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mtinject run [OPTIONS] [--] COMMAND [ARGS...]\n\n"
		"Run COMMAND with libmtinject.so preloaded: when a trigger fires, the perf flight\n"
		"recorder running beside it writes the moments before to a snapshot.  Afterwards the\n"
		"snapshots are decoded into traces.  COMMAND's stdin, stdout, stderr and exit status\n"
		"pass through unchanged; mtinject's own messages go to stderr.\n\n"
		"The configuration is checked first, and triggers on functions of COMMAND's\n"
		"executable are looked up in its file: a typo stops here, before COMMAND runs.\n\n"
		"Options (they end at COMMAND; put `--` before a COMMAND that starts with '-'):\n"
		"  -t, --trigger SPEC     snapshot when SPEC runs; repeatable, joined with ';'.\n"
		"                         SPEC: FUNCTION[@OBJECT] | 0xADDR | OBJECT+0xOFF,\n"
		"                         then ,count=N|all ,skip=N ,every=N ,min-gap=DURATION\n"
		"      --on EVENTS        also snapshot on exit, crash, abort, signal:SIG; api: only\n"
		"                         on mtinject_snapshot() calls (comma list)\n"
		"      --multi            count=all on every -t trigger that does not set count\n"
		"  -o, --output DIR       where snapshots go (default ./mtinject-COMMAND-PID/)\n"
		"      --backend B        auto, pt or sampling (default auto; see `mtinject info`)\n"
		"      --session SPEC     attach to a running perf: fifo:CTL,ACK[,pid:PID|pid:parent],\n"
		"                         fd:CTL,ACK, pid:PID, or none (record hits only)\n"
		"  -e, --env VAR=VALUE    set VAR for COMMAND (any MTINJECT_* setting); repeatable\n"
		"      --format F         trace format: json (default), fxt or folded\n"
		"      --no-decode        keep the perf.data snapshots, do not decode them\n"
		"  -q, --quiet            no summary after COMMAND exits\n"
		"  -h, --help             this help\n\n"
		"Examples:\n"
		"  mtinject run -t checksum_failed -- ./server --port 8080\n"
		"  mtinject run -t 'parse@libfoo.so' --multi --on crash ./client\n\n"
		"Exit status: COMMAND's (128+N when signal N killed it); 127 COMMAND not found,\n"
		"126 not executable, 2 usage or configuration error, 1 or 3 when mtinject itself\n"
		"failed before starting COMMAND.  Decoding problems are reported on stderr only.\n");
}

/* mtj_config_parse takes a plain getter; it reads the environment prepared for CMD. */
static const struct mtj_env *getter_env;
static const char *env_getter(const char *name)
{
	return mtj_env_get(getter_env, name);
}

static int check_assignment(const char *a)
{
	const char *eq = strchr(a, '=');
	if (!eq || eq == a) {
		mtj_tool_err("run", "-e '%s': expected VAR=VALUE", a);
		return MTJ_EXIT_USAGE;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct run_opts *o)
{
	enum { OPT_ON = 256, OPT_MULTI, OPT_BACKEND, OPT_SESSION, OPT_NO_DECODE, OPT_FORMAT };
	static const struct option longopts[] = {
		{ "trigger", required_argument, NULL, 't' },
		{ "on", required_argument, NULL, OPT_ON },
		{ "multi", no_argument, NULL, OPT_MULTI },
		{ "output", required_argument, NULL, 'o' },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "session", required_argument, NULL, OPT_SESSION },
		{ "env", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "no-decode", no_argument, NULL, OPT_NO_DECODE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 0;
	opterr = 0;
	/* '+': stop at COMMAND, so its own options stay its own. */
	while ((c = getopt_long(argc, argv, "+:t:o:e:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (o->ntriggers == MAX_TRIGGER_ARGS) {
				mtj_tool_err("run", "too many -t options");
				return MTJ_EXIT_USAGE;
			}
			o->triggers[o->ntriggers++] = optarg;
			break;
		case 'e':
			if (o->nassignments == MAX_TRIGGER_ARGS) {
				mtj_tool_err("run", "too many -e options");
				return MTJ_EXIT_USAGE;
			}
			if (check_assignment(optarg))
				return MTJ_EXIT_USAGE;
			o->assignments[o->nassignments++] = optarg;
			break;
		case OPT_ON: o->on = optarg; break;
		case OPT_MULTI: o->multi = true; break;
		case 'o': o->output = optarg; break;
		case OPT_BACKEND: o->backend = optarg; break;
		case OPT_SESSION: o->session = optarg; break;
		case OPT_FORMAT: o->format = optarg; break;
		case OPT_NO_DECODE: o->no_decode = true; break;
		case 'q': o->quiet = true; break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return mtj_tool_option_error("run", c, longopts, argv);
		}
	}
	if (optind >= argc) {
		mtj_tool_err("run", "missing COMMAND");
		fprintf(stderr, "Try 'mtinject run --help'.\n");
		return MTJ_EXIT_USAGE;
	}
	if (o->format) {
		enum mtj_format fmt;
		if (mtj_format_from_name(o->format, &fmt)) {
			mtj_tool_err("run", "--format: '%s' is not a format (valid: json, fxt, folded)", o->format);
			return MTJ_EXIT_USAGE;
		}
	}
	return 0;
}

static int absolute(const char *path, char *out, size_t outlen)
{
	char cwd[PATH_MAX];
	int len;
	if (path[0] == '/') {
		len = snprintf(out, outlen, "%s", path);
	} else {
		if (!getcwd(cwd, sizeof cwd))
			return -errno;
		len = snprintf(out, outlen, "%s/%s", strcmp(cwd, "/") ? cwd : "", path);
	}
	return len < 0 || (size_t)len >= outlen ? -ENAMETOOLONG : 0;
}

static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -errno;
	struct stat st;
	if (stat(tmp, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* Everything CMD's environment needs; returns 0 or an exit status. */
static int build_env(const struct run_opts *o, const char *cmd, struct mtj_env *env, char *outdir,
		     size_t outlen)
{
	char buf[8192];
	int rc;

	if (mtj_env_init(env, environ))
		goto nomem;
	if (o->ntriggers) {
		if (mtj_triggers_join(o->triggers, o->ntriggers, o->multi, buf, sizeof buf)) {
			mtj_tool_err("run", "the triggers are too long together");
			return MTJ_EXIT_USAGE;
		}
		if (mtj_env_set(env, "MTINJECT_TRIGGER", buf))
			goto nomem;
	} else if (o->multi) {
		mtj_tool_err("run", "--multi applies to -t triggers; there are none");
		return MTJ_EXIT_USAGE;
	}
	if ((o->on && mtj_env_set(env, "MTINJECT_ON", o->on)) ||
	    (o->backend && mtj_env_set(env, "MTINJECT_BACKEND", o->backend)) ||
	    (o->session && mtj_env_set(env, "MTINJECT_SESSION", o->session)))
		goto nomem;

	if (o->output)
		rc = absolute(o->output, buf, sizeof buf);
	else {
		char cwd[PATH_MAX];
		rc = getcwd(cwd, sizeof cwd) ? mtj_run_default_output(cwd, cmd, getpid(), buf, sizeof buf) : -errno;
	}
	if (rc) {
		mtj_tool_err("run", "output directory: %s", strerror(-rc));
		return MTJ_EXIT_FAIL;
	}
	if (mtj_env_set(env, "MTINJECT_OUTPUT", buf))
		goto nomem;
	/* -e comes last: an explicit VAR=VALUE wins over the options above. */
	for (size_t i = 0; i < o->nassignments; i++)
		if (mtj_env_put(env, o->assignments[i]))
			goto nomem;
	if (absolute(mtj_env_get(env, "MTINJECT_OUTPUT"), outdir, outlen)) {
		mtj_tool_err("run", "output directory: name too long");
		return MTJ_EXIT_FAIL;
	}
	if (mtj_env_set(env, "MTINJECT_OUTPUT", outdir))
		goto nomem;

	const char *lib = mtj_tool_libpath();
	if (!lib) {
		mtj_tool_err("run", "cannot find libmtinject.so (`mtinject info` shows where it looks)");
		return MTJ_EXIT_NOTFOUND;
	}
	rc = mtj_env_add_preload(env, lib);
	if (rc == -EINVAL) {
		mtj_tool_err("run", "%s: LD_PRELOAD cannot hold a path with spaces or ':'", lib);
		return MTJ_EXIT_FAIL;
	}
	if (rc)
		goto nomem;
	return 0;
nomem:
	mtj_tool_err("run", "out of memory");
	return MTJ_EXIT_FAIL;
}

/* CMD as execvp would find it, or "" (then exec reports the problem itself). */
static void find_command(const char *cmd, char *out, size_t outlen)
{
	out[0] = '\0';
	if (strchr(cmd, '/')) {
		snprintf(out, outlen, "%s", cmd);
		return;
	}
	const char *path = getenv("PATH");
	for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");
		char cand[PATH_MAX];
		int n = snprintf(cand, sizeof cand, "%.*s/%s", (int)len, len ? p : ".", cmd);
		if (n > 0 && (size_t)n < sizeof cand && access(cand, X_OK) == 0) {
			snprintf(out, outlen, "%s", cand);
			return;
		}
		p += len + (p[len] == ':');
	}
}

static bool is_elf(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool elf = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return elf;
}

/*
 * Triggers that name a function of the executable (no @object) must exist in it: check in
 * the file before running anything.  Scripts are skipped (their executable at run time is
 * the interpreter), as are triggers on libraries (they may be dlopen'ed later).
 */
static int check_triggers(const struct mtj_config *cfg, const char *cmd)
{
	char exe[PATH_MAX], err[2048];
	find_command(cmd, exe, sizeof exe);
	if (!exe[0] || !is_elf(exe))
		return 0;
	struct mtj_sym_object obj = { .path = exe, .open_path = NULL, .bias = 0, .is_main = true };
	for (size_t i = 0; i < cfg->ntriggers; i++) {
		const struct mtj_trigger_spec *t = &cfg->triggers[i];
		if (t->kind != MTJ_LOC_SYMBOL || t->object[0])
			continue;
		static struct mtj_location loc;
		err[0] = '\0';
		int rc = mtj_resolve_in_objects(t, &obj, 1, &loc, err, sizeof err);
		if (rc == -ENOENT || rc == -EEXIST) {
			mtj_tool_err("run", "trigger '%s': %s", t->text, err);
			return MTJ_EXIT_USAGE;
		}
	}
	return 0;
}

static int validate(const struct mtj_env *env, const char *cmd)
{
	static struct mtj_config cfg;  /* large: keep it off the stack */
	char err[1024] = "";
	getter_env = env;
	int rc = mtj_config_parse(&cfg, env_getter, err, sizeof err);
	getter_env = NULL;
	/* A misspelt MTINJECT_ variable (from -e or inherited) would be ignored silently. */
	if (!rc)
		rc = mtj_config_check_unknown(env->vars, err, sizeof err);
	if (rc == -ENOENT) {
		mtj_tool_err("run", "nothing would take a snapshot: give -t TRIGGER and/or --on EVENTS");
		return MTJ_EXIT_USAGE;
	}
	if (rc) {
		mtj_tool_err("run", "%s", err[0] ? err : strerror(-rc));
		return MTJ_EXIT_USAGE;
	}
	return check_triggers(&cfg, cmd);
}

/* ---- running CMD ------------------------------------------------------------------------ */
static volatile pid_t child_pid;

static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* A terminal's ^C/^\ (SI_KERNEL) reaches CMD's process group by itself; forward only
	 * what was sent to us alone (kill, timeout(1), a supervisor). */
	if (child_pid > 0 && si->si_code != SI_KERNEL)
		kill(child_pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void set_forwarding(bool on)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	if (on) {
		sa.sa_sigaction = forward;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
	} else {
		sa.sa_handler = SIG_DFL;
	}
	for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
		sigaction(forwarded[i], &sa, NULL);
}

/* Start CMD; returns its pid, or a negative exit status after printing why. */
static pid_t start(char **args, char **envp)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC)) {
		mtj_tool_err("run", "pipe: %s", strerror(errno));
		return -MTJ_EXIT_FAIL;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		mtj_tool_err("run", "fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return -MTJ_EXIT_FAIL;
	}
	if (pid == 0) {
		close(pipefd[0]);
		set_forwarding(false);
		execvpe(args[0], args, envp);
		int e = errno;
		/* Tell the parent why; the exec-on-close pipe stays silent on success. */
		if (write(pipefd[1], &e, sizeof e) < 0)
			_exit(MTJ_EXIT_NOCMD);
		_exit(e == ENOENT ? MTJ_EXIT_NOCMD : MTJ_EXIT_NOEXEC);
	}
	close(pipefd[1]);
	int e = 0;
	ssize_t got;
	do
		got = read(pipefd[0], &e, sizeof e);
	while (got < 0 && errno == EINTR);
	close(pipefd[0]);
	if (got == (ssize_t)sizeof e) {
		waitpid(pid, NULL, 0);
		if (e == ENOENT) {
			mtj_tool_err(NULL, "%s: command not found", args[0]);
			return -MTJ_EXIT_NOCMD;
		}
		mtj_tool_err(NULL, "%s: %s", args[0], strerror(e));
		return -MTJ_EXIT_NOEXEC;
	}
	return pid;
}

/* Is a perf process CMD left behind (now our child, thanks to the subreaper bit) still
 * writing?  Reaps whatever has exited meanwhile. */
static bool perf_lingers(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	DIR *d = opendir("/proc");
	if (!d)
		return false;
	bool found = false;
	pid_t self = getpid();
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		char path[300], stat[512];
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		size_t n = fread(stat, 1, sizeof stat - 1, f);
		fclose(f);
		stat[n] = '\0';
		/* pid (comm) state ppid ... — comm may hold spaces or parentheses. */
		char *open = strchr(stat, '('), *close = strrchr(stat, ')');
		if (!open || !close)
			continue;
		int ppid = 0;
		if (sscanf(close + 1, " %*c %d", &ppid) != 1 || ppid != self)
			continue;
		*close = '\0';
		found = !strcmp(open + 1, "perf");
	}
	closedir(d);
	return found;
}

static void wait_for_perf(void)
{
	for (int waited = 0; waited < PERF_LINGER_MS && perf_lingers(); waited += 20) {
		struct timespec pause = { 0, 20 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
}

/* ---- after CMD -------------------------------------------------------------------------- */
static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/* Snapshots the preload says it took ("snapshot":true in hits.jsonl).  The directory alone
 * does not tell: a perf killed with its program leaves an unfinished perf.data behind. */
static size_t count_snapshots(const char *dir)
{
	char path[PATH_MAX + 16], line[16384];
	size_t n = 0;
	snprintf(path, sizeof path, "%s/hits.jsonl", dir);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		bool taken = false;
		if (!mtj_jsonl_bool(line, "snapshot", &taken) && taken)
			n++;
	}
	fclose(f);
	return n;
}

static void summarize(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool any = false, chrome = false, folded = false;
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		bool is_json = ends_with(n, ".json"), is_fxt = ends_with(n, ".fxt"), is_folded = ends_with(n, ".folded");
		if (!is_json && !is_fxt && !is_folded)
			continue;
		if (!any)
			fprintf(stderr, "mtinject: traces:\n");
		fprintf(stderr, "  %s/%s\n", dir, n);
		any = true;
		chrome |= is_json || is_fxt;
		folded |= is_folded;
	}
	closedir(d);
	if (!any) {
		fprintf(stderr, "mtinject: no trace was written; the snapshots are in %s\n", dir);
		return;
	}
	if (chrome)
		fprintf(stderr, "Open them in https://ui.perfetto.dev (\"Open trace file\")%s.\n",
			folded ? "" : " or chrome://tracing (JSON)");
	if (folded)
		fprintf(stderr, "Open .folded files in https://www.speedscope.app or with flamegraph.pl.\n");
}

static void decode(const struct run_opts *o, const char *dir)
{
	char a0[] = "decode", quiet[] = "--quiet", fmt[] = "--format";
	char *args[6];
	int n = 0;
	args[n++] = a0;
	args[n++] = quiet;
	if (o->format) {
		args[n++] = fmt;
		args[n++] = (char *)o->format;
	}
	args[n++] = (char *)dir;
	args[n] = NULL;

	/* Decode's messages are about the tracing, not about CMD: keep stdout CMD's alone. */
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	if (saved >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	int rc = mtj_cmd_decode(n, args);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	optind = 0;
	if (rc)
		mtj_tool_err("run", "decoding %s failed (status %d); retry with `mtinject decode %s`", dir, rc, dir);
}

int mtj_cmd_run(int argc, char **argv)
{
	struct run_opts o;
	memset(&o, 0, sizeof o);
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? MTJ_EXIT_OK : rc;
	char **args = argv + optind;

	struct mtj_env env = { 0 };
	char outdir[PATH_MAX];
	rc = build_env(&o, args[0], &env, outdir, sizeof outdir);
	if (!rc)
		rc = validate(&env, args[0]);
	if (!rc && (rc = mkdir_p(outdir)) != 0) {
		mtj_tool_err("run", "cannot create %s: %s", outdir, strerror(-rc));
		rc = MTJ_EXIT_FAIL;
	}
	if (rc) {
		mtj_env_free(&env);
		return rc;
	}

	/* Orphans of CMD (the perf session it started) become our children, so we can wait
	 * for them to finish writing before decoding. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	set_forwarding(true);
	pid_t pid = start(args, env.vars);
	mtj_env_free(&env);
	if (pid < 0) {
		set_forwarding(false);
		return (int)-pid;
	}
	child_pid = pid;

	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	child_pid = 0;
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (WIFSIGNALED(status) && !o.quiet)
		mtj_tool_err(NULL, "%s was killed by signal %d (%s)", args[0], WTERMSIG(status),
			     strsignal(WTERMSIG(status)));
	wait_for_perf();
	set_forwarding(false);

	size_t snaps = count_snapshots(outdir);
	if (!snaps) {
		if (!o.quiet) {
			char hits[PATH_MAX + 16];
			struct stat st;
			snprintf(hits, sizeof hits, "%s/hits.jsonl", outdir);
			if (stat(hits, &st) == 0 && st.st_size > 0)
				fprintf(stderr, "mtinject: no snapshot was taken; see %s for why\n", hits);
			else
				fprintf(stderr, "mtinject: nothing triggered; no snapshot was taken (%s)\n", outdir);
		}
		return rc;
	}
	if (o.no_decode) {
		if (!o.quiet)
			fprintf(stderr, "mtinject: %zu snapshot%s in %s; decode with `mtinject decode %s`\n", snaps,
				snaps == 1 ? "" : "s", outdir, outdir);
		return rc;
	}
	decode(&o, outdir);
	if (!o.quiet)
		summarize(outdir);
	return rc;
}
