// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack's trace.dat fuzzer: the dry run of an input in a forked child
 * (see dry_run.h). The child is this process as it was at the fork: the
 * same heap, the same input in the same memory file, the same code; the
 * libraries are deterministic, so what they do in the child they do again
 * when the parent makes the same run. In the child, the SEGV, BUS and FPE
 * handlers end it with DRY_LIB_FAULT on a fault in the libraries' code, or
 * in a string function it called (lib_code.c), on a stack of their own:
 * libtracecmd recurses without end on some corrupt files until the stack
 * is gone, and a handler on that stack could not run. Any other fault goes
 * to ASan's handler, and the child ends as kmapstack's. A timer of the
 * child's CPU time, far above what a run takes, ends it with DRY_LIB_LOOP
 * when it finds the child in the libraries' code: a backstop for loops
 * that never come back to kmapstack's code (those that do are ended by
 * tracedat_pass.c). The child writes nothing: its output goes to
 * /dev/null, and it leaves by _exit(), without the parent's exit handlers.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "dry_run.h"

/* the handlers before ours (ASan's): a fault of ours goes to them */
static struct sigaction old_segv, old_bus, old_fpe;
static int devnull = -1;

/* the fault handler's stack: ASan's handler and backtrace() run on it too */
#define DRY_STACK (256 * 1024)

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

/* past the backstop: the child ends when the tick finds it in the libs */
static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	if (lib_code_in_libs(pc_of(uc)))
		_exit(DRY_EXIT_BASE + DRY_LIB_LOOP);
}

/*
 * A fault in libtracecmd or libtraceevent ends the child. Any other is
 * kmapstack's: the handler before ours is put back, and the faulting
 * instruction, run again, goes to it (ASan's report, then the child's end).
 */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	if (lib_code_fault_in_libs(pc_of(uc), stack_overflow(si, uc)))
		_exit(DRY_EXIT_BASE + DRY_LIB_FAULT);
	if (sig == SIGSEGV)
		sigaction(sig, &old_segv, NULL);
	else if (sig == SIGBUS)
		sigaction(sig, &old_bus, NULL);
	else
		sigaction(sig, &old_fpe, NULL);
}

void dry_run_setup(void)
{
	stack_t ss = { 0 };

	lib_code_setup();
	lib_reports_setup();
	/* inherited by the child (its only thread is the one that forks) */
	ss.ss_size = DRY_STACK;
	ss.ss_sp = malloc(ss.ss_size);
	if (!ss.ss_sp || sigaltstack(&ss, NULL))
		abort();
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0)
		abort();
}

static void child(void (*run)(void *arg), void *arg)
{
	/* the first tick at the limit, then every 2 ms until in the libs */
	struct itimerval it = { { 0, 2000 },
				{ DRY_CPU_LIMIT_MS / 1000,
				  DRY_CPU_LIMIT_MS % 1000 * 1000 } };
	struct sigaction sa;

	/* a loop in kmapstack's code is the parent's to find (libFuzzer's -timeout): the child ends with it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	dup2(devnull, STDOUT_FILENO);
	dup2(devnull, STDERR_FILENO);
	lib_reports_child();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGFPE, &sa, &old_fpe);
	sa.sa_sigaction = on_timer;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	/* the CPU time of the process: a loaded machine stops no run */
	setitimer(ITIMER_PROF, &it, NULL);
	run(arg);
	_exit(DRY_EXIT_BASE + DRY_READ);
}

int dry_run(void (*run)(void *arg), void *arg, long *cpu_ms)
{
	struct rusage ru;
	int status, code;
	pid_t pid = fork();

	if (pid < 0)
		abort();
	if (pid == 0)
		child(run, arg);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			abort();
	*cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
		  (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	code = WIFEXITED(status) ? WEXITSTATUS(status) - DRY_EXIT_BASE : -1;
	/* killed, or an exit of ASan's, libFuzzer's or kmapstack's own */
	return code >= 0 && code < DRY_NR ? code : DRY_OURS;
}
