# A thread that blocks SIGTRAP and runs the trigger neither hangs nor goes unreported.
. "$MTJ_SRC/tests/integration/lib.sh"
export MTINJECT_SESSION=none
run_plain "$PROGS/trig_modes" blocked
MTINJECT_TRIGGER='target_fn' MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" blocked
cat traced.err
assert_same_behaviour
assert_eq "$(grep -c 'blocking SIGTRAP' traced.err)" 1 "reports of the blocked thread"
