# A trigger in a library that is dlopen'ed after start is armed when it is loaded, disarmed
# when it is unloaded, and armed again when it comes back; also a static function in it.
. "$MTJ_SRC/tests/integration/lib.sh"
export MTINJECT_SESSION=none
run_plain "$PROGS/trig_plugin" "$PROGS"
MTINJECT_TRIGGER='plugin_work@libtrig_plugin.so,count=all;plugin_static@libtrig_plugin.so,count=all' \
	MTINJECT_OUTPUT="$PWD/out" MTINJECT_LOG=info run_traced "$PROGS/trig_plugin" "$PROGS"
cat traced.err
assert_same_behaviour
assert_eq "$(grep -c '"trigger":"plugin_work@libtrig_plugin.so,count=all"' out/hits.jsonl)" 3 "plugin_work hits over two loads"
assert_eq "$(grep -c '"symbol":"plugin_static"' out/hits.jsonl)" 3 "static function in the library"
assert_grep "not loaded yet" traced.err
assert_grep "was unloaded" traced.err
