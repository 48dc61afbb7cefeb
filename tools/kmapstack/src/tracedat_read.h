/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the parts of the trace.dat check (tracedat_walk.h): the
 * file's bytes, numbers and strings as libtracecmd reads them
 * (tracedat_read.c), and the check of one option (tracedat_option.c).
 */
#ifndef KMS_TRACEDAT_READ_H
#define KMS_TRACEDAT_READ_H

#include <stddef.h>

#include "tracedat_walk.h"

/* trace-cmd.dat(5), version 7: the ids of sections and options */
#define OPTION_DONE 0
#define OPTION_CPUSTAT 2
#define OPTION_BUFFER 3
#define OPTION_TRACECLOCK 4
#define OPTION_CPUCOUNT 8
#define OPTION_GUEST 13
#define OPTION_STRINGS 15
#define OPTION_KALLSYMS 19
#define OPTION_PRINTK 20
#define OPTION_CMDLINES 21
#define SECTION_COMPRESSED 1
#define SECTION_HEADER 16 /* id 2, flags 2, description 4, size 8 */
#define OPTION_HEADER 6 /* id 2, size 4 */

/* the file being checked */
struct dat_file {
	const struct walk_file *f;
	int big; /* the numbers are big-endian */
	int compressed; /* a compression other than "none" */
};

/* n bytes at off, all of them: 0, or -1 past the end of the file */
int dat_get(const struct dat_file *d, unsigned long long off, void *buf,
	    size_t n);
/* the n-byte number at p, in the file's byte order */
unsigned long long dat_num(const struct dat_file *d, const unsigned char *p,
			   int n);
/* the file's byte order from its endianness byte, as libtraceevent reads */
int dat_big_endian(unsigned char byte);
/*
 * dat_string() - past the NUL of the string at *off, looked for before end
 * @copy: its first copylen - 1 bytes, NUL-terminated (NULL: not kept)
 *
 * Returns 0, or -1 when there is no NUL before end or the end of the file.
 */
int dat_string(const struct dat_file *d, unsigned long long *off,
	       unsigned long long end, char *copy, size_t copylen);

/*
 * tracedat_check_option() - values of one option that libtracecmd would
 * write outside its buffers on, or loop over for long
 * @id, @at, @size: the option's id, the offset and size of its data
 *
 * Returns 0, or -1 with the reason in why.
 */
int tracedat_check_option(const struct dat_file *d, unsigned long long id,
			  unsigned long long at, unsigned long long size,
			  char *why, size_t whylen);

#endif
