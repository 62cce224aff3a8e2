#!/bin/sh
# 310: a real multi-threaded program recorded under real perf (call graphs, CLOCK_MONOTONIC)
# decodes through the dlfilter into JSON, FXT and folded stacks with the right functions on
# the right, correctly named threads; corrupt/truncated/missing inputs fail cleanly.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf

prog="$PROGS/bench_recurse"
perf record -q -e cpu-clock:u -c 250000 -g --clockid=CLOCK_MONOTONIC -o p.data -- "$prog" 0.6 2 \
	>rec.out 2>rec.err || { cat rec.err; fail "perf record failed"; }
assert_grep "done 1" rec.out

# --- JSON ------------------------------------------------------------------------------------
"$TOOL" decode p.data -o t.json >dec.out 2>dec.err || { cat dec.err; fail "decode to json failed"; }
assert_grep "^trace: t.json (" dec.out
assert_grep "ui.perfetto.dev" dec.out
"$TTOOLS/trace-check" t.json >check.out || { cat check.out; fail "t.json is not a valid balanced trace"; }
"$TTOOLS/trace-check" t.json --threads >threads.out
note "threads: $(tr '\n' ' ' <threads.out)"
[ "$(grep -c ' worker-[12]$' threads.out)" = 2 ] || fail "expected threads worker-1 and worker-2"
assert_grep " bench-main$" threads.out
grep -q '"process_name","args":{"name":"bench_recurse"}' t.json || fail "process not named after the program"
for w in worker-1 worker-2; do
	tid=$(awk -v n="$w" '$2 == n { print $1 }' threads.out)
	for f in worker_loop recurse leaf_spin; do
		n=$("$TTOOLS/trace-check" t.json --tid "$tid" --count-spans "$f")
		[ "$n" -gt 0 ] || fail "$f not on $w"
	done
	n=$("$TTOOLS/trace-check" t.json --tid "$tid" --count-spans main_loop)
	[ "$n" = 0 ] || fail "main_loop must not be on $w ($n spans)"
done
main_tid=$(awk '$2 == "bench-main" { print $1 }' threads.out)
[ "$("$TTOOLS/trace-check" t.json --tid "$main_tid" --count-spans main_loop)" -gt 0 ] || fail "main_loop not on bench-main"
[ "$("$TTOOLS/trace-check" t.json --tid "$main_tid" --count-spans worker_loop)" = 0 ] || fail "worker_loop on bench-main"
# recursion is kept: a worker has recurse nested in recurse
"$TTOOLS/trace-check" t.json --dump | awk '$2 == "B" && $5 == "recurse"' | head -1 | grep -q recurse || fail "no recurse spans"
grep -q '"object":"bench_recurse"' t.json || fail "object arg missing"

# --- FXT -------------------------------------------------------------------------------------
"$TOOL" decode p.data -o t.fxt -q >q.out 2>&1 || { cat q.out; fail "decode to fxt failed"; }
[ ! -s q.out ] || fail "--quiet printed: $(cat q.out)"
"$TTOOLS/fxt-check" t.fxt --dump >fxt.out || { tail -3 fxt.out; fail "t.fxt invalid"; }
grep -q "^thread .* worker-1$" fxt.out || fail "fxt: no worker-1 thread"
grep -q " B .* leaf_spin" fxt.out || fail "fxt: no leaf_spin span"

# --- folded ----------------------------------------------------------------------------------
"$TOOL" decode p.data --format folded -o stacks.txt -q || fail "decode to folded failed"
grep -q "^worker-1-[0-9]*;start_thread;worker_loop;recurse;.*leaf_spin [0-9]*$" stacks.txt || fail "folded: no worker stack"
grep -q "^bench-main-[0-9]*;.*main;main_loop" stacks.txt || fail "folded: no main_loop stack"

# --- directory input, snapshots, errors ---------------------------------------------------------
mkdir out && cp p.data out/perf.data.2024010100000001 && cp p.data out/perf.data.2024010100000002
"$TOOL" decode out -q || fail "decode of a directory failed"
[ -s out/trace-1.json ] && [ -s out/trace-2.json ] || fail "expected trace-1.json and trace-2.json: $(ls out)"
"$TOOL" decode out --snapshot 2 -o one.json -q || fail "--snapshot 2 failed"
cmp -s one.json out/trace-2.json || fail "--snapshot 2 differs from trace-2.json"
# -o -: the trace alone on stdout (JSON unless --format says), the summary on stderr
"$TOOL" decode out --snapshot 2 -o - >stdout.json 2>stderr.txt || fail "-o - failed: $(cat stderr.txt)"
cmp -s stdout.json out/trace-2.json || fail "-o - differs from trace-2.json"
assert_grep "^trace: <stdout> (" stderr.txt
"$TOOL" decode out -o - >/dev/null 2>err.txt; assert_eq "$?" 2 "-o - with two snapshots"
assert_grep "choose one with --snapshot" err.txt
"$TOOL" decode out --snapshot 3 -q 2>err.txt; assert_eq "$?" 2 "snapshot out of range"
assert_grep "only 2 snapshots" err.txt

"$TOOL" decode missing-dir 2>err.txt; assert_eq "$?" 3 "missing input"
assert_grep "missing-dir" err.txt
mkdir empty && { "$TOOL" decode empty 2>err.txt; assert_eq "$?" 3 "dir without snapshots"; }
"$TOOL" decode p.data --format xml 2>err.txt; assert_eq "$?" 2 "bad format"

size=$(wc -c <p.data)
head -c $((size / 2)) p.data >trunc.data
"$TOOL" decode trunc.data -o trunc.json 2>err.txt; rc=$?
[ "$rc" = 1 ] || fail "truncated perf.data: exit $rc, expected 1 ($(cat err.txt))"
assert_grep "trunc.data" err.txt
[ ! -e trunc.json ] || fail "a failed decode left trunc.json behind"
# a failed decode leaves the previous trace of that name exactly as it was, and no temporary
cp one.json keep.json
"$TOOL" decode trunc.data -o keep.json 2>/dev/null && fail "truncated perf.data decoded"
cmp -s one.json keep.json || fail "a failed decode damaged the old keep.json"
[ -z "$(ls -A | grep '^\.')" ] || fail "a failed decode left a temporary file: $(ls -A | grep '^\.')"
head -c 4096 /dev/urandom >junk.data
"$TOOL" decode junk.data -o junk.json 2>err.txt; assert_eq "$?" 1 "corrupt perf.data"
assert_grep "junk.data: perf script failed" err.txt
note "$(cat err.txt)"
exit 0
