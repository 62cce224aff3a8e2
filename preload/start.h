/* preload/start.h — start-up and shutdown of the preload (see runtime.h for the model). */
#ifndef MTJ_PRELOAD_START_H
#define MTJ_PRELOAD_START_H

/* Never fails from the program's point of view: on any error one message, then untraced
 * (or exit status 2 before main when MTINJECT_STRICT=1 and the configuration is invalid). */
void mtj_start(void);
/* At exit: MTINJECT_ON=exit snapshot, stop perf (bounded), remove the control FIFO. */
void mtj_finish(void);

/* Before _exit() or exec: stop tracing from any context (async-signal-safe on our side;
 * the helper thread does the work).  `why` starting with '_' (an _exit) also takes the
 * MTINJECT_ON=exit snapshot. */
void mtj_quiesce(const char *why);

#endif
