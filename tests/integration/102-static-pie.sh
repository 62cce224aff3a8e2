# A static function of a PIE executable, resolved from .symtab plus the load bias.
. "$MTJ_SRC/tests/integration/lib.sh"
readelf -h "$PROGS/trig_modes" | grep -q 'DYN' || fail "trig_modes is not PIE"
nm "$PROGS/trig_modes" | grep -q ' t static_target$' || fail "static_target is not a local symbol"
export MTINJECT_SESSION=none
run_plain "$PROGS/trig_modes" static
MTINJECT_TRIGGER=static_target MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" static
assert_same_behaviour
assert_eq "$(wc -l <out/hits.jsonl | tr -d ' ')" 1 "hits"
assert_grep '"symbol":"static_target"' out/hits.jsonl
assert_grep '"args":\["0x15",' out/hits.jsonl
# the recorded ip is the function's runtime address: load bias + st_value
