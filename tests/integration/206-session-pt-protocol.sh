#!/bin/sh
# The Intel PT backend's protocol, with a stand-in perf (no PT here): single snapshot is
# `snapshot`->ack then ping->ack per request and the file is the output; multi snapshot is
# SIGUSR2 + two pings per request and one perf.data.<timestamp> each; stop ends both.
. "$MTJ_SRC/tests/integration/lib.sh"
FAKE="$MTJ_SRC/tests/fakes/fake-perf-pt.sh"
mkdir single multi
"$TTOOLS/session-drive" spawn --perf "$FAKE" --pretend-pt --backend auto --out "$MTJ_TMP/single" -n 2 \
	>single.out 2>&1 || { cat single.out single/perf.log; fail "PT single session failed"; }
cat single.out
assert_grep '^backend pt (Intel PT: /sys/bus/event_source/devices/intel_pt exists)' single.out
assert_eq "$(grep -c "^snapshot [12] rc=0 .* file=$MTJ_TMP/single/perf.data\$" single.out)" 2 "single: snapshots"
assert_eq "$(cat single/perf.data.commands)" "ping snapshot ping snapshot ping stop " "single: commands"
assert_grep ' -e intel_pt/cyc=1,cyc_thresh=1,mtc_period=0/u --snapshot -m,1024 ' single/perf.log
[ -e single/perf.data ] || fail "single: perf.data missing after stop"

"$TTOOLS/session-drive" spawn --perf "$FAKE" --pretend-pt --backend pt --multi --out "$MTJ_TMP/multi" -n 3 \
	--interval 30 >multi.out 2>&1 || { cat multi.out multi/perf.log; fail "PT multi session failed"; }
cat multi.out
assert_eq "$(grep -c "^snapshot [123] rc=0 .* file=$MTJ_TMP/multi/perf.data.[0-9]*\$" multi.out)" 3 "multi: snapshots"
assert_eq "$(grep '^snapshot ' multi.out | sed 's/.*file=//' | sort -u | wc -l)" 3 "multi: distinct files"
assert_eq "$(cat multi/perf.data.commands)" "ping ping ping ping ping ping ping stop " "multi: commands"
assert_grep ' --snapshot --switch-output=signal -m,1024 ' multi/perf.log
if pgrep -f "fake-perf-.*$MTJ_TMP" >/dev/null; then fail "a stand-in perf outlived its session"; fi
