#!/bin/sh
# Mutation fuzzing of the perf script front end (parser + PT reconstruction + filter +
# writers) seeded with the golden scenarios; fixed seeds, so a failure reproduces.
. "$MTJ_SRC/tests/integration/lib.sh"

fz="$TTOOLS/fuzz-perfscript"
[ -x "$fz" ] || fail "missing $fz (make build)"
for seed in 1 2; do
	"$fz" 10000 "$seed" "$MTJ_SRC"/tests/golden/*/*.perfscript >out.txt 2>err.txt ||
		{ cat out.txt err.txt; fail "fuzz seed $seed failed (input kept in fuzz-crash.perfscript)"; }
	grep -q '^iterations=10000 ' out.txt || fail "unexpected fuzz output: $(cat out.txt)"
done
note "$(cat out.txt)"
