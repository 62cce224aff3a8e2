#!/bin/sh
# Stand-in perf that reports what it inherited (environment entries that would make it
# trace itself, open fds, process group) into its log, then acks like perf.
. "$(dirname "$0")/fake-perf-lib.sh"
env | grep -E '^(LD_PRELOAD|MTINJECT_)' | sed 's/^/inherited env: /'
for fd in /proc/$$/fd/*; do
	t=$(readlink "$fd")
	case $t in */leak.txt) echo "inherited fd ${fd##*/}: $t" ;; esac
	case ${fd##*/} in 3|4) echo "control fd ${fd##*/}: ${t%%:*}" ;; esac
done
echo "pgid: $(cut -d' ' -f5 /proc/$$/stat) pid: $$"
echo "sigblk: $(grep SigBlk /proc/$$/status | cut -f2)"
while read -r cmd <&3; do
	printf 'ack\n' >&4
	[ "$cmd" = stop ] && exit 0
done
