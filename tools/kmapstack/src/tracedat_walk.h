/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: a check of a trace.dat's headers before the trace libraries
 * read it. When libtracecmd (1.3) opens a version 7 file, it walks the
 * sections by the size each header gives, and the options sections by the
 * offset each gives of the next one; a corrupt size or offset that leads
 * back makes that walk endless (the sections) or recurse until the stack
 * is gone (the options). tracedat_walk_check() takes the same steps over
 * the headers alone and refuses such a file; also one that libtracecmd
 * would corrupt its memory on or crash on before the first record, or
 * loop over for long: the header cut short (a double free), a strings
 * section larger than the file (how it walks on from there depends on
 * whether its allocation fails), and the options of tracedat_option.c.
 */
#ifndef KMS_TRACEDAT_WALK_H
#define KMS_TRACEDAT_WALK_H

#include <stddef.h>

/* a file to check: its size and how to read it */
struct walk_file {
	unsigned long long size;
	/* up to n bytes at off into buf: the count read, short at the end */
	size_t (*read)(void *priv, void *buf, size_t n, unsigned long long off);
	void *priv;
};

/*
 * tracedat_walk_check() - would libtracecmd's walks over @f end?
 * @f:      the file
 * @why:    the reason of a refusal, one line without the file's name
 * @whylen: its size
 *
 * A file that is no version 7 trace.dat, or whose headers end before the
 * walks (libtracecmd refuses those itself), passes. Returns 0, or -1 when
 * the file is refused.
 */
int tracedat_walk_check(const struct walk_file *f, char *why, size_t whylen);

/* the same, on an open file (read with pread) and on a buffer */
int tracedat_walk_fd(int fd, unsigned long long size, char *why, size_t whylen);
int tracedat_walk_buf(const void *buf, size_t len, char *why, size_t whylen);

#endif
