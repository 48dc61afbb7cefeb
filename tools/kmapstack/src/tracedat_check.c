// SPDX-License-Identifier: GPL-2.0
/* kmapstack: a trace.dat's sections against its size (tracedat.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracedat.h"

#define SECTION_HEADER 16 /* id 2, flags 2, description 4, size 8 */

/* the file read a block at a time */
struct blocks {
	int fd;
	unsigned long long size, at;
	size_t len;
	unsigned char buf[1 << 16];
};

/* n bytes at off: 0, or -1 past the end of the file */
static int get(struct blocks *b, unsigned long long off, void *to, size_t n)
{
	ssize_t k;

	if (off > b->size || b->size - off < n)
		return -1;
	if (off < b->at || off + n > b->at + b->len) {
		k = pread(b->fd, b->buf, sizeof(b->buf), (off_t)off);
		if (k < (ssize_t)n)
			return -1;
		b->at = off;
		b->len = (size_t)k;
	}
	memcpy(to, b->buf + (off - b->at), n);
	return 0;
}

static unsigned long long num(const unsigned char *p, int n, int big)
{
	unsigned long long v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[big ? i : n - 1 - i];
	return v;
}

/* past the NUL of the string at *off */
static int skip_string(struct blocks *b, unsigned long long *off)
{
	unsigned char c;

	do {
		if (get(b, (*off)++, &c, 1))
			return -1;
	} while (c);
	return 0;
}

int tracedat_check(int fd, unsigned long long size, char *why, size_t whylen)
{
	static struct blocks b;
	unsigned char h[SECTION_HEADER];
	unsigned long long off = 10, len;
	char version[8] = "";
	int big;

	b.fd = fd;
	b.size = size;
	b.at = b.len = 0;
	if (get(&b, off, version, sizeof(version) - 1))
		return 0;
	if (strtol(version, NULL, 10) < 7)
		return 0;
	/* version, endianness 1, long size 1, page size 4, compression 2 */
	if (skip_string(&b, &off) || get(&b, off, h, 1))
		goto truncated;
	big = h[0] != 0;
	off += 6;
	if (skip_string(&b, &off) || skip_string(&b, &off) ||
	    get(&b, off, h, 8))
		goto truncated;
	for (off += 8; off < size; off += SECTION_HEADER + len) {
		if (get(&b, off, h, sizeof(h)))
			return kms_fail(
				why, whylen,
				"truncated or corrupt: %llu bytes of a section header at its end",
				size - off);
		len = num(h + 8, 8, big);
		if (!num(h, 2, big) && !len)
			return kms_fail(
				why, whylen,
				"truncated or corrupt: zeros where a section should be, from byte %llu to its end at %llu",
				off, size);
		if (len > size - off - SECTION_HEADER)
			return kms_fail(
				why, whylen,
				"truncated or corrupt: its section at byte %llu has %llu bytes, past its end at %llu",
				off, len, size);
	}
	return 0;
truncated:
	return kms_fail(
		why, whylen,
		"truncated or corrupt: it ends within its header, at byte %llu",
		size);
}
