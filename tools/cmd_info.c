/*
 * tools/cmd_info.c — `mtinject info [--json]`: what this machine supports, what mtinject
 * will do here, and the exact fix for every missing piece.
 *
 * Breakpoints and sampling are probed for real (the same perf_event_open calls the preload
 * makes), not guessed from version numbers: VMs and lockdown kernels differ.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "preload/breakpoint.h"
#include "preload/config.h"
#include "tools/cmd_info.h"
#include "tools/commands.h"

/* Never called: an address of our own code to put probe breakpoints on. */
__attribute__((noinline, used)) static void bp_target(void)
{
	__asm__ volatile("");
}

static const char *backend_name(enum mtj_backend b)
{
	switch (b) {
	case MTJ_BACKEND_PT: return "pt";
	case MTJ_BACKEND_SAMPLING: return "sampling";
	default: return "auto";
	}
}

/* Can this (disabled, user-only) event be opened on ourselves?  0 or -errno. */
static int can_open(struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->disabled = 1;
	long fd = syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

/* A breakpoint without sigtrap: tells "no breakpoints" from "no synchronous SIGTRAP". */
static int plain_breakpoint(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = (uintptr_t)bp_target;
	attr.bp_len = sizeof(long);
	attr.sample_period = 1;
	return can_open(&attr);
}

int mtj_info_probe_breakpoints(int *err, bool *sigtrap)
{
	int fds[64], n = 0;
	*err = 0;
	*sigtrap = false;
	while (n < 64) {
		int fd = mtj_bp_open((uintptr_t)bp_target, 0, MTJ_COOKIE(0));
		if (fd < 0) {
			*err = -fd;
			break;
		}
		fds[n++] = fd;
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	if (n > 0) {
		*sigtrap = true;
	} else if (*err == EINVAL && plain_breakpoint() == 0) {
		/* Breakpoints work, only sigtrap/remove_on_exec are unknown to this kernel. */
		*err = EINVAL;
	}
	return n;
}

static int probe_sampling(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_freq = 999;
	attr.freq = 1;
	return can_open(&attr);
}

static void problem(struct mtj_info *in, bool fatal, const char *text)
{
	if (in->nproblems == MTJ_INFO_MAX_PROBLEMS || !*text)
		return;
	struct mtj_info_problem *p = &in->problems[in->nproblems++];
	p->fatal = fatal;
	/* Hints are short sentences; a cut one still says what to do first. */
	size_t n = strnlen(text, sizeof p->text - 1);
	memcpy(p->text, text, n);
	p->text[n] = '\0';
}

void mtj_info_judge(struct mtj_info *in)
{
	char buf[2048];
	in->nproblems = 0;

	if (in->config_error[0]) {
		snprintf(buf, sizeof buf, "%s: the preload would run untraced; fix the variable or unset it",
			 in->config_error);
		problem(in, true, buf);
	}
	if (!in->library[0])
		problem(in, true, "libmtinject.so not found in the places searched; build it with `make` or install it with `make install`");
	if (in->bp_slots == 0) {
		if (in->bp_errno == EACCES || in->bp_errno == EPERM)
			snprintf(buf, sizeof buf, "hardware breakpoints: perf_event_open refused (%s); run: sudo sysctl kernel.perf_event_paranoid=2 (or run as root)",
				 strerror(in->bp_errno));
		else if (in->bp_errno == EINVAL)
			snprintf(buf, sizeof buf, "hardware breakpoints work but this kernel cannot send synchronous SIGTRAP (sigtrap, Linux >= 5.13): upgrade the kernel");
		else
			snprintf(buf, sizeof buf, "hardware breakpoints unavailable (%s): the kernel needs CONFIG_HAVE_HW_BREAKPOINT and a hypervisor that exposes debug registers",
				 strerror(in->bp_errno));
		problem(in, true, buf);
	}
	if (!in->sampling) {
		snprintf(buf, sizeof buf, "perf events on this process refused (%s); run: sudo sysctl kernel.perf_event_paranoid=2 (or run as root)",
			 strerror(in->sampling_errno));
		problem(in, true, buf);
	}

	enum mtj_hint level = mtj_perf_fix_hint(&in->caps, in->perf_rc, in->backend, buf, sizeof buf);
	for (char *line = buf, *next; level != MTJ_HINT_NONE && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		problem(in, level == MTJ_HINT_FATAL, line);
	}
	if (in->perf_rc && level != MTJ_HINT_FATAL) {
		snprintf(buf, sizeof buf, "perf is not usable (%s); install it: sudo apt-get install linux-perf",
			 strerror(-in->perf_rc));
		problem(in, true, buf);
	}
	if (!in->dlfilter[0])
		problem(in, false, "mtinject-dlfilter.so not found: `mtinject decode` needs it; build it with `make` or install it with `make install`");

	in->can_trace = true;
	for (size_t i = 0; i < in->nproblems; i++)
		if (in->problems[i].fatal)
			in->can_trace = false;
}

static const char *env_get(const char *name)
{
	return getenv(name);
}

void mtj_info_gather(struct mtj_info *in)
{
	static struct mtj_config cfg;
	struct utsname u;

	memset(in, 0, sizeof *in);
	if (uname(&u) == 0)
		snprintf(in->kernel, sizeof in->kernel, "%s %s (%s)", u.sysname, u.release, u.machine);

	/* What the preload would read from this environment (MTINJECT_PERF, _BACKEND). */
	int rc = mtj_config_parse(&cfg, env_get, in->config_error, sizeof in->config_error);
	if (rc == -ENOENT || rc == 0)
		in->config_error[0] = '\0';
	in->asked = cfg.backend;

	in->perf_rc = mtj_perf_probe(cfg.perf[0] ? cfg.perf : NULL, &in->caps);
	in->backend = mtj_perf_choose_backend(&in->caps, in->asked, in->backend_why, sizeof in->backend_why);

	in->bp_slots = mtj_info_probe_breakpoints(&in->bp_errno, &in->sigtrap);
	int s = probe_sampling();
	in->sampling = s == 0;
	in->sampling_errno = -s;

	const char *p = mtj_tool_libpath();
	snprintf(in->library, sizeof in->library, "%s", p ? p : "");
	p = mtj_tool_dlfilter_path();
	snprintf(in->dlfilter, sizeof in->dlfilter, "%s", p ? p : "");
	in->nlib_searched = mtj_tool_candidates(MTJ_FILE_LIBRARY, mtj_tool_selfdir(), MTINJECT_PKGLIBDIR,
						in->lib_searched, MTJ_TOOL_MAX_CANDIDATES);
	in->ndlf_searched = mtj_tool_candidates(MTJ_FILE_DLFILTER, mtj_tool_selfdir(), MTINJECT_PKGLIBDIR,
						in->dlf_searched, MTJ_TOOL_MAX_CANDIDATES);
	mtj_info_judge(in);
}

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

static void print_searched(FILE *f, char paths[][PATH_MAX], size_t n)
{
	fprintf(f, "  %-19s", "searched");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "\n                     " : "", paths[i]);
	fputc('\n', f);
}

void mtj_info_print_text(const struct mtj_info *in, FILE *f)
{
	const struct mtj_perf_caps *c = &in->caps;
	fprintf(f, "mtinject %s on %s\n\n", MTINJECT_VERSION, in->kernel);
	if (in->perf_rc == 0) {
		fprintf(f, "%-21s%s, version %d.%d.%d\n", "perf", c->path, c->major, c->minor, c->patch);
		fprintf(f, "  %-19sfd: %s, fifo: %s, ping/stop: %s\n", "control pipe", yes(c->control_fd),
			yes(c->control_fifo), yes(c->ping_stop));
		fprintf(f, "  %-19s%s\n", "dlfilter", yes(c->dlfilter));
	} else {
		fprintf(f, "%-21snot usable (%s)\n", "perf", strerror(-in->perf_rc));
	}
	fprintf(f, "%-21s%d\n", "perf_event_paranoid", c->paranoid);
	fprintf(f, "%-21s%s\n", "privileged", c->privileged ? "yes (root, CAP_PERFMON or CAP_SYS_ADMIN)" : "no");
	fprintf(f, "%-21s%s\n", "Intel PT", yes(c->intel_pt));
	fprintf(f, "%-21s%s\n", "hardware PMU", c->hw_pmu ? "yes" : "no (software cpu-clock sampling only)");
	if (in->bp_slots > 0)
		fprintf(f, "%-21s%d per thread (synchronous SIGTRAP: %s)\n", "hw breakpoints", in->bp_slots,
			yes(in->sigtrap));
	else
		fprintf(f, "%-21snone (%s)\n", "hw breakpoints", strerror(in->bp_errno));
	fprintf(f, "%-21s%s\n", "sampling events", in->sampling ? "yes" : strerror(in->sampling_errno));
	fprintf(f, "%-21s%s%s%s\n", in->asked == MTJ_BACKEND_AUTO ? "backend (auto)" : "backend",
		backend_name(in->backend), in->backend_why[0] ? ": " : "", in->backend_why);
	fprintf(f, "%-21s%s\n", "library", in->library[0] ? in->library : "NOT FOUND");
	print_searched(f, (char (*)[PATH_MAX])in->lib_searched, in->nlib_searched);
	fprintf(f, "%-21s%s\n", "dlfilter", in->dlfilter[0] ? in->dlfilter : "NOT FOUND");
	print_searched(f, (char (*)[PATH_MAX])in->dlf_searched, in->ndlf_searched);
	fputc('\n', f);

	for (size_t i = 0; i < in->nproblems; i++)
		fprintf(f, "%s: %s\n", in->problems[i].fatal ? "problem" : "warning", in->problems[i].text);
	if (in->can_trace)
		fprintf(f, "Tracing works here; try: mtinject run -t FUNCTION -- PROGRAM\n");
	else
		fprintf(f, "Tracing cannot work here until the problems above are fixed.\n");
}

static void json_paths(FILE *f, char paths[][PATH_MAX], size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		mtj_json_string(f, paths[i]);
	}
	fputc(']', f);
}

