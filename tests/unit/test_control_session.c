/*
 * control/perf_session.c protocol, with a thread playing perf on the far side of an
 * attached fd:CTL,ACK session: PT single-snapshot order (snapshot, then ping), serialized
 * concurrent requests, a perf that never answers (bounded, then failed once), a perf whose
 * pipe closes (-EPIPE), and the attach grammar.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "control/perf.h"

enum mode { ANSWER, SILENT, HANG_UP };

struct fakeperf {
	int ctl_r, ack_w;         /* perf's ends */
	int ctl_w, ack_r;         /* ours, named in the spec */
	enum mode mode;
	int delay_ms;
	char log[512];            /* commands received, space separated */
	pthread_t th;
};

static void *serve(void *arg)
{
	struct fakeperf *f = arg;
	char line[64];
	size_t n = 0;
	char c;
	while (read(f->ctl_r, &c, 1) == 1) {
		if (c != '\n') {
			if (n < sizeof(line) - 1)
				line[n++] = c;
			continue;
		}
		line[n] = '\0';
		n = 0;
		strcat(f->log, line);
		strcat(f->log, " ");
		if (f->mode == HANG_UP) {
			close(f->ack_w);
			f->ack_w = -1;
			break;
		}
		if (f->mode == SILENT)
			continue;
		if (f->delay_ms)
			usleep((useconds_t)f->delay_ms * 1000);
		if (write(f->ack_w, "ack\n", 5) != 5)
			break;
	}
	return NULL;
}

static void fake_start(struct fakeperf *f, enum mode m)
{
	memset(f, 0, sizeof(*f));
	int c[2], a[2];
	assert_int_equal(pipe(c), 0);
	assert_int_equal(pipe(a), 0);
	f->ctl_r = c[0];
	f->ctl_w = c[1];
	f->ack_r = a[0];
	f->ack_w = a[1];
	f->mode = m;
	pthread_create(&f->th, NULL, serve, f);
}

static void fake_end(struct fakeperf *f)
{
	close(f->ctl_w); /* EOF ends the thread (our session holds its own dups) */
	pthread_join(f->th, NULL);
	close(f->ctl_r);
	close(f->ack_r);
	if (f->ack_w >= 0)
		close(f->ack_w);
}

static struct mtj_perf_caps pt_caps(void)
{
	struct mtj_perf_caps c;
	memset(&c, 0, sizeof(c));
	strcpy(c.path, "/usr/bin/perf");
	c.major = 6;
	c.minor = 1;
	mtj_perf_caps_from_version(&c);
	c.intel_pt = true;
	return c;
}

static struct mtj_session *attach_fd(struct fakeperf *f, const struct mtj_perf_caps *c)
{
	char spec[64];
	snprintf(spec, sizeof(spec), "fd:%d,%d", f->ctl_w, f->ack_r);
	struct mtj_session *s = NULL;
	assert_int_equal(mtj_session_attach(c, spec, MTJ_BACKEND_AUTO, "/tmp/pt/perf.data", &s), 0);
	assert_non_null(s);
	return s;
}

static void pt_single_protocol(void **state)
{
	(void)state;
	struct fakeperf f;
	fake_start(&f, ANSWER);
	struct mtj_perf_caps c = pt_caps();
	struct mtj_session *s = attach_fd(&f, &c);
	assert_int_equal(mtj_session_backend(s), MTJ_BACKEND_PT);
	char file[256];
	assert_int_equal(mtj_session_snapshot(s, 1000, file, sizeof(file)), 0);
	assert_string_equal(file, "/tmp/pt/perf.data");
	assert_int_equal(mtj_session_snapshot(s, 1000, file, sizeof(file)), 0);
	assert_true(mtj_session_alive(s));
	/* Attached sessions belong to their owner: stop only detaches. */
	assert_int_equal(mtj_session_stop(s, 1000), 0);
	assert_int_equal(mtj_session_stop(s, 1000), 0);
	assert_false(mtj_session_alive(s));
	assert_int_equal(mtj_session_snapshot(s, 100, file, sizeof(file)), -ESRCH);
	mtj_session_free(s);
	fake_end(&f);
	assert_string_equal(f.log, "snapshot ping snapshot ping ");
}

struct req {
	struct mtj_session *s;
	int rc;
};

static void *snap_thread(void *arg)
{
	struct req *r = arg;
	char file[256];
	r->rc = mtj_session_snapshot(r->s, 3000, file, sizeof(file));
	return NULL;
}

