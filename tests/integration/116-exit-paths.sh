# perf is stopped cleanly however the program leaves: _exit() (with the MTINJECT_ON=exit
# snapshot) and exec (the new image stays untraced; perf must not record it).
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
run_plain "$PROGS/trig_modes" _exit
MTINJECT_ON=exit MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" _exit
cat traced.err
assert_same_behaviour
assert_eq "$(cat traced.rc)" 4 "exit status"
assert_grep '"kind":"exit"' out/hits.jsonl
assert_grep '"reason":"_exit"' out/hits.jsonl
assert_grep '"snapshot":true' out/hits.jsonl
[ -e out/perf.data ] && fail "a partial perf.data was left behind"
perf script -i out/perf.data.* -F ip,sym >/dev/null 2>&1 || fail "the _exit snapshot is not readable"

MTINJECT_TRIGGER=target_fn MTINJECT_OUTPUT="$PWD/ex" LD_PRELOAD="$LIB" "$PROGS/trig_modes" exec 2 >ex.out 2>ex.err &
pid=$!
sleep 1
# the program is now `sleep 2`: perf must already be gone, the hit written, the file valid
kill -0 $pid 2>/dev/null || fail "the exec'd program is not running"
pgrep -f "perf record.*$PWD/ex" >/dev/null && { kill $pid; fail "perf still records after exec"; }
wait $pid
assert_eq "$?" 0 "exit status of the exec'd program"
assert_grep 'exec sleep' ex.out
assert_grep '"snapshot":true' ex/hits.jsonl
snap=$(sed -n 's/.*"snapshot_file":"\([^"]*\)".*/\1/p' ex/hits.jsonl)
perf script -i "ex/$snap" -F ip,sym 2>/dev/null | grep -q "spin_ms\|main" || fail "snapshot before exec lacks samples of the program"
[ -e ex/control ] && fail "control FIFO left behind after exec"
exit 0
