// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: libFuzzer target over the trace.dat path, in this process.
 * An input goes where kmapstack sends a trace.dat: the check of its
 * sections against its size (input.h), then libtracecmd and
 * libtraceevent, then the decode and the replay (in this process:
 * kmapstack runs the libraries in a child, tracedat_child.c). It is
 * written to one memory file, made once (written over, then cut to its
 * size: no file system work per run). An input that passes the check is
 * read first in a dry run, a forked copy of this process (dry_run.h), and
 * in this process only when the trace libraries did not fault, make an
 * ASan report or pass the backstop of CPU time there: a fault here, in
 * whatever code, is a finding. At the exit, one line counts how far the
 * runs went.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dry_run.h"
#include "fuzz_replay.h"
#include "tracedat.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];
static int memfd = -1;
static struct stat memfd_st;
static size_t memfd_size;

/* the buffer of the pass, made before the first dry run forks */
static struct wire_bufs *bufs;

/* how far the runs went */
static long runs, dats, refused, opened, ends[DRY_NR], longest_ms;

static void print_counts(void)
{
	fprintf(stderr,
		"fuzz_tracedat: %ld runs: %ld trace.dat, %ld of them refused "
		"by the section check; dry runs: %ld read to the end, %ld "
		"failed in kmapstack's code, %ld ended by a fault of the trace "
		"libraries, %ld by an ASan report of theirs, %ld by the "
		"%d ms CPU time backstop (the longest read to the end took "
		"%ld ms); %ld opened by libtracecmd and replayed in this "
		"process\n",
		runs, dats, refused, ends[DRY_READ], ends[DRY_OURS],
		ends[DRY_LIB_FAULT], ends[DRY_LIB_REPORT], ends[DRY_LIB_LOOP],
		DRY_CPU_LIMIT_MS, longest_ms, opened);
}

static void setup(void)
{
	memfd = memfd_create("kmapstack-fuzz.dat", 0);
	if (memfd < 0 || fstat(memfd, &memfd_st))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	bufs = xmalloc(sizeof(*bufs));
	dry_run_setup();
	atexit(print_counts);
}

/* the pass of tracedat_child.c in this process */
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
	struct in_process ip = { .err = err, .errlen = errlen };
	struct dat_writer w = { .flush = read_now, .priv = &ip };

	/* zeros mapped anew: only the pages written are made, in each run */
	w.pid_sent = mmap(NULL, DAT_PID_BITS / 8, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w.pid_sent == MAP_FAILED)
		abort();
	w.b = bufs;
	w.sites_sent = sites_count();
	*err = 0;
	info->kind = INPUT_TRACEDAT;
	ip.s = dat_stream_new(r, info, 0);
	tracedat_pass(path, info->path, &w, 0);
	munmap(w.pid_sent, DAT_PID_BITS / 8);
	dat_stream_free(ip.s);
	return ip.ret > 0 && !*err ? 0 : -1;
}

/* the pass as the dry run's child makes it: up to the libraries' end */
static void dry(void *arg)
{
	struct fuzz_replay *fr = arg;

	pass_here(path, fr->r, &fr->info, fr->err, sizeof(fr->err));
}

/*
 * The descriptor libtracecmd opened on the memory file is left open when
 * tracecmd_open() fails early (a leak of the library's): close it. It is
 * the lowest one free before the run.
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
	int lowest, end;
	long ms;

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
	end = dry_run(dry, &fr, &ms);
	ends[end]++;
	if (end == DRY_READ && ms > longest_ms)
		longest_ms = ms;
	if (end == DRY_READ || end == DRY_OURS) {
		if (pass_here(path, fr.r, &fr.info, fr.err, sizeof(fr.err)) ==
		    0) {
			opened++;
			replay_finish(fr.r);
		}
		/* the same run failed in the child: a finding, even so */
		if (end == DRY_OURS) {
			fprintf(stderr,
				"fuzz_tracedat: the dry run failed in kmapstack's code, the same run here did not\n");
			abort();
		}
	}
	fuzz_replay_end(&fr);
	if (lowest >= 0)
		close_leaked(lowest);
	return 0;
}
