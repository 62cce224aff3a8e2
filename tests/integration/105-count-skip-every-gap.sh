# count/skip/every/min-gap are counted exactly, and every hit is in hits.jsonl with why not.
. "$MTJ_SRC/tests/integration/lib.sh"
export MTINJECT_SESSION=none
count() { grep -c "$1" out/hits.jsonl; }
t() { # SPEC N EXPECTED-WOULD-SNAPSHOT
	rm -rf out
	MTINJECT_TRIGGER="$1" MTINJECT_OUTPUT="$PWD/out" LD_PRELOAD="$LIB" "$PROGS/trig_modes" loop "$2" >/dev/null 2>err
	[ -f out/hits.jsonl ] || { cat err; fail "'$1': no hits.jsonl"; }
	assert_eq "$(count '"why":"no perf session"')" "$3" "snapshots '$1'"
}
t 'target_fn' 10 1                    # default count=1; disarmed after it
assert_eq "$(wc -l <out/hits.jsonl | tr -d ' ')" 1 "hits after a single-shot trigger fired"
t 'target_fn,count=3' 10 3
assert_eq "$(wc -l <out/hits.jsonl | tr -d ' ')" 3 "hits after count=3"
t 'target_fn,count=all' 25 25
t 'target_fn,skip=4,count=all' 10 6
assert_eq "$(count '"why":"skip"')" 4 "skipped hits"
t 'target_fn,every=3,count=all' 10 4
assert_eq "$(count '"why":"every"')" 6 "hits between every-th"
t 'target_fn,skip=2,every=4,count=2' 20 2
t 'target_fn,count=all,min-gap=10m' 50 1
assert_eq "$(count '"why":"min-gap"')" 49 "hits coalesced by min-gap"
# MTINJECT_HITS_MAX: hits that take no snapshot are written up to the limit, then counted
# (one notice); the ones that do are always written
MTINJECT_HITS_MAX=3 t 'target_fn,skip=10,count=all' 15 5
assert_eq "$(count '"why":"skip"')" 3 "skipped hits written under MTINJECT_HITS_MAX=3"
assert_eq "$(grep -c 'further ones are counted, not written' err)" 1 "MTINJECT_HITS_MAX notice"
MTINJECT_HITS_MAX=3 MTINJECT_LOG=info t 'target_fn,skip=10,count=all' 15 5
assert_grep "7 hits that took no snapshot were counted, not written to hits.jsonl (MTINJECT_HITS_MAX=3)" err
MTINJECT_HITS_MAX=0 t 'target_fn,skip=10,count=all' 15 5
assert_eq "$(count '"why":"skip"')" 10 "skipped hits written under MTINJECT_HITS_MAX=0"
