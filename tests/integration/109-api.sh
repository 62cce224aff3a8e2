# mtinject_snapshot() from the program; the same binary runs as a no-op without the preload.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
run_plain "$PROGS/trig_modes" api
assert_grep 'mtinject_snapshot returned -1' plain.err
MTINJECT_ON=exit MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" api
cat traced.err
assert_same_behaviour
assert_grep 'mtinject_snapshot returned 0' traced.err
assert_grep '"kind":"api"' out/hits.jsonl
assert_grep '"reason":"checksum mismatch"' out/hits.jsonl
assert_eq "$(grep '"kind":"api"' out/hits.jsonl | grep -c '"snapshot":true')" 1 "API snapshot taken"
# the backtrace starts in the caller of mtinject_snapshot(), not inside mtinject
assert_grep '"frames":\["mode_api+0x[0-9a-f]* (trig_modes)","main+0x[0-9a-f]* (trig_modes)"' out/hits.jsonl

# MTINJECT_ON=api: no trigger, no other event; the recorder runs for the calls alone and
# takes exactly the one snapshot asked for
MTINJECT_ON=api MTINJECT_OUTPUT="$PWD/api" LD_PRELOAD="$LIB" "$PROGS/trig_modes" api >api.out 2>api.err
cat api.err
assert_grep 'mtinject_snapshot returned 0' api.err
assert_eq "$(wc -l <api/hits.jsonl | tr -d ' ')" 1 "records with MTINJECT_ON=api"
assert_grep '"kind":"api".*"snapshot":true' api/hits.jsonl
