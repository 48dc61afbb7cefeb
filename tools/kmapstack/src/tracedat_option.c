// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the values of a trace.dat's options that libtracecmd (1.3,
 * trace-input.c) writes outside its buffers on, crashes on when it gives
 * up, or loops over for long (see tracedat_read.h):
 *
 * - a CPU count, or a buffer's CPU, beyond any kernel's: libtracecmd loops
 *   over every CPU per record and when it closes the file;
 * - the data of a CPU of the top buffer past the end of the file: it
 *   gives up and closes the file with the CPUs' lists not made (a crash or
 *   a free of what it never allocated);
 * - an empty cpustat option: it writes the byte before its buffer;
 * - a trace clock option without its NUL: strtok_r() writes past it;
 * - a guest CPU below 0: it writes before its array;
 * - a kallsyms, printk or cmdlines section larger than the file: it
 *   allocates the size plus one, which wraps to nothing at the largest
 *   size, and reads the rest of the file into it.
 */
#include <stdio.h>

#include "tracedat_read.h"

/* CPUs a file may name: the kernel's NR_CPUS is at most 8192 */
#define MAX_CPUS 65536

/* the data of a buffer option: offset 8, name, clock, page size 4, count 4 */
static int check_buffer(const struct dat_file *d, unsigned long long at,
			unsigned long long size, char *why, size_t whylen)
{
	unsigned long long end = at + size, off = at + 8, n, cpu, data, len;
	unsigned char b[20];
	/* an empty name: the top buffer, the one libtracecmd opens */
	int top = size > 8 && !dat_get(d, off, b, 1) && !b[0];

	if (size < 8 || dat_string(d, &off, end, NULL, 0) ||
	    dat_string(d, &off, end, NULL, 0) || end - off < 8 ||
	    dat_get(d, off + 4, b, 4))
		return 0;
	n = dat_num(d, b, 4);
	if (n > MAX_CPUS) {
		snprintf(why, whylen, "a buffer of %llu CPUs", n);
		return -1;
	}
	/* then per CPU: its number 4, the offset 8 and size 8 of its data */
	off += 8;
	for (unsigned long long i = 0; i < n && end - off >= 20; i++) {
		if (dat_get(d, off, b, 20))
			return 0;
		cpu = dat_num(d, b, 4);
		data = dat_num(d, b + 4, 8);
		len = dat_num(d, b + 12, 8);
		if (cpu >= MAX_CPUS) {
			snprintf(why, whylen, "CPU %llu in a buffer", cpu);
			return -1;
		}
		/* libtracecmd's sum, which may wrap */
		if (top && len && data + len > d->f->size) {
			snprintf(why, whylen,
				 "the data of CPU %llu end at byte %llu, past "
				 "the end of the file",
				 cpu, data + len);
			return -1;
		}
		off += 20;
	}
	return 0;
}

/* the data of a guest option: name, trace id 8, count 4, (CPU 4, pid 4)s */
static int check_guest(const struct dat_file *d, unsigned long long at,
		       unsigned long long size, char *why, size_t whylen)
{
	unsigned long long end = at + size, off = at, n;
	unsigned char b[8];

	if (dat_string(d, &off, end, NULL, 0)) {
		snprintf(why, whylen, "a guest option without its name's end");
		return -1;
	}
	off += 8;
	if (off > end || end - off < 4 || dat_get(d, off, b, 4))
		return 0;
	n = dat_num(d, b, 4);
	off += 4;
	for (unsigned long long i = 0; i < n && end - off >= 8; i++) {
		if (dat_get(d, off, b, 4))
			return 0;
		if (dat_num(d, b, 4) & 0x80000000ULL) {
			snprintf(why, whylen, "a guest CPU below 0");
			return -1;
		}
		off += 8;
	}
	return 0;
}

/* the section an option points to: its size, 4 or 8 bytes, then data */
static int check_section(const struct dat_file *d, unsigned long long id,
			 unsigned long long at, unsigned long long size,
			 char *why, size_t whylen)
{
	static const char *const names[] = { "kallsyms", "printk", "cmdlines" };
	unsigned char b[SECTION_HEADER];
	unsigned long long sec, data, n;
	int width = id == OPTION_CMDLINES ? 8 : 4;

	if (size < 8 || dat_get(d, at, b, 8))
		return 0;
	sec = dat_num(d, b, 8);
	/* libtracecmd reads it only if the header has the option's id */
	if (sec > d->f->size || dat_get(d, sec, b, SECTION_HEADER) ||
	    dat_num(d, b, 2) != id)
		return 0;
	/* compressed data cannot be seen here */
	if ((dat_num(d, b + 2, 2) & SECTION_COMPRESSED) && d->compressed)
		return 0;
	data = sec + SECTION_HEADER;
	if (dat_get(d, data, b, (size_t)width))
		return 0;
	n = dat_num(d, b, width);
	if (n > d->f->size - data - (unsigned long long)width) {
		snprintf(why, whylen,
			 "its %s section at offset %llu gives %llu bytes, "
			 "more than the file has",
			 names[id - OPTION_KALLSYMS], sec, n);
		return -1;
	}
	return 0;
}

static int check_one(const struct dat_file *d, unsigned long long id,
		     unsigned long long at, unsigned long long size, char *why,
		     size_t whylen)
{
	unsigned long long n, off = at;
	unsigned char b[4];

	switch (id) {
	case OPTION_BUFFER:
		return check_buffer(d, at, size, why, whylen);
	case OPTION_GUEST:
		return check_guest(d, at, size, why, whylen);
	case OPTION_KALLSYMS:
	case OPTION_PRINTK:
	case OPTION_CMDLINES:
		return check_section(d, id, at, size, why, whylen);
	case OPTION_CPUSTAT:
		if (size)
			return 0;
		snprintf(why, whylen, "an empty cpustat option");
		return -1;
	case OPTION_TRACECLOCK:
		if (!dat_string(d, &off, at + size, NULL, 0))
			return 0;
		snprintf(why, whylen, "a trace clock option without its end");
		return -1;
	case OPTION_CPUCOUNT:
		/* libtracecmd reads 4 bytes whatever the size */
		if (size < 4 || dat_get(d, at, b, 4)) {
			snprintf(why, whylen, "a CPU count of %llu bytes",
				 size);
			return -1;
		}
		n = dat_num(d, b, 4);
		if (n <= MAX_CPUS)
			return 0;
		snprintf(why, whylen, "a CPU count of %llu", n);
		return -1;
	}
	return 0;
}

int tracedat_check_option(const struct dat_file *d, unsigned long long id,
			  unsigned long long at, unsigned long long size,
			  char *why, size_t whylen)
{
	char what[160];

	if (!check_one(d, id, at, size, what, sizeof(what)))
		return 0;
	snprintf(why, whylen, "%s, in the option at offset %llu", what,
		 at - OPTION_HEADER);
	return -1;
}
