/*
 * preload/handler.c — everything that runs in signal context, and the sigaction()/signal()
 * interposition that keeps the program's own handlers working.
 *
 * SIGNAL CONTEXT: every function here except mtj_handlers_install() and the interposed
 * sigaction()/signal() runs inside a signal handler: no malloc, no locks, no stdio; errno
 * is saved and restored.  libunwind's local unwinding is async-signal-safe once primed
 * (main.c unwinds once at start-up so the first hit does not allocate).
 *
 * We own the kernel-level disposition of SIGTRAP (breakpoints) and of the signals named by
 * MTINJECT_ON.  The program's handlers for those signals — installed before us or after us
 * — are kept in app_action[] and called by chain() for every signal that is not ours, so
 * the program sees exactly the signals meant for it, with its own sa_mask.
 */
#include "preload/runtime.h"

#include "preload/breakpoint.h"
#include "preload/log.h"
#include "preload/start.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction_fn;
static struct sigaction app_action[NSIG];
static _Atomic unsigned char owned[NSIG];     /* we hold the kernel disposition */
static _Atomic int fatal_taken;
/* Our own code, left out of backtraces taken from inside it (mtinject_snapshot, exit). */
static uint64_t self_lo, self_hi;

static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real_sigaction_fn)
		real_sigaction_fn = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	if (!real_sigaction_fn) {
		errno = ENOSYS;
		return -1;
	}
	return real_sigaction_fn(sig, act, old);
}

static pid_t self_tid(void) { return (pid_t)syscall(SYS_gettid); }

/*
 * SIGNAL CONTEXT.  Frame-pointer walk, for fork children: there glibc may leave the
 * loader's write lock held by the parent's thread, and libunwind takes it (through
 * dl_iterate_phdr) on every step.  process_vm_readv() on ourselves reads the frames
 * without any risk of faulting on a bad frame pointer.
 */
static void fp_backtrace(struct mtj_hit *h, const ucontext_t *uc)
{
	uint64_t fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	uint64_t ra;
	/* At a function's first instruction the return address is at [rsp]. */
	struct iovec local = { &ra, sizeof(ra) }, remote = { (void *)(uintptr_t)sp, sizeof(ra) };
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == sizeof(ra) && ra)
		h->bt[h->nbt++] = ra;
	while (h->nbt < MTJ_BT_MAX && fp > sp && fp - sp < (64u << 20)) {
		uint64_t frame[2];
		struct iovec l = { frame, sizeof(frame) }, r = { (void *)(uintptr_t)fp, sizeof(frame) };
		if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != sizeof(frame) || !frame[1])
			break;
		h->bt[h->nbt++] = frame[1];
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
}

