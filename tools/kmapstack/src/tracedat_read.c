// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: a trace.dat's bytes, numbers and strings for its check
 * (tracedat_read.h), from an open file or from a buffer.
 */
#include <string.h>
#include <unistd.h>

#include "tracedat_read.h"

int dat_get(const struct dat_file *d, unsigned long long off, void *buf,
	    size_t n)
{
	if (off > d->f->size || d->f->size - off < n)
		return -1;
	return d->f->read(d->f->priv, buf, n, off) == n ? 0 : -1;
}

/*
 * libtraceevent swaps the numbers when the file's byte differs from the
 * host's own value (0: little-endian, 1: big-endian)
 */
int dat_big_endian(unsigned char byte)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return byte == 1;
#else
	return byte != 0;
#endif
}

unsigned long long dat_num(const struct dat_file *d, const unsigned char *p,
			   int n)
{
	unsigned long long v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[d->big ? i : n - 1 - i];
	return v;
}

int dat_string(const struct dat_file *d, unsigned long long *off,
	       unsigned long long end, char *copy, size_t copylen)
{
	unsigned char buf[256];
	size_t have = 0;

	if (end > d->f->size)
		end = d->f->size;
	while (*off < end) {
		size_t n = end - *off < sizeof(buf) ? (size_t)(end - *off) :
						      sizeof(buf);
		unsigned char *nul;

		if (dat_get(d, *off, buf, n))
			return -1;
		nul = memchr(buf, 0, n);
		if (copy && have + 1 < copylen) {
			size_t k = nul ? (size_t)(nul - buf) : n;

			if (k > copylen - 1 - have)
				k = copylen - 1 - have;
			memcpy(copy + have, buf, k);
			have += k;
			copy[have] = 0;
		}
		if (nul) {
			*off += (unsigned long long)(nul - buf) + 1;
			return 0;
		}
		*off += n;
	}
	return -1;
}

static size_t read_fd(void *priv, void *buf, size_t n, unsigned long long off)
{
	ssize_t r = pread(*(int *)priv, buf, n, (off_t)off);

	return r > 0 ? (size_t)r : 0;
}

int tracedat_walk_fd(int fd, unsigned long long size, char *why, size_t whylen)
{
	struct walk_file f = { size, read_fd, &fd };

	return tracedat_walk_check(&f, why, whylen);
}

struct mem {
	const unsigned char *p;
	size_t len;
};

static size_t read_mem(void *priv, void *buf, size_t n, unsigned long long off)
{
	const struct mem *m = priv;

	if (off >= m->len)
		return 0;
	if (n > m->len - off)
		n = m->len - (size_t)off;
	memcpy(buf, m->p + off, n);
	return n;
}

int tracedat_walk_buf(const void *buf, size_t len, char *why, size_t whylen)
{
	struct mem m = { buf, len };
	struct walk_file f = { len, read_mem, &m };

	return tracedat_walk_check(&f, why, whylen);
}
