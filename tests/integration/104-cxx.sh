# C++ functions by demangled name (with and without the argument list) and by mangled name.
. "$MTJ_SRC/tests/integration/lib.sh"
export MTINJECT_SESSION=none
run_plain "$PROGS/trig_cxx"
t() { # SPEC EXPECTED-HITS
	rm -rf out
	MTINJECT_TRIGGER="$1" MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_cxx"
	assert_same_behaviour
	[ -f out/hits.jsonl ] || { cat traced.err; fail "'$1': no hits.jsonl"; }
	assert_eq "$(grep -c '"kind":"trigger"' out/hits.jsonl)" "$2" "hits for '$1'"
}
t 'shop::Cart::add(int, int)' 1
t 'shop::Cart::add(int,int)' 1
t '_ZN4shop4Cart3addEi' 1
t 'twice<int>' 1
# without the argument list the name is ambiguous: an error listing both overloads
MTINJECT_TRIGGER='shop::Cart::add' run_traced "$PROGS/trig_cxx"
assert_same_behaviour
cat traced.err
assert_grep 'shop::Cart::add(int)' traced.err
assert_grep 'shop::Cart::add(int, int)' traced.err