/* SIGNAL CONTEXT. */
static void fill_backtrace(struct mtj_hit *h, const void *ucontext)
{
	if (mtj_rt.fork_child) {
		if (ucontext)
			fp_backtrace(h, ucontext);
		return;
	}
	unw_cursor_t cur;
	unw_context_t ctx;
	int rc;
	if (ucontext) {
		rc = unw_init_local2(&cur, (unw_context_t *)(uintptr_t)ucontext, UNW_INIT_SIGNAL_FRAME);
	} else {
		unw_getcontext(&ctx);
		rc = unw_init_local(&cur, &ctx);
	}
	if (rc < 0)
		return;
	/* The first frame is where we are (the trigger's entry, or our own API function). */
	bool ours = !ucontext;
	while (h->nbt < MTJ_BT_MAX && unw_step(&cur) > 0) {
		unw_word_t ip = 0;
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		if (ours && ip >= self_lo && ip < self_hi)
			continue;
		ours = false;
		h->bt[h->nbt++] = ip;
	}
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < cap; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/* SIGNAL CONTEXT: wake the helper thread. */
static void wake_helper(void)
{
	if (mtj_rt.wake_wr >= 0) {
		ssize_t rc = write(mtj_rt.wake_wr, "h", 1);
		(void)rc; /* a full pipe already holds a wake-up */
	}
}

/* SIGNAL CONTEXT. */
uint64_t mtj_hit_record(enum mtj_hit_kind kind, int trigger, int decision, uint64_t nth,
			const void *ucontext, int sig, const char *reason, unsigned flags)
{
	uint64_t ticket;
	struct mtj_hit *h = mtj_ring_claim(&mtj_rt.ring, &ticket);
	if (!h)
		return 0;
	h->seq = atomic_fetch_add(&mtj_rt.next_seq, 1) + 1;
	h->kind = kind;
	h->trigger = trigger;
	h->decision = decision;
	h->nth = nth;
	h->sig = sig;
	h->flags = flags;
	h->tid = self_tid();
	prctl(PR_GET_NAME, h->thread, 0, 0, 0);
	h->time_ns = mtj_perf_now_ns();
	if (ucontext) {
		const ucontext_t *uc = ucontext;
		const greg_t *g = uc->uc_mcontext.gregs;
		h->ip = (uint64_t)g[REG_RIP];
		h->sp = (uint64_t)g[REG_RSP];
		h->args[0] = (uint64_t)g[REG_RDI];
		h->args[1] = (uint64_t)g[REG_RSI];
		h->args[2] = (uint64_t)g[REG_RDX];
		h->args[3] = (uint64_t)g[REG_RCX];
		h->args[4] = (uint64_t)g[REG_R8];
		h->args[5] = (uint64_t)g[REG_R9];
	}
	fill_backtrace(h, ucontext);
	if (!ucontext && h->nbt > 0)
		h->ip = h->bt[0];
	copy_str(h->reason, sizeof(h->reason), reason);
	uint64_t seq = h->seq;
	mtj_ring_publish(&mtj_rt.ring, ticket);
	wake_helper();
	return seq;
}

bool mtj_hit_wait(uint64_t seq, int timeout_ms)
{
	if (!seq || !mtj_rt.helper_running || self_tid() == atomic_load(&mtj_rt.helper_tid))
		return false;
	struct timespec step = { 0, 2 * 1000 * 1000 };
	for (int waited = 0; waited < timeout_ms * 1000; waited += 2000) {
		if (atomic_load(&mtj_rt.done_seq) >= seq)
			return true;
		nanosleep(&step, NULL);
	}
	return false;
}

/* SIGNAL CONTEXT: hand a signal that is not ours to the program as if we were not here. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = app_action[sig];
	/* sa_handler and sa_sigaction share storage: SIG_DFL/SIG_IGN whatever the flags say. */
	if (a.sa_handler == SIG_IGN)
		return;
	if (a.sa_handler == SIG_DFL) {
		/* The default action: re-deliver with the kernel's default disposition.  The
		 * signal is blocked while we run, so it lands as soon as we return. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		atomic_store(&owned[sig], 0);
		real_sigaction(sig, &dfl, NULL);
		syscall(SYS_tgkill, getpid(), self_tid(), sig);
		return;
	}
	sigset_t old;
	pthread_sigmask(SIG_BLOCK, &a.sa_mask, &old);
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (a.sa_flags & SA_RESETHAND) {
		memset(&app_action[sig], 0, sizeof(app_action[sig]));
		app_action[sig].sa_handler = SIG_DFL;
	}
}

/* SIGNAL CONTEXT: a breakpoint fired in this thread.  (The helper thread never runs a
 * trigger: it was created before the breakpoints, which it therefore did not inherit.) */
static void on_trigger(unsigned idx, void *uc)
{
	if (idx >= mtj_rt.ntrig || atomic_load(&mtj_rt.phase) != MTJ_PHASE_ACTIVE)
		return;
	struct mtj_trigger_rt *t = &mtj_rt.trig[idx];
	uint64_t nth;
	enum mtj_decision d = mtj_decide(&t->c, t->spec, mtj_perf_now_ns(), &nth);
	if (d == MTJ_SNAP_YES && t->spec->count != MTJ_COUNT_ALL &&
	    atomic_load(&t->c.snapshots) >= t->spec->count) {
		/* Single-shot (or count=N reached): disable; inherited copies follow the parent. */
		int n = atomic_load(&t->nfds);
		for (int i = 0; i < n; i++)
			mtj_bp_disable(t->fds[i]);
		atomic_store(&t->state, MTJ_TRIG_DONE);
	}
	if (d == MTJ_SNAP_YES && (mtj_rt.hits_only || atomic_load(&mtj_rt.session_dead)))
		d = MTJ_SNAP_NO_SESSION;
	/* Beyond MTINJECT_HITS_MAX, a hit kept from a snapshot is only counted: no backtrace, no
	 * line (skip=1000000 on a busy function would write ~800 MB).  The first one wakes the
	 * helper, which says so once. */
	if (mtj_rt.cfg.hits_max && mtj_decision_by_rule(d)) {
		uint64_t before = atomic_fetch_add(&mtj_rt.quiet_hits, 1);

		if (before >= mtj_rt.cfg.hits_max) {
			if (before == mtj_rt.cfg.hits_max)
				wake_helper();
			return;
		}
	}
	mtj_hit_record(MTJ_HIT_TRIGGER, (int)idx, d, nth, uc, 0, NULL, 0);
}

static void on_sigtrap(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	if (si && si->si_code == TRAP_PERF && MTJ_COOKIE_IS_OURS(mtj_si_perf_data(si)))
		on_trigger(MTJ_COOKIE_INDEX(mtj_si_perf_data(si)), uc);
	else
		chain(sig, si, uc);
	errno = saved;
}

/* "SEGV" for SIGSEGV; sigabbrev_np() only indexes a table, so it is async-signal-safe. */
static const char *signame(int sig)
{
	const char *s = sigabbrev_np(sig);
	return s ? s : "?";
}

static bool is_fatal_kind(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

/* SIGNAL CONTEXT: a crash, an abort, or a signal named in MTINJECT_ON. */
static void on_watched(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	if (atomic_load(&mtj_rt.phase) == MTJ_PHASE_ACTIVE) {
		char reason[64] = "";
		size_t off = 0;
		const char *kind = is_fatal_kind(sig) ? (sig == SIGABRT ? "abort: SIG" : "crash: SIG") : "signal: SIG";
		for (const char *p = kind; *p && off < sizeof(reason) - 1; p++)
			reason[off++] = *p;
		for (const char *p = signame(sig); *p && off < sizeof(reason) - 1; p++)
			reason[off++] = *p;
		reason[off] = '\0';
		if (is_fatal_kind(sig)) {
			/* One snapshot per process death, even if several threads crash at once. */
			if (atomic_exchange(&fatal_taken, 1) == 0) {
				bool dies = app_action[sig].sa_handler == SIG_DFL;
				int d = mtj_rt.hits_only || atomic_load(&mtj_rt.session_dead) ? MTJ_SNAP_NO_SESSION : MTJ_SNAP_YES;
				uint64_t seq = mtj_hit_record(MTJ_HIT_CRASH, -1, d, 0, uc, sig, reason,
							      dies ? MTJ_HITF_FATAL : 0);
				if (seq && !mtj_hit_wait(seq, MTJ_FATAL_WAIT_MS))
					mtj_log_sigsafe(MTJ_LOG_ERROR, "timed out waiting for the snapshot of ", reason, -1);
				/* The process dies now: leave nothing behind (perf was stopped with the
				 * snapshot; this also removes the control FIFO and the registry link). */
				if (dies)
					mtj_quiesce("crash");
			}
		} else {
			int d = mtj_rt.hits_only || atomic_load(&mtj_rt.session_dead) ? MTJ_SNAP_NO_SESSION : MTJ_SNAP_YES;
			mtj_hit_record(MTJ_HIT_SIGNAL, -1, d, 0, uc, sig, reason, 0);
			/* A signal the user named as a trigger does not kill the program by default. */
			if (app_action[sig].sa_handler == SIG_DFL) {
				errno = saved;
				return;
			}
		}
	}
	chain(sig, si, uc);
	errno = saved;
}

static int own_signal(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (real_sigaction(sig, &sa, &old) < 0)
		return -errno;
	if (!atomic_load(&owned[sig]))
		app_action[sig] = old;
	atomic_store(&owned[sig], 1);
	return 0;
}

static int self_range_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if ((uintptr_t)info->dlpi_addr != (uintptr_t)arg)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			self_lo = info->dlpi_addr + ph->p_vaddr;
			self_hi = self_lo + ph->p_memsz;
		}
	}
	return 1;
}

