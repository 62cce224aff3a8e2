#!/bin/sh
# Real perf dying under a running session: SIGKILL (crash) and SIGTERM (perf ends on its
# own).  The next snapshot fails at once with -EPIPE (-32) and says how perf ended, the
# program runs on, stop reports -ESRCH (-3), and no unreadable partial perf.data remains.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
for sig in 9 15; do
	mkdir "s$sig"
	"$TTOOLS/session-drive" spawn --out "$MTJ_TMP/s$sig" --backend sampling -n 3 --interval 50 \
		--signal-perf "$sig:1" >"s$sig.out" 2>&1
	rc=$?
	cat "s$sig.out"
	assert_eq "$rc" 1 "driver exit status (failures counted, no crash)"
	assert_grep '^snapshot 1 rc=0 ' "s$sig.out"
	assert_grep '^snapshot 2 rc=-32 ' "s$sig.out"
	case $sig in
	9) assert_grep "^error: perf (pid [0-9]*) was killed by signal 9 (SIGKILL) .*; see $MTJ_TMP/s9/perf.log\$" s9.out ;;
	15) assert_grep "^error: perf (pid [0-9]*) was killed by signal 15 (SIGTERM) " s15.out ;;
	esac
	# Reported once: the loop stops asking a dead perf.
	assert_no_grep '^snapshot 3 ' "s$sig.out"
	assert_grep '^stop rc=-3 ' "s$sig.out"
	[ ! -e "s$sig/perf.data" ] || fail "partial s$sig/perf.data left behind"
	for f in "s$sig"/perf.data.*; do
		perf script -i "$f" >/dev/null 2>&1 || fail "$f is not readable"
	done
done
if pgrep -f "perf record -o $MTJ_TMP" >/dev/null; then fail "perf still running"; fi
