#!/bin/sh
# A test harness that owns its perf session: it starts the flight recorder itself, with
# the program under test as perf's workload, and lets the preloaded program ask that
# session for a snapshot when on_timeout() runs.  Then it keeps the snapshots the program
# asked for and decodes them.
#   harness.sh SERVER OUTDIR          (LIBMTINJECT and MTINJECT set by the Makefile)
set -u
server=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
: "${LIBMTINJECT:?}" "${MTINJECT:?}"
fail() { echo "harness example: FAIL: $*" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1

# perf's control FIFOs: the preload writes commands to ctl and reads acks from ack.
mkfifo ctl ack || exit 1

# The flight recorder: sample user space, keep only the newest ring buffer (--overwrite),
# write it out on SIGUSR2 (--switch-output=signal), CLOCK_MONOTONIC like the preload's hit
# times, no BPF side-band (perf would linger ~1 s at exit).  `env` execs the server, so the
# server's parent is perf: pid:parent is where the preload sends SIGUSR2.
perf record -e cpu-clock:u -g --clockid=CLOCK_MONOTONIC --overwrite --switch-output=signal \
	--no-bpf-event --control=fifo:ctl,ack -o perf.data \
	-- env MTINJECT_SESSION=fifo:ctl,ack,pid:parent MTINJECT_TRIGGER=on_timeout \
	       MTINJECT_OUTPUT="$PWD" LD_PRELOAD="$LIBMTINJECT" "$server" 60 \
	>server.out 2>perf.log
status=$?
[ "$status" = 0 ] || { cat perf.log; fail "perf record / server exited with $status"; }
grep -q "timed out" server.out || fail "the server never timed out (nothing to trigger on)"

# hits.jsonl names the snapshot each hit caused.  perf also dumps its ring when the
# workload exits; that one nobody asked for: drop it.
grep -q '"trigger":"on_timeout".*"snapshot":true' hits.jsonl || { cat hits.jsonl; fail "no snapshot for on_timeout"; }
wanted=$(sed -n 's/.*"snapshot_file":"\([^"]*\)".*/\1/p' hits.jsonl)
for f in perf.data.*; do
	case " $wanted " in *" $f "*) ;; *) rm -f "$f" ;; esac
done
rm -f ctl ack

"$MTINJECT" decode -q . || fail "mtinject decode failed"
# The trace shows the slow request's work before the hit, and the hit itself.
grep -q '"name":"compress_block"' trace.json || fail "the trace does not show compress_block"
grep -q '"name":"lookup_index"' trace.json || fail "the trace does not show lookup_index"
grep -q 'on_timeout' trace.json || fail "the hit is not in the trace"
echo "harness example: ok ($(echo $wanted) decoded into $out/trace.json)"
