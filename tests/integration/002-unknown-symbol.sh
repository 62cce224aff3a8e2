# A trigger that names no function: one clear line naming it, the program unchanged.
. "$MTJ_SRC/tests/integration/lib.sh"
prog="$PROGS/mt_worker"
run_plain "$prog" 20
MTINJECT_TRIGGER=no_such_function run_traced "$prog" 20
assert_same_behaviour
grep -v '^worker-' traced.err >msgs
cat msgs
assert_grep "no_such_function" msgs
assert_eq "$(grep -c 'no_such_function' msgs)" 1 "lines naming the symbol"
assert_grep "runs untraced" msgs
ls -d mtinject-* >/dev/null 2>&1 && fail "an output directory was created for a failed trigger"
# MTINJECT_STRICT=1 turns it into exit status 2 before main
MTINJECT_STRICT=1 MTINJECT_TRIGGER=no_such_function LD_PRELOAD="$LIB" "$prog" 20 >strict.out 2>strict.err
assert_eq "$?" 2 "exit status with MTINJECT_STRICT=1"
[ -s strict.out ] && fail "main ran despite MTINJECT_STRICT=1"
exit 0
