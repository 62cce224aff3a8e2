#!/bin/sh
# The checkers and the writer contract fail loudly: each broken trace is rejected by
# trace-check with the line and the reason, and the writer refuses a producer that breaks
# nesting or time order (-EINVAL reaches the caller, nothing is written for that call).
. "$MTJ_SRC/tests/integration/lib.sh"

head='{"traceEvents":[
{"ph":"M","pid":1,"name":"process_name","args":{"name":"p"}},
{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"t"}},'
reject() { # name, expected message, events...
	name=$1 msg=$2; shift 2
	printf '%s\n%s\n]}\n' "$head" "$*" >"$name.json"
	if "$TTOOLS/trace-check" "$name.json" 2>"$name.err"; then fail "$name: accepted"; fi
	grep -qF -- "$msg" "$name.err" || fail "$name: expected '$msg', got '$(cat "$name.err")'"
}
reject unbalanced "trace-check: unbalanced.json:6: unbalanced B/E: tid 2 has 1 open B, innermost \"f\"" \
	'{"ph":"B","pid":1,"tid":2,"ts":1.000,"name":"f"}'
reject extra-end "extra-end.json:4: E without an open B" \
	'{"ph":"E","pid":1,"tid":2,"ts":1.000}'
reject mismatch "mismatch.json:5: E name does not match the open B: g" \
	'{"ph":"B","pid":1,"tid":2,"ts":1.000,"name":"f"},
{"ph":"E","pid":1,"tid":2,"ts":2.000,"name":"g"}'
reject backwards "backwards.json:5: time goes backwards: tid 2: 1000 ns after 2000 ns" \
	'{"ph":"i","pid":1,"tid":2,"ts":2.000,"s":"t","name":"x"},
{"ph":"i","pid":1,"tid":2,"ts":1.000,"s":"t","name":"y"}'
reject nometa "metadata missing: tid 3 has events but no thread_name" \
	'{"ph":"i","pid":1,"tid":3,"ts":2.000,"s":"t","name":"x"}'
reject noproc "metadata missing: pid 9 has no process_name" \
	'{"ph":"M","pid":9,"tid":4,"name":"thread_name","args":{"name":"u"}},
{"ph":"i","pid":9,"tid":4,"ts":2.000,"s":"t","name":"x"}'
reject malformed "malformed.json:4: malformed JSON: ',' or '}' expected" \
	'{"ph":"i","pid":1,"tid":2,"ts":2.000 "s":"t","name":"x"}'
reject badts "event without a ts in µs with at most 3 decimals" \
	'{"ph":"i","pid":1,"tid":2,"ts":"2","s":"t","name":"x"}'
printf '%s\n' "$head" '{"ph":"i","pid":1,"tid":2,"ts":2.000,"s":"t","name":"x"}' >truncated.json
if "$TTOOLS/trace-check" truncated.json 2>err.txt; then fail "truncated trace accepted"; fi
assert_grep "truncated" err.txt

# the writer side: the bad calls are refused with their line, the rest is a valid trace
cat >events.txt <<'END'
P 1 p
T 1 2 t
B 1 2 1000 f
E 1 2 900 f
END
if "$TTOOLS/trace-gen" json w.json <events.txt 2>err.txt; then fail "time going backwards accepted"; fi
assert_eq "$(cat err.txt)" "trace-gen: line 4: E rejected: Invalid argument"
"$TTOOLS/trace-check" w.json >/dev/null || fail "the writer left an invalid trace after a refused call"
printf 'P 1 p\nT 1 2 t\nE 1 2 5 f\n' >events2.txt
if "$TTOOLS/trace-gen" fxt w.fxt <events2.txt 2>err.txt; then fail "unbalanced end accepted"; fi
assert_eq "$(cat err.txt)" "trace-gen: line 3: E rejected: Invalid argument"
"$TTOOLS/fxt-check" w.fxt >/dev/null || fail "the writer left an invalid fxt after a refused call"
exit 0
