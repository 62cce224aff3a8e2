# `mtinject symbols PID`: every mapped object at its run-time addresses, `name` for the
# executable and `name@object` for libraries; each first column resolves in the process
# to its line's address.  A missing PID is exit status 3.
. "$MTJ_SRC/tests/integration/lib.sh"

mkfifo hold
"$PROGS/sym_app" --dlopen "$PROGS/libsym_a.so" --wait <hold >ready.txt 2>app.err &
pid=$!
exec 7>hold          # the program runs until this is closed
trap 'exec 7>&-; wait' EXIT
i=0
while [ "$(cat ready.txt)" != ready ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ "$(cat ready.txt)" = ready ] || { cat app.err; fail "sym_app did not start"; }

tab=$(printf '\t')
"$TOOL" symbols "$pid" >all.txt || fail "symbols $pid"
base=$(awk -F"$tab" '$1 == "sym_global_entry" { print $4 }' all.txt)
[ -n "$base" ] || fail "no sym_global_entry line"
grep -q "^libsym_parse@libsym_a.so${tab}libsym_parse${tab}global${tab}0x" all.txt || fail "no libsym_parse@libsym_a.so line"
grep -q "^malloc@libc.so.6${tab}malloc@@GLIBC_2.2.5${tab}global${tab}0x" all.txt || fail "no malloc@libc.so.6 line"

# run-time addresses: sym_global_entry is at its link-time address plus the load bias
link=$("$TOOL" symbols "$PROGS/sym_app" sym_global_entry | cut -f4)
map=$(awk -v p="$PROGS/sym_app" '$6 == p && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' /proc/$pid/maps)
[ -n "$map" ] || fail "sym_app not in /proc/$pid/maps"
assert_eq "$base" "$(printf '0x%x' $((0x$map + link)))" "run-time address of sym_global_entry"

# the first column of the program's, the library's and some libc lines resolves back
{ grep "${tab}$PROGS/sym_app\$" all.txt; grep "${tab}$PROGS/libsym_a.so\$" all.txt; grep '^mall' all.txt; } >some.txt
[ "$(wc -l <some.txt)" -gt 15 ] || fail "too few lines to check"
while IFS="$tab" read -r spec name kind a obj; do
	got=$("$TOOL" symbols -r "$spec" "$pid") || fail "--resolve '$spec' in $pid"
	assert_eq "$(echo "$got" | cut -f1,3)" "$a$tab$obj" "--resolve '$spec'"
done <some.txt

"$TOOL" symbols "$pid" 'libsym_*' | cut -f1 >lib.txt
printf 'libsym_static_helper@libsym_a.so\nlibsym_parse@libsym_a.so\nlibsym_weak_hook@libsym_a.so\n' |
	cmp -s - lib.txt || { cat lib.txt; fail "pattern in a process"; }

"$TOOL" symbols 999999999 2>nopid.err; rc=$?
assert_eq "$rc" 3 "exit status for a missing process"
assert_eq "$(cat nopid.err)" "mtinject symbols: no such process: 999999999"
exit 0
