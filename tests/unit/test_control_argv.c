/*
 * Golden tests of the exact `perf record` argv for every backend and option (control/perf_argv.c).
 * PT cannot run on our machines; its command line is pinned here all the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "control/perf.h"

static struct mtj_perf_caps caps_61(void)
{
	struct mtj_perf_caps c;
	memset(&c, 0, sizeof(c));
	strcpy(c.path, "/usr/bin/perf");
	c.major = 6;
	c.minor = 1;
	c.patch = 187;
	mtj_perf_caps_from_version(&c);
	c.privileged = true;
	c.paranoid = 2;
	return c;
}

static struct mtj_record_opts opts(enum mtj_backend b)
{
	struct mtj_record_opts o;
	memset(&o, 0, sizeof(o));
	o.backend = b;
	o.pid = 4242;
	o.output = "/out/perf.data";
	o.ctl_fd = 3;
	o.ack_fd = 4;
	return o;
}

/* Join argv with single spaces, the form the expectations are written in. */
static void check(const struct mtj_perf_caps *c, const struct mtj_record_opts *o, const char *want)
{
	char *argv[64], buf[4096], got[4096] = "";
	int n = mtj_perf_record_argv(c, o, argv, 64, buf, sizeof(buf));
	assert_true(n > 0);
	assert_null(argv[n]);
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, argv[i]);
	}
	if (strcmp(got, want) != 0)
		fprintf(stderr, "got:  %s\nwant: %s\n", got, want);
	assert_string_equal(got, want);
}

#define HEAD "/usr/bin/perf record -o /out/perf.data -p 4242 --clockid=CLOCK_MONOTONIC "
#define SAMPLING_TAIL "--overwrite --switch-output=signal -m 1024 --no-bpf-event --control=fd:3,4"

static void sampling_fp_default(void **state)
{
	(void)state;
	struct mtj_perf_caps c = caps_61();
	struct mtj_record_opts o = opts(MTJ_BACKEND_SAMPLING);
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp " SAMPLING_TAIL);
	o.multi = true; /* same recorder: only SIGUSR2 dumps it */
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp " SAMPLING_TAIL);
}

static void sampling_dwarf_lbr_freq_size(void **state)
{
	(void)state;
	struct mtj_perf_caps c = caps_61();
	struct mtj_record_opts o = opts(MTJ_BACKEND_SAMPLING);
	o.callgraph = MTJ_CALLGRAPH_DWARF;
	o.sample_freq = 4999;
	o.snapshot_size = 1 << 20;
	check(&c, &o, HEAD "-e cpu-clock:u -F 4999 --call-graph=dwarf,8192 --overwrite --switch-output=signal "
			   "-m 256 --no-bpf-event --control=fd:3,4");
	o.snapshot_size = 3 * 4096 + 1; /* 4 pages -> rounded up to a power of two */
	o.callgraph = MTJ_CALLGRAPH_LBR;
	assert_int_equal(mtj_perf_record_argv(&c, &o, (char *[8]){ 0 }, 8, (char[64]){ 0 }, 64), -EOPNOTSUPP);
	c.hw_pmu = true;
	check(&c, &o, HEAD "-e cycles:u -F 4999 --call-graph=lbr --overwrite --switch-output=signal "
			   "-m 4 --no-bpf-event --control=fd:3,4");
}

static void sampling_unprivileged_default_size(void **state)
{
	(void)state;
	struct mtj_perf_caps c = caps_61();
	c.privileged = false;
	struct mtj_record_opts o = opts(MTJ_BACKEND_SAMPLING);
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp --overwrite --switch-output=signal -m 64 "
			   "--no-bpf-event --control=fd:3,4");
	c.paranoid = -1;
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp " SAMPLING_TAIL);
}

static void bpf_events_and_control_kinds(void **state)
{
	(void)state;
	struct mtj_perf_caps c = caps_61();
	struct mtj_record_opts o = opts(MTJ_BACKEND_SAMPLING);
	o.bpf_events = true;
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp --overwrite --switch-output=signal -m 1024 "
			   "--control=fd:3,4");
	o.bpf_events = false;
	o.ctl_fifo = "/run/ctl";
	o.ack_fifo = "/run/ack";
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp --overwrite --switch-output=signal -m 1024 "
			   "--no-bpf-event --control=fifo:/run/ctl,/run/ack");
	o.ctl_fifo = o.ack_fifo = NULL;
	o.ctl_fd = o.ack_fd = -1;
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp --overwrite --switch-output=signal -m 1024 "
			   "--no-bpf-event");
	o.ctl_fd = o.ack_fd = 0; /* a zeroed struct is not fd:0,0 */
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp --overwrite --switch-output=signal -m 1024 "
			   "--no-bpf-event");
}

