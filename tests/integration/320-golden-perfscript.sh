#!/bin/sh
# Golden scenarios of the perf script front end + PT reconstruction + --filter
# (tests/golden/README.md): every NAME.perfscript must produce exactly NAME.expected.
. "$MTJ_SRC/tests/integration/lib.sh"

run="$TTOOLS/golden-run"
[ -x "$run" ] || fail "missing $run (make build)"
n=0 bad=0
for in in "$MTJ_SRC"/tests/golden/*/*.perfscript; do
	exp=${in%.perfscript}.expected
	name=${in#"$MTJ_SRC"/tests/golden/}
	[ -f "$exp" ] || { echo "no expected output for $name"; bad=$((bad + 1)); continue; }
	"$run" "$in" >out.txt 2>err.txt
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "--- $name: golden-run exit $rc"; cat out.txt err.txt; bad=$((bad + 1))
	elif ! cmp -s out.txt "$exp"; then
		echo "--- $name differs (expected vs got):"; diff "$exp" out.txt | head -40
		bad=$((bad + 1))
	fi
	n=$((n + 1))
done
[ "$n" -ge 25 ] || fail "only $n scenarios found under tests/golden"
[ "$bad" = 0 ] || fail "$bad of $n golden scenarios failed"
note "$n golden scenarios passed"
