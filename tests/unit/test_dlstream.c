/*
 * tests/unit/test_dlstream.c — the dlfilter stream reader: valid streams decode exactly,
 * every kind of damage ends in -EPROTO with a byte offset, and random mutations of a valid
 * stream (deterministic seed) never crash it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/dlstream.h"

/* ---- building streams -------------------------------------------------------------------- */

struct buf {
	uint8_t d[65536];
	size_t n;
};

static void rec(struct buf *b, uint8_t type, const uint8_t *p, size_t len)
{
	b->d[b->n++] = type;
	b->n += mtj_dls_put_uv(b->d + b->n, len);
	memcpy(b->d + b->n, p, len);
	b->n += len;
}

/* A record from varints given as a 0-terminated... list of (count, values). */
static void rec_uv(struct buf *b, uint8_t type, size_t nv, ...)
{
	uint8_t p[256];
	size_t len = 0;
	va_list ap;

	va_start(ap, nv);
	for (size_t i = 0; i < nv; i++)
		len += mtj_dls_put_uv(p + len, va_arg(ap, uint64_t));
	va_end(ap);
	rec(b, type, p, len);
}

static void rec_str(struct buf *b, uint64_t id, const char *s)
{
	uint8_t p[256];
	size_t len = mtj_dls_put_uv(p, id);

	len += mtj_dls_put_uv(p + len, strlen(s));
	memcpy(p + len, s, strlen(s));
	rec(b, MTJ_DLS_REC_STRING, p, len + strlen(s));
}

#define U(x) ((uint64_t)(x))

/* Thread 11 (pid 10): main > f, then main > g > ? keeping main, then (after a sample of
 * thread 12 in between) main > g > f keeping main > g: the kept frames are per thread. */
static void valid_stream(struct buf *b)
{
	b->n = 0;
	memcpy(b->d, MTJ_DLS_MAGIC, MTJ_DLS_MAGIC_LEN);
	b->n = MTJ_DLS_MAGIC_LEN;
	rec_str(b, 1, "cpu-clock");
	rec_uv(b, MTJ_DLS_REC_EVENT, 3, U(1), U(1), U(250000));
	rec_str(b, 2, "main");
	rec_str(b, 3, "/bin/prog");
	rec_str(b, 4, "f");
	rec_str(b, 5, "g");
	rec_str(b, 6, "prog");
	/* frame id, ip, sym, symoff, dso, flags */
	rec_uv(b, MTJ_DLS_REC_FRAME, 6, U(1), U(0x1000), U(2), U(0x10), U(3), U(0));
	rec_uv(b, MTJ_DLS_REC_FRAME, 6, U(2), U(0x2000), U(4), U(0x4), U(3), U(0));
	rec_uv(b, MTJ_DLS_REC_FRAME, 6, U(3), U(0x3000), U(5), U(0x8), U(3), U(0));
	rec_uv(b, MTJ_DLS_REC_FRAME, 6, U(4), U(0x4000), U(0), U(0), U(0), U(0));
	/* event, pid, tid, dtime, comm, keep, n, frames (innermost first) */
	rec_uv(b, MTJ_DLS_REC_SAMPLE, 9, U(1), mtj_dls_zigzag(10), mtj_dls_zigzag(11),
	       mtj_dls_zigzag(5000000), U(6), U(0), U(2), U(2), U(1));
	rec_uv(b, 'x', 2, U(7), U(7));   /* a record type from the future: skipped */
	rec_uv(b, MTJ_DLS_REC_SAMPLE, 9, U(1), mtj_dls_zigzag(10), mtj_dls_zigzag(11),
	       mtj_dls_zigzag(1000), U(6), U(1), U(2), U(4), U(3));
	rec_uv(b, MTJ_DLS_REC_SAMPLE, 8, U(1), mtj_dls_zigzag(10), mtj_dls_zigzag(12),
	       mtj_dls_zigzag(10), U(6), U(0), U(1), U(1));
	rec_uv(b, MTJ_DLS_REC_SAMPLE, 8, U(1), mtj_dls_zigzag(10), mtj_dls_zigzag(11),
	       mtj_dls_zigzag(10), U(6), U(2), U(1), U(2));
	rec_uv(b, MTJ_DLS_REC_END, 1, U(4));
}

