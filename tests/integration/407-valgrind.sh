# The tool is valgrind-clean on its main paths: decode (every format, perf.data and text),
# symbols, info, and error exits.
. "$MTJ_SRC/tests/integration/lib.sh"
command -v valgrind >/dev/null || skip "valgrind is not installed (apt-get install valgrind)"
readelf -d "$TOOL" 2>/dev/null | grep -q libasan && skip "this build uses AddressSanitizer, which valgrind cannot run (the plain build runs this test)"
need_perf
vg() { valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$@"; }
perf record -q -e cpu-clock -g --clockid=CLOCK_MONOTONIC -o rec.data -- "$PROGS/mt_worker" 100 >/dev/null 2>&1
[ -s rec.data ] ||
	fail "perf record failed"
for f in json fxt folded; do
	vg "$TOOL" decode rec.data -o "t.$f" -q; rc=$?
	[ $rc = 99 ] && fail "valgrind errors in decode to $f"
	[ $rc = 0 ] || fail "decode to $f failed ($rc)"
done
perf script -i rec.data >rec.txt 2>/dev/null
vg "$TOOL" decode --from-perf-script rec.txt -o text.json -q
[ $? = 0 ] || fail "valgrind errors (or failure) decoding perf script text"
vg "$TOOL" decode --from-perf-script "$MTJ_SRC/tests/golden/pt/longjmp.perfscript" -o pt.json -q
[ $? = 0 ] || fail "valgrind errors (or failure) decoding PT text"
vg "$TOOL" symbols "$PROGS/mt_worker" parse >/dev/null
[ $? = 0 ] || fail "valgrind errors in symbols"
vg "$TOOL" info >/dev/null 2>&1
[ $? = 99 ] && fail "valgrind errors in info"
vg "$TOOL" decode /nonexistent -o x.json -q 2>/dev/null
[ $? = 3 ] || fail "valgrind errors (or wrong status) on a missing input"
echo "ok"
