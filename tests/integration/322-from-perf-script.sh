#!/bin/sh
# 322: `mtinject decode --from-perf-script` on real perf script text of a real recording:
# the same samples, threads and functions as decoding the perf.data itself; stdin works;
# --filter with a function that never runs warns and leaves an empty (valid) trace;
# non-perf-script input fails naming file and line.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf

prog="$PROGS/bench_recurse"
perf record -q -e cpu-clock:u -c 250000 -g --clockid=CLOCK_MONOTONIC -o p.data -- "$prog" 0.4 2 \
	>rec.out 2>rec.err || { cat rec.err; fail "perf record failed"; }
perf script -i p.data >p.txt 2>ps.err || { cat ps.err; fail "perf script failed"; }

"$TOOL" decode p.data -o ref.json >ref.out 2>ref.err || { cat ref.err; fail "decode of perf.data failed"; }
"$TOOL" decode --from-perf-script p.txt -o t.json >dec.out 2>dec.err || { cat dec.err; fail "decode --from-perf-script failed"; }
"$TTOOLS/trace-check" t.json >check.out || { cat check.out; fail "t.json is not a valid balanced trace"; }

samples() { sed -n 's/^trace: [^ ]* (\([0-9]*\) samples.*/\1/p' "$1"; }
[ -n "$(samples dec.out)" ] && [ "$(samples dec.out)" -gt 50 ] || fail "too few samples: $(cat dec.out)"
assert_eq "$(samples dec.out)" "$(samples ref.out)" "samples from text vs perf.data"

# Compare the program's own functions: at the loader's entry a return address sits at the
# end of one function, and perf's text symbolizes it as the next one (_dl_start_user vs
# _start) where the dlfilter path looks up ip-1; which frames a run samples is chance.
# (Names with a leading underscore are the C runtime's, shared with the loader.)
nm "$prog" | awk '$2 ~ /^[tT]$/ && $3 !~ /^_/ { print "\"name\":\"" $3 "\"" }' | sort -u >prog.names
names() { grep -o '"name":"[^"]*"' "$1" | sort -u | comm -12 - prog.names; }
names ref.json >ref.names
names t.json >t.names
for f in worker_loop recurse leaf_spin; do
	assert_grep "\"name\":\"$f\"" t.names
done
cmp -s ref.names t.names || { diff ref.names t.names | head; fail "function names differ between the text and perf.data paths"; }

# stdin, folded
"$TOOL" decode --from-perf-script - -o t.folded <p.txt >dec2.out 2>dec2.err || { cat dec2.err; fail "stdin decode failed"; }
assert_grep ";recurse;" t.folded
# stdin to stdout, a pipe end to end; an OUT whose extension names no format is refused
"$TOOL" decode --from-perf-script - -o - --format folded <p.txt 2>/dev/null | cmp -s - t.folded ||
	fail "stdin -> stdout differs from t.folded"
"$TOOL" decode --from-perf-script p.txt -o t.weird 2>err.txt; assert_eq "$?" 2 "unknown output extension"
assert_grep "cannot tell the format from 't.weird'" err.txt
[ ! -e t.weird ] || fail "a refused decode wrote t.weird"

# a filter whose START never runs: a warning, an empty but valid trace
"$TOOL" decode --from-perf-script p.txt -o f.json --filter no_such_fn,leaf_spin >f.out 2>f.err ||
	{ cat f.err; fail "filtered decode failed"; }
assert_grep "no_such_fn is never called" f.err
"$TTOOLS/trace-check" f.json >/dev/null || fail "f.json invalid"
assert_no_grep '"ph":"B"' f.json

# not perf script
printf 'hello\nworld\n' >bad.txt
if "$TOOL" decode --from-perf-script bad.txt -o b.json >b.out 2>b.err; then fail "bad input accepted"; fi
assert_grep "bad.txt:1: not .perf script. output" b.err
[ ! -e b.json ] || fail "a failed decode left b.json behind"
