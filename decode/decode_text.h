/*
 * decode/decode_text.h — `mtinject decode --from-perf-script FILE|-`: perf script text (from
 * this or another machine) -> one trace.  Samples go through decode/sampling.c, Intel PT
 * branches through decode/ptstack.c, both through decode/filter.c when --filter is given.
 */
#ifndef MTJ_DECODE_DECODE_TEXT_H
#define MTJ_DECODE_DECODE_TEXT_H

#include <stddef.h>

#include "decode/decode.h"

/* Uses o->from_perf_script, output, format(_set), filter_start/stop, warn.  The output is
 * o->output, else FILE.<ext>, else (stdin) trace.<ext> in the current directory.
 * Returns MTJ_DECODE_OK or an mtj_decode_err with err naming the file (and line). */
int mtj_decode_text(const struct mtj_decode_opts *o,
		    void (*on_output)(void *arg, const struct mtj_decode_output *out), void *arg,
		    char *err, size_t errlen);

#endif
