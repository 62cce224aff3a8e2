#!/bin/sh
# An external session, as a test harness starts it: perf record --control=fifo:CTL,ACK
# running the program (the driver) as its workload; the driver attaches with
# fifo:CTL,ACK,pid:parent, learns perf's output from /proc, takes 3 snapshots, and
# detaches.  perf ends with its workload; every snapshot file is valid.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
mkfifo ctl ack
perf record -o "$MTJ_TMP/ext.data" --clockid=CLOCK_MONOTONIC -e cpu-clock:u -F 999 --call-graph=fp \
	--overwrite --switch-output=signal --no-bpf-event --control="fifo:$MTJ_TMP/ctl,$MTJ_TMP/ack" -- \
	"$TTOOLS/session-drive" attach "fifo:$MTJ_TMP/ctl,$MTJ_TMP/ack,pid:parent" --backend sampling -n 3 \
	>drive.out 2>perf.err
rc=$?
cat drive.out perf.err
[ "$rc" = 0 ] || fail "perf record / session-drive failed (exit $rc)"
assert_grep "^attach rc=0 pid=[1-9][0-9]* output=$MTJ_TMP/ext.data\$" drive.out
assert_eq "$(grep -c '^snapshot [0-9]* rc=0 ' drive.out)" 3 "snapshots taken"
grep '^snapshot ' drive.out | sed 's/.*file=//' | while read -r f; do
	case $f in "$MTJ_TMP"/ext.data.[0-9]*) ;; *) fail "unexpected file '$f'" ;; esac
	assert_grep "Dump $f ]" perf.err
	perf script -i "$f" -F ip,sym -G 2>/dev/null | grep -q drive_spin || fail "$f has no samples of the driver"
done || exit 1
if pgrep -f "perf record -o $MTJ_TMP" >/dev/null; then fail "perf still running"; fi
