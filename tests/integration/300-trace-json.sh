#!/bin/sh
# Chrome JSON writer end to end: a scripted event sequence through the writer API, then
# trace-check validates it and answers the queries other tests rely on.
. "$MTJ_SRC/tests/integration/lib.sh"

cat >events.txt <<'END'
P 100 demo
T 100 101 main
T 100 102 worker\s1
B 100 101 1000 main /usr/bin/demo
B 100 101 2000 foo
B 100 102 2500 work
E 100 101 5000 foo
I 100 101 5500 hit:\sfoo trigger=foo ip=0x401136 n=3 msg=a\nb"q
B 100 101 6000 foo
B 100 101 6100 std::vector<int>::push_back(int\s&&)
E 100 102 9000 work
END
"$TTOOLS/trace-gen" json trace.json <events.txt || fail "trace-gen json failed"

"$TTOOLS/trace-check" trace.json >check.out || fail "trace-check rejected our trace: $(cat check.out)"
assert_eq "$(cat check.out)" "ok: 11 events (5 spans, 1 instants), 2 threads, 3 metadata"
assert_eq "$("$TTOOLS/trace-check" trace.json --threads)" "101 main
102 worker 1"
assert_eq "$("$TTOOLS/trace-check" trace.json --count-spans foo)" "2"
assert_eq "$("$TTOOLS/trace-check" trace.json --count-spans foo --tid 102)" "0"
assert_eq "$("$TTOOLS/trace-check" trace.json --count-spans 'std::vector<int>::push_back(int &&)')" "1"
"$TTOOLS/trace-check" trace.json --has-instant "hit: foo" --tid 101 || fail "hit not found"
if "$TTOOLS/trace-check" trace.json --has-instant "hit: foo" --tid 102 2>err.txt; then fail "hit found on the wrong thread"; fi
assert_grep 'no instant event "hit: foo" on that thread' err.txt
assert_eq "$("$TTOOLS/trace-check" trace.json --spans-before 5500 foo --tid 101)" "1"
if "$TTOOLS/trace-check" trace.json --spans-before 2000 foo --tid 101 >/dev/null 2>err.txt; then fail "no span begins before 2000"; fi
assert_eq "$("$TTOOLS/trace-check" trace.json --instant-args "hit: foo")" 'trigger=foo
ip=0x401136
n=3
msg=a\nb"q'
# spans still open at the end are closed at the thread's last timestamp
assert_eq "$("$TTOOLS/trace-check" trace.json --dump --tid 101)" "1000 B 100 101 main
2000 B 100 101 foo
5000 E 100 101 
5500 i 100 101 hit: foo
6000 B 100 101 foo
6100 B 100 101 std::vector<int>::push_back(int &&)
6100 E 100 101 
6100 E 100 101 
6100 E 100 101 "
# the file itself: one event per line, ns kept as µs with three decimals
assert_grep '^{"ph":"B","pid":100,"tid":101,"ts":6.100,"name":"std::vector<int>::push_back(int &&)"}' trace.json
assert_grep '^{"ph":"B","pid":100,"tid":101,"ts":1.000,"name":"main","args":{"object":"/usr/bin/demo"}}' trace.json
assert_eq "$(head -n 1 trace.json)" '{"traceEvents":['
assert_eq "$(tail -n 1 trace.json)" ']}'
exit 0
