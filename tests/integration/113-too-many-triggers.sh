# More triggers than x86's 4 hardware breakpoint slots is an error that says so.
. "$MTJ_SRC/tests/integration/lib.sh"
run_plain "$PROGS/trig_modes" loop 3
MTINJECT_TRIGGER='target_fn;static_target;main;parse_input;spin_ms' run_traced "$PROGS/trig_modes" loop 3
assert_same_behaviour
cat traced.err
assert_grep '5 triggers' traced.err
assert_grep '4 hardware breakpoint' traced.err
