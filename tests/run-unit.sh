#!/bin/sh
# Run every cmocka unit test binary, each in its own process; print one summary line.
build=${1:-build}
pass=0 fail=0 failed=""
for t in "$build"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d|*.o) continue ;; esac
	if out=$("$t" 2>&1); then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed ${t##*/}"; printf '%s\n' "$out"; fi
	printf '%s\n' "$out" | grep -E '^\[  (PASSED|FAILED|SKIPPED)' | sed "s|^|${t##*/}: |"
done
echo "unit: $pass passed, $fail failed"
[ -z "$failed" ] || echo "unit: failed:$failed"
[ "$fail" = 0 ]
