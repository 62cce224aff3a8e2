# Two static functions of one name in one executable: `symbols` offers object+0xOFF for
# each (file offsets), those resolve to the right functions, and the bare name is refused
# with both candidates listed.
. "$MTJ_SRC/tests/integration/lib.sh"
command -v objcopy >/dev/null 2>&1 || skip "objcopy (binutils) is not installed"

app="$PROGS/sym_app"
objcopy --redefine-sym sym_init_one=init "$app" tmp && objcopy --redefine-sym sym_init_two=init tmp sym_dupes ||
	fail "objcopy"
tab=$(printf '\t')
one=$("$TOOL" symbols -r sym_init_one "$app" | cut -f1)
two=$("$TOOL" symbols -r sym_init_two "$app" | cut -f1)
[ -n "$one" ] && [ -n "$two" ] || fail "cannot resolve the originals"

"$TOOL" symbols sym_dupes '^init' >/dev/null 2>&1   # a pattern, not a regex: no match
"$TOOL" symbols sym_dupes 'init' | grep "${tab}init${tab}" >lines.txt
cut -f1,3,4 lines.txt >got.txt
# text is mapped at its file offset in these PIEs: the offset is the address
printf 'sym_dupes+%s\tstatic\t%s\nsym_dupes+%s\tstatic\t%s\n' "$one" "$one" "$two" "$two" >want.txt
diff want.txt got.txt || fail "ambiguous names are not offered as object+0xOFF"

for spec in $(cut -f1 got.txt); do
	a=$("$TOOL" symbols -r "$spec" sym_dupes | cut -f1,2)
	off=${spec#sym_dupes+}
	assert_eq "$a" "$off${tab}init" "--resolve $spec"
done

"$TOOL" symbols -r init sym_dupes 2>amb.err; rc=$?
assert_eq "$rc" 1 "exit status for an ambiguous name"
want="mtinject symbols: 'init' is ambiguous: 2 functions match: init (static, sym_app.c) at $one in sym_dupes [sym_dupes+$one]; init (static, sym_app.c) at $two in sym_dupes [sym_dupes+$two]; name one with object+0xOFFSET"
assert_eq "$(cat amb.err)" "$want" "ambiguity message"
exit 0
