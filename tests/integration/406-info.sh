# `mtinject info` on this machine (perf 6.1, 4 breakpoint slots, no PT, no PMU): the facts,
# the backend choice, where our files are, exit 0; broken set-ups give exit 1 and the fix.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf

"$TOOL" info >info.txt 2>info.err
rc=$?
cat info.txt
assert_eq "$rc" 0 "info status on a machine that can trace"
assert_grep "^perf  *$(command -v perf), version [0-9]" info.txt
assert_grep "^hw breakpoints  *4 per thread (synchronous SIGTRAP: yes)" info.txt
assert_grep "^library  *$MTJ_BUILD/libmtinject.so\$" info.txt
assert_grep "^dlfilter  *$MTJ_BUILD/mtinject-dlfilter.so\$" info.txt
assert_grep "^  searched  *$MTJ_BUILD/libmtinject.so\$" info.txt
assert_grep "^Tracing works here" info.txt
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
assert_grep "^perf_event_paranoid  *$paranoid\$" info.txt
if [ -d /sys/bus/event_source/devices/intel_pt ]; then pt=true; else pt=false; fi

"$TOOL" info --json >info.json
assert_eq "$?" 0 "info --json status"
assert_grep '"hw_breakpoints":4,' info.json
assert_grep "\"intel_pt\":$pt," info.json
assert_grep '"can_trace":true}' info.json
assert_grep "\"perf_event_paranoid\":$paranoid," info.json
assert_grep "\"library\":\"$MTJ_BUILD/libmtinject.so\"" info.json
[ "$(wc -l <info.json)" = 1 ] || fail "--json is not one line"
if [ "$pt" = false ]; then assert_grep '"chosen":"sampling"' info.json; fi

# No perf: exit 1, and the problem line says how to get one.
MTINJECT_PERF=/nonexistent/perf "$TOOL" info >noperf.txt 2>&1
assert_eq "$?" 1 "info without perf"
assert_grep "^problem: .*perf" noperf.txt
assert_grep "Tracing cannot work here" noperf.txt
MTINJECT_PERF=/nonexistent/perf "$TOOL" info --json >noperf.json
assert_grep '"perf":null' noperf.json
assert_grep '"can_trace":false}' noperf.json

# A bad MTINJECT_ variable in the environment: the preload would run untraced.
MTINJECT_BACKEND=ptt "$TOOL" info >badcfg.txt 2>&1
assert_eq "$?" 1 "info with a bad MTINJECT_BACKEND"
assert_grep "^problem: MTINJECT_BACKEND: 'ptt'" badcfg.txt

# Asking for PT where there is none is reported, not hidden.
if [ "$pt" = false ]; then
	MTINJECT_BACKEND=pt "$TOOL" info >pt.txt 2>&1
	assert_eq "$?" 1 "info with MTINJECT_BACKEND=pt and no Intel PT"
	assert_grep "^backend  *pt" pt.txt
fi
echo "ok"