/* ---- reading them ------------------------------------------------------------------------ */

struct memsrc {
	const uint8_t *d;
	size_t n, pos, chunk;   /* chunk: bytes per read, to exercise refills */
};

static ssize_t mem_read(void *src, void *buf, size_t len)
{
	struct memsrc *m = src;
	size_t k = m->n - m->pos;

	if (k > len)
		k = len;
	if (m->chunk && k > m->chunk)
		k = m->chunk;
	memcpy(buf, m->d + m->pos, k);
	m->pos += k;
	return (ssize_t)k;
}

struct got {
	unsigned n;
	char text[2048];
};

static int on_sample(void *arg, const struct mtj_sample *s, uint64_t period)
{
	struct got *g = arg;
	size_t l = strlen(g->text);

	l += (size_t)snprintf(g->text + l, sizeof(g->text) - l, "%u/%u@%llu %s %s p=%llu:", s->pid,
			      s->tid, (unsigned long long)s->time_ns, s->comm ? s->comm : "-",
			      s->event ? s->event : "-", (unsigned long long)period);
	for (uint32_t i = 0; i < s->nframes; i++)
		l += (size_t)snprintf(g->text + l, sizeof(g->text) - l, " %s+%llx(%s)",
				      s->frames[i].sym ? s->frames[i].sym : "?",
				      (unsigned long long)s->frames[i].symoff,
				      s->frames[i].dso ? s->frames[i].dso : "?");
	snprintf(g->text + l, sizeof(g->text) - l, "\n");
	g->n++;
	return 0;
}

static int read_all(const uint8_t *d, size_t n, size_t chunk, struct got *g, char *err, size_t errlen)
{
	struct mtj_dls_reader *r;
	struct mtj_dls_ops ops = { .sample = on_sample };
	struct memsrc m = { .d = d, .n = n, .chunk = chunk };
	int ret;

	assert_int_equal(mtj_dls_reader_new(&r), 0);
	ret = mtj_dls_read(r, mem_read, &m, &ops, g);
	if (err)
		snprintf(err, errlen, "%s", mtj_dls_error(r));
	mtj_dls_reader_free(r);
	return ret;
}

static void test_valid(void **state)
{
	struct buf b;
	struct got g = { 0 };
	(void)state;

	valid_stream(&b);
	for (size_t chunk = 0; chunk < 4; chunk++) {
		memset(&g, 0, sizeof(g));
		assert_int_equal(read_all(b.d, b.n, chunk, &g, NULL, 0), 0);
		assert_int_equal(g.n, 4);
		assert_string_equal(g.text,
				    "10/11@5000000 prog cpu-clock p=250000: f+4(/bin/prog) main+10(/bin/prog)\n"
				    "10/11@5001000 prog cpu-clock p=250000: ?+0(?) g+8(/bin/prog) main+10(/bin/prog)\n"
				    "10/12@5001010 prog cpu-clock p=250000: main+10(/bin/prog)\n"
				    "10/11@5001020 prog cpu-clock p=250000: f+4(/bin/prog) g+8(/bin/prog) main+10(/bin/prog)\n");
	}
}

static void test_varint_roundtrip(void **state)
{
	uint8_t p[16];
	int64_t vals[] = { 0, 1, -1, 63, -64, 1 << 20, -(1 << 20), INT64_MAX, INT64_MIN };
	(void)state;

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t z = mtj_dls_zigzag(vals[i]);

		assert_true(mtj_dls_put_uv(p, z) <= 10);
		assert_int_equal(mtj_dls_unzigzag(z), vals[i]);
	}
	assert_int_equal(mtj_dls_put_uv(p, 127), 1);
	assert_int_equal(mtj_dls_put_uv(p, 128), 2);
	assert_int_equal(mtj_dls_put_uv(p, UINT64_MAX), 10);
}

/* Fields of every varint length, where the reader decodes them in place (mid-record) and
 * where it must stop at the record's end (a 2-byte frame id last): exact values. */