static void json_bool(FILE *f, const char *key, bool v)
{
	fprintf(f, ",\"%s\":%s", key, v ? "true" : "false");
}

void mtj_info_print_json(const struct mtj_info *in, FILE *f)
{
	const struct mtj_perf_caps *c = &in->caps;
	fprintf(f, "{\"version\":");
	mtj_json_string(f, MTINJECT_VERSION);
	fprintf(f, ",\"kernel\":");
	mtj_json_string(f, in->kernel);
	fprintf(f, ",\"perf\":");
	if (in->perf_rc == 0) {
		fprintf(f, "{\"path\":");
		mtj_json_string(f, c->path);
		fprintf(f, ",\"version\":\"%d.%d.%d\"", c->major, c->minor, c->patch);
		json_bool(f, "control_fd", c->control_fd);
		json_bool(f, "control_fifo", c->control_fifo);
		json_bool(f, "ping_stop", c->ping_stop);
		json_bool(f, "dlfilter", c->dlfilter);
		fputc('}', f);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\"perf_event_paranoid\":%d", c->paranoid);
	json_bool(f, "privileged", c->privileged);
	json_bool(f, "intel_pt", c->intel_pt);
	json_bool(f, "hw_pmu", c->hw_pmu);
	fprintf(f, ",\"hw_breakpoints\":%d", in->bp_slots);
	fprintf(f, ",\"hw_breakpoints_error\":");
	if (in->bp_errno && in->bp_errno != ENOSPC)
		mtj_json_string(f, strerror(in->bp_errno));
	else
		fprintf(f, "null");
	json_bool(f, "sigtrap", in->sigtrap);
	json_bool(f, "sampling", in->sampling);
	fprintf(f, ",\"backend\":{\"asked\":\"%s\",\"chosen\":\"%s\",\"why\":", backend_name(in->asked),
		backend_name(in->backend));
	mtj_json_string(f, in->backend_why);
	fprintf(f, "},\"library\":");
	if (in->library[0])
		mtj_json_string(f, in->library);
	else
		fprintf(f, "null");
	fprintf(f, ",\"library_searched\":");
	json_paths(f, (char (*)[PATH_MAX])in->lib_searched, in->nlib_searched);
	fprintf(f, ",\"dlfilter\":");
	if (in->dlfilter[0])
		mtj_json_string(f, in->dlfilter);
	else
		fprintf(f, "null");
	fprintf(f, ",\"dlfilter_searched\":");
	json_paths(f, (char (*)[PATH_MAX])in->dlf_searched, in->ndlf_searched);
	fprintf(f, ",\"problems\":[");
	for (size_t i = 0; i < in->nproblems; i++) {
		fprintf(f, "%s{\"fatal\":%s,\"text\":", i ? "," : "", in->problems[i].fatal ? "true" : "false");
		mtj_json_string(f, in->problems[i].text);
		fputc('}', f);
	}
	fprintf(f, "]");
	json_bool(f, "can_trace", in->can_trace);
	fprintf(f, "}\n");
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: mtinject info [--json]\n\n"
		   "What this machine supports (perf, its control pipe and dlfilter, Intel PT, the\n"
		   "hardware PMU, hardware breakpoint slots, perf_event_paranoid), which backend\n"
		   "`auto` picks and why, where libmtinject.so and the dlfilter are, and for every\n"
		   "missing piece the exact fix.  Reads MTINJECT_PERF and MTINJECT_BACKEND.\n\n"
		   "Options:\n"
		   "  -j, --json   one JSON object, for scripts\n"
		   "  -h, --help   this help\n\n"
		   "Exit status: 0 tracing can work here, 1 it cannot (the output says why),\n"
		   "2 usage error.\n");
}

int mtj_cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'h':
			usage(stdout);
			return MTJ_EXIT_OK;
		default:
			return mtj_tool_option_error("info", c, longopts, argv);
		}
	}
	if (optind < argc) {
		mtj_tool_err("info", "unexpected argument '%s'", argv[optind]);
		fprintf(stderr, "Try 'mtinject info --help'.\n");
		return MTJ_EXIT_USAGE;
	}
	static struct mtj_info in;
	mtj_info_gather(&in);
	if (json)
		mtj_info_print_json(&in, stdout);
	else
		mtj_info_print_text(&in, stdout);
	return in.can_trace ? MTJ_EXIT_OK : MTJ_EXIT_FAIL;
}
