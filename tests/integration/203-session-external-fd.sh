#!/bin/sh
# An external session over --control=fd:CTL,ACK: the harness opens the two fds, perf and
# its workload (the driver) inherit them; the driver attaches with fd:5,6,pid:parent and
# is told the output; 2 snapshots.  Also: a pid-only session (signals, no control pipe).
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
mkfifo ctl ack
exec 5<>ctl 6<>ack
perf record -o "$MTJ_TMP/fd.data" --clockid=CLOCK_MONOTONIC -e cpu-clock:u -F 999 --call-graph=fp \
	--overwrite --switch-output=signal --no-bpf-event --control=fd:5,6 -- \
	"$TTOOLS/session-drive" attach fd:5,6,pid:parent --output "$MTJ_TMP/fd.data" --backend sampling -n 2 \
	>drive.out 2>perf.err
rc=$?
exec 5>&- 6>&-
cat drive.out perf.err
[ "$rc" = 0 ] || fail "perf record / session-drive failed (exit $rc)"
assert_eq "$(grep -c '^snapshot [0-9]* rc=0 ' drive.out)" 2 "snapshots over fd:"
grep '^snapshot ' drive.out | sed 's/.*file=//' | while read -r f; do
	perf script -i "$f" -F ip,sym -G 2>/dev/null | grep -q drive_spin || fail "$f has no samples of the driver"
done || exit 1

# pid:parent alone: SIGUSR2 only, the directory is watched for the dump.
perf record -o "$MTJ_TMP/sig.data" --clockid=CLOCK_MONOTONIC -e cpu-clock:u -F 999 --call-graph=fp \
	--overwrite --switch-output=signal --no-bpf-event -- \
	"$TTOOLS/session-drive" attach pid:parent --backend sampling -n 2 >sig.out 2>sig.err
rc=$?
cat sig.out
[ "$rc" = 0 ] || fail "signals-only session failed (exit $rc)"
assert_grep "^attach rc=0 pid=[1-9][0-9]* output=$MTJ_TMP/sig.data\$" sig.out
grep '^snapshot ' sig.out | sed 's/.*file=//' | while read -r f; do
	case $f in "$MTJ_TMP"/sig.data.[0-9]*) ;; *) fail "unexpected file '$f'" ;; esac
	perf script -i "$f" -F ip,sym -G 2>/dev/null | grep -q drive_spin || fail "$f has no samples of the driver"
done || exit 1
if pgrep -f "perf record -o $MTJ_TMP" >/dev/null; then fail "perf still running"; fi
