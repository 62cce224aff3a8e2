#!/bin/sh
# Every variable of mtj_env_vars[] (the table that drives parsing) has an entry in
# libmtinject(7) and a row in docs/environment.md; those two name no variable that the table
# lacks; and every man page renders without warnings.
. "$MTJ_SRC/tests/integration/lib.sh"

man7="$MTJ_SRC/docs/man/libmtinject.7"
envmd="$MTJ_SRC/docs/environment.md"
assert_file "$man7"
assert_file "$envmd"

# The names come from the table that drives parsing (tests/tools/env-vars.c), not a copy.
"$TTOOLS/env-vars" >vars.txt || fail "cannot list mtj_env_vars[]"
[ "$(wc -l <vars.txt)" -ge 18 ] || fail "only $(wc -l <vars.txt) variables in mtj_env_vars[]"

missing=""
while read -r v; do
	# An entry of its own: a tagged paragraph ".TP" / ".B NAME" in the man page...
	grep -q "^\.B $v\$" "$man7" || missing="$missing libmtinject.7:$v"
	# ...and a table row "| `NAME` |" in the Markdown reference.
	grep -q "^| \`$v\` |" "$envmd" || missing="$missing environment.md:$v"
done <vars.txt
[ -z "$missing" ] || fail "variables not documented:$missing"

# The other direction: no stale or misspelt variable in the docs.  MTINJECT_SNAPSHOT and
# MTINJECT_ACTIVE are the macros of mtinject.h; MTINJECT_TRIGER is the documented typo.
stale=""
for doc in "$man7" "$envmd" "$MTJ_SRC/docs/man/mtinject_snapshot.3"; do
	for v in $(grep -o '\bMTINJECT_[A-Z_]*[A-Z]' "$doc" | sort -u); do
		case $v in MTINJECT_SNAPSHOT | MTINJECT_ACTIVE | MTINJECT_TRIGER) continue ;; esac
		grep -qx "$v" vars.txt || stale="$stale ${doc##*/}:$v"
	done
done
[ -z "$stale" ] || fail "documented but not in mtj_env_vars[]:$stale"

command -v man >/dev/null 2>&1 || skip "man is not installed (apt-get install man-db groff-base)"
for page in "$MTJ_SRC"/docs/man/*.[1-8]; do
	MANWIDTH=80 man --warnings -l "$page" >page.txt 2>warn.txt || { cat warn.txt; fail "man failed on ${page##*/}"; }
	[ -s warn.txt ] && { cat warn.txt; fail "man --warnings complained about ${page##*/}"; }
	# Rendered, not empty: the page's own name is in its header line.
	name=${page##*/}
	head -n 1 page.txt | grep -qi "${name%.*}" || fail "${page##*/} rendered without its header"
done
note "$(wc -l <vars.txt) variables documented; $(ls "$MTJ_SRC"/docs/man/*.[1-8] | wc -l) man pages render cleanly"
exit 0
