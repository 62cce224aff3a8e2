#!/bin/sh
# A sampling flight recorder started through the session API on the driver itself
# (perf record -p <self>), three snapshots: each is a valid perf.data.<timestamp> with
# samples of the worker thread from just before its request; stop leaves exactly those
# files (the dump perf writes at exit is removed) and no perf behind.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
"$TTOOLS/session-drive" spawn --out "$MTJ_TMP" --backend sampling -n 3 --interval 300 >drive.out 2>&1
rc=$?
cat drive.out
[ "$rc" = 0 ] || fail "session-drive failed (exit $rc)"
assert_grep '^backend sampling (sampling with ' drive.out
assert_grep '^ready rc=0 ' drive.out
assert_grep '^stop rc=0 ' drive.out
assert_eq "$(grep -c '^snapshot [0-9]* rc=0 ' drive.out)" 3 "snapshots taken"

# check_snapshot FILE REQ: valid, worker samples, >= 20 of them in the 300 ms before REQ.
check_snapshot() {
	perf script -i "$1" -F time,ip,sym -G >"$1.txt" 2>"$1.err" || fail "perf script cannot read $1: $(cat "$1.err")"
	grep -q drive_spin "$1.txt" || fail "$1 has no samples of drive_spin_*"
	perf script -i "$1" -F time 2>/dev/null | tr -d ' :' >"$1.times"
	before=$(awk -v r="$2" '$1 <= r && $1 > r - 0.3 { n++ } END { print n + 0 }' "$1.times")
	[ "$before" -ge 20 ] || fail "$1: only $before samples in the 300 ms before its request at $2"
	note "$1: $(wc -l <"$1.times") samples, $before in the 300 ms before the request"
}
grep '^snapshot ' drive.out | while read -r _ i _ _ req file; do
	req=${req#req=}; file=${file#file=}
	case $file in "$MTJ_TMP"/perf.data.[0-9]*) ;; *) fail "snapshot $i: unexpected file '$file'" ;; esac
	check_snapshot "$file" "$req"
done || exit 1
assert_eq "$(ls "$MTJ_TMP" | grep -c '^perf\.data\.[0-9]*$')" 3 "perf.data.<timestamp> files after stop"
[ ! -e "$MTJ_TMP/perf.data" ] || fail "a partial perf.data was left behind"
assert_no_grep LD_PRELOAD perf.log
if pgrep -f "perf record -o $MTJ_TMP" >/dev/null; then fail "perf still running after stop"; fi
note "timings: $(grep -o '^ready rc=0 ms=[0-9.]*' drive.out | sed 's/.*ms=/spawn-to-ready ms=/'), \
$(grep -o '^snapshot [0-9]* rc=0 ms=[0-9.]*' drive.out | sed 's/.*ms=//' | tr '\n' ' ')(snapshot ms), \
$(grep -o '^stop rc=0 ms=[0-9.]*' drive.out | sed 's/.*ms=/stop ms=/')"
