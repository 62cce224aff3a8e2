# The walking skeleton end to end: a trigger on a function that only a non-main thread
# calls, a real perf flight recorder started by the preload, a snapshot, a decoded trace.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf

prog="$PROGS/mt_worker"
run_plain "$prog" 300
MTINJECT_TRIGGER=handle_request MTINJECT_OUTPUT="$PWD/out" run_traced "$prog" 300
cat traced.err
assert_same_behaviour

tid=$(sed -n 's/^worker-2 tid \([0-9]*\)$/\1/p' traced.err)
[ -n "$tid" ] || fail "no worker-2 tid on stderr"

# hits.jsonl: exactly one hit, on worker-2, with a snapshot file that perf can read
assert_file out/hits.jsonl
assert_eq "$(wc -l <out/hits.jsonl | tr -d ' ')" 1 "hits in hits.jsonl"
assert_grep "\"tid\":$tid," out/hits.jsonl
assert_grep '"thread":"worker-2"' out/hits.jsonl
assert_grep '"trigger":"handle_request"' out/hits.jsonl
assert_grep '"snapshot":true' out/hits.jsonl
assert_grep '"args":\["0x2a","0x7",' out/hits.jsonl
assert_grep '"frames":\["worker+0x[0-9a-f]* (mt_worker)"' out/hits.jsonl
snap=$(sed -n 's/.*"snapshot_file":"\([^"]*\)".*/\1/p' out/hits.jsonl)
[ -n "$snap" ] || fail "hit has no snapshot_file"
assert_file "out/$snap"
perf script -i "out/$snap" -F tid,ip,sym >script.txt 2>script.err || { cat script.err; fail "perf script cannot read $snap"; }
# samples of worker-2 doing its work (GCC drops the frame of leaf functions even with
# -fno-omit-frame-pointer, so parse_input may be missing under checksum_block)
awk -v tid="$tid" '$1 == tid { w = 1; next } /^$/ { w = 0 }
	w && ($2 == "checksum_block" || $2 == "parse_input") { n++ }
	END { exit !(n >= 20) }' script.txt || fail "snapshot has fewer than 20 samples of worker-2 in parse_input/checksum_block"
# no perf process survives the program
sleep 0.2
if pgrep -f "perf record.*$PWD/out" >/dev/null; then fail "perf still running after the program exited"; fi

# decode into Chrome JSON: worker-2's functions before the hit, the hit on worker-2
"$TOOL" decode out -o trace.json >decode.out 2>&1 || { cat decode.out; fail "mtinject decode failed"; }
assert_file trace.json
"$TTOOLS/trace-check" trace.json || fail "trace.json is not a valid, balanced trace"
hit_ns=$(sed -n 's/.*"time_ns":\([0-9]*\).*/\1/p' out/hits.jsonl)
"$TTOOLS/trace-check" trace.json --spans-before "$hit_ns" checksum_block --tid "$tid" >/dev/null ||
	fail "no checksum_block span on worker-2 before the hit"
"$TTOOLS/trace-check" trace.json --has-instant "hit: handle_request" --tid "$tid" >/dev/null ||
	fail "the hit is not an instant event on worker-2"
"$TTOOLS/trace-check" trace.json --threads | grep -q "^$tid worker-2" || fail "thread name of worker-2 missing"
echo "ok: hit on tid $tid, snapshot $snap, trace decoded"