static void test_varint_lengths(void **state)
{
	static struct buf b;
	static const int64_t dt[] = { 63, 64, 8191, 8192, 1 << 20, (1 << 20) + 1, 1ll << 27,
				      1ll << 34, 1ll << 48 };
	static const uint32_t ids[] = { 127, 128, 200, 300, 1 };
	uint64_t t = 0;
	char want[8192] = "", frame[16];
	struct got *g = calloc(1, sizeof(*g));
	(void)state;

	assert_non_null(g);
	memcpy(b.d, MTJ_DLS_MAGIC, MTJ_DLS_MAGIC_LEN);
	b.n = MTJ_DLS_MAGIC_LEN;
	rec_str(&b, 1, "ev");
	rec_uv(&b, MTJ_DLS_REC_EVENT, 3, U(1), U(1), U(0));
	for (uint32_t id = 1; id <= 300; id++)   /* frames without symbols: shown as ?+OFF */
		rec_uv(&b, MTJ_DLS_REC_FRAME, 6, U(id), U(id), U(0), U(id), U(0), U(0));
	for (size_t i = 0; i < sizeof(dt) / sizeof(dt[0]); i++) {
		uint32_t pid = i % 2 ? 63u << i : 64u << i, tid = 8192u + (uint32_t)i;
		uint32_t id = ids[i % 5];

		t += (uint64_t)dt[i];
		rec_uv(&b, MTJ_DLS_REC_SAMPLE, 8, U(1), mtj_dls_zigzag(pid), mtj_dls_zigzag(tid),
		       mtj_dls_zigzag(dt[i]), U(0), U(0), U(1), U(id));
		snprintf(frame, sizeof(frame), "%x", id);
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "%u/%u@%llu - ev p=0: ?+%s(?)\n", pid, tid, (unsigned long long)t, frame);
	}
	rec_uv(&b, MTJ_DLS_REC_END, 1, U(sizeof(dt) / sizeof(dt[0])));
	assert_true(b.n < sizeof(b.d));
	for (size_t chunk = 0; chunk < 3; chunk++) {   /* whole, and refills mid-varint */
		memset(g, 0, sizeof(*g));
		assert_int_equal(read_all(b.d, b.n, chunk ? chunk * 7 : 0, g, NULL, 0), 0);
		assert_string_equal(g->text, want);
	}
	free(g);
}

static void expect_proto(const uint8_t *d, size_t n, const char *want)
{
	struct got g = { 0 };
	char err[256];

	assert_int_equal(read_all(d, n, 0, &g, err, sizeof(err)), -EPROTO);
	if (!strstr(err, want))
		fail_msg("error '%s' does not contain '%s'", err, want);
}

static void test_truncated_everywhere(void **state)
{
	struct buf b;
	char want[64];
	(void)state;

	valid_stream(&b);
	/* Any cut before the end record's last byte is an error that names a byte offset. */
	for (size_t cut = 1; cut < b.n; cut++) {
		struct got g = { 0 };
		char err[256];

		assert_int_equal(read_all(b.d, cut, 0, &g, err, sizeof(err)), -EPROTO);
		if (cut > MTJ_DLS_MAGIC_LEN && !strstr(err, "truncated at byte"))
			fail_msg("cut at %zu: '%s'", cut, err);
	}
	snprintf(want, sizeof(want), "truncated at byte %zu", b.n - 3);
	expect_proto(b.d, b.n - 3, want);
	expect_proto(b.d, 0, "empty stream");
}

