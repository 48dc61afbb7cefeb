/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack's trace.dat fuzzer: the trace libraries' own faults are no
 * findings. libtracecmd and libtraceevent crash, loop or free what they
 * never allocated on some corrupt files (kmapstack runs them in a child
 * process with a limit of CPU time, tracedat_child.c); in the fuzzer, a run
 * leaves them through lib_escape.c (a time limit and a fault handler that
 * act only while the libraries' own code runs, as lib_code.c tells), and
 * ASan's reports of their bad frees let the run go on (lib_reports.c).
 */
#ifndef KMS_FUZZ_LIB_ESCAPE_H
#define KMS_FUZZ_LIB_ESCAPE_H

#include <setjmp.h>

/* the point a run leaves to, set by sigsetjmp() before the run */
extern sigjmp_buf lib_escape_point;

/* once, before the first run */
void lib_escape_setup(void);

/*
 * lib_escape_arm() - a run starts (ms > 0) or ends (ms == 0)
 * @ms: the run's limit in milliseconds of the process's CPU time
 *
 * While armed, a fault in the libraries' code, or the time limit passed
 * while it runs, jumps to lib_escape_point.
 */
void lib_escape_arm(long ms);

/* runs left by the time limit and by a fault, so far */
extern long lib_escape_timeouts, lib_escape_faults;

/* lib_code.c: once, then: is pc in libtracecmd's or libtraceevent's code? */
void lib_code_setup(void);
int lib_code_in_libs(unsigned long pc);
/*
 * a fault at pc: in their code, or in a string function they called, or
 * (overflow: the stack is gone) in any function they just called?
 */
int lib_code_fault_in_libs(unsigned long pc, int overflow);

/* once: ASan reports of the libraries' bad frees end no run */
void lib_reports_setup(void);

/* those reports so far */
extern long lib_reports_forgiven;

#endif
