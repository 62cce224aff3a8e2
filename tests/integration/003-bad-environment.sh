# Bad set-ups each get one clear line on stderr and the program runs exactly as without us.
. "$MTJ_SRC/tests/integration/lib.sh"
prog="$PROGS/mt_worker"
run_plain "$prog" 20

check() { # NAME EXPECTED-PATTERN  (env already exported by the caller's subshell)
	run_traced "$prog" 20
	assert_same_behaviour
	grep -v '^worker-' traced.err >"$1.msgs"
	[ -s "$1.msgs" ] || fail "$1: no message"
	grep -q -e "$2" "$1.msgs" || { cat "$1.msgs"; fail "$1: message does not say /$2/"; }
	echo "$1: $(head -n 1 "$1.msgs")"
}

( check unset-trigger "MTINJECT_TRIGGER" ) || exit 1
( MTINJECT_TRIGGER= ; export MTINJECT_TRIGGER; check empty-trigger "MTINJECT_TRIGGER" ) || exit 1
( export MTINJECT_TRIGGER=handle_request MTINJECT_PERF=/nonexistent/perf MTINJECT_OUTPUT="$PWD/o1"
  check no-perf "perf" ) || exit 1
( export MTINJECT_TRIGGER=handle_request MTINJECT_OUTPUT=/proc/1/nope/out
  check bad-outdir "/proc/1/nope/out" ) || exit 1
( export MTINJECT_TRIGGER=handle_request MTINJECT_BACKEND=ptt
  check bad-backend "MTINJECT_BACKEND: 'ptt'" ) || exit 1
( export MTINJECT_TRIGER=handle_request
  check typo "MTINJECT_TRIGER" ) || exit 1
exit 0
