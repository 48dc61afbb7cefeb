// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the walks libtracecmd (1.3, trace-input.c) takes over a
 * version 7 trace.dat when it opens it, taken here over the headers alone
 * (see tracedat_walk.h):
 *
 * - the section walk (read_metadata_strings()): from the end of the file
 *   header, a 16-byte section header (id 2, flags 2, description 4,
 *   size 8), then lseek(size, SEEK_CUR), until a header cannot be read or
 *   the seek fails; the strings section is read, not skipped;
 * - the options walk (handle_options()): from the offset in the file
 *   header, a section header of id 0, then options (id 2, size 4, data)
 *   until the option of id 0, whose first 8 bytes are the offset of the
 *   next options section (0: the last), read in a recursive call.
 *
 * Both are followed step by step and a cycle is found with Brent's
 * algorithm (no memory of the offsets seen, whatever the file's size).
 * Each option the options walk passes is checked (tracedat_option.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracedat_read.h"

#define SECTIONS_VERSION 7
/* each is a recursive call of libtracecmd's, on the stack */
#define MAX_OPTION_SECTIONS 4096

enum step { STEP_NEXT, STEP_END, STEP_BAD };

struct walk {
	struct dat_file d;
	unsigned long long size; /* of the file */
	unsigned long long strings; /* bytes of strings read so far */
	/* a strings section that made them more than the file, or 0 */
	unsigned long long too_much_at;
	int again; /* a step taken a second time: count nothing */
	int walked; /* steps taken */
	char *why; /* the reason of a STEP_BAD */
	size_t whylen;
};

/* the next offset as an lseek() from off by the signed delta, or -1 */
static long long seek(unsigned long long off, unsigned long long delta)
{
	unsigned long long to = off + delta;

	/* the kernel refuses a result below 0 (or, in its sum, past max) */
	if ((long long)off < 0 || (long long)to < 0)
		return -1;
	if ((long long)delta >= 0 && to < off)
		return -1;
	return (long long)to;
}

/* one step of the section walk from the header at p */
static enum step section_step(struct walk *w, unsigned long long p,
			      unsigned long long *next)
{
	unsigned char h[SECTION_HEADER], b[8];
	unsigned long long id, flags, size, data = p + SECTION_HEADER;
	long long to;

	if (dat_get(&w->d, p, h, sizeof(h)))
		return STEP_END;
	id = dat_num(&w->d, h, 2);
	flags = dat_num(&w->d, h + 2, 2);
	size = dat_num(&w->d, h + 8, 8);
	if (id != OPTION_STRINGS) {
		to = seek(data, size);
		if (to < 0)
			return STEP_END;
		*next = (unsigned long long)to;
		return STEP_NEXT;
	}
	if ((flags & SECTION_COMPRESSED) && w->d.compressed) {
		/* a compressed block: its size, its size uncompressed, data */
		if (dat_get(&w->d, data, b, 8))
			return STEP_END;
		size = dat_num(&w->d, b, 4);
		if (size > INT_MAX || w->size - data - 8 < size)
			return STEP_END;
		*next = data + 8 + size;
		return STEP_NEXT;
	}
	if (flags & SECTION_COMPRESSED) {
		/* no compression: the size is read from the data */
		if (dat_get(&w->d, data, b, 8))
			goto bad;
		size = dat_num(&w->d, b + 4, 4);
	}
	/* libtracecmd's int: the low 32 bits */
	size &= 0xffffffffULL;
	if (size > INT_MAX || w->size - data < size)
		goto bad;
	/* libtracecmd keeps them all in one allocation */
	if (!w->again) {
		w->strings += size;
		if (w->strings > w->size && !w->too_much_at)
			w->too_much_at = p;
	}
	*next = data + size;
	return STEP_NEXT;
bad:
	snprintf(w->why, w->whylen,
		 "the strings section at offset %llu is larger than the file",
		 p);
	return STEP_BAD;
}

/* one step of the options walk from the options section at p */
static enum step options_step(struct walk *w, unsigned long long p,
			      unsigned long long *next)
{
	unsigned char h[SECTION_HEADER], o[OPTION_HEADER], b[8];
	unsigned long long at = p + SECTION_HEADER, size;

	if (dat_get(&w->d, p, h, sizeof(h)) ||
	    dat_num(&w->d, h, 2) != OPTION_DONE)
		return STEP_END;
	/* compressed options cannot be followed here: libtracecmd may */
	if ((dat_num(&w->d, h + 2, 2) & SECTION_COMPRESSED) && w->d.compressed)
		return STEP_END;
	for (;;) {
		if (dat_get(&w->d, at, o, sizeof(o)))
			return STEP_END;
		size = dat_num(&w->d, o + 2, 4);
		at += OPTION_HEADER;
		if (w->size - at < size)
			return STEP_END;
		if (dat_num(&w->d, o, 2) == OPTION_DONE)
			break;
		if (tracedat_check_option(&w->d, dat_num(&w->d, o, 2), at, size,
					  w->why, w->whylen))
			return STEP_BAD;
		at += size;
	}
	if (size < 8 || dat_get(&w->d, at, b, 8))
		return STEP_END;
	*next = dat_num(&w->d, b, 8);
	if (!*next || (long long)*next < 0)
		return STEP_END;
	return STEP_NEXT;
}

typedef enum step (*step_fn)(struct walk *w, unsigned long long p,
			     unsigned long long *next);

/*
 * walk() - follow step from x0 until it ends
 * @w:     the walk; w->walked counts the steps
 * @step:  the step
 * @x0:    the first offset
 * @limit: at most this many steps (0: no limit)
 * @back:  where a cycle starts, the offset the walk comes back to
 *
 * Brent's algorithm: the hare takes the steps in the order libtracecmd
 * takes them; the tortoise waits at each power of two. Returns STEP_END
 * when the walk ends, STEP_BAD on a header refused by the step, and
 * STEP_NEXT on a cycle or after the limit (w->walked tells which).
 */
static enum step walk(struct walk *w, step_fn step, unsigned long long x0,
		      int limit, unsigned long long *back)
{
	unsigned long long tortoise = x0, hare = x0, a, b;
	long long power = 1, lam = 0;
	enum step s;

	w->walked = 0;
	for (;;) {
		s = step(w, hare, &hare);
		if (s != STEP_NEXT)
			return s;
		w->walked++;
		lam++;
		if (hare == tortoise)
			break;
		if (limit && w->walked > limit)
			return STEP_NEXT;
		if (lam == power) {
			tortoise = hare;
			power *= 2;
			lam = 0;
		}
	}
	/* a cycle of lam steps: it starts where two lam steps apart meet */
	w->again = 1;
	a = b = x0;
	for (long long i = 0; i < lam; i++)
		step(w, b, &b);
	while (a != b) {
		step(w, a, &a);
		step(w, b, &b);
	}
	w->again = 0;
	*back = a;
	w->walked = -1;
	return STEP_NEXT;
}

int tracedat_walk_check(const struct walk_file *f, char *why, size_t whylen)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r',
						 'a',  'c',  'i',  'n', 'g' };
	struct walk w = {
		.d.f = f, .size = f->size, .why = why, .whylen = whylen
	};
	unsigned char buf[16];
	char version[64], zname[8];
	unsigned long long off = sizeof(magic), start, back = 0;
	enum step s;

	if (dat_get(&w.d, 0, buf, sizeof(magic)) ||
	    memcmp(buf, magic, sizeof(magic)))
		return 0;
	if (dat_string(&w.d, &off, f->size, version, sizeof(version)) ||
	    strtol(version, NULL, 10) != SECTIONS_VERSION)
		return 0;
	/*
	 * endianness, long size, page size, the compression's name and
	 * version, the offset of the options: libtracecmd frees the two
	 * strings twice when the file ends before that offset
	 */
	if (dat_get(&w.d, off, buf, 6))
		goto truncated;
	w.d.big = dat_big_endian(buf[0]);
	off += 6;
	if (dat_string(&w.d, &off, f->size, zname, sizeof(zname)) ||
	    dat_string(&w.d, &off, f->size, NULL, 0) ||
	    dat_get(&w.d, off, buf, 8))
		goto truncated;
	w.d.compressed = strcmp(zname, "none") != 0;
	start = dat_num(&w.d, buf, 8);
	off += 8;

	s = walk(&w, section_step, off, 0, &back);
	if (s == STEP_BAD)
		return -1;
	if (s == STEP_NEXT) {
		snprintf(why, whylen,
			 "its section headers lead back to offset %llu, "
			 "the trace-cmd library would read them for ever",
			 back);
		return -1;
	}
	if (w.too_much_at) {
		snprintf(why, whylen,
			 "its strings sections are larger than the file "
			 "(the one at offset %llu)",
			 w.too_much_at);
		return -1;
	}
	s = walk(&w, options_step, start, MAX_OPTION_SECTIONS, &back);
	if (s == STEP_BAD)
		return -1;
	if (s == STEP_NEXT && w.walked < 0) {
		snprintf(why, whylen,
			 "its options sections lead back to offset %llu, "
			 "the trace-cmd library would read them for ever",
			 back);
		return -1;
	}
	if (s == STEP_NEXT) {
		snprintf(why, whylen, "more than %d options sections",
			 MAX_OPTION_SECTIONS);
		return -1;
	}
	return 0;
truncated:
	snprintf(why, whylen, "it ends within its header, at byte %llu",
		 f->size);
	return -1;
}
