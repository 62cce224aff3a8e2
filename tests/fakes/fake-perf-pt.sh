#!/bin/sh
# Stand-in perf for the Intel PT backend (no PT on our machines): checks it was given an
# intel_pt event in --snapshot mode, logs every control command to OUTPUT.commands, acks
# at once; with --switch-output=signal it writes a dump at the second ping after SIGUSR2
# (as the multi-snapshot protocol expects), and writes OUTPUT itself at stop.
. "$(dirname "$0")/fake-perf-lib.sh"
case " $* " in *" -e intel_pt/"*"/u --snapshot "*) ;; *) echo "fake perf: not a PT snapshot command line" >&2; exit 9 ;; esac
multi=
case " $* " in *" --switch-output=signal "*) multi=1 ;; esac
n=0
while read -r cmd <&3; do
	printf '%s ' "$cmd" >>"$out.commands"
	case $cmd in
	ping) n=$((n + 1)); [ -n "$multi" ] && [ "$n" -gt 1 ] && [ $(( (n - 1) % 2 )) = 0 ] && dump ;;
	stop) [ -z "$multi" ] && : >"$out" ;;
	esac
	printf 'ack\n' >&4
	[ "$cmd" = stop ] && exit 0
done
