// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack's trace.dat fuzzer: leaving a run from the trace libraries'
 * code (see lib_escape.h). A timer on a signal of our own jumps out of the
 * run only when the signal is taken in libtracecmd's or libtraceevent's
 * code, never in ours, which may be in malloc or half-way through an
 * update (that once freed a block twice); the timer ticks again until
 * then. The SEGV, BUS and FPE handlers jump out of a fault in that code,
 * or in a string function it called (lib_code.c), on a stack of their own:
 * libtracecmd recurses without end on some corrupt files until the stack
 * is gone, and a handler on that stack could not run. The run then leaks
 * what the libraries held (leak detection is off for this target).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "lib_escape.h"

sigjmp_buf lib_escape_point;
long lib_escape_timeouts, lib_escape_faults;

static volatile sig_atomic_t armed;
static timer_t timer;
/* the handlers before ours (ASan's): a fault of ours goes to them */
static struct sigaction old_segv, old_bus, old_fpe;

/* the fault handler's stack: ASan's handler and backtrace() run on it too */
#define LIB_ESCAPE_STACK (256 * 1024)

static unsigned long pc_of(void *uc_)
{
	ucontext_t *uc = uc_;

	return (unsigned long)uc->uc_mcontext.gregs[REG_RIP];
}

/* how far below the stack pointer a new frame may fault */
#define OVERFLOW_REACH (64 * 1024)

/* a fault just below the stack pointer: the stack is gone */
static int stack_overflow(const siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	unsigned long sp = (unsigned long)uc->uc_mcontext.gregs[REG_RSP];
	unsigned long addr = (unsigned long)si->si_addr;

	return si->si_signo == SIGSEGV && addr < sp + 4096 &&
	       addr + OVERFLOW_REACH > sp;
}

/* over time: leave the run, but only from the libraries' code */
static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	if (armed && lib_code_in_libs(pc_of(uc))) {
		armed = 0;
		lib_escape_timeouts++;
		siglongjmp(lib_escape_point, 1);
	}
}

/*
 * A fault in libtracecmd or libtraceevent: leave the run. Any other is a
 * finding: the handler before ours is put back, and the faulting
 * instruction, run again, goes to it (ASan's report, with the stack).
 */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	if (armed &&
	    lib_code_fault_in_libs(pc_of(uc), stack_overflow(si, uc))) {
		armed = 0;
		lib_escape_faults++;
		siglongjmp(lib_escape_point, 1);
	}
	if (sig == SIGSEGV)
		sigaction(sig, &old_segv, NULL);
	else if (sig == SIGBUS)
		sigaction(sig, &old_bus, NULL);
	else
		sigaction(sig, &old_fpe, NULL);
}

void lib_escape_setup(void)
{
	struct sigevent sev;
	struct sigaction sa;
	stack_t ss = { 0 };

	lib_code_setup();
	ss.ss_size = LIB_ESCAPE_STACK;
	ss.ss_sp = malloc(ss.ss_size);
	if (!ss.ss_sp || sigaltstack(&ss, NULL))
		abort();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_timer;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 3, &sa, NULL);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGFPE, &sa, &old_fpe);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN + 3;
	/* the process's CPU time: a machine under load stops no run */
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &timer))
		abort();
}

void lib_escape_arm(long ms)
{
	struct itimerspec it = { 0 };

	armed = 0;
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_nsec = (ms % 1000) * 1000000;
	/* then every 2 ms, until the run is in the libraries' code */
	if (ms)
		it.it_interval.tv_nsec = 2 * 1000000;
	timer_settime(timer, 0, &it, NULL);
	armed = ms > 0;
}