int mtj_handlers_install(void)
{
	int rc;
	Dl_info dli;
	/* Once per process image: a fork child inherits it (and must not call the loader). */
	if (!self_hi && dladdr((void *)(uintptr_t)mtj_hit_record, &dli) && dli.dli_fbase)
		dl_iterate_phdr(self_range_cb, dli.dli_fbase);
	if (mtj_rt.ntrig > 0 && (rc = own_signal(SIGTRAP, on_sigtrap)) < 0)
		return rc;
	if (mtj_rt.cfg.on & MTJ_ON_CRASH) {
		const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if ((rc = own_signal(sigs[i], on_watched)) < 0)
				return rc;
	}
	if ((mtj_rt.cfg.on & MTJ_ON_ABORT) && (rc = own_signal(SIGABRT, on_watched)) < 0)
		return rc;
	if (mtj_rt.cfg.on & MTJ_ON_SIGNAL)
		for (size_t i = 0; i < mtj_rt.cfg.non_signals; i++)
			if ((rc = own_signal(mtj_rt.cfg.on_signals[i], on_watched)) < 0)
				return rc;
	return 0;
}

/*
 * Interposed sigaction(): for a signal we own, the program's handler is recorded for
 * chaining and the kernel keeps ours; everything else goes straight to libc.
 */
__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
						      struct sigaction *old)
{
	if (sig > 0 && sig < NSIG && atomic_load(&owned[sig])) {
		if (old)
			*old = app_action[sig];
		if (act) {
			if (sig == SIGKILL || sig == SIGSTOP) {
				errno = EINVAL;
				return -1;
			}
			app_action[sig] = *act;
		}
		return 0;
	}
	return real_sigaction(sig, act, old);
}

__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}
