#!/bin/sh
# README.md starts with the two set-up commands (`make demo`, then `make test`), its
# environment table has a row for every variable of mtj_env_vars[] and names none that the
# table lacks, and it mentions every command that `mtinject --help` lists.
. "$MTJ_SRC/tests/integration/lib.sh"

readme="$MTJ_SRC/README.md"
assert_file "$readme"

# The first two commands: the first lines of the first ``` block that are not blank or
# comments, with a trailing "# ..." comment removed.
awk '/^```/ { if (inblock) exit; inblock = 1; next }
     inblock && !/^[ \t]*(#|$)/ { sub(/[ \t]+#.*/, ""); print }' "$readme" | head -n 2 >first.txt
assert_eq "$(sed -n 1p first.txt)" "make demo" "first command of README.md"
assert_eq "$(sed -n 2p first.txt)" "make test" "second command of README.md"
# ...and that block is the first thing after the title.
first_block=$(grep -n '^```' "$readme" | head -n 1 | cut -d: -f1)
before=$(head -n $((first_block - 1)) "$readme" | grep -cv '^\(# .*\)\?$')
assert_eq "$before" 0 "lines of text before the set-up commands"

# The names come from the table that drives parsing (tests/tools/env-vars.c), not a copy.
"$TTOOLS/env-vars" >vars.txt || fail "cannot list mtj_env_vars[]"
[ "$(wc -l <vars.txt)" -ge 18 ] || fail "only $(wc -l <vars.txt) variables in mtj_env_vars[]"

missing=""
while read -r v; do
	# A row of the environment table: "| `NAME` | default | meaning |".
	grep -q "^| \`$v\` | [^|]* | [^|]* |\$" "$readme" || missing="$missing $v"
done <vars.txt
[ -z "$missing" ] || fail "README.md has no environment table row for:$missing"

# No stale or misspelt variable anywhere in README.md (MTINJECT_SNAPSHOT and MTINJECT_ACTIVE
# are the macros of mtinject.h).
stale=""
for v in $(grep -o '\bMTINJECT_[A-Z_]*[A-Z]' "$readme" | sort -u); do
	case $v in MTINJECT_SNAPSHOT | MTINJECT_ACTIVE) continue ;; esac
	grep -qx "$v" vars.txt || stale="$stale $v"
done
[ -z "$stale" ] || fail "README.md names variables that mtj_env_vars[] lacks:$stale"

# Every command of `mtinject --help` is in the commands table: "| `mtinject CMD ...".
"$TOOL" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p' >commands
[ "$(wc -l <commands)" -ge 7 ] || fail "mtinject --help lists too few commands"
missing=""
while read -r c; do
	grep -q "^| \`mtinject $c[\` ]" "$readme" || missing="$missing $c"
done <commands
[ -z "$missing" ] || fail "README.md's command table lacks:$missing"

# The exit statuses of `mtinject --help` appear as `N` in the README.
missing=""
for code in $("$TOOL" --help | sed -n 's/^  \([0-9][0-9]*\)  .*/\1/p'); do
	grep -q "\`$code\`" "$readme" || missing="$missing $code"
done
[ -z "$missing" ] || fail "README.md does not document exit status:$missing"

note "README.md: set-up commands first; $(wc -l <vars.txt) variables, $(wc -l <commands) commands documented"
exit 0
