# `mtinject snapshot` / `mtinject stop` against a running preloaded process, by PID and by
# DIR, and every way of pointing at something that is not one (exit 3).
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
prog="$PROGS/mt_worker"
reg="/tmp/mtinject-$(id -u)"

# A trigger that never fires (skip=1000): the process just runs, traced, for 3 s.
MTINJECT_TRIGGER='handle_request,skip=1000' MTINJECT_OUTPUT="$PWD/out" LD_PRELOAD="$LIB" \
	"$prog" 3000 >prog.out 2>prog.err &
pid=$!
i=0
while [ ! -L "$reg/$pid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -L "$reg/$pid" ] || { kill $pid; fail "the process never registered in $reg"; }
assert_eq "$(readlink "$reg/$pid")" "$PWD/out" "registry link"

# By PID, with a reason: the snapshot file is printed and exists; the reason is logged.
"$TOOL" snapshot "$pid" queue is stuck >snap.out 2>snap.err
rc=$?
cat snap.err
assert_eq "$rc" 0 "snapshot by PID"
file=$(cat snap.out)
case "$file" in "$PWD"/out/perf.data.*) ;; *) fail "snapshot printed '$file'" ;; esac
assert_file "$file"
assert_grep '"reason":"queue is stuck"' out/hits.jsonl
assert_grep "\"request\":\"$$\\|\"request\":\"[0-9]*-1\"" out/hits.jsonl

# By DIR (relative), default reason.
"$TOOL" snapshot out >snap2.out 2>snap2.err
assert_eq "$?" 0 "snapshot by DIR"
[ "$(cat snap2.out)" != "$file" ] || fail "second snapshot printed the first file"
assert_file "$(cat snap2.out)"
assert_grep '"reason":"manual"' out/hits.jsonl

# stop, then a snapshot is refused (exit 1, with the reason) while the process runs on.
"$TOOL" stop "$pid" >stop.out 2>stop.err
assert_eq "$?" 0 "stop"
assert_grep '"stopped":true' out/hits.jsonl
assert_grep "tracing stopped" stop.err
"$TOOL" snapshot --timeout 5 "$pid" >late.out 2>late.err
assert_eq "$?" 1 "snapshot after stop"
assert_grep "refused: no perf session" late.err
kill -0 "$pid" 2>/dev/null || fail "the process did not run on after stop"

wait "$pid"
assert_eq "$?" 3 "the traced process's own status"
assert_eq "$(cat prog.out)" "handled 1 requests, result 49" "the traced process's output"
[ -L "$reg/$pid" ] && fail "registry link left behind"

# Targets that are not (or no longer) traced processes: exit 3 with a clear message.
"$TOOL" snapshot "$pid" 2>gone.err
assert_eq "$?" 3 "snapshot of an exited PID"
assert_eq "$(cat gone.err)" "mtinject snapshot: PID $pid is not running under mtinject (no $reg/$pid)" "exited PID message"
"$TOOL" stop 1 2>init.err
assert_eq "$?" 3 "stop of a PID that is not ours"
assert_grep "PID 1 is not running under mtinject" init.err
"$TOOL" snapshot ./nowhere 2>nodir.err
assert_eq "$?" 3 "snapshot of a missing DIR"
assert_grep "nowhere: No such file or directory" nodir.err
"$TOOL" snapshot "$PWD/prog.out" 2>file.err
assert_eq "$?" 3 "snapshot of a file"
mkdir plain
"$TOOL" snapshot plain 2>plain.err
assert_eq "$?" 3 "snapshot of a directory without control FIFO"
assert_grep "no control FIFO" plain.err
mkdir dead && mkfifo -m 600 dead/control
"$TOOL" snapshot dead 2>dead.err
assert_eq "$?" 3 "snapshot with nobody reading the FIFO"
assert_grep "no process is reading $PWD/dead/control: it has exited" dead.err
echo "ok"
