// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: libFuzzer target over the trace.dat path, in this process:
 * the input is written to a file and read through libtracecmd and
 * libtraceevent, then decoded and replayed like a real trace. The trace
 * libraries loop for ever on some corrupt files (kmapstack's child has a
 * watchdog for that): here a timer on a signal of our own jumps out of
 * such a run, which then leaks what the libraries held (leak detection
 * is off for this target). The same for a crash inside the libraries
 * themselves (seen: tracecmd_close() on a file that tracecmd_open()
 * gives up on): only a fault in our own code is a finding here.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "fuzz_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RUN_LIMIT_MS 500

static char path[64];
static sigjmp_buf escape;
static volatile sig_atomic_t running;
static timer_t timer;

static void cleanup(void)
{
	unlink(path);
}

static void on_timer(int sig)
{
	(void)sig;
	if (running)
		siglongjmp(escape, 1);
}

/* a fault in libtracecmd or libtraceevent: leave the run */
static void on_fault(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	void *pc = (void *)uc->uc_mcontext.gregs[REG_RIP];
	Dl_info di;

	(void)si;
	if (running && dladdr(pc, &di) && di.dli_fname &&
	    (strstr(di.dli_fname, "libtracecmd") ||
	     strstr(di.dli_fname, "libtraceevent")))
		siglongjmp(escape, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void setup(void)
{
	struct sigevent sev;
	struct sigaction sa;

	snprintf(path, sizeof(path), "/tmp/kmapstack-fuzz-%d.dat",
		 (int)getpid());
	atexit(cleanup);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer;
	sigaction(SIGRTMIN + 3, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN + 3;
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer))
		abort();
}

static void arm(long ms)
{
	struct itimerspec it = { 0 };

	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_nsec = (ms % 1000) * 1000000;
	timer_settime(timer, 0, &it, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_replay fr;
	FILE *fp;

	if (!path[0])
		setup();
	fp = fopen(path, "wb");
	if (!fp)
		return 0;
	fwrite(data, 1, size, fp);
	fclose(fp);
	fuzz_replay_begin(&fr);
	fr.info.path = path;
	if (sigsetjmp(escape, 1) == 0) {
		running = 1;
		arm(RUN_LIMIT_MS);
		if (size >= 10 && !memcmp(data, "\x17\x08\x44tracing", 10) &&
		    input_tracedat_direct(path, fr.r, &fr.info, fr.err,
					  sizeof(fr.err)) == 0)
			replay_finish(fr.r);
	}
	running = 0;
	arm(0);
	fuzz_replay_end(&fr);
	return 0;
}
