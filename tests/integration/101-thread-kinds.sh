# Every kind of thread is covered: pthread, raw clone(), a pool, and a thread that a linked
# library's constructor started before the preload's constructor ran.
. "$MTJ_SRC/tests/integration/lib.sh"
export MTINJECT_SESSION=none
run_plain "$PROGS/trig_modes" threads
MTINJECT_TRIGGER='target_fn,count=all' MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" threads
cat traced.err
assert_same_behaviour
assert_eq "$(grep -c '"kind":"trigger"' out/hits.jsonl)" 6 "hits (1 pthread + 1 clone + 4 pool)"
assert_eq "$(grep -c '"thread":"pthread"' out/hits.jsonl)" 1 "pthread hits"
assert_eq "$(grep -c '"thread":"rawclone"' out/hits.jsonl)" 1 "raw clone hits"
assert_eq "$(grep -c '"thread":"pool"' out/hits.jsonl)" 4 "pool hits"
assert_grep '"args":\["0x2",' out/hits.jsonl
# each hit has its own tid, none is the main thread
main=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' out/hits.jsonl | head -n 1)
assert_eq "$(sed -n 's/.*"tid":\([0-9]*\).*/\1/p' out/hits.jsonl | sort -u | grep -vc "^$main$")" 6 "distinct non-main tids"

run_plain "$PROGS/trig_early"
MTINJECT_TRIGGER='early_work@libtrig_early.so' MTINJECT_OUTPUT="$PWD/early" run_traced "$PROGS/trig_early"
cat traced.err
assert_same_behaviour
assert_eq "$(grep -c '"thread":"early"' early/hits.jsonl)" 1 "hit in the thread started before our constructor"
assert_grep '"symbol":"early_work"' early/hits.jsonl
