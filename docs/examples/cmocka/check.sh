#!/bin/sh
# Run the ring_test suite the way a CI job would, with the preload, and check that each
# failure left a snapshot that decodes into a trace of the code that ran before it.
#   check.sh SUITE OUTDIR      (LIBMTINJECT and MTINJECT set by the Makefile)
set -u
suite=$1 out=$2
: "${LIBMTINJECT:?}" "${MTINJECT:?}"
rm -rf "$out" && mkdir -p "$out"
fail() { echo "cmocka example: FAIL: $*" >&2; exit 1; }

# 1. Without the preload: one failing test (cmocka exits with the number of failures),
#    MTINJECT_SNAPSHOT is a no-op.
"$suite" >"$out/plain.log" 2>&1
[ $? = 1 ] || { cat "$out/plain.log"; fail "expected exactly one failing test without the preload"; }
grep -q "test_wraparound: MTINJECT_SNAPSHOT returned -1" "$out/plain.log" || fail "MTINJECT_SNAPSHOT was not a no-op"

# 2. With the preload: the teardown of the failing test takes a snapshot.  MTINJECT_ON=abort
#    switches the preload on (it needs a trigger or an event) and covers crashes too.
MTINJECT_ON=abort MTINJECT_OUTPUT="$out/teardown" LD_PRELOAD="$LIBMTINJECT" \
	"$suite" >"$out/teardown.log" 2>&1
[ $? = 1 ] || { cat "$out/teardown.log"; fail "the suite under the preload did not fail exactly once"; }
grep -q "test_wraparound: MTINJECT_SNAPSHOT returned 0" "$out/teardown.log" || { cat "$out/teardown.log"; fail "the teardown's snapshot was not queued"; }
grep '"reason":"test_wraparound failed"' "$out/teardown/hits.jsonl" | grep -q '"snapshot":true' ||
	{ cat "$out/teardown/hits.jsonl"; fail "no snapshot for test_wraparound in hits.jsonl"; }
"$MTINJECT" decode -q "$out/teardown" || fail "mtinject decode failed"
grep -q '"name":"ring_pop"' "$out"/teardown/trace*.json || fail "the trace does not show ring_pop before the failure"

# 3. The code under test aborts (assert): the whole suite dies with SIGABRT (134), and
#    MTINJECT_ON=abort snapshots the moments before.
MTINJECT_ON=abort MTINJECT_OUTPUT="$out/abort" LD_PRELOAD="$LIBMTINJECT" \
	"$suite" abort >"$out/abort.log" 2>&1
[ $? = 134 ] || { cat "$out/abort.log"; fail "expected the aborting suite to die with SIGABRT (134)"; }
grep -q '"reason":"abort: SIGABRT"' "$out/abort/hits.jsonl" || { cat "$out/abort/hits.jsonl"; fail "no abort hit"; }
grep -q '"snapshot":true' "$out/abort/hits.jsonl" || fail "the abort was not snapshotted"
grep -q 'ring_checked_pop' "$out/abort/hits.jsonl" || fail "the abort's backtrace does not name ring_checked_pop"
"$MTINJECT" decode -q "$out/abort" || fail "mtinject decode failed"
grep -q '"name":"ring_push"' "$out"/abort/trace*.json || fail "the trace does not show ring_push before the abort"
echo "cmocka example: ok (teardown snapshot and abort snapshot decoded)"
