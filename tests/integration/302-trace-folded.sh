#!/bin/sh
# Folded stacks end to end: exact lines (time per distinct stack in µs, thread root frame,
# hits as count-1 leaves), with and without the thread root.
. "$MTJ_SRC/tests/integration/lib.sh"

cat >events.txt <<'END'
P 100 demo
T 100 101 main
B 100 101 0 main
B 100 102 0 work
B 100 101 1000000 a
B 100 101 2000000 b;c
I 100 101 2500000 hit:\sb
E 100 101 3000000 b;c
E 100 101 4000000 a
E 100 102 2500000 work
E 100 101 10000000 main
END
"$TTOOLS/trace-gen" folded stacks.folded <events.txt || fail "trace-gen folded failed"
assert_eq "$(cat stacks.folded)" "main-101;main 7000
main-101;main;a 2000
main-101;main;a;b:c 1000
main-101;main;a;b:c;hit: b 1
thread-102;work 2500"
"$TTOOLS/trace-gen" folded bare.folded --no-thread-root <events.txt || fail "trace-gen folded failed"
assert_eq "$(cat bare.folded)" "main 7000
main;a 2000
main;a;b:c 1000
main;a;b:c;hit: b 1
work 2500"
# every line is "frames count" as flamegraph.pl expects
if grep -vqE '^[^ ].* [0-9]+$' stacks.folded; then fail "malformed folded line"; fi
exit 0
