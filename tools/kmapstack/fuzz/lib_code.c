// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack's trace.dat fuzzer: which code is the trace libraries' (see
 * dry_run.h). The executable code of libtracecmd and libtraceevent,
 * and of libc, is found once; a fault is theirs when it is taken in their
 * code, or in a string or memory function (libc's, or ASan's interceptor
 * of it, both lock-free) that their code called: seen, strcmp() on a
 * pointer libtraceevent made from a corrupt event format.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "dry_run.h"

#define MAX_RANGES 16
#define MAX_FRAMES 32

static struct range {
	uintptr_t lo, hi;
	int libs; /* 1: the trace libraries, 0: libc */
} ranges[MAX_RANGES];
static int nranges;

static int find_code(struct dl_phdr_info *info, size_t size, void *data)
{
	int libs = strstr(info->dlpi_name, "libtracecmd") ||
		   strstr(info->dlpi_name, "libtraceevent");

	(void)size;
	(void)data;
	if (!libs && !strstr(info->dlpi_name, "/libc.so"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
		ranges[nranges].hi = ranges[nranges].lo + ph->p_memsz;
		ranges[nranges].libs = libs;
		nranges++;
	}
	return 0;
}

void lib_code_setup(void)
{
	void *frame;

	dl_iterate_phdr(find_code, NULL);
	/* the first backtrace() loads the unwinder: not in a handler */
	backtrace(&frame, 1);
}

/* 1: the trace libraries, 0: libc, -1: neither */
static int code_of(unsigned long pc)
{
	for (int i = 0; i < nranges; i++)
		if (pc >= ranges[i].lo && pc < ranges[i].hi)
			return ranges[i].libs;
	return -1;
}

int lib_code_in_libs(unsigned long pc)
{
	return code_of(pc) == 1;
}

/* ASan's interceptor of a string or memory function (no allocation) */
static int string_interceptor(unsigned long pc)
{
	static const char *const names[] = {
		"strcmp",  "strncmp", "strcasecmp", "strncasecmp", "strlen",
		"strnlen", "strchr",  "strrchr",    "strstr",	   "strspn",
		"strcspn", "strpbrk", "strtok",	    "strtok_r",	   "memcmp",
		"bcmp",	   "memchr",  "memrchr",    "memcpy",	   "memmove",
		"memset",  "strcpy",  "strncpy",    "strcat",	   "strncat",
		"strtol",  "strtoul", "strtoll",    "strtoull",	   "atoi",
		"atol",	   "atoll",
	};
	Dl_info di;
	const char *name;

	if (!dladdr((void *)pc, &di) || !di.dli_sname)
		return 0;
	name = di.dli_sname;
	if (!strncmp(name, "__interceptor_", 14))
		name += 14;
	else if (!strncmp(name, "__asan_", 7))
		name += 7;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

/*
 * A stack overflow faults in whatever function was entered last, often an
 * interceptor (read()): it is theirs when they are among its first callers.
 */
#define OVERFLOW_CALLERS 4

int lib_code_fault_in_libs(unsigned long pc, int overflow)
{
	void *frames[MAX_FRAMES];
	int n, i, k;

	if (lib_code_in_libs(pc))
		return 1;
	if (!overflow && code_of(pc) != 0 && !string_interceptor(pc))
		return 0;
	/* the faulting frame, then its callers through the signal frame */
	n = backtrace(frames, MAX_FRAMES);
	for (i = 0; i < n && (unsigned long)frames[i] != pc; i++)
		;
	for (i++, k = 0; i < n; i++, k++) {
		unsigned long ret = (unsigned long)frames[i] - 1;
		int code = code_of(ret);

		if (code == 1)
			return 1;
		if (overflow ? k == OVERFLOW_CALLERS :
			       code != 0 && !string_interceptor(ret))
			return 0;
	}
	return 0;
}
