#!/bin/sh
# Stand-in perf that acknowledges every command 300 ms late, and writes the dump at the
# second ping after SIGUSR2 (the start-up ping is the first).
. "$(dirname "$0")/fake-perf-lib.sh"
n=0
while read -r cmd <&3; do
	sleep 0.3
	case $cmd in
	ping) n=$((n + 1)); [ "$n" -gt 1 ] && [ $(( (n - 1) % 2 )) = 0 ] && dump ;;
	esac
	printf 'ack\n' >&4
	[ "$cmd" = stop ] && exit 0
done
