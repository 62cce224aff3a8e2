# As an ordinary user (perf_event_paranoid <= 2): breakpoints on one's own threads and a
# cpu-clock:u flight recorder both work, with the smaller default ring.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
[ "$(id -u)" = 0 ] || skip "needs root to switch to an unprivileged user"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
id nobody >/dev/null 2>&1 || skip "no 'nobody' user"
para=$(cat /proc/sys/kernel/perf_event_paranoid)
chmod 711 "$MTJ_TMP"
mkdir -m 777 u
# The build tree may sit where other users cannot go (a 0700 mktemp directory, a home):
# the user runs copies of the library and the program.
mkdir -m 755 bin && cp "$LIB" "$PROGS/mt_worker" bin/ && chmod 755 bin/*
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- "$@"; }
as_nobody sh -c "cd '$MTJ_TMP/u' && MTINJECT_LOG=info MTINJECT_TRIGGER=handle_request MTINJECT_OUTPUT='$MTJ_TMP/u/out' \
	LD_PRELOAD='$MTJ_TMP/bin/$(basename "$LIB")' '$MTJ_TMP/bin/mt_worker' 300" >u/out.txt 2>u/err.txt
rc=$?
cat u/err.txt
assert_eq "$rc" 3 "exit status as nobody"
if [ "$para" -gt 2 ]; then
	assert_grep "perf_event_paranoid" u/err.txt
	exit 0
fi
assert_grep '"snapshot":true' u/out/hits.jsonl
assert_grep '"thread":"worker-2"' u/out/hits.jsonl
[ "$(stat -c %U u/out)" = nobody ] || fail "output directory not owned by the user"
snap=$(sed -n 's/.*"snapshot_file":"\([^"]*\)".*/\1/p' u/out/hits.jsonl)
perf script -f -i "u/out/$snap" -F ip,sym 2>/dev/null | grep -q "checksum_block\|parse_input" || fail "no samples of the work"
# root decodes the user's snapshot (perf itself refuses files of other users without -f)
"$TOOL" decode u/out -o t.json -q || fail "root cannot decode the user's snapshot"
"$TTOOLS/trace-check" t.json --has-instant "hit: handle_request" >/dev/null || fail "hit missing"
