# MTINJECT_ON=abort: a failed assert() leaves a snapshot; exit status 134 as without us.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
run_plain "$PROGS/trig_modes" abort
assert_eq "$(cat plain.rc)" 134 "plain exit status"
MTINJECT_ON=abort MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" abort
cat traced.err
assert_same_behaviour
assert_grep '"reason":"abort: SIGABRT"' out/hits.jsonl
assert_grep '"snapshot":true' out/hits.jsonl
assert_grep 'Assertion' traced.err