static void concurrent_requests_are_serialized(void **state)
{
	(void)state;
	struct fakeperf f;
	fake_start(&f, ANSWER);
	f.delay_ms = 40;
	struct mtj_perf_caps c = pt_caps();
	struct mtj_session *s = attach_fd(&f, &c);
	struct req r[3] = { { s, 1 }, { s, 1 }, { s, 1 } };
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, snap_thread, &r[i]);
	usleep(20000);
	assert_true(mtj_session_busy(s));
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(r[i].rc, 0);
	}
	assert_false(mtj_session_busy(s));
	mtj_session_free(s);
	fake_end(&f);
	assert_string_equal(f.log, "snapshot ping snapshot ping snapshot ping ");
}

static void never_answers_is_bounded_and_reported_once(void **state)
{
	(void)state;
	struct fakeperf f;
	fake_start(&f, SILENT);
	struct mtj_perf_caps c = pt_caps();
	struct mtj_session *s = attach_fd(&f, &c);
	char file[256];
	uint64_t t = mtj_perf_now_ns();
	assert_int_equal(mtj_session_snapshot(s, 200, file, sizeof(file)), -ETIMEDOUT);
	uint64_t took = mtj_perf_now_ns() - t;
	assert_true(took >= 190000000u && took < 700000000u);
	assert_non_null(strstr(mtj_session_error(s), "did not acknowledge 'snapshot' in time"));
	assert_false(mtj_session_alive(s));
	/* Failed for good: the next call returns at once with the same error. */
	t = mtj_perf_now_ns();
	assert_int_equal(mtj_session_snapshot(s, 5000, file, sizeof(file)), -ETIMEDOUT);
	assert_true(mtj_perf_now_ns() - t < 50000000u);
	mtj_session_free(s);
	fake_end(&f);
}

static void hang_up_is_epipe(void **state)
{
	(void)state;
	struct fakeperf f;
	fake_start(&f, HANG_UP);
	struct mtj_perf_caps c = pt_caps();
	struct mtj_session *s = attach_fd(&f, &c);
	char file[256];
	/* The thread's end of the ack pipe is the only writer: closing it is perf dying. */
	assert_int_equal(mtj_session_snapshot(s, 2000, file, sizeof(file)), -EPIPE);
	assert_non_null(strstr(mtj_session_error(s), "before acknowledging 'snapshot'"));
	assert_false(mtj_session_alive(s));
	mtj_session_free(s);
	fake_end(&f);
}

static void attach_grammar(void **state)
{
	(void)state;
	struct mtj_perf_caps c = pt_caps();
	struct mtj_session *s = (struct mtj_session *)1;
	const char *bad[] = { "", "fifo:", "fifo:a", "fd:1", "fd:x,y", "pid:", "pid:abc", "pid:-3",
			      "tcp:1,2", "fd:3,4,pid", "fd:3,4,pid:1,extra", "fd:3,4,ppid:1", "pid:1,pid:2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = mtj_session_attach(&c, bad[i], MTJ_BACKEND_PT, NULL, &s);
		if (rc != -EINVAL)
			fprintf(stderr, "spec '%s' gave %d\n", bad[i], rc);
		assert_int_equal(rc, -EINVAL);
		assert_null(s);
		assert_non_null(strstr(mtj_perf_last_error(), "valid: fifo:CTL,ACK"));
	}
	assert_int_equal(mtj_session_attach(&c, "fd:997,998", MTJ_BACKEND_PT, NULL, &s), -EBADF);
	assert_int_equal(mtj_session_attach(&c, "fifo:/nonexistent/c,/nonexistent/a", MTJ_BACKEND_PT, NULL, &s), -ENOENT);
	/* sampling dumps on SIGUSR2: a pid is required */
	int p[2];
	assert_int_equal(pipe(p), 0);
	char spec[64];
	snprintf(spec, sizeof(spec), "fd:%d,%d", p[1], p[0]);
	assert_int_equal(mtj_session_attach(&c, spec, MTJ_BACKEND_SAMPLING, NULL, &s), -EINVAL);
	assert_non_null(strstr(mtj_perf_last_error(), "pid:parent"));
	/* pid:parent is our parent; signals-only session on PT */
	assert_int_equal(mtj_session_attach(&c, "pid:parent", MTJ_BACKEND_PT, "/x/perf.data", &s), 0);
	assert_int_equal(mtj_session_perf_pid(s), getppid());
	assert_string_equal(mtj_session_output(s), "/x/perf.data");
	mtj_session_free(s);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pt_single_protocol),
		cmocka_unit_test(concurrent_requests_are_serialized),
		cmocka_unit_test(never_answers_is_bounded_and_reported_once),
		cmocka_unit_test(hang_up_is_epipe),
		cmocka_unit_test(attach_grammar),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
