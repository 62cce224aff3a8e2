# `mtinject run` end to end with the real preload and perf: COMMAND behaves as without us,
# the snapshot is decoded into a trace that shows the work before the hit, stdout stays
# COMMAND's alone, and --no-decode / --format / --multi do what they say.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
prog="$PROGS/mt_worker"

run_plain "$prog" 200
"$TOOL" run -t handle_request -- "$prog" 200 >traced.out 2>traced.err
echo $? >traced.rc
cat traced.err
assert_same_behaviour

dir=$(ls -d "$PWD"/mtinject-mt_worker-* 2>/dev/null)
[ -n "$dir" ] && [ "$(echo "$dir" | wc -l)" = 1 ] || fail "expected one output directory, got '$dir'"
assert_file "$dir/hits.jsonl"
assert_grep '"snapshot":true' "$dir/hits.jsonl"
assert_file "$dir/trace.json"
assert_grep "^  $dir/trace.json\$" traced.err
assert_grep "ui.perfetto.dev" traced.err
"$TTOOLS/trace-check" "$dir/trace.json" >/dev/null || fail "trace.json is not a valid trace"
tid=$(sed -n 's/^worker-2 tid \([0-9]*\)$/\1/p' traced.err)
hit_ns=$(sed -n 's/.*"time_ns":\([0-9]*\).*/\1/p' "$dir/hits.jsonl")
"$TTOOLS/trace-check" "$dir/trace.json" --spans-before "$hit_ns" checksum_block --tid "$tid" >/dev/null ||
	fail "no checksum_block on worker-2 before the hit"

# --no-decode: the snapshot stays, no trace; -o names the directory.
"$TOOL" run --no-decode -o nodecode -t handle_request -- "$prog" 50 >nd.out 2>nd.err
assert_eq "$?" 3 "status with --no-decode"
ls nodecode/perf.data.* >/dev/null 2>&1 || fail "--no-decode left no snapshot"
ls nodecode/trace.* >/dev/null 2>&1 && fail "--no-decode decoded anyway"
assert_grep "1 snapshot in $PWD/nodecode; decode with" nd.err

# --format folded and --multi: one snapshot per request, one folded trace per snapshot.
"$TOOL" run --multi --format folded -o multi -t handle_request -- "$prog" 50 3 >m.out 2>m.err
assert_eq "$?" 3 "status with --multi"
cat m.err
n=$(grep -c '"snapshot":true' multi/hits.jsonl)
[ "$n" -ge 2 ] || fail "--multi took $n snapshots for 3 requests"
ls multi/*.folded >/dev/null 2>&1 || fail "--format folded wrote no .folded file"
ls multi/*.json >/dev/null 2>&1 && fail "--format folded also wrote JSON"
assert_grep "speedscope" m.err
grep -q "checksum_block" multi/*.folded || fail "the folded stacks do not show checksum_block"
# COMMAND killed before anything triggered: its status, no decoding of the unfinished
# perf.data its perf leaves behind, no perf left running.
"$TOOL" run -o killed -t 'handle_request,skip=100' -- "$prog" 3000 >k.out 2>k.err &
tool=$!
i=0 w=
while [ -z "$w" ] && [ $i -lt 100 ]; do w=$(pgrep -P "$tool" mt_worker); sleep 0.05; i=$((i + 1)); done
[ -n "$w" ] || fail "mt_worker under mtinject run did not start"
sleep 0.5
kill -KILL "$w"
wait "$tool"
assert_eq "$?" 137 "status of a command killed by SIGKILL"
cat k.err
assert_grep "killed by signal 9" k.err
assert_grep "no snapshot was taken" k.err
assert_no_grep "decod" k.err
pgrep -f "perf record.*$PWD/killed" >/dev/null && fail "perf outlived the killed command"
echo "ok: trace in $dir, $n snapshots with --multi"
