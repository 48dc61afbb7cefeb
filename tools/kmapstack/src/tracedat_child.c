// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the pass over a trace.dat (tracedat.h) in a child process:
 * libtracecmd and libtraceevent do not survive every corrupt file (they
 * crash, free what they never allocated, or loop for ever on some). The
 * child has a limit of CPU time, a generous one for the file's size; when
 * it dies before the end of its pass, the error says how.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sites.h"
#include "tracedat.h"
#include "xalloc.h"

/*
 * The child's CPU time at most: libtracecmd reads hundreds of MB a second,
 * so this is many times what a good file takes on a slow machine
 */
#define CPU_LIMIT_BASE 10
#define CPU_LIMIT_BYTES_PER_S (4ULL << 20)

/* the child's side: the pipe to say a buffer is full, the one back */
struct handover {
	int full_fd, free_fd;
	int nfree; /* the buffer not being filled is free */
};

static void hand_over(struct dat_writer *w)
{
	struct handover *h = w->priv;
	struct wire_full f = { (uint32_t)w->cur, (uint32_t)w->n };
	char c;

	/* a write of a few bytes to a pipe is whole or nothing */
	if (write(h->full_fd, &f, sizeof(f)) != sizeof(f))
		_exit(3); /* the parent is gone */
	w->cur ^= 1;
	w->n = 0;
	if (!h->nfree) {
		if (read(h->free_fd, &c, 1) != 1)
			_exit(3);
		h->nfree++;
	}
	h->nfree--;
}

static void child(int full_fd, int free_fd, struct wire_bufs *b,
		  struct input_src *src, struct input_info *info)
{
	struct handover h = { full_fd, free_fd, 1 };
	struct dat_writer w = { .b = b, .flush = hand_over, .priv = &h };
	rlim_t cpu = CPU_LIMIT_BASE + src->size / CPU_LIMIT_BYTES_PER_S;
	struct rlimit rl = { cpu, cpu + 1 }, no_core = { 0, 0 };

	setrlimit(RLIMIT_CPU, &rl);
	/* its death on a corrupt file is expected: no core dump of it */
	setrlimit(RLIMIT_CORE, &no_core);
	/* its death is the report, also where a sanitizer handles faults */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	w.sites_sent = sites_count();
	w.pid_sent = xcalloc(DAT_PID_BITS / 8, 1);
	tracedat_pass(src->path, info->path, &w, 1);
	_exit(0);
}

/* why the pass failed: the child wrote a malformed stream, or died */
static void failed(int ended, int status, struct input_src *src,
		   const char *path, char *err, size_t errlen)
{
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	char how[128];

	if (ended == -1)
		snprintf(how, sizeof(how),
			 "the process reading it wrote a malformed stream");
	else if (sig == SIGXCPU || sig == SIGKILL)
		snprintf(
			how, sizeof(how),
			"libtracecmd did not end its pass within %llu s of CPU time",
			CPU_LIMIT_BASE + src->size / CPU_LIMIT_BYTES_PER_S);
	else if (sig)
		snprintf(
			how, sizeof(how),
			"the process reading it through libtracecmd died of signal %d, %s",
			sig, strsignal(sig));
	else
		snprintf(
			how, sizeof(how),
			"the process reading it through libtracecmd exited with status %d before its end",
			WEXITSTATUS(status));
	snprintf(err, errlen,
		 "%s: cannot read this trace.dat (truncated or corrupt: %s)",
		 path, how);
}

int input_tracedat(struct input_src *src, struct replay *r,
		   struct input_info *info, char *err, size_t errlen)
{
	struct wire_bufs *b;
	struct dat_stream *s;
	/* (pipe2() leaves them as they are when it fails) */
	int full[2] = { -1, -1 }, back[2] = { -1, -1 }, status = 0, ended = -2;
	pid_t pid = -1;

	info->kind = INPUT_TRACEDAT;
	*err = 0;
	b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return kms_fail(err, errlen, "%s: mmap: %s", info->path,
				strerror(errno));
	if (pipe2(full, O_CLOEXEC) || pipe2(back, O_CLOEXEC)) {
		snprintf(err, errlen, "%s: pipe: %s", info->path,
			 strerror(errno));
	} else {
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			close(full[0]);
			close(back[1]);
			child(full[1], back[0], b, src, info);
		}
		if (pid < 0)
			snprintf(err, errlen, "%s: fork: %s", info->path,
				 strerror(errno));
	}
	close(full[1]);
	close(back[0]);
	if (pid > 0) {
		s = dat_stream_new(r, info, src->size);
		ended = dat_stream_run(s, b, full[0], back[1], err, errlen);
		dat_stream_free(s);
	}
	close(full[0]);
	close(back[1]);
	if (pid > 0 && ended <= 0)
		kill(pid, SIGKILL);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	munmap(b, sizeof(*b));
	if (ended == 0 || ended == -1)
		failed(ended, status, src, info->path, err, errlen);
	return ended > 0 && !*err ? 0 : -1;
}
