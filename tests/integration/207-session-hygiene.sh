#!/bin/sh
# What perf inherits from the program that spawns it: no LD_PRELOAD or MTINJECT_*, none
# of the program's fds (fd 7 here) but the two control pipes as fds 3 and 4, its own
# process group, no blocked signals.  And a program killed without stopping its session
# leaves no perf behind.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
mkdir env crash
# fd 7 is left open without close-on-exec, as careless programs do.
exec 7>leak.txt
LD_PRELOAD=/nonexistent/libmtj-test-preload.so MTINJECT_TRIGGER=main MTINJECT_X=1 \
	"$TTOOLS/session-drive" spawn --perf "$MTJ_SRC/tests/fakes/fake-perf-env.sh" --out "$MTJ_TMP/env" \
	--backend sampling -n 0 >env.out 2>&1 || { cat env.out env/perf.log; fail "driver failed"; }
exec 7>&-
cat env/perf.log
assert_no_grep 'inherited env:' env/perf.log
assert_no_grep 'inherited fd' env/perf.log
assert_grep '^control fd 3: pipe$' env/perf.log
assert_grep '^control fd 4: pipe$' env/perf.log
assert_grep '^sigblk: 0000000000000000$' env/perf.log
pid=$(sed -n 's/^pgid: \([0-9]*\) pid: \([0-9]*\)$/\1 \2/p' env/perf.log)
set -- $pid
assert_eq "$1" "$2" "perf's process group (own group: pgid == pid)"

# The program dies (SIGKILL, no stop): perf notices its target is gone and exits.
"$TTOOLS/session-drive" spawn --out "$MTJ_TMP/crash" --backend sampling -n 1 --crash >crash.out 2>&1
cat crash.out
assert_grep '^snapshot 1 rc=0 ' crash.out
i=0
while pgrep -f "perf record -o $MTJ_TMP/crash" >/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 60 ] || fail "perf still running 3 s after its target was killed"
	sleep 0.05
done
note "perf gone $((i * 50)) ms (+-50) after its target was killed"
