#!/bin/sh
# `make check`: unit tests, integration tests, worked examples; one closing summary line.
# Exit status is non-zero when anything failed.
build=${1:-build}
here=$(dirname "$0")
out=$(mktemp); trap 'rm -f "$out" "$out.part"' EXIT
rc=0
step() { # run a step, show its output, keep it for the summary, remember failure
	"$@" >"$out.part" 2>&1 || rc=1
	cat "$out.part"
	cat "$out.part" >>"$out"
}
step "$here/run-unit.sh" "$build"
step "$here/run-integration.sh" "$build"
if [ -f "$here/../docs/examples/Makefile" ]; then
	if make --no-print-directory -C "$here/../docs/examples" MTINJECT_BUILD="$(cd "$build" && pwd)" check >"$out.part" 2>&1; then
		echo "examples: 1 passed, 0 failed" | tee -a "$out"
	else
		cat "$out.part"; echo "examples: 0 passed, 1 failed" | tee -a "$out"; rc=1
	fi
fi
p=0; f=0; s=0
for n in $(sed -n 's/^[a-z]*: \([0-9]*\) passed.*/\1/p' "$out"); do p=$((p + n)); done
for n in $(sed -n 's/^[a-z]*: [0-9]* passed, \([0-9]*\) failed.*/\1/p' "$out"); do f=$((f + n)); done
for n in $(sed -n 's/.*, \([0-9]*\) skipped$/\1/p' "$out"); do s=$((s + n)); done
echo
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ] || rc=1
exit $rc
