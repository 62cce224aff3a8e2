# count=all: 20 hits 150 ms apart give 20 snapshot files, each a valid perf.data holding the
# time just before its hit; MTINJECT_KEEP bounds how many stay on disk.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
MTINJECT_TRIGGER='target_fn,count=all' MTINJECT_KEEP=0 MTINJECT_OUTPUT="$PWD/out" \
	LD_PRELOAD="$LIB" "$PROGS/trig_modes" loop 20 150000 >out.txt 2>err.txt || { cat err.txt; fail "program failed"; }
cat err.txt
assert_eq "$(grep -c '"snapshot":true' out/hits.jsonl)" 20 "snapshots taken"
assert_eq "$(sed -n 's/.*"snapshot_file":"\([^"]*\)".*/\1/p' out/hits.jsonl | sort -u | wc -l | tr -d ' ')" 20 "distinct snapshot files"
for f in $(sed -n 's/.*"snapshot_file":"\([^"]*\)".*/\1/p' out/hits.jsonl); do
	[ -s "out/$f" ] || fail "missing $f"
	perf script -i "out/$f" -F time >/dev/null 2>&1 || fail "$f is not readable by perf"
done
"$TOOL" decode out -o t.json -q || fail "decode of 20 snapshots failed"
assert_eq "$(ls t-*.json | wc -l | tr -d ' ')" 20 "decoded traces"

rm -rf out
MTINJECT_TRIGGER='target_fn,count=all' MTINJECT_KEEP=3 MTINJECT_OUTPUT="$PWD/out" \
	LD_PRELOAD="$LIB" "$PROGS/trig_modes" loop 8 150000 >/dev/null 2>&1
assert_eq "$(ls out/perf.data.* | wc -l | tr -d ' ')" 3 "snapshots kept with MTINJECT_KEEP=3"
assert_eq "$(grep -c '"snapshot":true' out/hits.jsonl)" 8 "snapshots taken with MTINJECT_KEEP=3"
