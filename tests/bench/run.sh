#!/bin/sh
# tests/bench/run.sh BUILD — decode speed and memory of `mtinject decode` against `perf script`
# on the same recording, in one run (ratios, not absolute times, are what to compare).
#   (a) perf script -i F > /dev/null          text, what parsers of perf output pay
#   (b) perf script -i F --dlfilter drop.so   a dlfilter that drops everything: the floor the
#       issue names (filter_event(): perf has resolved each sample's thread, map and symbol)
#   (b') the same in filter_event_early(), before perf resolves anything: perf merely reading
#       the file.  Our dlfilter runs there too and resolves only addresses it has not seen.
#   (c) mtinject decode F -o x.json   (d) x.fxt   (e) x.folded
# Rounds of every command once, interleaved; times are medians over the rounds and each ratio
# is the median of the rounds' own ratios.  Peak RSS of mtinject (VmHWM, perf excluded) for
# a short and a long recording shows that memory does not grow with trace length.  No
# pass/fail on times.
set -u
build=$(cd "${1:-build}" && pwd) || exit 1
src=$(cd "$(dirname "$0")/../.." && pwd)
tool="$build/mtinject"
prog="$build/tests/programs/bench_recurse"
runs=${MTJ_BENCH_RUNS:-5}
command -v perf >/dev/null || { echo "bench: perf not installed" >&2; exit 1; }
[ -x "$tool" ] && [ -x "$prog" ] || { echo "bench: build first (make build)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mtj-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1

cat >drop.c <<'C'
#include <perf/perf_dlfilter.h>
__attribute__((visibility("default"))) struct perf_dlfilter_fns perf_dlfilter_fns;
__attribute__((visibility("default"))) int filter_event(void *d, const struct perf_dlfilter_sample *s, void *c)
{ (void)d; (void)s; (void)c; return 1; }
C
sed 's/filter_event(/filter_event_early(/' drop.c >drop_early.c
${CC:-cc} -O2 -fPIC -shared -o drop.so drop.c || exit 1
${CC:-cc} -O2 -fPIC -shared -o drop_early.so drop_early.c || exit 1

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\\n\", $1 }"; }   # arithmetic without bc (not on a fresh Debian)
# time1 NAME CMD...: one timed run of CMD, appended to times.NAME
time1() {
	name=$1; shift
	t0=$(now); "$@" >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; exit 1; }; t1=$(now)
	calc "$t1 - $t0" >>"times.$name"
}
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'; }
# median over the rounds of times.X[i] / times.Y[i]: both measured within one round, so a
# burst of load on this shared VM moves numerator and denominator together
ratio() { paste "times.$1" "times.$2" | awk '{ print $1 / $2 }' >ratios; med ratios; }
# peak RSS (kB) of the mtinject process itself while decoding
peak_rss() {
	"$tool" decode "$1" -o rss.json -q & pid=$!; hwm=0
	while kill -0 $pid 2>/dev/null; do
		h=$(awk '/VmHWM/ { print $2 }' /proc/$pid/status 2>/dev/null); [ -n "$h" ] && hwm=$h
		sleep 0.01
	done
	wait $pid; echo "$hwm"
}
record() {   # record FILE SECONDS EVENT
	perf record -q -e "$3" -c 50000 -g --clockid=CLOCK_MONOTONIC -o "$1" -- "$prog" "$2" 3 >/dev/null 2>&1 ||
		{ echo "bench: perf record failed" >&2; exit 1; }
}
samples_of() { perf report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }'; }

bench_file() {   # bench_file FILE LABEL
	f=$1; n=$(samples_of "$f")
	echo "== $2: $f, $n samples, $(wc -c <"$f") bytes"
	rm -f times.*
	i=0
	while [ $i -lt "$runs" ]; do   # interleaved rounds: every command once per round
		time1 a perf script -i "$f"
		time1 b perf script -i "$f" --dlfilter ./drop.so
		time1 be perf script -i "$f" --dlfilter ./drop_early.so
		time1 p perf script -i "$f" --dlfilter "$build/mtinject-dlfilter.so" --dlarg 1
		time1 json "$tool" decode "$f" -o x.json -q
		time1 fxt "$tool" decode "$f" -o x.fxt -q
		time1 folded "$tool" decode "$f" -o x.folded -q
		i=$((i + 1))
	done
	a=$(med times.a); b=$(med times.b); be=$(med times.be); p=$(med times.p)
	ev=$("$tool" decode "$f" -o ev.json | sed -n 's/.* \([0-9]*\) events.*/\1/p')
	printf '  (a) perf script text      %7.3f s\n' "$a"
	printf '  (b) dlfilter dropping all %7.3f s\n' "$b"
	printf "  (b') the same, early      %7.3f s   (perf reading the file, resolving nothing)\n" "$be"
	printf '  perf side of a decode     %7.3f s   (our dlfilter, stream to /dev/null)\n' "$p"
	for name in json fxt folded; do
		t=$(med times.$name); size=$(wc -c <x.$name)
		printf "  mtinject -> %-7s %7.3f s  %9.0f samples/s  a/this %5.2fx faster  this/b %5.2f  this/b' %5.2f  %8d bytes  %6.1f bytes/event\n" \
			"$name" "$t" "$(calc "$n / $t")" "$(ratio a $name)" "$(ratio $name b)" \
			"$(ratio $name be)" "$size" "$(calc "$size / $ev")"
	done
	echo "  ($ev events; json target: >= 2x faster than (a), <= 1.6x (b))"
}

echo "bench: $(perf --version), $(nproc) cpus, medians of $runs interleaved rounds"
record long.data 6 cpu-clock:u
bench_file long.data "user-only call chains (as the flight recorder records)"
record kern.data 5 cpu-clock
bench_file kern.data "user+kernel call chains (kernel symbols resolved too)"
record short.data 1.5 cpu-clock:u
echo "== memory: peak RSS of mtinject (perf not included)"
printf '  short: %8s samples  %6s kB\n' "$(samples_of short.data)" "$(peak_rss short.data)"
printf '  long:  %8s samples  %6s kB\n' "$(samples_of long.data)" "$(peak_rss long.data)"
# The preload's own cost (untriggered, per hit, start-up, memory): tests/bench/preload.sh.
echo
sh "$src/tests/bench/preload.sh" "$build"
