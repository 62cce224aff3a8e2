# Shared helpers for integration tests; sourced by each test (POSIX sh).
# Environment from the runner: MTJ_BUILD (absolute build dir), MTJ_SRC (source root),
# MTJ_TMP (this test's private directory, also the cwd).
set -u
LIB="$MTJ_BUILD/libmtinject.so"
TOOL="$MTJ_BUILD/mtinject"
PROGS="$MTJ_BUILD/tests/programs"
TTOOLS="$MTJ_BUILD/tests/tools"

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
note() { echo "# $*"; }

# need_perf: perf and hardware breakpoints exist on our machines, so their absence fails
# the test there; elsewhere (no perf at all) it is a skip with the reason.
need_perf() {
	command -v perf >/dev/null 2>&1 || skip "perf is not installed (apt-get install linux-perf)"
}
need_pt() {
	[ -d /sys/bus/event_source/devices/intel_pt ] || skip "no Intel PT on this CPU (/sys/bus/event_source/devices/intel_pt missing)"
}

assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected '$2', got '$1'"; }
assert_file() { [ -s "$1" ] || fail "expected non-empty file $1"; }
assert_grep() { grep -q -e "$1" "$2" || fail "expected /$1/ in $2"; }
assert_no_grep() { if grep -q -e "$1" "$2"; then fail "unexpected /$1/ in $2"; fi; }

# run_both OUTDIR CMD...: run CMD without and with the preload (env already set by caller),
# compare stdout and exit status.  Leaves plain.out/traced.out/traced.err in cwd.
run_plain() { "$@" >plain.out 2>plain.err; echo $? >plain.rc; }
run_traced() { LD_PRELOAD="$LIB" "$@" >traced.out 2>traced.err; echo $? >traced.rc; }
assert_same_behaviour() {
	cmp -s plain.out traced.out || { diff plain.out traced.out | head; fail "stdout differs under the preload"; }
	assert_eq "$(cat traced.rc)" "$(cat plain.rc)" "exit status under the preload"
}
