#!/bin/sh
# Stand-in perf that acknowledges the start-up ping, then dies (status 3) at the first
# command of a dump: perf crashing while it writes a snapshot.
. "$(dirname "$0")/fake-perf-lib.sh"
n=0
while read -r cmd <&3; do
	n=$((n + 1))
	[ "$n" -gt 1 ] && { echo "fake perf: dying during '$cmd'" >&2; exit 3; }
	printf 'ack\n' >&4
done
