# A program with its own SIGTRAP handler gets the SIGTRAPs meant for it (raise, int3) while
# the breakpoint's SIGTRAPs are ours; its handler stays installed as far as it can tell.
. "$MTJ_SRC/tests/integration/lib.sh"
export MTINJECT_SESSION=none
run_plain "$PROGS/trig_modes" own-sigtrap
assert_grep 'traps=2 handler_kept=1' plain.out
MTINJECT_TRIGGER='target_fn,count=all' MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" own-sigtrap
cat traced.err
assert_same_behaviour
assert_eq "$(grep -c '"kind":"trigger"' out/hits.jsonl)" 2 "trigger hits"
# without a handler of its own, a stray SIGTRAP still kills the program as before
sh -c 'kill -TRAP $$' ; plain=$?
LD_PRELOAD="$LIB" MTINJECT_TRIGGER=target_fn MTINJECT_OUTPUT="$PWD/o2" sh -c 'kill -TRAP $$' 2>/dev/null; traced=$?
assert_eq "$traced" "$plain" "exit status of a stray SIGTRAP"
