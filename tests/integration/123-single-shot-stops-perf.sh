# Single-shot: after the only snapshot the breakpoint is disarmed and perf is stopped, while
# the program runs on (nothing can ask for another snapshot).  With MTINJECT_ON set, perf
# keeps recording for the exit snapshot.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
MTINJECT_TRIGGER=target_fn MTINJECT_OUTPUT="$PWD/out" LD_PRELOAD="$LIB" "$PROGS/trig_modes" loop 12 100000 >o.txt 2>e.txt &
pid=$!
sleep 0.8
kill -0 $pid 2>/dev/null || fail "the program ended too early for this test"
pgrep -f "perf record.*$PWD/out" >/dev/null && { kill $pid; fail "perf still runs after the single snapshot"; }
wait $pid || fail "program failed"
assert_eq "$(grep -c '"snapshot":true' out/hits.jsonl)" 1 "snapshots"

MTINJECT_TRIGGER=target_fn MTINJECT_ON=exit MTINJECT_OUTPUT="$PWD/out2" LD_PRELOAD="$LIB" "$PROGS/trig_modes" loop 12 100000 >o2.txt 2>e2.txt &
pid=$!
sleep 0.8
pgrep -f "perf record.*$PWD/out2" >/dev/null || { kill $pid; fail "perf stopped although MTINJECT_ON=exit needs it"; }
wait $pid || fail "program failed"
assert_eq "$(grep -c '"snapshot":true' out2/hits.jsonl)" 2 "snapshots (trigger, exit)"
