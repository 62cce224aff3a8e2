#!/bin/sh
# `make check`: unit tests, integration tests, worked examples; one closing summary line.
build=${1:-build}
here=$(dirname "$0")
out=$(mktemp); trap 'rm -f "$out"' EXIT
rc=0
"$here/run-unit.sh" "$build" | tee -a "$out" || rc=1
"$here/run-integration.sh" "$build" | tee -a "$out" || rc=1
if [ -f "$here/../docs/examples/Makefile" ]; then
	if make --no-print-directory -C "$here/../docs/examples" MTINJECT_BUILD="$(cd "$build" && pwd)" check >"$out.ex" 2>&1; then
		echo "examples: 1 passed, 0 failed" | tee -a "$out"
	else
		cat "$out.ex"; echo "examples: 0 passed, 1 failed" | tee -a "$out"; rc=1
	fi
	rm -f "$out.ex"
fi
p=0; f=0; s=0
for n in $(sed -n 's/^[a-z]*: \([0-9]*\) passed.*/\1/p' "$out"); do p=$((p + n)); done
for n in $(sed -n 's/^[a-z]*: [0-9]* passed, \([0-9]*\) failed.*/\1/p' "$out"); do f=$((f + n)); done
for n in $(sed -n 's/.*, \([0-9]*\) skipped$/\1/p' "$out"); do s=$((s + n)); done
echo
echo "$p passed, $f failed, $s skipped"
exit $rc
