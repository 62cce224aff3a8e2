#!/bin/sh
# Stand-in perf 5.4 (no --control): must not be given --control; dumps on SIGUSR2 and
# exits cleanly on SIGINT, as perf record --switch-output=signal does.
fake_version=5.4.0
. "$(dirname "$0")/fake-perf-lib.sh"
case " $* " in *" --control="*) echo "fake perf: --control given to perf 5.4" >&2; exit 9 ;; esac
got=
trap 'got=1' USR2
trap 'exit 0' INT
while :; do
	sleep 0.02
	[ -n "$got" ] && { got=; dump; }
done
