# A daemon that closes every descriptor above stderr at start-up and then opens its own
# files: nothing of ours lands in them, the program is not slowed by a spinning helper,
# and the closing of our descriptors is reported once.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
run_plain "$PROGS/trig_modes" closefrom
assert_grep 'file intact: 1' plain.out
MTINJECT_TRIGGER='target_fn,count=all' MTINJECT_OUTPUT="$PWD/out" run_traced "$PROGS/trig_modes" closefrom
cat traced.err
assert_same_behaviour
assert_eq "$(grep -c "closed mtinject's file descriptors" traced.err)" 1 "reports of closed descriptors"
sleep 0.3
pgrep -f "perf record.*$PWD/out" >/dev/null && fail "perf left running"
exit 0
