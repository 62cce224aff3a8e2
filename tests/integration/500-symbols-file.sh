# `mtinject symbols FILE [PATTERN]`: exact lines for static, global, weak and C++ functions,
# patterns (substring, glob), every first column resolving back to its own line, and the
# exit statuses and messages for bad input.
. "$MTJ_SRC/tests/integration/lib.sh"
command -v nm >/dev/null 2>&1 || skip "nm (binutils) is not installed"

app="$PROGS/sym_app"
addr() { printf '0x%s' "$(nm "$1" | awk -v s="$2" '$3 == s { sub(/^0+/, "", $1); print $1 }')"; }
tab=$(printf '\t')

"$TOOL" symbols "$app" sym_ >out.txt; rc=$?
assert_eq "$rc" 0 "exit status"
cat >want.txt <<END
sym_static_worker${tab}sym_static_worker${tab}static${tab}$(addr "$app" sym_static_worker)${tab}$app
sym_init_one${tab}sym_init_one${tab}static${tab}$(addr "$app" sym_init_one)${tab}$app
sym_init_two${tab}sym_init_two${tab}static${tab}$(addr "$app" sym_init_two)${tab}$app
sym_global_entry${tab}sym_global_entry${tab}global${tab}$(addr "$app" sym_global_entry)${tab}$app
sym_weak_fn${tab}sym_weak_fn${tab}weak${tab}$(addr "$app" sym_weak_fn)${tab}$app
END
diff want.txt out.txt || fail "symbols sym_app sym_ differs"

# a glob is matched against the whole name
"$TOOL" symbols "$app" 'sym_init_*' | cut -f1 >glob.txt
printf 'sym_init_one\nsym_init_two\n' | cmp -s - glob.txt || { cat glob.txt; fail "glob sym_init_*"; }

# C++: the first column is the mangled name, the second the demangled one
cxx="$PROGS/sym_cxx"
"$TOOL" symbols "$cxx" 'ns::Class::method' | cut -f1,2 >cxx.txt
printf '_ZN2ns5Class6methodEi\tns::Class::method(int)\n_ZN2ns5Class6methodEd\tns::Class::method(double)\n' |
	cmp -s - cxx.txt || { cat cxx.txt; fail "C++ lines"; }

# a library: name@soname-or-file-name
"$TOOL" symbols "$PROGS/libsym_a.so" parse | cut -f1,3 >lib.txt
printf 'libsym_parse@libsym_a.so\tglobal\n' | cmp -s - lib.txt || { cat lib.txt; fail "library line"; }

# every line's first column resolves to that line's address and object
for f in "$app" "$cxx" "$PROGS/libsym_a.so"; do
	"$TOOL" symbols "$f" >all.txt || fail "listing $f"
	while IFS="$tab" read -r spec name kind a obj; do
		got=$("$TOOL" symbols --resolve="$spec" "$f") || fail "--resolve '$spec' in $f failed"
		assert_eq "$(echo "$got" | cut -f1)" "$a" "--resolve '$spec' ($name) in $f"
	done <all.txt
done

# --resolve: a demangled name with its parameter list
"$TOOL" symbols -r 'ns::Class::method(double)' "$cxx" | cut -f2 >r.txt
assert_eq "$(cat r.txt)" "_ZN2ns5Class6methodEd" "resolve with parameter list"

# no match: 1, with a message naming the pattern
"$TOOL" symbols "$app" no_such_thing >nomatch.out 2>nomatch.err; rc=$?
assert_eq "$rc" 1 "exit status without a match"
assert_eq "$(cat nomatch.err)" "mtinject symbols: no function matches 'no_such_thing' in $app" "no-match message"
[ ! -s nomatch.out ] || fail "output without a match"
"$TOOL" symbols -r sym_init "$app" 2>sugg.err; rc=$?
assert_eq "$rc" 1 "exit status of an unresolved --resolve"
assert_grep "no function 'sym_init' in $app (did you mean 'sym_init_one', 'sym_init_two', '_init'?)" sugg.err

# bad input: 3 with the file named; usage: 2; --help: 0
echo "not an elf" >text.txt
"$TOOL" symbols text.txt 2>bad.err; rc=$?
assert_eq "$rc" 3 "exit status for a text file"
assert_eq "$(cat bad.err)" "mtinject symbols: text.txt: not an ELF file"
"$TOOL" symbols ./missing 2>miss.err; rc=$?
assert_eq "$rc" 3 "exit status for a missing file"
assert_eq "$(cat miss.err)" "mtinject symbols: ./missing: No such file or directory"
strip -o stripped "$app"
"$TOOL" symbols stripped 2>strip.err; rc=$?
assert_eq "$rc" 3 "exit status for a stripped executable"
assert_eq "$(cat strip.err)" "mtinject symbols: stripped: stripped: no .symtab or .dynsym"
head -c 3000 "$app" >truncated
"$TOOL" symbols truncated 2>trunc.err; rc=$?
assert_eq "$rc" 3 "exit status for a truncated ELF"
assert_eq "$(cat trunc.err)" "mtinject symbols: truncated: truncated or corrupt ELF file"
"$TOOL" symbols 2>usage.err; rc=$?
assert_eq "$rc" 2 "exit status without arguments"
"$TOOL" symbols --bogus "$app" 2>/dev/null; rc=$?
assert_eq "$rc" 2 "exit status for an unknown option"
"$TOOL" symbols --help >help.txt; rc=$?
assert_eq "$rc" 0 "--help"
assert_grep '^Usage: mtinject symbols' help.txt
exit 0
