# mtinject(1) renders without warnings and documents what the tool really has: every
# command, every long option of every command's --help, every exit status.
. "$MTJ_SRC/tests/integration/lib.sh"
page="$MTJ_SRC/docs/man/mtinject.1"
command -v man >/dev/null 2>&1 || skip "man is not installed (apt-get install man-db)"

MANWIDTH=80 man --warnings -l "$page" >page.txt 2>warn.txt || { cat warn.txt; fail "man failed"; }
[ -s warn.txt ] && { cat warn.txt; fail "man --warnings complained"; }
[ -s page.txt ] || fail "the page rendered empty"

# Commands: those `mtinject --help` lists (but help) each have a section.
"$TOOL" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p' | grep -v '^help$' >commands
[ "$(wc -l <commands)" -ge 6 ] || fail "--help lists too few commands"
while read -r c; do
	grep -q "^\.SS \"mtinject $c" "$page" || fail "no section for '$c' in mtinject.1"
done <commands

# Options: every --long option a command's --help shows appears in the page.
missing=""
while read -r c; do
	for o in $("$TOOL" "$c" --help | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -o -- '--[a-z-]*' | sort -u); do
		[ "$o" = "--help" ] && continue
		pat=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$pat" "$page" || missing="$missing $c:$o"
	done
done <commands
[ -z "$missing" ] || fail "options missing from mtinject.1:$missing"

# Exit statuses: the same codes as `mtinject --help`.
"$TOOL" --help | sed -n 's/^  \([0-9][0-9]*\)  .*/\1/p' | sort -n >codes.help
sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$page" | sed -n 's/^\.B \([0-9][0-9]*\)$/\1/p' | sort -n >codes.man
cmp -s codes.help codes.man || { diff codes.help codes.man; fail "exit statuses differ between --help and mtinject.1"; }
for s in "SEE ALSO" EXAMPLES FILES "EXIT STATUS"; do grep -q "^\.SH $s" "$page" || fail "no $s section"; done
grep -q 'libmtinject (7)' "$page" || fail "SEE ALSO does not name libmtinject(7)"
echo "ok: $(wc -l <commands) commands, codes $(tr '\n' ' ' <codes.man)"
