# `make install` into a DESTDIR: exactly the expected files; a program built against the
# installed header through pkg-config runs as a no-op without the preload and snapshots with
# it; the installed tool finds the installed library and dlfilter and decodes; `make
# uninstall` removes every file it installed.
. "$MTJ_SRC/tests/integration/lib.sh"
need_perf
D="$PWD/dest"
san=""
case "$MTJ_BUILD" in *-san) san="SANITIZE=1" ;; esac
# BUILD= keeps make on the tree the runner tested: nothing is rebuilt elsewhere.
make -C "$MTJ_SRC" install DESTDIR="$D" PREFIX=/usr/local BUILD="$MTJ_BUILD" $san >install.log 2>&1 ||
	{ cat install.log; fail "make install failed"; }

find "$D" \( -type f -o -type l \) | sed "s|^$D||" | sort >files.got
{
	echo /usr/local/bin/mtinject
	echo /usr/local/include/mtinject.h
	echo /usr/local/lib/libmtinject.so
	echo /usr/local/lib/mtinject/mtinject-dlfilter.so
	echo /usr/local/lib/pkgconfig/mtinject.pc
	for m in "$MTJ_SRC"/docs/man/*.[1-8]; do s=${m##*.}; echo "/usr/local/share/man/man$s/${m##*/}"; done
} | sort >files.want
cmp -s files.got files.want || { diff files.want files.got; fail "installed files differ from the expected list"; }
[ -x "$D/usr/local/bin/mtinject" ] || fail "the tool is not executable"

# pkg-config, as a harness would use it (the sysroot maps /usr/local into DESTDIR).
export PKG_CONFIG_PATH="$D/usr/local/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
version=$(sed -n 's/^VERSION *:= *//p' "$MTJ_SRC/Makefile")
assert_eq "$(pkg-config --modversion mtinject)" "$version" "pkg-config --modversion"
libdir=$(pkg-config --variable=libdir mtinject)
assert_eq "$libdir" "$D/usr/local/lib" "pkg-config --variable=libdir"
cflags=$(pkg-config --cflags mtinject)
assert_eq "$(echo $cflags)" "-I$D/usr/local/include" "pkg-config --cflags"

cat >app.c <<'C'
#include <mtinject.h>
#include <stdio.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void install_work(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 7;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < 150);
}
int main(void)
{
	install_work();
	int rc = MTINJECT_SNAPSHOT("install test");
	printf("active=%d snapshot=%d\n", MTINJECT_ACTIVE(), rc);
	return 0;
}
C
cc -O1 -g -fno-omit-frame-pointer $cflags -o app app.c || fail "cannot build against the installed header"

./app >plain.out 2>plain.err
assert_eq "$?" 0 "status without the preload"
assert_eq "$(cat plain.out)" "active=-1 snapshot=-1" "the API without the preload"

MTINJECT_ON=exit MTINJECT_OUTPUT="$PWD/out" LD_PRELOAD="$libdir/libmtinject.so" ./app >traced.out 2>traced.err
assert_eq "$?" 0 "status with the preload"
cat traced.err
assert_eq "$(cat traced.out)" "active=1 snapshot=0" "the API with the preload"
assert_grep '"reason":"install test"' out/hits.jsonl
grep '"reason":"install test"' out/hits.jsonl | grep -q '"snapshot":true' || fail "the API snapshot was not taken"

# The installed tool: its version, the installed files found, a real decode.
T="$D/usr/local/bin/mtinject"
assert_eq "$("$T" --version)" "mtinject $version" "installed --version"
"$T" info --json >info.json 2>info.err || { cat info.json info.err; fail "installed info says tracing cannot work"; }
assert_grep "\"library\":\"$D/usr/local/lib/libmtinject.so\"" info.json
assert_grep "\"dlfilter\":\"$D/usr/local/lib/mtinject/mtinject-dlfilter.so\"" info.json
"$T" decode -q out >decode.out 2>&1 || { cat decode.out; fail "installed decode failed"; }
ls out/trace*.json >/dev/null 2>&1 || fail "installed decode wrote no trace"
grep -q '"install_work"' out/trace*.json || fail "the decoded trace does not show install_work"

# The installed man page renders.
man --warnings -l "$D/usr/local/share/man/man1/mtinject.1" >/dev/null 2>man.err || fail "man page does not render"
[ -s man.err ] && { cat man.err; fail "installed man page has warnings"; }

make -C "$MTJ_SRC" uninstall DESTDIR="$D" PREFIX=/usr/local BUILD="$MTJ_BUILD" $san >uninstall.log 2>&1 ||
	{ cat uninstall.log; fail "make uninstall failed"; }
left=$(find "$D" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "ok: $(wc -l <files.want) files installed and removed"
