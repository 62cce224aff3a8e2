/* trig_plugin DIR — dlopen DIR/libtrig_plugin.so after start, call plugin_work twice,
 * dlclose it, call nothing, load it again and call once more. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/libtrig_plugin.so", argc > 1 ? argv[1] : ".");
	int total = 0;
	for (int round = 0; round < 2; round++) {
		void *h = dlopen(path, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		int (*work)(int) = (int (*)(int))dlsym(h, "plugin_work");
		for (int i = 0; i < (round ? 1 : 2); i++)
			total += work(i);
		dlclose(h);
	}
	printf("plugin total %d\n", total);
	return 0;
}
