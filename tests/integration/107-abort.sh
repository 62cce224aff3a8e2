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
[ -e out/control ] && fail "control FIFO left behind by the dying process"
pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' out/hits.jsonl | head -n 1)
[ -L "/tmp/mtinject-$(id -u)/$pid" ] && fail "registry link left behind by the dying process"
exit 0
