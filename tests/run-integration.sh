#!/bin/sh
# Run tests/integration/[0-9]*.sh, each in a fresh temporary directory and its own process
# group, with a time limit.  Exit 0 = pass, 77 = skip (the test prints why), else fail.
# After each test, no perf process started by it may remain.
# Usage: tests/run-integration.sh BUILD [PATTERN]
build=$(cd "${1:-build}" && pwd) || exit 1
pattern=${2:-${MTJ_TESTS:-}}
src=$(cd "$(dirname "$0")/.." && pwd)
limit=${MTJ_TEST_TIMEOUT:-180}
pass=0 fail=0 skip=0 failed=""
for t in "$src"/tests/integration/[0-9]*.sh; do
	name=${t##*/}; name=${name%.sh}
	if [ -n "$pattern" ]; then case "$name" in *$pattern*) ;; *) continue ;; esac; fi
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/mtj-$name.XXXXXX")
	start=$(date +%s)
	( cd "$tmp" && MTJ_BUILD="$build" MTJ_SRC="$src" MTJ_TMP="$tmp" \
	  timeout -k 5 "$limit" sh "$t" ) >"$tmp.log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	# A test must not leave a perf session behind (the preload tags none; match the tmp dir).
	left=$(pgrep -f "perf.*$tmp" 2>/dev/null)
	if [ -n "$left" ]; then
		echo "--- $name left perf running: $left" >>"$tmp.log"; kill -9 $left 2>/dev/null; rc=1
	fi
	case $rc in
	0)  pass=$((pass + 1)); echo "ok    $name (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "skip  $name: $(tail -n 1 "$tmp.log")" ;;
	*)  fail=$((fail + 1)); failed="$failed $name"; echo "FAIL  $name (exit $rc, ${secs}s)"; sed 's/^/    | /' "$tmp.log" | tail -n 60 ;;
	esac
	if [ "$rc" = 0 ] || [ "$rc" = 77 ]; then rm -rf "$tmp" "$tmp.log"; fi
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ -z "$failed" ] || echo "integration: failed:$failed (logs kept in ${TMPDIR:-/tmp}/mtj-*)"
[ "$fail" = 0 ]
