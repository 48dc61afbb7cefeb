// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: libFuzzer target over the trace.dat path, in this process:
 * the input is written to one memory file (made once, rewritten for each
 * run: no file system work per run) and read through libtracecmd and
 * libtraceevent, then decoded and replayed like a real trace. The trace
 * libraries loop for ever on some corrupt files (kmapstack's child has a
 * watchdog for that): here a timer on a signal of our own jumps out of
 * such a run, from the libraries' code only (never from ours, which may be
 * in malloc or half-way through an update: that once freed a block twice),
 * and the run then leaks what the libraries held (leak detection is off
 * for this target). The same for a crash inside the libraries
 * themselves (seen: tracecmd_close() on a file that tracecmd_open()
 * gives up on): only a fault in our own code is a finding here.
 */
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "fuzz_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RUN_LIMIT_MS 500

static char path[64];
static int memfd = -1;
static sigjmp_buf escape;
static volatile sig_atomic_t running;
static timer_t timer;

/* the code of libtracecmd and libtraceevent, found once at the start */
static struct {
	uintptr_t lo, hi;
} libs[8];
static int nlibs;

static int find_libs(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!strstr(info->dlpi_name, "libtracecmd") &&
	    !strstr(info->dlpi_name, "libtraceevent"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nlibs < 8; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		libs[nlibs].lo = info->dlpi_addr + ph->p_vaddr;
		libs[nlibs].hi = libs[nlibs].lo + ph->p_memsz;
		nlibs++;
	}
	return 0;
}

/* was the signal taken in the trace libraries' own code? */
static int in_libs(void *uc_)
{
	ucontext_t *uc = uc_;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	for (int i = 0; i < nlibs; i++)
		if (pc >= libs[i].lo && pc < libs[i].hi)
			return 1;
	return 0;
}

/*
 * Over time: leave the run, but only from the libraries' code (their
 * endless loops), never from ours, which may be inside malloc or half-way
 * through an update; the timer ticks again until then.
 */
static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	if (running && in_libs(uc))
		siglongjmp(escape, 1);
}

/* a fault in libtracecmd or libtraceevent: leave the run */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	if (running && in_libs(uc))
		siglongjmp(escape, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void setup(void)
{
	struct sigevent sev;
	struct sigaction sa;

	memfd = memfd_create("kmapstack-fuzz.dat", 0);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	dl_iterate_phdr(find_libs, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_timer;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGRTMIN + 3, &sa, NULL);
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
	/* then every 10 ms, until the run is in the libraries' code */
	if (ms)
		it.it_interval.tv_nsec = 10 * 1000000;
	timer_settime(timer, 0, &it, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_replay fr;

	if (memfd < 0)
		setup();
	/* only what looks like a trace.dat goes to the libraries */
	if (size < 10 || memcmp(data, "\x17\x08\x44tracing", 10))
		return 0;
	if (ftruncate(memfd, 0) ||
	    pwrite(memfd, data, size, 0) != (ssize_t)size)
		return 0;
	fuzz_replay_begin(&fr);
	fr.info.path = path;
	if (sigsetjmp(escape, 1) == 0) {
		running = 1;
		arm(RUN_LIMIT_MS);
		if (input_tracedat_direct(path, fr.r, &fr.info, fr.err,
					  sizeof(fr.err)) == 0)
			replay_finish(fr.r);
	}
	running = 0;
	arm(0);
	fuzz_replay_end(&fr);
	return 0;
}
