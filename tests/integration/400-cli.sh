# The `mtinject` frame: --version, --help with the exit-status table, help COMMAND, every
# command's --help, and clear usage errors (exit 2) with a suggestion for typos.
. "$MTJ_SRC/tests/integration/lib.sh"

version=$(sed -n 's/^VERSION *:= *//p' "$MTJ_SRC/Makefile")
assert_eq "$("$TOOL" --version)" "mtinject $version" "--version"

"$TOOL" --help >help.out 2>help.err
assert_eq "$?" 0 "--help status"
[ -s help.err ] && fail "--help wrote to stderr"
for c in run decode symbols info snapshot stop help; do
	grep -q "^  $c " help.out || fail "--help does not list '$c'"
done
for code in 0 1 2 3 126 127; do
	grep -q "^  $code " help.out || fail "--help has no exit status $code"
done

# No command: usage on stderr, status 2.
"$TOOL" >none.out 2>none.err
assert_eq "$?" 2 "status without a command"
[ -s none.out ] && fail "usage error wrote to stdout"
assert_grep "Usage: mtinject COMMAND" none.err

# Typos get the closest command; nonsense gets none.
"$TOOL" rnu -- true >typo.out 2>typo.err
assert_eq "$?" 2 "status of an unknown command"
assert_eq "$(cat typo.err | head -n 1)" "mtinject: 'rnu' is not a command (did you mean 'run'?)" "typo message"
"$TOOL" snap 1 2>snap.err
assert_eq "$?" 2 "status of a prefix"
assert_grep "did you mean 'snapshot'" snap.err
"$TOOL" frobnicate 2>frob.err
assert_eq "$?" 2 "status of nonsense"
assert_no_grep "did you mean" frob.err
"$TOOL" --frob 2>opt.err
assert_eq "$?" 2 "status of an option before the command"

# help COMMAND = COMMAND --help, for every command, on stdout, status 0.
for c in run decode symbols info snapshot stop; do
	"$TOOL" help "$c" >"h-$c.out" 2>"h-$c.err" || fail "help $c: status $?"
	grep -qi "usage: mtinject $c" "h-$c.out" || { cat "h-$c.out" "h-$c.err"; fail "help $c shows no usage"; }
	"$TOOL" "$c" --help >"o-$c.out" 2>&1 || fail "$c --help: status $?"
	cmp -s "h-$c.out" "o-$c.out" || fail "'help $c' and '$c --help' differ"
done
"$TOOL" help nosuch 2>hn.err
assert_eq "$?" 2 "help of an unknown command"

# Unknown options: status 2, the nearest real option suggested, nothing run.
"$TOOL" run --multy -t x -- true 2>ro.err
assert_eq "$?" 2 "run with an unknown option"
assert_grep "unknown option '--multy' (did you mean '--multi'?)" ro.err
assert_grep "Try 'mtinject run --help'" ro.err
"$TOOL" run -t 2>rt.err
assert_eq "$?" 2 "-t without a value"
assert_grep "option -t needs a value" rt.err
"$TOOL" run -t handle_request 2>rm.err
assert_eq "$?" 2 "run without COMMAND"
assert_grep "missing COMMAND" rm.err
"$TOOL" info --jsno 2>io.err
assert_eq "$?" 2 "info with an unknown option"
assert_grep "did you mean '--json'" io.err
"$TOOL" info extra 2>ie.err
assert_eq "$?" 2 "info with an argument"
"$TOOL" snapshot 2>sm.err
assert_eq "$?" 2 "snapshot without a target"
assert_grep "missing DIR or PID" sm.err
"$TOOL" stop a b 2>sb.err
assert_eq "$?" 2 "stop with two targets"
"$TOOL" snapshot --timeout abc 1 2>st.err
assert_eq "$?" 2 "snapshot with a bad timeout"
"$TOOL" help --help >hh.out 2>&1
assert_eq "$?" 0 "help --help"
assert_grep 'decode' hh.out
echo "ok"
