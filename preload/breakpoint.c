/* preload/breakpoint.c — see breakpoint.h. */
#include "preload/breakpoint.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int mtj_bp_open(uint64_t addr, pid_t tid, uint64_t cookie)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = addr;
	attr.bp_len = sizeof(long);
	attr.sample_period = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.inherit = 1;
	attr.inherit_thread = 1;
	attr.remove_on_exec = 1;
	attr.sigtrap = 1;
	attr.sig_data = cookie;
	long fd = syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	return (int)fd;
}

int mtj_bp_disable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) < 0 ? -errno : 0;
}

int mtj_bp_enable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0 ? -errno : 0;
}
