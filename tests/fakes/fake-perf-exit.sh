#!/bin/sh
# Stand-in perf that refuses its arguments at once, as perf does with a bad option.
. "$(dirname "$0")/fake-perf-lib.sh"
echo "fake perf: unknown option" >&2
exit 255
