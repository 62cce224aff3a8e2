#!/bin/sh
# Multi snapshot: 20 snapshots from one sampling session, each its own valid file holding
# samples from before its request and none from after the dump; then MTINJECT_KEEP-style
# pruning (mtj_session_prune) keeps only the newest 5 of 8.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
mkdir all keep
"$TTOOLS/session-drive" spawn --out "$MTJ_TMP/all" --backend sampling --multi -n 20 --interval 30 >all.out 2>&1
rc=$?
cat all.out
[ "$rc" = 0 ] || fail "session-drive failed (exit $rc)"
assert_eq "$(grep -c '^snapshot [0-9]* rc=0 ' all.out)" 20 "snapshots taken"
assert_eq "$(ls all | grep -c '^perf\.data\.[0-9]*$')" 20 "files"
assert_eq "$(grep '^snapshot ' all.out | sed 's/.*file=//' | sort -u | wc -l)" 20 "distinct files"
prev=0
grep '^snapshot ' all.out | while read -r _ i _ _ req file; do
	req=${req#req=}; file=${file#file=}
	perf script -i "$file" -F time 2>"$file.err" | tr -d ' :' >"$file.times" || fail "perf script cannot read $file"
	grep -q . "$file.times" || fail "snapshot $i ($file) has no samples"
	# Every sample lies before the request plus the dump's own time, and the file starts
	# where the previous one ended (the ring is read on from where the last dump stopped).
	awk -v r="$req" -v i="$i" -v f="$file" '
		$1 > r + 1.0 { print "snapshot " i ": sample at " $1 " long after its request " r " in " f; bad = 1; exit }
		$1 <= r { before++ }
		END { if (!bad && before == 0) { print "snapshot " i ": no sample before its request " r; bad = 1 } exit bad }' \
		"$file.times" || exit 1
done || fail "a snapshot does not hold the time before its request"
if pgrep -f "perf record -o $MTJ_TMP" >/dev/null; then fail "perf still running after stop"; fi

"$TTOOLS/session-drive" spawn --out "$MTJ_TMP/keep" --backend sampling --multi -n 8 --interval 20 --keep 5 >keep.out 2>&1 ||
	{ cat keep.out; fail "session-drive --keep failed"; }
grep '^snapshot ' keep.out | sed 's/.*file=//' | tail -n 5 | sort >want.txt
ls "$MTJ_TMP"/keep/perf.data.[0-9]* | sort >got.txt
cmp -s want.txt got.txt || { diff want.txt got.txt; fail "keep=5 did not keep exactly the newest 5 snapshots"; }
note "20 snapshots: $(grep -o 'rc=0 ms=[0-9.]*' all.out | sed 's/.*ms=//' | sort -n | sed -n '1p;$p' | tr '\n' ' ')ms (min max)"