static void old_perf_fallbacks(void **state)
{
	(void)state;
	struct mtj_perf_caps c = caps_61();
	c.major = 5;
	c.minor = 9;
	mtj_perf_caps_from_version(&c);
	struct mtj_record_opts o = opts(MTJ_BACKEND_SAMPLING);
	/* 5.9 has fd control but no fifo. */
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp " SAMPLING_TAIL);
	o.ctl_fifo = "c";
	o.ack_fifo = "a";
	assert_int_equal(mtj_perf_record_argv(&c, &o, (char *[64]){ 0 }, 64, (char[4096]){ 0 }, 4096), -EOPNOTSUPP);
	/* 5.0: no control pipe, no BPF events to turn off. */
	c.minor = 0;
	mtj_perf_caps_from_version(&c);
	o.ctl_fifo = o.ack_fifo = NULL;
	assert_int_equal(mtj_perf_record_argv(&c, &o, (char *[64]){ 0 }, 64, (char[4096]){ 0 }, 4096), -EOPNOTSUPP);
	o.ctl_fd = o.ack_fd = -1;
	check(&c, &o, HEAD "-e cpu-clock:u -F 999 --call-graph=fp --overwrite --switch-output=signal -m 1024");
}

static void pt_timer_resolutions(void **state)
{
	(void)state;
	struct mtj_perf_caps c = caps_61();
	struct mtj_record_opts o = opts(MTJ_BACKEND_PT);
	assert_int_equal(mtj_perf_record_argv(&c, &o, (char *[64]){ 0 }, 64, (char[4096]){ 0 }, 4096), -EOPNOTSUPP);
	c.intel_pt = true;
	check(&c, &o, HEAD "-e intel_pt/cyc=1,cyc_thresh=1,mtc_period=0/u --snapshot -m,1024 --no-bpf-event "
			   "--control=fd:3,4");
	o.timer_resolution = "normal";
	check(&c, &o, HEAD "-e intel_pt/cyc=1,cyc_thresh=1,mtc_period=0/u --snapshot -m,1024 --no-bpf-event "
			   "--control=fd:3,4");
	o.timer_resolution = "low";
	check(&c, &o, HEAD "-e intel_pt//u --snapshot -m,1024 --no-bpf-event --control=fd:3,4");
	o.timer_resolution = "high";
	check(&c, &o, HEAD "-e intel_pt/cyc=1,cyc_thresh=1,mtc_period=0,noretcomp=1/u --snapshot -m,1024 "
			   "--no-bpf-event --control=fd:3,4");
	o.timer_resolution = "cyc=3";
	o.snapshot_size = 64 << 20;
	check(&c, &o, HEAD "-e intel_pt/cyc=1,cyc_thresh=3,mtc_period=0/u --snapshot -m,16384 --no-bpf-event "
			   "--control=fd:3,4");
	o.multi = true;
	check(&c, &o, HEAD "-e intel_pt/cyc=1,cyc_thresh=3,mtc_period=0/u --snapshot --switch-output=signal "
			   "-m,16384 --no-bpf-event --control=fd:3,4");
	const char *bad[] = { "cyc=16", "cyc=", "cyc=x", "fast", "cyc=-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.timer_resolution = bad[i];
		assert_int_equal(mtj_perf_record_argv(&c, &o, (char *[64]){ 0 }, 64, (char[4096]){ 0 }, 4096), -EINVAL);
	}
}

static void invalid_and_small_buffers(void **state)
{
	(void)state;
	struct mtj_perf_caps c = caps_61();
	struct mtj_record_opts o = opts(MTJ_BACKEND_AUTO);
	char *argv[64], buf[4096];
	assert_int_equal(mtj_perf_record_argv(&c, &o, argv, 64, buf, sizeof(buf)), -EINVAL);
	o = opts(MTJ_BACKEND_SAMPLING);
	o.pid = 0;
	assert_int_equal(mtj_perf_record_argv(&c, &o, argv, 64, buf, sizeof(buf)), -EINVAL);
	o = opts(MTJ_BACKEND_SAMPLING);
	o.output = NULL;
	assert_int_equal(mtj_perf_record_argv(&c, &o, argv, 64, buf, sizeof(buf)), -EINVAL);
	o = opts(MTJ_BACKEND_SAMPLING);
	assert_int_equal(mtj_perf_record_argv(&c, &o, argv, 5, buf, sizeof(buf)), -ENOSPC);
	assert_int_equal(mtj_perf_record_argv(&c, &o, argv, 64, buf, 40), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sampling_fp_default),
		cmocka_unit_test(sampling_dwarf_lbr_freq_size),
		cmocka_unit_test(sampling_unprivileged_default_size),
		cmocka_unit_test(bpf_events_and_control_kinds),
		cmocka_unit_test(old_perf_fallbacks),
		cmocka_unit_test(pt_timer_resolutions),
		cmocka_unit_test(invalid_and_small_buffers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
