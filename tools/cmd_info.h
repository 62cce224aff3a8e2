/*
 * tools/cmd_info.h — the facts `mtinject info` reports: what this machine lets mtinject do,
 * gathered once, printed as text or JSON.  Gathering is apart from printing so the verdict
 * and the JSON are unit-tested on made-up machines.
 */
#ifndef MTJ_TOOLS_CMD_INFO_H
#define MTJ_TOOLS_CMD_INFO_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "control/perf.h"
#include "tools/common.h"

#define MTJ_INFO_MAX_PROBLEMS 16

struct mtj_info_problem {
	bool fatal;           /* tracing cannot work until this is fixed */
	char text[512];       /* what is wrong and the exact fix */
};

struct mtj_info {
	char kernel[400];
	int perf_rc;                    /* mtj_perf_probe(): 0, -ENOENT, -EIO */
	struct mtj_perf_caps caps;
	char config_error[1024];        /* MTINJECT_* in this environment; "" when fine */
	enum mtj_backend asked;         /* MTINJECT_BACKEND */
	enum mtj_backend backend;       /* what AUTO (or the ask) resolves to */
	char backend_why[256];
	int bp_slots;                   /* execution breakpoints one thread could open */
	int bp_errno;                   /* why the next one failed (ENOSPC = slots exhausted) */
	bool sigtrap;                   /* synchronous SIGTRAP breakpoints (Linux >= 5.13) */
	bool sampling;                  /* a cpu-clock event on ourselves opened */
	int sampling_errno;
	char library[PATH_MAX];         /* "" when not found */
	char dlfilter[PATH_MAX];
	char lib_searched[MTJ_TOOL_MAX_CANDIDATES][PATH_MAX];
	size_t nlib_searched;
	char dlf_searched[MTJ_TOOL_MAX_CANDIDATES][PATH_MAX];
	size_t ndlf_searched;
	struct mtj_info_problem problems[MTJ_INFO_MAX_PROBLEMS];
	size_t nproblems;
	bool can_trace;
};

/* Count the execution breakpoints this thread can hold (opened, then closed again).
 * *err gets the errno of the first failure (ENOSPC when the slots ran out). */
int mtj_info_probe_breakpoints(int *err, bool *sigtrap);

/* Probe this machine and this environment into *in. */
void mtj_info_gather(struct mtj_info *in);
/* Fill problems[] and can_trace from the facts in *in (called by mtj_info_gather). */
void mtj_info_judge(struct mtj_info *in);

void mtj_info_print_text(const struct mtj_info *in, FILE *f);
void mtj_info_print_json(const struct mtj_info *in, FILE *f);


#endif
