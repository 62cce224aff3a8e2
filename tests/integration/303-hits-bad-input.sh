#!/bin/sh
# hits.jsonl with bad lines: each gets "<file>:<line>: <problem>", the good hits still reach
# every output format as instant events with their args.
. "$MTJ_SRC/tests/integration/lib.sh"

printf '%s\n' \
 '{"trigger":"foo","tid":101,"thread":"main","time_ns":2500,"ip":"0x401136","args":["0x1","0x2","0x3","0x4","0x5","0x6"],"backtrace":["0x401136","0x401200"],"frames":["foo+0x0 (demo)","main+0x1a (demo)"],"object":"/usr/bin/demo","symbol":"foo","snapshot":true,"snapshot_file":"perf.data.1","coalesced":0,"pid":100,"new_key":1}' \
 'garbage' \
 '{"trigger":"bar","tid":"101","time_ns":2600}' \
 '{"reason":"exit","tid":101,"time_ns":3500,"snapshot":false,"why":"min-gap","pid":100}' >hits.jsonl
printf '{"trigger":"baz","tid":101,"ti' >>hits.jsonl

cat >events.txt <<'END'
P 100 demo
T 100 101 main
B 100 101 1000 main
H hits.jsonl 100
E 100 101 4000 main
END
for fmt in json fxt folded; do
	"$TTOOLS/trace-gen" $fmt trace.$fmt <events.txt 2>err.$fmt || fail "trace-gen $fmt failed: $(cat err.$fmt)"
	assert_eq "$(cat err.$fmt)" "trace-gen: warning: hits.jsonl:2: not valid JSON: unexpected character 'g' at column 1
trace-gen: warning: hits.jsonl:3: \"tid\" must be an integer in 0..4294967295
trace-gen: warning: hits.jsonl:5: not valid JSON: unterminated string at column 31 (last line has no newline: truncated file?)
trace-gen: hits.jsonl: 2 hits, 3 bad lines"
done
"$TTOOLS/trace-check" trace.json >/dev/null || fail "invalid json trace"
assert_eq "$("$TTOOLS/trace-check" trace.json --instant-args "hit: foo" --tid 101)" 'trigger=foo
ip=0x401136
arg0=0x1
arg1=0x2
arg2=0x3
arg3=0x4
arg4=0x5
arg5=0x6
snapshot=true
object=/usr/bin/demo
symbol=foo
backtrace=foo+0x0 (demo)\nmain+0x1a (demo)
snapshot_file=perf.data.1'
assert_eq "$("$TTOOLS/trace-check" trace.json --instant-args "hit: exit")" 'reason=exit
snapshot=false
why=min-gap'
"$TTOOLS/fxt-check" trace.fxt --dump >dump.txt || fail "invalid fxt trace"
assert_grep '^2500 I 100 101 hit: foo trigger=foo ip=0x401136 arg0=0x1 .* backtrace=foo+0x0 (demo)\\nmain+0x1a (demo) snapshot_file=perf.data.1$' dump.txt
assert_grep '^3500 I 100 101 hit: exit reason=exit snapshot=false why=min-gap$' dump.txt
assert_eq "$(cat trace.folded)" "main-101;main 3
main-101;main;hit: exit 1
main-101;main;hit: foo 1"
# a missing file is an error, not an empty result
printf 'H missing.jsonl 100\n' >missing.txt
if "$TTOOLS/trace-gen" json m.json <missing.txt 2>err.txt; then fail "missing hits file accepted"; fi
assert_grep "missing.jsonl: No such file or directory" err.txt
exit 0
