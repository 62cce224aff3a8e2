# Children that inherit LD_PRELOAD through exec stay dormant: a shell that runs 50 commands
# does not start 50 perf sessions.  MTINJECT_FOLLOW_EXEC=1 makes them trace.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
MTINJECT_ON=exit LD_PRELOAD="$LIB" sh -c 'i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i+1)); done; echo ran' >out 2>err
cat err
assert_eq "$(cat out)" ran "shell output"
assert_eq "$(ls -d mtinject-* | wc -l)" 1 "output directories"
[ -z "$(cat err)" ] || fail "dormant children printed messages"
rm -rf mtinject-*
MTINJECT_SESSION=none MTINJECT_ON=exit MTINJECT_FOLLOW_EXEC=1 LD_PRELOAD="$LIB" sh -c '/bin/true; /bin/true' 2>err
assert_eq "$(ls -d mtinject-* | wc -l)" 3 "output directories with MTINJECT_FOLLOW_EXEC=1"
