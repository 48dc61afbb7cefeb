// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: open an input and tell what it is by its first bytes. A
 * trace.dat or perf.data that is not a regular file (a pipe, '-', a
 * process substitution) is copied to an unlinked temporary file first:
 * the trace libraries seek. A regular file on standard input is named by
 * its descriptor's path. A trace.dat's sections are checked (input.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "progress.h"

/* the first bytes of a trace.dat file (trace-cmd.dat(5)) */
static const char tracedat_magic[10] = "\x17\x08\x44tracing";
static const char perf_magic[] = "PERFILE2";

static int kind_of(const unsigned char *buf, size_t n)
{
	if (n >= sizeof(tracedat_magic) &&
	    !memcmp(buf, tracedat_magic, sizeof(tracedat_magic)))
		return INPUT_TRACEDAT;
	if (n >= 8 && !memcmp(buf, perf_magic, 8))
		return INPUT_PERF;
	/* text: no control characters but tab, LF, CR, FF; UTF-8 ok */
	for (size_t i = 0; i < n; i++)
		if (buf[i] < 0x20 && !memchr("\t\n\r\f", buf[i], 4))
			return -1;
	return INPUT_TEXT;
}

static int tmp_fd(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	snprintf(path, sizeof(path), "%s/kmapstack-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* the rest of src->fd after its head to a temporary file, with progress */
static int spool(struct input_src *src, const struct input_info *info,
		 const char *path, char *err, size_t errlen)
{
	static unsigned char buf[1 << 16];
	struct progress prog;
	int fd = tmp_fd();
	ssize_t n;

	progress_start(&prog, info->progress, info->path, 0);
	if (fd < 0 || write_all(fd, src->head, src->nhead))
		goto copy_failed;
	while ((n = read(src->fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (write_all(fd, buf, (size_t)n))
			goto copy_failed;
		src->size += (unsigned long long)n;
		progress_update(&prog, src->size);
	}
	progress_end(&prog);
	input_close(src);
	src->fd = fd;
	src->nhead = 0;
	snprintf(src->path, sizeof(src->path), "/proc/self/fd/%d", fd);
	return 0;
copy_failed:
	snprintf(err, errlen, "%s: cannot copy the input to TMPDIR: %s", path,
		 strerror(errno));
fail:
	progress_end(&prog);
	if (fd >= 0)
		close(fd);
	return -1;
}

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
	if (get(&b, off, version, sizeof(version) - 1) ||
	    strtol(version, NULL, 10) < 7)
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

int input_open(const char *path, const struct input_info *info,
	       struct input_src *src, char *err, size_t errlen)
{
	/* in messages: as the other messages name it ('<stdin>') */
	const char *name = info->path ? info->path : path;
	char why[256];
	struct stat st;
	ssize_t n;

	memset(src, 0, sizeof(*src));
	src->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) :
				      STDIN_FILENO;
	if (src->fd < 0)
		return kms_fail(err, errlen, "%s: %s", name, strerror(errno));
	if (fstat(src->fd, &st) == 0 && S_ISDIR(st.st_mode))
		return kms_fail(err, errlen, "%s: is a directory", name);
	src->regular = S_ISREG(st.st_mode);
	/* a pipe gives what it has: read until the head is full or EOF */
	while (src->nhead < sizeof(src->head)) {
		n = read(src->fd, src->head + src->nhead,
			 sizeof(src->head) - src->nhead);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kms_fail(err, errlen, "%s: %s", name,
					strerror(errno));
		if (n == 0)
			break;
		src->nhead += (size_t)n;
		if (src->regular)
			break;
	}
	if (!src->nhead)
		return kms_fail(err, errlen, "%s: empty file", name);
	src->kind = kind_of(src->head, src->nhead);
	if (src->kind < 0)
		return kms_fail(
			err, errlen,
			"%s: not a trace.dat file nor trace text (unknown format)",
			name);
	src->size = src->regular ? (unsigned long long)st.st_size : src->nhead;
	/*
	 * '-' < FILE: the trace libraries and perf open the file again, by
	 * the path of the descriptor (the name "-" is theirs for a pipe)
	 */
	if (src->regular && src->fd == STDIN_FILENO)
		snprintf(src->path, sizeof(src->path), "/proc/self/fd/%d",
			 STDIN_FILENO);
	else
		snprintf(src->path, sizeof(src->path), "%s", path);
	if (src->kind != INPUT_TEXT && !src->regular &&
	    spool(src, info, name, err, errlen))
		return -1;
	/* a trace.dat cut short or with a tail of zeros */
	if (src->kind == INPUT_TRACEDAT &&
	    tracedat_check(src->fd, src->size, why, sizeof(why)))
		return kms_fail(err, errlen,
				"%s: cannot read this trace.dat (%s)", name,
				why);
	return 0;
}

void input_close(struct input_src *src)
{
	if (src->fd > STDERR_FILENO)
		close(src->fd);
	src->fd = -1;
}

/* see the trace_clock list in Documentation/trace/ftrace.rst */
const char *input_time_unit(const struct input_info *info)
{
	static const struct {
		const char *clock, *unit;
	} units[] = {
		{ "x86-tsc", "cycles" },
		{ "ppc-tb", "ticks" },
		{ "counter", "counts" },
		{ "uptime", "jiffies" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(info->clock, units[i].clock))
			return units[i].unit;
	return "ns";
}
