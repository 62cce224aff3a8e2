/*
 * decode/outfile.h — a trace file that appears whole or not at all.
 *
 * A trace is written to a temporary file beside its final name and renamed into place only
 * when it is complete, so a decode that fails (bad input, disk full, ^C) leaves the previous
 * trace of that name as it was, and a viewer never opens half a file.  Names that are not
 * regular files (/dev/stdout, a FIFO, a symlink) are written in place; "-" is standard
 * output.
 *
 * The old file is unlinked just before the rename rather than renamed over: ext4 (the
 * auto_da_alloc heuristic) treats both "truncate and rewrite" and "rename over" as an
 * application replacing a file and starts writing the whole new file back there and then,
 * which cost 30 ms of a 100 ms decode of a 76 MB trace in `make bench`.  A trace needs no
 * such durability, so for the moment between the unlink and the rename the name is absent.
 *
 * The bytes reach write(2) through a writer thread (outfile.c), so the decoder's thread
 * formats while the kernel copies.  f is an ordinary stdio stream to its user.
 */
#ifndef MTJ_DECODE_OUTFILE_H
#define MTJ_DECODE_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct mtj_outfile {
	FILE *f;                  /* write here */
	char path[PATH_MAX];      /* the final name */
	char tmp[PATH_MAX];       /* the temporary name; "" when writing in place */
	bool remove_on_abort;     /* written in place to a regular file we may delete */
	struct of_async *async;   /* the writer thread behind f; NULL = plain stdio */
};

/* Open for writing with a stdio buffer of bufsize bytes (0 = stdio's default).
 * 0 or -errno (errno set too). */
int mtj_outfile_open(struct mtj_outfile *o, const char *path, size_t bufsize);

/* Flush, close and move into place.  0 or -errno; on failure nothing is left behind. */
int mtj_outfile_commit(struct mtj_outfile *o);

/* Close and remove what was written (the old file of that name, if any, is untouched unless
 * the file was written in place).  Safe after a failed open or a commit. */
void mtj_outfile_abort(struct mtj_outfile *o);

#endif
