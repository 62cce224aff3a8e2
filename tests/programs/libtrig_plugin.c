/* libtrig_plugin.so — dlopen'ed by trig_plugin after start; plugin_work() is the trigger,
 * plugin_static() a static function in a shared object. */
#include <stdint.h>

static volatile uint64_t sink;

static int plugin_static(int x)
{
	sink += (uint64_t)x;
	return x + 3;
}

int plugin_work(int x)
{
	sink ^= (uint64_t)x;
	return plugin_static(x);
}
