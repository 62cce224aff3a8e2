# MTINJECT_ON=exit: a snapshot when the program exits normally; status unchanged.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
run_plain "$PROGS/trig_modes" exit
MTINJECT_ON=exit MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" exit
cat traced.err
assert_same_behaviour
assert_eq "$(cat traced.rc)" 5 "exit status"
assert_grep '"kind":"exit"' out/hits.jsonl
assert_grep '"snapshot":true' out/hits.jsonl
ls out/perf.data.* >/dev/null 2>&1 || fail "no snapshot file"
