# After fork: MTINJECT_FOLLOW_FORK=disarm (default) leaves the child untraced; =trace gives
# the child its own tracing and output directory.
. "$MTJ_SRC/tests/integration/lib.sh"
export MTINJECT_SESSION=none
run_plain "$PROGS/trig_modes" fork
MTINJECT_TRIGGER='target_fn,count=all' MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" fork
assert_same_behaviour
assert_eq "$(grep -c '"kind":"trigger"' out/hits.jsonl)" 1 "hits (parent only)"
assert_grep '"args":\["0x1",' out/hits.jsonl

mkdir t && cd t
MTINJECT_TRIGGER='target_fn,count=all' MTINJECT_FOLLOW_FORK=trace LD_PRELOAD="$LIB" "$PROGS/trig_modes" fork >out 2>err
cat err
assert_grep 'child active=1' out
dirs=$(ls -d mtinject-trig_modes-* | wc -l)
assert_eq "$dirs" 2 "output directories (parent and child)"
assert_eq "$(cat mtinject-trig_modes-*/hits.jsonl | grep -c '"args":\["0x2",')" 1 "the child's hit in its own directory"
