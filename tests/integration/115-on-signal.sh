# MTINJECT_ON=signal:SIGUSR1: a signal sent to the program takes a snapshot (and does not
# kill it, though SIGUSR1's default action would).
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
MTINJECT_ON=signal:SIGUSR1 MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" usr1
cat traced.err
assert_eq "$(cat traced.rc)" 0 "exit status"
assert_grep 'survived SIGUSR1' traced.out
assert_grep '"reason":"signal: SIGUSR1"' out/hits.jsonl
assert_grep '"snapshot":true' out/hits.jsonl
