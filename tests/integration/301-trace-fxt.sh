#!/bin/sh
# Fuchsia trace writer end to end: exact event dump of a scripted sequence through the
# independent reader (fxt-check), then a synthetic trace with more distinct names than the
# string table (32767) and more threads than the thread table (255).
. "$MTJ_SRC/tests/integration/lib.sh"

cat >events.txt <<'END'
P 100 demo
T 100 101 main
B 100 101 1000 main /usr/bin/demo
B 100 101 2000 foo
I 100 101 2500 hit:\sfoo trigger=foo ip=0x401136 n=3
E 100 101 3000 foo
E 100 101 4000 main
END
"$TTOOLS/trace-gen" fxt trace.fxt <events.txt || fail "trace-gen fxt failed"
"$TTOOLS/fxt-check" trace.fxt --dump >dump.txt || fail "fxt-check rejected our trace"
assert_eq "$(cat dump.txt)" "process 100 demo
thread 100 101 main
1000 B 100 101 main object=/usr/bin/demo
2000 B 100 101 foo
2500 I 100 101 hit: foo trigger=foo ip=0x401136 n=3
3000 E 100 101 foo
4000 E 100 101 main"
# magic number record first: 10 00 04 46 78 54 16 00
assert_eq "$(od -An -tx1 -N8 trace.fxt | tr -d ' ')" "1000044678541600"

"$TTOOLS/trace-gen" fxt big.fxt --synthetic 200000 40000 300 || fail "synthetic fxt failed"
"$TTOOLS/fxt-check" big.fxt --stats >stats.txt || fail "fxt-check rejected the synthetic trace"
stat() { sed -n "s/^$1 //p" stats.txt; }
assert_eq "$(stat max_string_index)" 32767 "string indices used"
[ "$(stat string_redefs)" -gt 1000 ] || fail "expected string index re-definitions, got $(stat string_redefs)"
assert_eq "$(stat max_thread_index)" 255 "thread indices used"
[ "$(stat thread_redefs)" -gt 0 ] || fail "expected thread index re-definitions"
assert_eq "$(stat kernel_objects)" 301
assert_eq "$(stat begins)" "$(stat ends)"
# a cut file is reported, not misread
head -c 100003 big.fxt >cut.fxt
if "$TTOOLS/fxt-check" cut.fxt 2>err.txt; then fail "truncated trace accepted"; fi
assert_grep "not a multiple of 8" err.txt
head -c 100000 big.fxt >cut.fxt
if "$TTOOLS/fxt-check" cut.fxt 2>err.txt; then fail "truncated trace accepted"; fi
assert_grep "open begin\|cut by the end of the file" err.txt
exit 0
