#!/bin/sh
# Fault injection where real perf cannot be made to fail on demand, with stand-in perf
# scripts (tests/fakes): never acks (bounded, -ETIMEDOUT=-110, perf killed), dies in the
# middle of a dump (-EPIPE=-32 with its exit status), acks slowly (works), refuses its
# arguments (start fails with the status and the log), perf 5.4 without a control pipe
# (signals only, still one file per snapshot).
. "$MTJ_SRC/tests/integration/lib.sh"
FAKES="$MTJ_SRC/tests/fakes"
drive() { # NAME ARGS...: run the driver with fake-perf-NAME.sh, output in NAME.out
	name=$1; shift
	mkdir "$name"
	start=$(date +%s%N)
	"$TTOOLS/session-drive" spawn --perf "$FAKES/fake-perf-$name.sh" --out "$MTJ_TMP/$name" \
		--backend sampling "$@" >"$name.out" 2>&1
	echo $? >"$name.rc"
	took=$(( ($(date +%s%N) - start) / 1000000 ))
	cat "$name.out"; note "$name: exit $(cat "$name.rc") after ${took} ms"
}

drive silent -n 1 --start-timeout 500
assert_eq "$(cat silent.rc)" 1 "silent: driver exit"
assert_grep "^ready rc=-110 ms=5[0-9][0-9]\.[0-9] " silent.out
assert_grep "^error: perf (pid [0-9]*) did not acknowledge 'ping' in time; see $MTJ_TMP/silent/perf.log" silent.out
[ "$took" -lt 3000 ] || fail "silent: took $took ms for a 500 ms start timeout"

# Not waiting at start: the first snapshot meets the silence, stop kills the fake quickly.
drive silent2 -n 2 --start-timeout 0 --timeout 300 --perf "$FAKES/fake-perf-silent.sh"
assert_grep '^ready rc=0 ' silent2.out
assert_grep "^snapshot 1 rc=-110 ms=3[0-9][0-9]\.[0-9] " silent2.out
assert_no_grep '^snapshot 2 ' silent2.out
assert_grep '^stop rc=-110 ms=[0-9]*\.' silent2.out
[ "$took" -lt 3000 ] || fail "silent2: took $took ms"

drive dies -n 2
assert_grep '^ready rc=0 ' dies.out
assert_grep '^snapshot 1 rc=-32 ' dies.out
assert_grep "^error: perf (pid [0-9]*) exited with status 3 before acknowledging 'ping'; see $MTJ_TMP/dies/perf.log" dies.out
assert_grep "fake perf: dying during 'ping'" dies/perf.log
assert_grep '^stop rc=-3 ' dies.out

drive slow -n 2 --timeout 3000
assert_eq "$(cat slow.rc)" 0 "slow: driver exit"
assert_grep '^ready rc=0 ms=[3-9][0-9][0-9]\.' slow.out
assert_eq "$(grep -c "^snapshot [12] rc=0 .* file=$MTJ_TMP/slow/perf.data.[0-9]*\$" slow.out)" 2 "slow: snapshots"
assert_grep '^stop rc=0 ' slow.out

drive exit -n 1
assert_grep '^ready rc=-32 ' exit.out
assert_grep "^error: perf (pid [0-9]*) exited with status 255 before acknowledging 'ping'; see $MTJ_TMP/exit/perf.log" exit.out
assert_grep 'fake perf: unknown option' exit/perf.log

drive old -n 2 --interval 50
assert_eq "$(cat old.rc)" 0 "old perf: driver exit"
assert_grep '^probe rc=0 .* version=5.4.0 ping_stop=0' old.out
assert_no_grep 'control=' old/perf.log
assert_eq "$(grep -c "^snapshot [12] rc=0 .* file=$MTJ_TMP/old/perf.data.[0-9]*\$" old.out)" 2 "old perf: snapshots"
assert_grep '^stop rc=0 ' old.out

if pgrep -f "fake-perf-.*$MTJ_TMP" >/dev/null; then fail "a stand-in perf outlived its session"; fi
