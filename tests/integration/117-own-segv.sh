# A program that handles SIGSEGV itself (installing its handler after ours) still gets the
# signal and recovers; MTINJECT_ON=crash records the crash and does not stop tracing.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
run_plain "$PROGS/trig_modes" own-segv
assert_grep 'recovered from SIGSEGV' plain.out
MTINJECT_ON=crash,exit MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" own-segv
cat traced.err
assert_same_behaviour
assert_grep '"reason":"crash: SIGSEGV"' out/hits.jsonl
assert_grep '"kind":"exit"' out/hits.jsonl   # still tracing after the recovered crash
assert_eq "$(grep -c '"snapshot":true' out/hits.jsonl)" 2 "snapshots (crash, exit)"
