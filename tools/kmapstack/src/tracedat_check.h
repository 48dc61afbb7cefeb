/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the sections of a trace.dat checked against the file's size
 * before the trace libraries read it. In a version 7 file (trace-cmd.dat(5))
 * the sections follow the file header one after the other up to the end
 * of the file; a file cut short has a section that ends past its end, and
 * a file whose tail was never written (zeros) has a section header of
 * zeros, which libtracecmd would read 16 bytes at a time to the end.
 */
#ifndef KMS_TRACEDAT_CHECK_H
#define KMS_TRACEDAT_CHECK_H

#include <stddef.h>

/*
 * tracedat_check() - do the sections of the file at fd fit in its size?
 * @why: the reason of a refusal, one line without the file's name
 *
 * A file of another version passes. Returns 0, or -1 when it is refused.
 */
int tracedat_check(int fd, unsigned long long size, char *why, size_t whylen);

#endif
