# MTINJECT_CALLGRAPH=dwarf: perf unwinds the stacks when decoding (the dlfilter cannot see
# that), so mtinject decode reads perf script text for such recordings: full stacks, with
# the leaf's caller that frame pointers lose.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
MTINJECT_TRIGGER=handle_request MTINJECT_CALLGRAPH=dwarf MTINJECT_OUTPUT="$PWD/out" \
	LD_PRELOAD="$LIB" "$PROGS/mt_worker" 300 >/dev/null 2>err || true
cat err
tid=$(sed -n 's/^worker-2 tid \([0-9]*\)$/\1/p' err)
assert_grep '"snapshot":true' out/hits.jsonl
perf evlist -v -i out/perf.data.* 2>/dev/null | grep -q STACK_USER || fail "not a DWARF recording"
"$TOOL" decode out -o t.json || fail "decode failed"
"$TTOOLS/trace-check" t.json || fail "invalid trace"
n=$("$TTOOLS/trace-check" t.json --count-spans parse_input --tid "$tid")
[ "$n" -ge 1 ] || fail "no parse_input spans on worker-2 (DWARF stacks lost)"
"$TTOOLS/trace-check" t.json --dump --tid "$tid" | grep -q 'checksum_block' || fail "no checksum_block on worker-2"
"$TTOOLS/trace-check" t.json --has-instant "hit: handle_request" --tid "$tid" >/dev/null || fail "hit missing"
echo "ok: $n parse_input spans on worker-2"
# the point of DWARF: the leaf's caller is there (frame pointers lose it, see 001)
"$TOOL" decode out -o t.folded -q || fail "decode to folded failed"
grep -q "^worker-2-$tid;.*parse_input;checksum_block " t.folded || { head -5 t.folded; fail "no parse_input;checksum_block stack on worker-2"; }
