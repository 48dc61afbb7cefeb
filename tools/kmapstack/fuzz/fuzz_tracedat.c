// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: libFuzzer target over the trace.dat path, in this process.
 * An input goes where kmapstack sends a trace.dat: the check of its
 * sections against its size (input.h), then libtracecmd and
 * libtraceevent, then the decode and the replay (in this process: kmapstack
 * runs the libraries in a child, tracedat_child.c). It is written to one memory file, made once
 * (written over, then cut to its size: no file system work per run). The
 * trace libraries' own crashes, endless loops and bad frees end a run but
 * are no findings (lib_escape.h); only a fault in kmapstack's code is.
 * At the exit, one line counts how far the runs went.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_replay.h"
#include "lib_escape.h"
#include "tracedat.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A run of the libraries is left after this much CPU time: a normal one
 * takes about 1 ms (20 at most, seen); libtraceevent's kbuffer returns an
 * event of a zero length word for ever (tracedat_stall.h).
 */
#define RUN_LIMIT_MS 25

static char path[64];
static int memfd = -1;
static struct stat memfd_st;
static size_t memfd_size;

/* how far the runs went */
static long runs, dats, refused, opened;

static void print_counts(void)
{
	fprintf(stderr,
		"fuzz_tracedat: %ld runs: %ld trace.dat, %ld of them refused "
		"by the section check, %ld opened by libtracecmd and "
		"replayed; %ld left on the time limit, %ld on a fault of the "
		"trace libraries, %ld bad frees of theirs\n",
		runs, dats, refused, opened, lib_escape_timeouts,
		lib_escape_faults, lib_reports_forgiven);
}

static void setup(void)
{
	memfd = memfd_create("kmapstack-fuzz.dat", 0);
	if (memfd < 0 || fstat(memfd, &memfd_st))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	lib_escape_setup();
	lib_reports_setup();
	atexit(print_counts);
}

/* the pass of tracedat_child.c in this process, unprotected */
struct in_process {
	struct dat_stream *s;
	int ret;
	char *err;
	size_t errlen;
};

static void read_now(struct dat_writer *w)
{
	struct in_process *ip = w->priv;

	if (!ip->ret)
		ip->ret = dat_stream_buffer(ip->s, w->b->buf[0], w->n, ip->err,
					    ip->errlen);
	w->n = 0;
}

static int pass_here(const char *path, struct replay *r,
		     struct input_info *info, char *err, size_t errlen)
{
	static struct wire_bufs *b;
	static unsigned char *pid_sent;
	struct in_process ip = { .err = err, .errlen = errlen };
	struct dat_writer w = { .flush = read_now, .priv = &ip };

	if (!b) {
		b = xmalloc(sizeof(*b));
		pid_sent = xmalloc(DAT_PID_BITS / 8);
	}
	memset(pid_sent, 0, DAT_PID_BITS / 8);
	w.b = b;
	w.pid_sent = pid_sent;
	w.sites_sent = sites_count();
	*err = 0;
	info->kind = INPUT_TRACEDAT;
	ip.s = dat_stream_new(r, info, 0);
	tracedat_pass(path, info->path, &w, 0);
	dat_stream_free(ip.s);
	return ip.ret > 0 && !*err ? 0 : -1;
}

/*
 * The descriptor libtracecmd opened on the memory file is left open when
 * tracecmd_open() fails early (a leak of the library's) or when the run
 * was left: close it. It is the lowest one free before the run.
 */
static void close_leaked(int fd)
{
	struct stat st;

	if (fd != memfd && !fstat(fd, &st) && st.st_dev == memfd_st.st_dev &&
	    st.st_ino == memfd_st.st_ino)
		close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_replay fr;
	char why[256];
	int lowest;

	if (memfd < 0)
		setup();
	runs++;
	/* only what looks like a trace.dat goes to the libraries */
	if (size < 10 || memcmp(data, "\x17\x08\x44tracing", 10))
		return 0;
	dats++;
	/* written over, then cut to the size if it was larger */
	if (pwrite(memfd, data, size, 0) != (ssize_t)size ||
	    (size < memfd_size && ftruncate(memfd, (off_t)size)))
		return 0;
	memfd_size = size;
	if (tracedat_check(memfd, size, why, sizeof(why))) {
		refused++;
		return 0;
	}
	lowest = dup(memfd);
	if (lowest >= 0)
		close(lowest);
	fuzz_replay_begin(&fr);
	fr.info.path = path;
	if (sigsetjmp(lib_escape_point, 1) == 0) {
		lib_escape_arm(RUN_LIMIT_MS);
		if (pass_here(path, fr.r, &fr.info, fr.err, sizeof(fr.err)) ==
		    0) {
			lib_escape_arm(0);
			opened++;
			replay_finish(fr.r);
		}
	}
	lib_escape_arm(0);
	fuzz_replay_end(&fr);
	if (lowest >= 0)
		close_leaked(lowest);
	return 0;
}