static void test_damage(void **state)
{
	struct buf b, c;
	(void)state;

	valid_stream(&b);
	c = b;
	c.d[0] = 'X';
	expect_proto(c.d, c.n, "bad magic");
	c.d[0] = b.d[0];

	/* A sample that names an undefined frame. */
	c.n = MTJ_DLS_MAGIC_LEN;
	rec_str(&c, 1, "cpu-clock");
	rec_uv(&c, MTJ_DLS_REC_EVENT, 3, U(1), U(1), U(0));
	rec_uv(&c, MTJ_DLS_REC_SAMPLE, 8, U(1), U(0), U(0), U(0), U(0), U(0), U(1), U(9));
	expect_proto(c.d, c.n, "not a defined frame");

	/* Keeping more frames than the thread's previous chain had, or any for a new thread. */
	c.n = MTJ_DLS_MAGIC_LEN;
	rec_str(&c, 1, "cpu-clock");
	rec_uv(&c, MTJ_DLS_REC_EVENT, 3, U(1), U(1), U(0));
	rec_uv(&c, MTJ_DLS_REC_FRAME, 6, U(1), U(0x1000), U(0), U(0), U(0), U(0));
	rec_uv(&c, MTJ_DLS_REC_SAMPLE, 8, U(1), U(0), U(0), U(0), U(0), U(1), U(1), U(1));
	expect_proto(c.d, c.n, "keeps 1 frames of thread 0's previous chain, which had 0");
	c.n -= 10;   /* drop that sample: a valid one first, then one keeping too many */
	rec_uv(&c, MTJ_DLS_REC_SAMPLE, 8, U(1), U(0), U(0), U(0), U(0), U(0), U(1), U(1));
	rec_uv(&c, MTJ_DLS_REC_SAMPLE, 8, U(1), U(0), U(0), U(0), U(0), U(2), U(1), U(1));
	expect_proto(c.d, c.n, "keeps 2 frames of thread 0's previous chain, which had 1");
	c.n -= 10;   /* drop that sample: keep + n over the limit */
	rec_uv(&c, MTJ_DLS_REC_SAMPLE, 7, U(1), U(0), U(0), U(0), U(0), U(MTJ_DLS_MAX_FRAMES), U(1));
	expect_proto(c.d, c.n, "malformed sample");

	/* Ids out of sequence. */
	c.n = MTJ_DLS_MAGIC_LEN;
	rec_str(&c, 2, "x");
	expect_proto(c.d, c.n, "string id 2 out of sequence");

	/* A sample lost between the filter and us: the end record's count disagrees. */
	c.n = MTJ_DLS_MAGIC_LEN;
	rec_uv(&c, MTJ_DLS_REC_END, 1, U(1));
	expect_proto(c.d, c.n, "counts 1 samples, stream had 0");

	/* An absurd record length. */
	c.n = MTJ_DLS_MAGIC_LEN;
	c.d[c.n++] = MTJ_DLS_REC_SAMPLE;
	c.n += mtj_dls_put_uv(c.d + c.n, 1ull << 40);
	expect_proto(c.d, c.n, "claims");

	/* Too many frames. */
	c.n = MTJ_DLS_MAGIC_LEN;
	rec_str(&c, 1, "e");
	rec_uv(&c, MTJ_DLS_REC_EVENT, 3, U(1), U(1), U(0));
	rec_uv(&c, MTJ_DLS_REC_SAMPLE, 7, U(1), U(0), U(0), U(0), U(0), U(0), U(MTJ_DLS_MAX_FRAMES + 1));
	expect_proto(c.d, c.n, "malformed sample");

	/* Garbage after the end. */
	c = b;
	c.d[c.n++] = 'S';
	expect_proto(c.d, c.n, "after the end record");
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Deterministic fuzzing: flips, overwrites, cuts and splices of a valid stream must give
 * 0 or -EPROTO (ASan/UBSan builds check the memory side). */
static void test_fuzz(void **state)
{
	struct buf b;
	static struct buf c;
	unsigned ok = 0, bad = 0;
	(void)state;

	valid_stream(&b);
	for (int iter = 0; iter < 20000; iter++) {
		struct got g = { 0 };
		int ret, edits = 1 + (int)(next_rand() % 4);

		c = b;
		for (int e = 0; e < edits; e++) {
			size_t at = MTJ_DLS_MAGIC_LEN + next_rand() % (c.n - MTJ_DLS_MAGIC_LEN);

			switch (next_rand() % 4) {
			case 0: c.d[at] ^= (uint8_t)(1u << (next_rand() % 8)); break;
			case 1: c.d[at] = (uint8_t)next_rand(); break;
			case 2: c.n = at + 1; break;
			default:
				if (c.n + 1 < sizeof(c.d)) {
					memmove(c.d + at + 1, c.d + at, c.n - at);
					c.d[at] = (uint8_t)next_rand();
					c.n++;
				}
			}
		}
		ret = read_all(c.d, c.n, next_rand() % 3, &g, NULL, 0);
		assert_true(ret == 0 || ret == -EPROTO);
		ret == 0 ? ok++ : bad++;
	}
	assert_true(bad > 10000);   /* most mutations must be caught */
	print_message("fuzz: %u accepted, %u rejected\n", ok, bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_varint_roundtrip),
		cmocka_unit_test(test_varint_lengths),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
