# MTINJECT_ON=crash: a snapshot of the moments before a SIGSEGV, then the same death.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
run_plain "$PROGS/trig_modes" segv
assert_eq "$(cat plain.rc)" 139 "plain exit status"
MTINJECT_ON=crash MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" segv
cat traced.err
assert_same_behaviour
assert_grep '"kind":"crash"' out/hits.jsonl
assert_grep '"reason":"crash: SIGSEGV"' out/hits.jsonl
assert_grep '"snapshot":true' out/hits.jsonl
snap=$(sed -n 's/.*"snapshot_file":"\([^"]*\)".*/\1/p' out/hits.jsonl)
perf script -i "out/$snap" -F ip,sym 2>/dev/null | grep -q "spin_ms\|main" || fail "the crash snapshot has no samples of the crashing program"
sleep 0.2
pgrep -f "perf record.*$PWD/out" >/dev/null && fail "perf outlived the crashed program"
exit 0
[ -e out/control ] && fail "control FIFO left behind by the dying process"
pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' out/hits.jsonl | head -n 1)
[ -L "/tmp/mtinject-$(id -u)/$pid" ] && fail "registry link left behind by the dying process"
exit 0
