// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack's trace.dat fuzzer: ASan's reports of the trace libraries'
 * bad frees end no run (seen: tracecmd_alloc_fd() frees the compression's
 * name twice when the file ends before the options' offset, tep_free() and
 * tracecmd_close() free pointers of a handle that tracecmd_open_fd() gave
 * up on). The fuzzer runs with ASAN_OPTIONS=halt_on_error=0: the checks
 * compiled into kmapstack's code still stop the process (it is built
 * without -fsanitize-recover), and a report of the allocator or of an
 * interceptor comes here before ASan goes on. A bad or double free whose
 * caller is libtracecmd or libtraceevent goes on (ASan has freed nothing);
 * any other such report is kmapstack's own and is made fatal here.
 *
 * The caller is found on the stack, not in the report's text: ASan keeps
 * its warnings (one per allocation refused above max_allocation_size_mb)
 * in the same 64 KiB buffer until the next report, which then may not fit.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "lib_escape.h"

#define MAX_FRAMES 32

long lib_reports_forgiven;

/* the frame after free() or realloc() (ASan's): is it in the libraries? */
static int freed_by_libs(void)
{
	void *frames[MAX_FRAMES];
	int n = backtrace(frames, MAX_FRAMES);

	for (int i = 0; i + 1 < n; i++) {
		Dl_info di;

		if (!dladdr(frames[i], &di) || !di.dli_saddr)
			continue;
		if (di.dli_saddr == (void *)free ||
		    di.dli_saddr == (void *)realloc)
			return lib_code_in_libs((unsigned long)frames[i + 1] -
						1);
	}
	return 0;
}

static void on_report(const char *report)
{
	const char *kind = __asan_get_report_description();

	(void)report;
	if (kind &&
	    (!strcmp(kind, "bad-free") || !strcmp(kind, "double-free")) &&
	    freed_by_libs()) {
		lib_reports_forgiven++;
		return;
	}
	/* ours: a finding, even under halt_on_error=0 */
	abort();
}

void lib_reports_setup(void)
{
	__asan_set_error_report_callback(on_report);
}
