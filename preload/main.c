/*
 * preload/main.c — the library's constructor and destructor: a thin shell over
 * mtj_start()/mtj_finish() (in start.c), so tests can drive start-up directly.
 */
#include "preload/start.h"

__attribute__((constructor)) static void mtj_constructor(void)
{
	mtj_start();
}

__attribute__((destructor)) static void mtj_destructor(void)
{
	mtj_finish();
}
