/*
 * fuzz-perfscript — mutation fuzzer for the perf script text front end.
 *
 *   fuzz-perfscript ITERATIONS SEED FILE...
 *
 * Each iteration takes one of the seed files (the golden scenarios), mutates it
 * (byte flips, inserted delimiters and digits, cut/duplicated/swapped lines, truncation,
 * random bytes), and runs it through the parser, PT reconstruction, the filter and a real
 * writer.  Fails (exit 1) when the parser returns anything but 0/-EINVAL or the writer rejects
 * an event (the nesting/time contract); crashes and leaks show under the sanitizer build.
 * Prints "iterations=N accepted=A rejected=R".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/filter.h"
#include "decode/perfscript.h"
#include "decode/ptstack.h"
#include "decode/trace.h"

struct seed {
	char *data;
	size_t len;
};

struct run {
	struct mtj_ptstack *pt;
	struct mtj_filter *filter;
	int writer_rc;
};

static int on_branch(void *ctx, const struct mtj_branch *b)
{
	struct run *r = ctx;
	mtj_filter_observe_branch(r->filter, b);
	int rc = mtj_ptstack_add(r->pt, b);
	if (rc)
		r->writer_rc = rc;
	return rc;
}

static int on_sample(void *ctx, const struct mtj_sample *s)
{
	(void)ctx;
	/* touch every string so the sanitizer sees stale pointers */
	size_t n = 0;
	for (uint32_t i = 0; i < s->nframes; i++)
		n += (s->frames[i].sym ? strlen(s->frames[i].sym) : 0) +
		     (s->frames[i].dso ? strlen(s->frames[i].dso) : 0);
	n += s->comm ? strlen(s->comm) : 0;
	n += s->event ? strlen(s->event) : 0;
	return n == (size_t)-1 ? -1 : 0;
}

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

static const char *const tokens[] = {
	" => ", "=>", ":", "/", ".", "+0x", "(", ")", "[", "]", "\t", "\n", "\n\n", " ",
	"call", "return", "tr end", "tr strt", "syscall", "iret", "jmp", "0", "-1",
	"18446744073709551615", "99999999999.999999999:", " instruction trace error ",
	"ffffffffffffffffff", "[unknown]", "\0", "#", "\r",
};

static size_t mutate(const struct seed *sd, char *out, size_t cap, unsigned *s)
{
	size_t len = sd->len < cap ? sd->len : cap;
	memcpy(out, sd->data, len);
	int n = 1 + (int)(rnd(s) % 8);
	for (int k = 0; k < n; k++) {
		size_t pos = len ? rnd(s) % len : 0;
		switch (rnd(s) % 7) {
		case 0:     /* flip a byte */
			if (len)
				out[pos] = (char)rnd(s);
			break;
		case 1: {   /* insert a token */
			const char *t = tokens[rnd(s) % (sizeof(tokens) / sizeof(tokens[0]))];
			size_t tl = *t ? strlen(t) : 1;
			if (len + tl < cap) {
				memmove(out + pos + tl, out + pos, len - pos);
				memcpy(out + pos, t, tl);
				len += tl;
			}
			break;
		}
		case 2:     /* delete a span */
			if (len) {
				size_t dl = rnd(s) % 40;
				if (pos + dl > len)
					dl = len - pos;
				memmove(out + pos, out + pos + dl, len - pos - dl);
				len -= dl;
			}
			break;
		case 3:     /* truncate */
			len = pos;
			break;
		case 4: {   /* duplicate a span (repeats lines, reorders time) */
			size_t dl = rnd(s) % 200;
			if (pos + dl > len)
				dl = len - pos;
			if (len + dl < cap) {
				memmove(out + pos + dl, out + pos, len - pos);
				/* the span now appears twice */
				len += dl;
			}
			break;
		}
		case 5:     /* change a digit */
			for (size_t i = pos; i < len; i++)
				if (out[i] >= '0' && out[i] <= '9') {
					out[i] = (char)('0' + rnd(s) % 10);
					break;
				}
			break;
		default: {  /* random bytes */
			size_t dl = rnd(s) % 16;
			if (len + dl < cap) {
				memmove(out + pos + dl, out + pos, len - pos);
				for (size_t i = 0; i < dl; i++)
					out[pos + i] = (char)rnd(s);
				len += dl;
			}
		}
		}
	}
	return len;
}

static int one(const char *buf, size_t len, unsigned *s, int *accepted)
{
	FILE *in = fmemopen((void *)buf, len ? len : 1, "r");
	FILE *out = fopen("/dev/null", "w");
	struct mtj_writer w;
	struct run r = { 0 };
	struct mtj_ptstack_opts o = { .max_buffered = 1 + rnd(s) % 64 };
	if (!in || !out || mtj_writer_open(&w, (enum mtj_format)(rnd(s) % 3), out) ||
	    mtj_filter_new("f", "g", &r.filter) || mtj_filter_attach(r.filter, &w) ||
	    mtj_ptstack_new(&w, &o, &r.pt)) {
		fprintf(stderr, "fuzz: set-up failed\n");
		exit(1);
	}
	struct mtj_ps_callbacks cb = { &r, on_sample, on_branch, NULL };
	struct mtj_ps_error err;
	int rc = len ? mtj_perfscript_parse(in, "fuzz", &cb, NULL, &err) : 0;
	if (rc == 0)
		rc = mtj_ptstack_finish(r.pt);
	int crc = mtj_writer_close(&w);
	mtj_ptstack_free(r.pt);
	mtj_filter_free(r.filter);
	fclose(in);
	fclose(out);
	if (r.writer_rc || crc || (rc && rc != -EINVAL)) {
		fprintf(stderr, "fuzz: rc=%d writer=%d close=%d\n", rc, r.writer_rc, crc);
		return -1;
	}
	*accepted += rc == 0;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: fuzz-perfscript ITERATIONS SEED FILE...\n");
		return 2;
	}
	long iters = strtol(argv[1], NULL, 10);
	unsigned s = (unsigned)strtoul(argv[2], NULL, 10);
	int nseeds = argc - 3, accepted = 0;
	struct seed *seeds = calloc((size_t)nseeds, sizeof(*seeds));
	for (int i = 0; i < nseeds; i++) {
		FILE *f = fopen(argv[3 + i], "r");
		if (!f) {
			perror(argv[3 + i]);
			return 2;
		}
		seeds[i].data = malloc(1 << 16);
		seeds[i].len = fread(seeds[i].data, 1, 1 << 16, f);
		fclose(f);
	}
	size_t cap = 1 << 17;
	char *buf = malloc(cap);
	for (long it = 0; it < iters; it++) {
		const struct seed *sd = &seeds[rnd(&s) % (unsigned)nseeds];
		size_t len = mutate(sd, buf, cap, &s);
		if (one(buf, len, &s, &accepted)) {
			FILE *f = fopen("fuzz-crash.perfscript", "w");
			if (f) {
				fwrite(buf, 1, len, f);
				fclose(f);
			}
			fprintf(stderr, "fuzz: iteration %ld failed; input in fuzz-crash.perfscript\n", it);
			return 1;
		}
	}
	printf("iterations=%ld accepted=%d rejected=%ld\n", iters, accepted, iters - accepted);
	for (int i = 0; i < nseeds; i++)
		free(seeds[i].data);
	free(seeds);
	free(buf);
	return 0;
}
