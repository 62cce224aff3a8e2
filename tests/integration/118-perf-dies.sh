# perf killed in the middle of a run: reported once, the program runs on unchanged, hits are
# still recorded (snapshot:false with the reason).
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
run_plain "$PROGS/trig_modes" loop 20 100000
MTINJECT_TRIGGER='target_fn,count=all' MTINJECT_OUTPUT="$PWD/out" MTINJECT_LOG_FILE="$PWD/log" \
	LD_PRELOAD="$LIB" "$PROGS/trig_modes" loop 20 100000 >traced.out 2>traced.err &
pid=$!
sleep 0.7
pkill -KILL -f "perf record.*$PWD/out" || fail "no perf session to kill"
wait $pid
echo $? >traced.rc
cat log
assert_same_behaviour
[ -s traced.err ] && fail "messages went to stderr despite MTINJECT_LOG_FILE"
assert_eq "$(grep -c 'perf session lost' log)" 1 "reports of the lost session"
assert_eq "$(grep -c '"kind":"trigger"' out/hits.jsonl)" 20 "hits recorded"
grep -q '"snapshot":true' out/hits.jsonl || fail "no snapshot before perf died"
grep -q '"snapshot":false' out/hits.jsonl || fail "no hit recorded after perf died"
