#!/bin/sh
# Stand-in perf that reads its control pipe but never acknowledges anything.
. "$(dirname "$0")/fake-perf-lib.sh"
while read -r cmd <&3; do :; done
