# `mtinject run` passes stdin, stdout, stderr, the exit status and signals through, sets up
# the environment (absolute MTINJECT_OUTPUT, LD_PRELOAD appended), checks the configuration
# before starting COMMAND, and gives shell-like statuses for missing/unexecutable commands.
# No perf needed: --session none records hits only.
. "$MTJ_SRC/tests/integration/lib.sh"
R="$TOOL run --session none --on exit"

# stdout and stdin pass through byte for byte; nothing of ours on stdout.
printf 'line one\nline two\n' | $R -- cat >cat.out 2>cat.err
assert_eq "$?" 0 "cat status"
printf 'line one\nline two\n' >cat.want
cmp -s cat.out cat.want || { cat cat.out; fail "stdin/stdout not passed through"; }

# Exit status, stderr, a signal's status, options of COMMAND left alone.
$R -- sh -c 'echo to-err >&2; exit 7' >st.out 2>st.err
assert_eq "$?" 7 "exit status"
assert_grep "^to-err$" st.err
$R -- sh -c 'kill -TERM $$' >sig.out 2>sig.err
assert_eq "$?" 143 "status of a command killed by SIGTERM"
assert_grep "killed by signal 15" sig.err
$R sh -c 'echo "$1 $2"' sh -x --y >opt.out 2>opt.err
assert_eq "$(cat opt.out)" "-x --y" "COMMAND's own options"

# Environment: absolute output dir (default and -o), LD_PRELOAD appended, -e wins.
$R -- sh -c 'echo "$MTINJECT_OUTPUT"' >env1.out 2>/dev/null
out=$(cat env1.out)
case "$out" in "$PWD"/mtinject-sh-[0-9]*) ;; *) fail "default MTINJECT_OUTPUT is '$out'" ;; esac
[ -d "$out" ] || fail "output directory $out was not created"
$R -o rel/out -- sh -c 'echo "$MTINJECT_OUTPUT"' >env2.out 2>/dev/null
assert_eq "$(cat env2.out)" "$PWD/rel/out" "-o made absolute"
# (given with -e: an ASan-built mtinject itself cannot start with another LD_PRELOAD)
$R -e LD_PRELOAD=libm.so.6 -- sh -c 'echo "$LD_PRELOAD"' >env3.out 2>/dev/null
assert_eq "$(cat env3.out)" "libm.so.6:$MTJ_BUILD/libmtinject.so" "LD_PRELOAD appended"
$R -e MTINJECT_LOG=quiet -e FOO=a=b -- sh -c 'echo "$MTINJECT_LOG $FOO"' >env4.out 2>/dev/null
assert_eq "$(cat env4.out)" "quiet a=b" "-e assignments"
# (a script: its triggers name functions of the interpreter, so they are not looked up)
printf '#!/bin/sh\necho "$MTINJECT_TRIGGER"\n' >show-trigger.sh && chmod +x show-trigger.sh
$R -t 'a;b' -t c --multi -- ./show-trigger.sh >env5.out 2>/dev/null
assert_eq "$(cat env5.out)" "a,count=all;b,count=all;c,count=all" "-t joined, --multi"

# Shell-like failures of COMMAND itself.
$R -- ./no-such-command >nf.out 2>nf.err
assert_eq "$?" 127 "status of a missing command"
assert_eq "$(cat nf.err)" "mtinject: ./no-such-command: command not found" "missing command message"
$R -- no-such-command-on-path 2>np.err
assert_eq "$?" 127 "status of a command not on PATH"
printf '#!/bin/sh\necho hi\n' >noexec.sh
chmod 644 noexec.sh
$R -- ./noexec.sh 2>ne.err
assert_eq "$?" 126 "status of a non-executable command"
assert_grep "noexec.sh: Permission denied" ne.err

# The configuration is checked before COMMAND starts: nothing runs, status 2.
"$TOOL" run -t 'handle_request,cnt=3' -- touch started1 2>bad1.err
assert_eq "$?" 2 "status of a bad trigger"
assert_grep "cnt" bad1.err
[ -e started1 ] && fail "COMMAND ran despite a bad trigger"
"$TOOL" run --backend ptt -t x -- touch started2 2>bad2.err
assert_eq "$?" 2 "status of a bad backend"
assert_grep "MTINJECT_BACKEND" bad2.err
"$TOOL" run -t x -e MTINJECT_TRIGER=y -- touch started3 2>bad3.err
assert_eq "$?" 2 "status of a misspelt -e variable"
assert_grep "MTINJECT_TRIGGER" bad3.err
"$TOOL" run -- touch started4 2>bad4.err
assert_eq "$?" 2 "status without anything to trigger on"
assert_grep "give -t TRIGGER" bad4.err
"$TOOL" run -t x --format svg -- touch started5 2>bad5.err
assert_eq "$?" 2 "status of a bad --format"
for i in 1 2 3 4 5; do [ -e started$i ] && fail "COMMAND ran despite bad configuration $i"; done
# A trigger naming no function of the executable: found in the file, before anything runs.
"$TOOL" run -t handle_requst -- "$PROGS/mt_worker" 10 >typo.out 2>typo.err
assert_eq "$?" 2 "status of a trigger that names no function"
assert_eq "$(cat typo.err)" "mtinject run: trigger 'handle_requst': no function 'handle_requst' in $PROGS/mt_worker (did you mean 'handle_request'?)" "typo message"
[ -s typo.out ] && fail "COMMAND ran despite a trigger naming no function"

# SIGTERM sent to mtinject reaches COMMAND; mtinject then exits like COMMAND did.
$R -- sleep 30 >/dev/null 2>term.err &
pid=$!
i=0 child=
while [ -z "$child" ] && [ $i -lt 100 ]; do
	child=$(pgrep -P "$pid" sleep 2>/dev/null)
	sleep 0.05; i=$((i + 1))
done
[ -n "$child" ] || fail "the sleep under mtinject run did not start"
kill -TERM "$pid"
wait "$pid"
assert_eq "$?" 143 "status after SIGTERM was forwarded"
kill -0 "$child" 2>/dev/null && { kill "$child"; fail "sleep survived the forwarded SIGTERM"; }
echo "ok"
