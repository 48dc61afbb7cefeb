// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack's trace.dat fuzzer: ASan's reports (see dry_run.h). In a dry
 * run's child, a report ends the child: as the libraries' when the code
 * that called into ASan is libtracecmd's or libtraceevent's (seen:
 * tracecmd_alloc_fd() frees the compression's name twice when the file
 * ends before the options' offset, tep_free() and tracecmd_close() free
 * pointers of a handle that tracecmd_open_fd() gave up on, strtok_r() on a
 * trace clock option without its NUL), else as kmapstack's. In this
 * process every report is a finding. The fuzzer runs with ASAN_OPTIONS=
 * halt_on_error=0 so that every report comes here, also those of the
 * allocator and of the interceptors, after which ASan would go on.
 *
 * The caller is found on the stack, not in the report's text: ASan keeps
 * its warnings (one per allocation refused above max_allocation_size_mb)
 * in the same 64 KiB buffer until the next report, which then may not fit.
 * ASan is entered through functions that this executable exports (free(),
 * an interceptor, __asan_report_load8()...), kmapstack's are not exported:
 * the caller is the first frame after the innermost exported ones.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>

#include <sanitizer/asan_interface.h>

#include "dry_run.h"

#define MAX_FRAMES 64

static int in_child;
static void *exe_base;

/* is the return address ret in a function this executable exports? */
static int asan_entry(void *ret)
{
	const ElfW(Sym) *sym = NULL;
	uintptr_t pc = (uintptr_t)ret - 1;
	Dl_info di;

	if (!dladdr1((void *)pc, &di, (void **)&sym, RTLD_DL_SYMENT) ||
	    di.dli_fbase != exe_base || !sym || !di.dli_saddr)
		return 0;
	return pc >= (uintptr_t)di.dli_saddr &&
	       pc < (uintptr_t)di.dli_saddr + sym->st_size;
}

/* the code that entered ASan: the libraries'? */
static int reported_by_libs(void)
{
	void *frames[MAX_FRAMES];
	int n = backtrace(frames, MAX_FRAMES), i = 0;

	/* past backtrace() (ASan's interceptor) and this callback */
	while (i < n && asan_entry(frames[i]))
		i++;
	while (i < n && !asan_entry(frames[i]))
		i++;
	while (i < n && asan_entry(frames[i]))
		i++;
	return i < n && lib_code_in_libs((unsigned long)frames[i] - 1);
}

static void on_report(const char *report)
{
	(void)report;
	if (!in_child)
		abort(); /* a finding, even under halt_on_error=0 */
	_exit(DRY_EXIT_BASE + (reported_by_libs() ? DRY_LIB_REPORT : DRY_OURS));
}

void lib_reports_setup(void)
{
	Dl_info di;

	if (!dladdr((void *)lib_reports_setup, &di))
		abort();
	exe_base = di.dli_fbase;
	__asan_set_error_report_callback(on_report);
}

void lib_reports_child(void)
{
	in_child = 1;
}
