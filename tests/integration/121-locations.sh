# Every location form under the preload: object+0xOFF (a file offset), 0xADDR (absolute;
# ASLR off so the address is known in advance), name@object in libc.
. "$MTJ_SRC/tests/integration/lib.sh"
export MTINJECT_SESSION=none
prog="$PROGS/trig_modes"
val=$(nm "$prog" | awk '$3 == "static_target" { print $1 }')
[ -n "$val" ] || fail "no static_target in nm output"
# In a PIE the text segment's file offset equals its link address, so st_value is the offset.
off=$(printf '0x%x' "0x$val")
run_plain "$prog" static
MTINJECT_TRIGGER="trig_modes+$off" MTINJECT_OUTPUT="$PWD/o1" run_traced "$prog" static
cat traced.err
assert_same_behaviour
assert_grep '"symbol":"static_target"' o1/hits.jsonl
assert_grep '"args":\["0x15",' o1/hits.jsonl

if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
	# (setarch itself must not be preloaded: the preload goes in through env)
	addr=$(MTINJECT_TRIGGER="trig_modes+$off" MTINJECT_OUTPUT="$PWD/o2" \
		setarch "$(uname -m)" -R env LD_PRELOAD="$LIB" "$prog" static 2>/dev/null >/dev/null; sed -n 's/.*"ip":"\(0x[0-9a-f]*\)".*/\1/p' o2/hits.jsonl)
	[ -n "$addr" ] || fail "no hit to learn the address from"
	MTINJECT_TRIGGER="$addr" MTINJECT_OUTPUT="$PWD/o3" setarch "$(uname -m)" -R env LD_PRELOAD="$LIB" "$prog" static >o3.out 2>o3.err
	cat o3.err
	assert_grep "\"ip\":\"$addr\"" o3/hits.jsonl
	assert_grep '"symbol":"static_target' o3/hits.jsonl
	# an address in no object: a clear error, the program unchanged
	MTINJECT_TRIGGER=0x10 LD_PRELOAD="$LIB" "$prog" static >o4.out 2>o4.err
	assert_eq "$?" 0 "exit status with a bad address"
	assert_grep '0x10' o4.err
else
	note "setarch -R unavailable: absolute-address trigger not tested"
fi

# a function of libc, by soname
run_plain "$prog" loop 3 1000
MTINJECT_TRIGGER='usleep@libc.so.6,count=all' MTINJECT_OUTPUT="$PWD/o5" run_traced "$prog" loop 3 1000
cat traced.err
assert_same_behaviour
assert_eq "$(grep -c '"kind":"trigger"' o5/hits.jsonl)" 3 "usleep hits"
assert_grep '"frames":\["mode_loop+0x[0-9a-f]* (trig_modes)"' o5/hits.jsonl
