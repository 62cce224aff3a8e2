# Shared by the stand-in perf scripts (sourced): answers --version, finds -o, and reads
# commands from fd 3 / acks on fd 4 the way perf's --control=fd:3,4 does (session fds).
# Only shell builtins run in the command loop, so a killed fake leaves nothing behind.
fake_version=${fake_version:-6.1.0}
if [ "${1:-}" = "--version" ]; then echo "perf version $fake_version"; exit 0; fi
out=perf.data
prev=
for a in "$@"; do [ "$prev" = "-o" ] && out=$a; prev=$a; done
echo "fake perf $*"
trap '' USR2
dump() { : >"$out.$(date +%Y%m%d%H%M%S%N | cut -c1-16)"; }
