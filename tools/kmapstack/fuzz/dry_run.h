/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack's trace.dat fuzzer: the dry run. libtracecmd and libtraceevent
 * crash, loop, free what they never allocated or read past their buffers
 * on some corrupt files (kmapstack runs them in a child process with a
 * limit of CPU time, tracedat_child.c). After they did, nothing in the
 * process that ran them can be trusted: its heap may be corrupt, and a
 * report in kmapstack's code later may be theirs. So the fuzzer's process
 * never runs them on such an input. Each input is read first in a forked
 * child, the dry run (dry_run.c): a copy of this process at the fork, the
 * same heap, the same memory file, that makes the run this process would
 * make. Only when the child read the input to its end, or failed in
 * kmapstack's own code, is the same run made in this process, where
 * kmapstack's code gets coverage and any fault or ASan report, also of the
 * libraries, is a finding: no run is ever left half-way. An input on which
 * the libraries faulted, made an ASan report (a bad free, a string read
 * past its end through an interceptor) or passed the backstop of CPU time
 * is counted and not read here.
 *
 * What runs depends on the input alone: the libraries do in this process
 * what they did in the child, from the same state; the backstop is far
 * above what a dry run takes, and the longest one is counted. Should a
 * library read what it never wrote and so differ between the two runs, the
 * fault it may make here ends the fuzzer as a finding, never silently.
 */
#ifndef KMS_FUZZ_DRY_RUN_H
#define KMS_FUZZ_DRY_RUN_H

/* how a dry run ended */
enum dry_end {
	DRY_READ, /* to its end (with or without an error) */
	DRY_OURS, /* in kmapstack's code: a finding, to be made here */
	DRY_LIB_FAULT, /* a fault in the libraries' code */
	DRY_LIB_REPORT, /* an ASan report of the libraries: a bad free... */
	DRY_LIB_LOOP, /* past the CPU time backstop, in the libraries */
	DRY_NR,
};

/* the child's exit status: this, then the end (above ASan's and libFuzzer's) */
#define DRY_EXIT_BASE 100

/* once, before the first run */
void dry_run_setup(void);

/*
 * dry_run() - run(arg) in a forked child
 * @cpu_ms: the child's CPU time, in ms
 *
 * Returns how the child ended (enum dry_end).
 */
int dry_run(void (*run)(void *arg), void *arg, long *cpu_ms);

/* the CPU time backstop of a dry run: far above any normal run */
#define DRY_CPU_LIMIT_MS 2000

/* lib_code.c: once, then: is pc in libtracecmd's or libtraceevent's code? */
void lib_code_setup(void);
int lib_code_in_libs(unsigned long pc);
/*
 * a fault at pc: in their code, or in a string function they called, or
 * (overflow: the stack is gone) in any function they just called?
 */
int lib_code_fault_in_libs(unsigned long pc, int overflow);

/*
 * lib_reports.c: once, then in a dry run's child: an ASan report ends the
 * child, as the libraries' (DRY_LIB_REPORT) or ours; in this process,
 * every report is a finding.
 */
void lib_reports_setup(void);
void lib_reports_child(void);

#endif
